"""Comparisons, ranking and quality inside summary(): the data handed to the math, and the views."""

from __future__ import annotations

import json
import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from agenteval import Agentic, BayesianMode, FrequentistMode
from agenteval.statistical.compare import paired_bootstrap
from tests.conftest import DEMO


def _demo_counts() -> dict[str, dict[str, list[int]]]:
    """Per agent and task_id: [attempts, fully correct], counted from the offline judge's output."""
    results = Agentic.run(str(DEMO), None, 3, statistical_mode=FrequentistMode())
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for m in results:
        counts[m.assistant_id][m.task_id][0] += 1
        counts[m.assistant_id][m.task_id][1] += int(m.is_fully_correct is True)
    return counts


def test_frequentist_summary_is_the_paired_bootstrap_of_the_demo_tasks() -> None:
    counts = _demo_counts()
    a, b = counts["agent-gpt-small"], counts["agent-planner-v2"]
    shared = [t for t in a if t in b]
    summary = Agentic.run(str(DEMO), None, 3, statistical_mode=FrequentistMode()).summary()
    rows = {c.quantity: c for c in summary.comparisons}
    assert set(rows) == {"success", "pass@3", "pass^3"}
    n_a, c_a = np.array([a[t][0] for t in shared]), np.array([a[t][1] for t in shared])
    n_b, c_b = np.array([b[t][0] for t in shared]), np.array([b[t][1] for t in shared])
    assert rows["success"].difference == pytest.approx(np.mean(c_a / n_a - c_b / n_b))
    diffs, _ = paired_bootstrap(n_a, c_a, n_b, c_b, k=3, seed=0)
    assert rows["success"].shared_tasks == len(shared) == 9
    assert rows["pass^3"].difference == pytest.approx(next(d for d in diffs if d.quantity == "pass^3").difference)
    assert summary.comparison_adjust == "holm" and rows["success"].p_adjusted == rows["success"].p_value
    assert [r.agent for r in sorted(summary.ranking, key=lambda r: r.expected_rank)] == [
        "agent-planner-v2", "agent-gpt-small"]


def test_summary_views_carry_the_comparisons() -> None:
    results = Agentic.run(str(DEMO), None, 3, statistical_mode=BayesianMode())
    summary = results.summary()
    html = summary._repr_html_()
    assert "Agent comparisons" in html and "Ranking" in html and "Quality assessment" in html
    assert not summary.comparisons_dataframe().empty and not summary.ranking_dataframe().empty
    json.dumps(results.to_json())  # JSON-safe (draws are not in the summary)
    assert sum(r.prob_best for r in summary.ranking) == pytest.approx(1.0)


def test_conversation_quality_probabilities_are_the_exact_beta() -> None:
    results = Agentic.run(str(DEMO), None, 3, statistical_mode=BayesianMode())
    table = results.quality(level="conversation")
    assert len(table) == len(results)
    m, row = results[0], table.iloc[0]
    post = stats.beta(1 + m.correct_interactions, 1 + m.total_interactions - m.correct_interactions)
    # Needs improvement: pass@3 < 0.70, i.e. p < 1 - 0.3^(1/3)
    assert row["prob_needs_improvement"] == pytest.approx(post.cdf(1 - 0.3 ** (1 / 3)))
    reliable = 1 - post.cdf(max(1 - 0.05 ** (1 / 3), 0.7 ** (1 / 3)))
    assert row["prob_reliable"] == pytest.approx(reliable)
    freq = Agentic.run(str(DEMO), None, 3, statistical_mode=FrequentistMode()).quality()
    assert list(freq["unit"]) == ["agent-gpt-small", "agent-planner-v2"]
    assert freq["prob_reliable"].isna().all()


def test_single_agent_has_quality_but_no_comparisons() -> None:
    conv = {"session_id": "s", "assistant_id": "a", "conversation": [
        {"qa_id": "q", "query": "2+2?", "assistant": "4", "ground_truth_assistant": "4"}]}
    summary = Agentic.run([conv], None, 1).summary()
    assert summary.comparisons == [] and summary.ranking == [] and len(summary.quality) == 1
    assert math.isnan(summary.quality[0].prob_reliable)


def test_empirical_bayes_mode_plugs_its_fit_into_the_paired_model() -> None:
    from agenteval.statistical.compare import paired_bayes

    results = Agentic.run(str(DEMO), None, 3, statistical_mode=BayesianMode(method="empirical_bayes"))
    table = results.comparison_table()
    (cmp,) = table.comparisons
    assert "empirical_bayes fit" in cmp.detail
    fit = results.task_fit()
    mu, kappa = fit.flat
    counts = _demo_counts()
    a, b = counts["agent-gpt-small"], counts["agent-planner-v2"]
    shared = [t for t in a if t in b]
    arrays = [np.array([x[t][i] for t in shared]) for x in (a, b) for i in (0, 1)]
    ga, gb = fit.names.index("agent-gpt-small"), fit.names.index("agent-planner-v2")
    diffs, _ = paired_bayes(*arrays, k=3, hyper=((mu[:, ga], kappa[:, ga]), (mu[:, gb], kappa[:, gb])))
    want = {(d.quantity, d.scope): d.difference for d in diffs}
    for d in cmp.differences:
        if d.scope == "suite tasks":  # E over the fit's draws: agrees to Monte Carlo error
            assert d.difference == pytest.approx(want[d.quantity, d.scope], abs=0.01)


