"""ArviZ export: named dims, observed data, and a NetCDF file that round-trips every variable."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from agenteval import Agentic, BayesianMode, FrequentistMode
from agenteval._util import arviz as _arviz
from agenteval.errors import ConfigError
from tests.conftest import DEMO


@pytest.mark.parametrize("method", ["conjugate", "empirical_bayes"])
def test_inference_data_has_named_dims_and_round_trips(method: str, tmp_path) -> None:
    results = Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode(method=method))
    idata = results.to_inference_data()
    post = _arviz.group(idata, "posterior")
    assert {"conversation", "task", "agent"} <= set(post.dims)
    assert post["p_conversation"].dims == ("chain", "draw", "conversation")
    assert list(post["agent"].values) == ["agent-gpt-small", "agent-planner-v2"]
    assert list(post["conversation"].values) == [m.session_id for m in results]
    obs = _arviz.group(idata, "observed_data")
    np.testing.assert_array_equal(obs["n_conversation"].values,
                                  [m.total_interactions for m in results])
    assert {"posterior", "prior", "observed_data", "constant_data"} <= set(_arviz.groups(idata))
    assert post.attrs["k"] == 3
    # the per-agent task-level draws agree with the summary's exact means
    rows = {r.group: r for r in results.summary().rows}
    for agent in post["agent"].values:
        draws = post["task_pass_pow_k"].sel(agent=agent).values
        assert draws.mean() == pytest.approx(rows[agent].task_pass_pow_k, abs=4 * draws.std() / 40)
    path = results.to_netcdf(tmp_path / "posterior.nc")
    back = _arviz.from_netcdf(path)
    for group in _arviz.groups(idata):
        a, b = _arviz.group(idata, group), _arviz.group(back, group)
        assert set(a.data_vars) == set(b.data_vars)
        for var in a.data_vars:
            np.testing.assert_array_equal(a[var].values, b[var].values)


def test_conjugate_draws_follow_the_beta_posterior() -> None:
    results = Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode(mc_samples=20000))
    post = _arviz.group(results.to_inference_data(), "posterior")
    m = results[5]
    draws = post["p_conversation"].sel(conversation=m.session_id).values.ravel()
    want = stats.beta(1 + m.correct_interactions, 1 + m.total_interactions - m.correct_interactions)
    assert stats.kstest(draws, want.cdf).pvalue > 1e-3


def test_frequentist_results_have_no_posterior() -> None:
    results = Agentic.run(str(DEMO), k=3, statistical_mode=FrequentistMode())
    with pytest.raises(ConfigError, match="Bayesian mode"):
        results.to_inference_data()
