"""ArviZ export: a PyMC user's calls run on it, in every mode and after a NetCDF round trip;
dims that index; the log-likelihood against scipy; the predictions against their closed form."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from agenteval import Agentic, BayesianMode, FrequentistMode
from agenteval._util import arviz as _arviz
from agenteval.errors import ConfigError
from tests.conftest import DEMO, ragged_suite

az = pytest.importorskip("arviz")
AGENT = "agent-gpt-small"


@pytest.fixture(scope="module")
def runs() -> dict:
    return {method: Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode(method=method),
                                progress=False)
            for method in ("empirical_bayes", "conjugate")}


def _snippet(idata, results) -> None:
    """What a PyMC user types first; every call must run and give the summary's numbers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    post = idata.posterior
    names = [v for v in ("mu", "log_kappa", "task_pass_pow_k", "task_pass_pow_k_all") if v in post]
    table = az.summary(idata, var_names=names, hdi_prob=0.95)
    rows = {r.group: r for r in results.summary().rows}
    draws = post["task_pass_pow_k"].sel(agent=AGENT).values
    assert table.loc[f"task_pass_pow_k[{AGENT}]", "mean"] == pytest.approx(
        rows[AGENT].task_pass_pow_k, abs=max(0.002, 4 * draws.std() / np.sqrt(draws.size)))
    az.plot_forest(idata, var_names=["task_pass_pow_k"], hdi_prob=0.95)
    az.plot_trace(idata, var_names=[v for v in ("mu", "log_kappa") if v in post] or ["share"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # Pareto k warnings are ArviZ's to give
        loo = az.loo(idata)
    assert loo.n_data_points == results.counts.tasks.size and np.isfinite(loo.elpd_loo)
    az.plot_ppc(idata, num_pp_samples=50)
    plt.close("all")
    one = post.sel(agent=AGENT)
    assert one["p_task"].dims == ("chain", "draw", "task_id")
    assert one["share"].dims == ("chain", "draw")


def _check_log_likelihood(idata) -> None:
    """log_likelihood against scipy, from the posterior's own parameters, unit by unit."""
    post, obs = idata.posterior, idata.observed_data
    n = idata.constant_data["n_task"].values
    c = obs["c_task"].values
    ll = idata.log_likelihood["c_task"].values
    for u, (agent, task_id) in enumerate(zip(obs["agent"].values, obs["task_id"].values)):
        if "mu" in post:
            mu = post["mu"].sel(agent=agent).values
            kappa = post["kappa"].sel(agent=agent).values
            want = stats.betabinom.logpmf(c[u], n[u], mu * kappa, (1 - mu) * kappa)
        else:
            p = post["p_task"].sel(agent=agent, task_id=task_id).values
            want = stats.binom.logpmf(c[u], n[u], p)
        np.testing.assert_allclose(ll[..., u], want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("method", ["empirical_bayes", "conjugate"])
def test_a_pymc_users_snippet_runs_and_the_log_likelihood_is_scipys(runs, method) -> None:
    results = runs[method]
    idata = results.to_inference_data()
    assert results.to_inference_data() is idata               # held: a second call costs nothing
    assert {"posterior", "log_likelihood", "posterior_predictive", "observed_data", "prior",
            "constant_data"} <= set(_arviz.groups(idata))
    post = idata.posterior
    # independent draws shown as 4 chains (ArviZ's r_hat / ESS need several)
    total = 4000 if method == "empirical_bayes" else results.settings.mode.mc_samples
    assert (post.sizes["chain"], post.sizes["draw"]) == (4, total // 4)
    assert idata.log_likelihood["c_task"].dims == ("chain", "draw", "task")
    if method == "empirical_bayes":   # every sampled parameter in the posterior
        assert {"mu", "log_kappa", "kappa"} <= set(post.data_vars)
        np.testing.assert_allclose(np.exp(post["log_kappa"].values), post["kappa"].values)
    assert post.attrs["interval"] == "equal-tailed" and post.attrs["ci_level"] == 0.95
    assert post.attrs["level"] == "task"
    _check_log_likelihood(idata)
    _snippet(idata, results)


def test_suite_level_variables_are_the_all_row(runs) -> None:
    results = runs["empirical_bayes"]
    post = results.to_inference_data().posterior
    row = results.summary().rows[0]
    assert row.group == "all"
    for var, want in (("share_all", row.rate), ("task_pass_pow_k_all", row.task_pass_pow_k),
                      ("task_pass_at_k_all", row.task_pass_at_k),
                      ("new_task_pass_pow_k_all", row.new_task_pass_pow_k)):
        x = post[var].values
        assert post[var].dims == ("chain", "draw")
        assert x.mean() == pytest.approx(want, abs=4 * x.std() / np.sqrt(x.size) + 1e-9), var


def test_posterior_predictive_has_the_binomial_mean(runs) -> None:
    """Conjugate: c_rep ~ Binomial(n, p), p ~ Beta(1 + c, 1 + n - c): E[c_rep] = n (1 + c)/(2 + n)."""
    idata = runs["conjugate"].to_inference_data()
    n = idata.constant_data["n_task"].values
    c = idata.observed_data["c_task"].values
    rep = idata.posterior_predictive["c_task"].values.reshape(-1, n.size)
    assert rep.min() >= 0 and np.all(rep.max(axis=0) <= n)
    mean = n * (1 + c) / (2 + n)
    var = n * (1 + c) * (1 + n - c) * (2 + 2 * n) / ((2 + n) ** 2 * (3 + n))   # beta-binomial
    assert np.all(np.abs(rep.mean(axis=0) - mean) < 5 * np.sqrt(var / rep.shape[0]))


def test_compare_pooled_against_independent(runs) -> None:
    pooled = runs["empirical_bayes"].to_inference_data()
    independent = runs["conjugate"].to_inference_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        table = az.compare({"pooled": pooled, "independent": independent})
    assert set(table.index) == {"pooled", "independent"}
    # same data, same units: the pooled fit's effective parameters are far fewer
    assert table.loc["pooled", "p_loo"] < table.loc["independent", "p_loo"]


def test_conversation_level_indexes_by_agent_and_matches_scipy(runs) -> None:
    results = runs["empirical_bayes"]
    idata = results.to_inference_data(level="conversation")
    post = idata.posterior
    assert post.attrs["level"] == "conversation"
    assert post["p_conversation"].dims == ("chain", "draw", "agent", "task_id", "attempt")
    assert "mu" not in post   # this mode pools tasks, not conversations: no second fit mixed in
    held = results.posterior_draws().posterior["p_conversation"].reshape(-1, len(results))
    for i in (0, 17, len(results) - 1):
        m = results[i]
        cell = (post.session_id == m.session_id)
        assert int(cell.sum()) == 1
        draws = post["p_conversation"].where(cell).sum(dim=("agent", "task_id", "attempt"))
        np.testing.assert_array_equal(draws.values.ravel(), held[:, i])
        assert str(post["p_conversation"].where(cell, drop=True).agent.values[0]) == m.assistant_id
    ll = idata.log_likelihood["c_conversation"]
    obs = idata.observed_data
    n = idata.constant_data["n_conversation"].values
    sid = list(obs["conversation"].values)
    for i in (0, 30):
        m = results[i]
        u = sid.index(m.session_id)
        p = held[:, i].reshape(ll.shape[:2])
        np.testing.assert_allclose(ll.values[..., u], stats.binom.logpmf(
            m.correct_interactions, n[u], p), rtol=1e-10)
    assert str(obs["agent"].values[u]) == m.assistant_id
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert az.loo(idata).n_data_points == len(results)


def test_conjugate_draws_follow_the_beta_posterior() -> None:
    results = Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode(
        method="conjugate", mc_samples=20000), progress=False)
    post = results.to_inference_data(level="conversation").posterior
    m = results[5]
    draws = post["p_conversation"].where(post.session_id == m.session_id, drop=True).values.ravel()
    want = stats.beta(1 + m.correct_interactions, 1 + m.total_interactions - m.correct_interactions)
    assert stats.kstest(draws, want.cdf).pvalue > 1e-3


def test_netcdf_reloads_as_the_same_data_and_the_snippet_runs(runs, tmp_path) -> None:
    results = runs["empirical_bayes"]
    for level in ("task", "conversation"):
        idata = results.to_inference_data(level=level)
        path = results.to_netcdf(tmp_path / f"{level}.nc", level=level)
        back = az.from_netcdf(path)
        assert set(_arviz.groups(back)) == set(_arviz.groups(idata))
        for group in _arviz.groups(idata):
            a, b = getattr(idata, group), getattr(back, group)
            assert set(a.data_vars) == set(b.data_vars), group
            assert set(a.coords) == set(b.coords), group
            for var in a.data_vars:
                np.testing.assert_array_equal(a[var].values, b[var].values)
            for coord in a.coords:
                assert a[coord].dims == b[coord].dims
                assert [str(x) for x in a[coord].values.ravel()] == [
                    str(x) for x in b[coord].values.ravel()]
        assert back.posterior.attrs["interval"] == "equal-tailed"
    _snippet(az.from_netcdf(tmp_path / "task.nc"), results)


def test_out_writes_both_levels_and_they_reload(tmp_path) -> None:
    from agenteval.cli import main

    out = tmp_path / "out"
    assert main(["run", str(DEMO), "--k", "3", "--mode", "bayesian", "--out", str(out),
                 "--quiet"]) == 0
    results = Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode(), progress=False)
    task = az.from_netcdf(out / "posterior.nc")
    assert task.posterior.attrs["level"] == "task"
    _snippet(task, results)
    conv = az.from_netcdf(out / "posterior_conversation.nc")
    assert conv.posterior.attrs["level"] == "conversation"
    assert list(conv.observed_data["conversation"].values) == [m.session_id for m in results]
    assert conv.posterior["p_conversation"].sel(agent=AGENT).dims == (
        "chain", "draw", "task_id", "attempt")


def test_ragged_tasks_leave_nan_cells_and_the_data_groups_whole() -> None:
    results = Agentic.run(ragged_suite(), k=2, statistical_mode=BayesianMode(), progress=False)
    idata = results.to_inference_data()
    p = idata.posterior["p_task"]
    assert list(p.task_id.values) == ["t1", "t2", "t3", "t4"]
    assert np.isnan(p.sel(agent="B", task_id="t1")).all()
    assert np.isfinite(p.sel(agent="B", task_id="t4")).all()
    assert idata.observed_data.sizes["task"] == 5
    assert not np.isnan(idata.log_likelihood["c_task"].values).any()
    _check_log_likelihood(idata)


def test_pymc_mode_has_the_samplers_chains_and_the_snippet_runs() -> None:
    pytest.importorskip("pymc")
    mode = BayesianMode(method="hierarchical", draws=150, tune=150, chains=2, rng_seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # few draws: the convergence warning is expected
        results = Agentic.run(str(DEMO), k=3, statistical_mode=mode, progress=False)
        idata = results.to_inference_data()
        post = idata.posterior
        assert (post.sizes["chain"], post.sizes["draw"]) == (2, 150)
        assert {"mu", "log_kappa", "kappa"} <= set(post.data_vars)
        assert "diverging" in idata.sample_stats
        np.testing.assert_allclose(post["log_kappa"].values,
                                   results.task_fit().idata.posterior["log_kappa"].values)
        _check_log_likelihood(idata)
        _snippet(idata, results)
        conv = results.to_inference_data(level="conversation")
        assert {"mu", "log_kappa"} <= set(conv.posterior.data_vars)   # its own fit, by level
        assert conv.posterior.sizes["chain"] == 2


def test_frequentist_results_have_no_posterior() -> None:
    results = Agentic.run(str(DEMO), k=3, statistical_mode=FrequentistMode())
    with pytest.raises(ConfigError, match="Bayesian mode"):
        results.to_inference_data()


def test_a_bad_level_is_one_clear_error(runs) -> None:
    with pytest.raises(ConfigError, match="level must be one of"):
        runs["conjugate"].to_inference_data(level="agent")


def test_figures_from_the_export_draw_the_same_values(runs, tmp_path) -> None:
    """plots read an InferenceData (in memory or reloaded) as they read the held draws."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from agenteval import plots

    results = runs["empirical_bayes"]
    reloaded = az.from_netcdf(results.to_netcdf(tmp_path / "posterior.nc"))
    for draw in (plots.plot_forest, plots.plot_shrinkage, plots.plot_pass_posterior):
        want = draw(results).agenteval_values
        for idata in (results.to_inference_data(), reloaded):
            assert repr(draw(results, idata=idata).agenteval_values) == repr(want), draw.__name__
    plt.close("all")