@pytest.mark.parametrize("prior", [(1.0, 1.0), (0.5, 0.5), (2.0, 5.0)])
def test_conjugate_comparison_rests_on_the_headline_posteriors(prior: tuple[float, float]) -> None:
    """The paired suite-task values are the mean over tasks of the exact Beta(a + c, b + n - c)
    moments (Beta function closed forms), i.e. the same per-task posteriors as the headline."""
    from scipy.special import betaln

    a0, b0 = prior
    counts = _demo_counts()
    mode = BayesianMode(beta_prior_a=a0, beta_prior_b=b0, mc_samples=20_000, method="conjugate")
    summary = Agentic.run(str(DEMO), None, 3, statistical_mode=mode).summary()
    for agent, side in (("agent-gpt-small", "rate_a"), ("agent-planner-v2", "rate_b")):
        n = np.array([v[0] for v in counts[agent].values()], dtype=float)
        c = np.array([v[1] for v in counts[agent].values()], dtype=float)
        a, b = a0 + c, b0 + n - c
        exact = {"success": np.mean(a / (a + b)),
                 "pass^3": np.mean(np.exp(betaln(a + 3, b) - betaln(a, b))),
                 "pass@3": np.mean(1 - np.exp(betaln(a, b + 3) - betaln(a, b)))}
        for cmp in summary.comparisons:
            if cmp.scope == "suite tasks":
                assert getattr(cmp, side) == pytest.approx(exact[cmp.quantity], abs=0.006)


def test_conjugate_quality_table_uses_the_headline_values() -> None:
    """The quality labels rest on the same per-task posteriors as the suite headline: exact
    means over tasks of B(a + c + k, b + n - c) / B(a + c, b + n - c), computed here by scipy."""
    from scipy.special import betaln

    counts = _demo_counts()
    summary = Agentic.run(str(DEMO), None, 3, statistical_mode=BayesianMode(
        mc_samples=20_000, method="conjugate")).summary()
    for row in summary.quality:
        n = np.array([v[0] for v in counts[row.unit].values()], dtype=float)
        c = np.array([v[1] for v in counts[row.unit].values()], dtype=float)
        a, b = 1 + c, 1 + n - c
        assert row.pass_pow_k == pytest.approx(np.mean(np.exp(betaln(a + 3, b) - betaln(a, b))), abs=0.006)
        assert row.pass_at_k == pytest.approx(np.mean(1 - np.exp(betaln(a, b + 3) - betaln(a, b))), abs=0.006)


def test_default_quality_table_uses_the_pooled_headline_values() -> None:
    """Under the pooled default the labels rest on the agent's pooled task posteriors, the
    same basis as the suite rows' task-level pass@k / pass^k."""
    summary = Agentic.run(str(DEMO), None, 3, statistical_mode=BayesianMode(mc_samples=20_000)).summary()
    rows = {r.group: r for r in summary.rows}
    for q in summary.quality:
        assert q.pass_pow_k == pytest.approx(rows[q.unit].task_pass_pow_k, abs=0.006)
        assert q.pass_at_k == pytest.approx(rows[q.unit].task_pass_at_k, abs=0.006)


def test_quality_table_is_the_summary_s_and_the_explicit_default_thresholds() -> None:
    from agenteval.statistical.quality import Thresholds

    results = Agentic.run(str(DEMO), None, 3, statistical_mode=BayesianMode())
    table = results.quality()
    explicit = results.quality(thresholds=Thresholds())  # computed afresh, not the summary's
    pd.testing.assert_frame_equal(table, explicit)
    assert list(table["unit"]) == [row.unit for row in results.summary().quality]


def test_conversation_quality_is_held_and_only_rendered() -> None:
    """The per-conversation table is computed once (the results hold it) and its rows are its
    values, in the conversations' order, whatever thresholds a call passes."""
    from agenteval.statistical.quality import Thresholds

    convs = [{"session_id": f"s{i}", "assistant_id": "a", "conversation": [
        {"qa_id": f"q{j}", "query": "2+2?", "assistant": "4" if j <= i else "5",
         "ground_truth_assistant": "4"} for j in range(3)]} for i in range(3)]
    results = Agentic.run(convs, None, 2, statistical_mode=BayesianMode())
    held = results.conversation_assessment()
    assert results.conversation_assessment() is held
    table = results.quality(level="conversation")
    assert list(table["unit"]) == ["s0", "s1", "s2"]
    assert list(table["pass_at_k"]) == [m.pass_at_k for m in results]
    for i, m in enumerate(results):  # Beta(1 + c, 1 + n - c) at k = 2: needs p < 1 - 0.3^(1/2)
        post = stats.beta(1 + m.correct_interactions, 1 + m.total_interactions - m.correct_interactions)
        assert table["prob_needs_improvement"].iloc[i] == pytest.approx(post.cdf(1 - 0.3 ** 0.5))
    other = results.quality(level="conversation", thresholds=Thresholds(needs_improvement_pass_at_k=0.5))
    post = stats.beta(1 + results[0].correct_interactions,
                      1 + results[0].total_interactions - results[0].correct_interactions)
    assert other["prob_needs_improvement"].iloc[0] == pytest.approx(post.cdf(1 - 0.5 ** 0.5))
    assert results.conversation_assessment() is held
