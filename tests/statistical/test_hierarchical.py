"""Hierarchical Beta-Binomial: likelihood, calibration, shrinkage, EB vs MCMC, integration.

MCMC runs are few and small (one module fixture, one deliberately short run, one end to end);
the many-replication calibration uses the empirical-Bayes path, which shares every line
downstream of the (mu, kappa) draws with the MCMC path.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import integrate, special, stats

from agenteval.errors import ConfigError
from agenteval.statistical import hierarchical as hier
from agenteval.statistical.modes import BayesianMode, UninformativeFitWarning

MU, KAPPA, K = 0.65, 6.0, 3


def _suite(rng: np.random.Generator, tasks: int, mu: float = MU, kappa: float = KAPPA):
    n = rng.integers(1, 7, size=tasks)
    p = rng.beta(mu * kappa, (1 - mu) * kappa, size=tasks)
    return n, rng.binomial(n, p), p


def _population_pass_pow_k(mu: float, kappa: float, k: int) -> float:
    a, b = mu * kappa, (1 - mu) * kappa
    return math.exp(special.betaln(a + k, b) - special.betaln(a, b))


def test_log_marginal_likelihood_is_the_beta_binomial_pmf() -> None:
    n, c, w = np.array([1, 4, 7, 7]), np.array([0, 2, 7, 3]), np.array([3, 1, 2, 5])
    want = np.sum(w * stats.betabinom.logpmf(c, n, 0.3 * 4.0, 0.7 * 4.0))
    assert hier.log_marginal_likelihood(0.3, 4.0, n, c, w) == pytest.approx(want, rel=1e-12)


def test_distinct_triples_weights_reproduce_the_units() -> None:
    rng = np.random.default_rng(0)
    n = rng.integers(1, 4, 1000)
    c = rng.binomial(n, 0.5)
    g = rng.integers(0, 2, 1000)
    gj, nj, cj, w, inv = hier.distinct_triples(n, c, g)
    assert w.sum() == 1000 and gj.size <= 2 * 10
    assert (nj[inv] == n).all() and (cj[inv] == c).all() and (gj[inv] == g).all()


def test_empirical_bayes_intervals_are_calibrated() -> None:
    """Known mu, kappa; 150 simulated suites: mu, each p_t and population pass^k covered ~95%."""
    rng = np.random.default_rng(2026)
    reps, tasks = 150, 60
    truth_pw = _population_pass_pow_k(MU, KAPPA, K)
    cover_mu = cover_pw = 0
    cover_p, units = 0, 0
    for rep in range(reps):
        n, c, p = _suite(rng, tasks)
        fit = hier.fit_empirical_bayes(n, c, draws=1000, seed=rep)
        pop = fit.population(K, 0.95)
        cover_mu += pop["mu_low"] <= MU <= pop["mu_high"]
        cover_pw += pop["pass_pow_k_low"] <= truth_pw <= pop["pass_pow_k_high"]
        u = fit.unit_summary(K, 0.95)
        cover_p += int(np.sum((u["rate_low"] <= p) & (p <= u["rate_high"])))
        units += tasks
    se = math.sqrt(0.95 * 0.05 / reps)
    assert abs(cover_mu / reps - 0.95) < 4 * se
    assert abs(cover_pw / reps - 0.95) < 4 * se
    # per-unit intervals at a fixed (mu, kappa): the exact hyperposterior (checked against an
    # independent grid in test_beta_binomial) covers 0.93 here, a property of the Bayesian
    # interval at one fixed truth (the hyperprior pulls kappa up a little), not of sampling noise
    assert abs(cover_p / units - 0.95) < 0.03


@pytest.fixture(scope="module")
def mcmc_case():
    rng = np.random.default_rng(11)
    n, c, p = _suite(rng, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("error", hier.ConvergenceWarning)
        fit = hier.fit_mcmc(n, c, sampler=hier.SamplerSettings(draws=500, tune=500, chains=2),
                            seed=5)
    return n, c, p, fit


def test_mcmc_diagnostics_pass_and_are_reported(mcmc_case) -> None:
    *_, fit = mcmc_case
    d = fit.diagnostics
    assert d["ok"] and d["r_hat_max"] < 1.01 and d["ess_bulk_min"] >= 200 and d["divergences"] == 0
    assert fit.mu.shape == (2, 500, 1)


def test_mcmc_population_against_numerical_integration(mcmc_case) -> None:
    """E[mu] and E[B(a+k, b)/B(a, b)] under the posterior of (logit mu, log kappa), by quadrature
    on a grid with scipy's Beta-Binomial pmf: independent of the model code."""
    n, c, _, fit = mcmc_case
    x = np.linspace(-5, 6, 361)
    y = np.linspace(-4, 9, 361)
    X, Y = np.meshgrid(x, y, indexing="ij")
    mu, kappa = special.expit(X), np.exp(Y)
    a, b = mu * kappa, (1 - mu) * kappa
    loglik = stats.betabinom.logpmf(c[None, None, :], n[None, None, :], a[..., None],
                                    b[..., None]).sum(axis=-1)
    logprior = np.log(mu) + np.log1p(-mu) + stats.norm.logpdf(Y, 2.0, 1.5)   # Beta(1,1) in logit
    dens = np.exp(loglik + logprior - (loglik + logprior).max())

    def expect(f: np.ndarray) -> float:
        num = integrate.simpson(integrate.simpson(f * dens, x=y, axis=1), x=x)
        return num / integrate.simpson(integrate.simpson(dens, x=y, axis=1), x=x)

    pw = np.exp(special.betaln(a + K, b) - special.betaln(a, b))
    pop = fit.population(K, 0.95)
    assert pop["mu"] == pytest.approx(expect(mu), abs=0.01)
    assert pop["pass_pow_k"] == pytest.approx(expect(pw), abs=0.01)


