"""The results compute once and hold the values: views read them and never sample again."""

from __future__ import annotations

import pytest

from agenteval import Agentic, BayesianMode
from tests.conftest import DEMO


def test_views_read_the_held_draws_and_never_sample(tmp_path, monkeypatch) -> None:
    import matplotlib.pyplot as plt

    from agenteval import plots
    from agenteval.statistical import draws, suite, summarise

    results = Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode())
    summary = results.summary()
    held = results.posterior_draws()

    def refuse(*args, **kwargs):
        raise AssertionError("a view sampled or recomputed")

    for module, name in ((suite, "conjugate_unit_draws"), (suite, "stratified_share_draws"),
                         (suite, "conjugate_task_estimates"), (draws, "posterior_draws"),
                         (summarise, "summarise")):
        monkeypatch.setattr(module, name, refuse)
    assert results.summary() is summary and results.posterior_draws() is held
    idata = results.to_inference_data()
    assert results.to_inference_data() is idata
    results.to_netcdf(tmp_path / "posterior.nc")
    for draw in (plots.plot_pass_posterior, plots.plot_forest, plots.plot_shrinkage,
                 plots.plot_prior_posterior, plots.plot_rate_posteriors):
        plt.close(draw(results))
    assert results.comparison_table() is results.comparison_table()
    results._repr_html_()
    summary.to_text()


def test_counts_are_the_conversations(tmp_path) -> None:
    results = Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode())
    t = results.counts
    assert t.size == len(results) and results.counts is t
    assert t.n.tolist() == [m.total_interactions for m in results]
    assert t.c.tolist() == [m.correct_interactions for m in results]
    assert [t.agents[a] for a in t.agent] == [m.assistant_id for m in results]
    assert t.fully.tolist() == [-1 if m.is_fully_correct is None else int(m.is_fully_correct)
                                for m in results]
    assert results.session_ids == [m.session_id for m in results]
    judged = sum(m.total_interactions for m in results)
    assert results.judged_share() == (judged, sum(len(m.interactions) for m in results))


def test_frequentist_results_have_no_posterior() -> None:
    from agenteval import FrequentistMode
    from agenteval.errors import ConfigError

    results = Agentic.run(str(DEMO), k=3, statistical_mode=FrequentistMode())
    with pytest.raises(ConfigError, match="Bayesian"):
        results.posterior_draws()
    with pytest.raises(ConfigError, match="Bayesian"):
        results.to_inference_data()