def test_empirical_bayes_agrees_with_mcmc(mcmc_case) -> None:
    n, c, _, fit = mcmc_case
    eb = hier.fit_empirical_bayes(n, c, seed=1)
    m, e = fit.population(K, 0.95), eb.population(K, 0.95)
    assert e["mu"] == pytest.approx(m["mu"], abs=0.02)
    assert e["pass_pow_k"] == pytest.approx(m["pass_pow_k"], abs=0.03)
    um, ue = fit.unit_summary(K, 0.95), eb.unit_summary(K, 0.95)
    np.testing.assert_allclose(ue["rate"], um["rate"], atol=0.03)


def test_shrinkage_pulls_small_units_toward_the_population(mcmc_case) -> None:
    n, c, _, fit = mcmc_case
    mu = fit.population(K, 0.95)["mu"]
    u = fit.unit_summary(K, 0.95)
    raw = c / n
    # every partially pooled rate lies between its raw rate and the population mean
    lo, hi = np.minimum(raw, mu), np.maximum(raw, mu)
    assert np.all((u["rate"] >= lo - 1e-9) & (u["rate"] <= hi + 1e-9))
    # and the pull is strongest where n is small: same raw rate 0, n = 1 against n = 6
    eb = hier.fit_empirical_bayes(np.r_[n, 1, 6], np.r_[c, 0, 0], seed=2)
    small, large = eb.unit_summary(K, 0.95)["rate"][-2:]
    assert small > large > 0


def test_short_run_fails_its_diagnostics_with_a_warning() -> None:
    rng = np.random.default_rng(3)
    n, c, _ = _suite(rng, 10)
    with pytest.warns(hier.ConvergenceWarning, match="ESS"):
        fit = hier.fit_mcmc(n, c, sampler=hier.SamplerSettings(draws=30, tune=30, chains=2), seed=1)
    assert not fit.diagnostics["ok"] and fit.diagnostics["problems"]


def test_hierarchical_mode_end_to_end_reports_diagnostics() -> None:
    from agenteval import Agentic

    rng = np.random.default_rng(8)
    data = []
    for agent, rate in (("good", 0.8), ("weak", 0.4)):
        for t in range(8):
            p = rng.beta(rate * 5, (1 - rate) * 5)
            for a in range(3):
                data.append({"session_id": f"{agent}-{t}-{a}", "assistant_id": agent,
                             "task_id": f"t{t}", "conversation": [
                                 {"qa_id": "q", "query": "q?", "ground_truth_assistant": "8",
                                  "assistant": "8" if rng.random() < p else "9"}]})
    mode = BayesianMode(method="hierarchical", draws=400, tune=400, chains=2)
    # one interaction per conversation: the per-conversation model has no information on its
    # spread, so it is not fitted (issue 17, item 7) and a warning says so; the task level is
    with pytest.warns(UninformativeFitWarning, match="per-conversation hierarchical model"):
        results = Agentic.run(data, k=2, statistical_mode=mode)
        summary = results.summary()
    assert [d["level"] for d in summary.diagnostics] == ["tasks"]
    assert all("r_hat_max" in d for d in summary.diagnostics)
    assert "max r_hat" in summary.to_text()
    rows = {r.group: r for r in summary.rows}
    assert rows["good"].task_pass_pow_k > rows["weak"].task_pass_pow_k
    assert rows["all"].headline == "tasks" and rows["all"].tasks == 16
    # cached: asking again does not refit
    assert results.task_fit() is results.task_fit()
    from agenteval._util import arviz as _arviz

    idata = results.to_inference_data()
    post = _arviz.group(idata, "posterior")
    assert post.sizes["chain"] == 2 and post.sizes["draw"] == 400
    assert _arviz.group(idata, "observed_data").sizes["task"] == 16
    assert "diverging" in _arviz.group(idata, "sample_stats")
    assert post["mu"].sel(agent="good").mean() > post["mu"].sel(agent="weak").mean()


@pytest.mark.parametrize("kwargs", [{"method": "mcmc"}, {"chains": 0}, {"target_accept": 1.5},
                                    {"nuts_sampler": "stan"}, {"prior_mu": (0, 1)},
                                    {"prior_log_kappa": "x"}])
def test_bad_hierarchical_options(kwargs: dict) -> None:
    with pytest.raises(ConfigError):
        BayesianMode(**kwargs)


def test_shared_hyperprior_across_agents_samples_and_orders_agents() -> None:
    rng = np.random.default_rng(21)
    n1, c1, _ = _suite(rng, 15, mu=0.8)
    n2, c2, _ = _suite(rng, 15, mu=0.3)
    n, c = np.r_[n1, n2], np.r_[c1, c2]
    groups = np.r_[np.zeros(15, int), np.ones(15, int)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", hier.ConvergenceWarning)   # judged below, not here
        fit = hier.fit_mcmc(n, c, groups, share_across_agents=True, group_names=["a", "b"], seed=3,
                            sampler=hier.SamplerSettings(draws=400, tune=600, chains=2))
    assert fit.mu.shape == (2, 400, 2)
    assert fit.diagnostics["r_hat_max"] < 1.05
    mu = fit.mu.mean(axis=(0, 1))
    assert mu[0] > 0.6 > 0.45 > mu[1]
    assert "mu_loc" in fit.idata.posterior and "log_kappa_scale" in fit.idata.posterior
