"""Quality labels (Fair Forge's table) and their probabilities against direct computation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from agenteval.errors import ConfigError
from agenteval.statistical import BayesianMode, FrequentistMode
from agenteval.statistical.counts import build_counts
from agenteval.statistical.quality import (
    LABELS,
    Thresholds,
    assess,
    assess_agents,
    assess_conversations,
    label_probabilities,
    label_probabilities_beta,
)


def _direct_label(at: float, pw: float, t: Thresholds) -> str:
    if at > t.reliable_pass_at_k and pw > t.reliable_pass_pow_k:
        return "Reliable"
    if at > t.reliable_pass_at_k and pw < t.inconsistent_pass_pow_k:
        return "Inconsistent"
    if at < t.needs_improvement_pass_at_k:
        return "Needs improvement"
    return "Unlabelled"


@pytest.mark.parametrize("a,b,k", [(1, 1, 1), (12, 2, 3), (30, 3, 5), (4, 4, 2), (200, 5, 10)])
@pytest.mark.parametrize("t", [Thresholds(), Thresholds(0.9, 0.6, 0.4, 0.6)])
def test_exact_label_probabilities_against_integration(a: float, b: float, k: int, t: Thresholds) -> None:
    got = label_probabilities_beta(a, b, k, thresholds=t)
    want = _by_integration(a, b, k, t)
    for label in LABELS:
        assert float(got[label]) == pytest.approx(want[label], abs=1e-8)
    assert sum(float(v) for v in got.values()) == pytest.approx(1.0)


def _by_integration(a: float, b: float, k: int, t: Thresholds) -> dict[str, float]:
    """Each label's probability under p ~ Beta(a, b), by quadrature of the density over the
    p-intervals where the label, read directly from pass@k and pass^k, is constant."""
    # integrate the Beta density over p, labelling each p directly from pass@k and pass^k
    label_of = lambda p: _direct_label(1 - (1 - p) ** k, p ** k, t)  # noqa: E731
    grid = np.linspace(0, 1, 2001)
    labels = [label_of(p) for p in grid]
    edges = []
    for i in range(1, grid.size):
        if labels[i] != labels[i - 1]:  # bisect to the exact change of label
            lo, hi = grid[i - 1], grid[i]
            for _ in range(60):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if label_of(mid) == labels[i - 1] else (lo, mid)
            edges.append(hi)
    points = sorted({0.0, 1.0, *edges})
    want = dict.fromkeys(LABELS, 0.0)
    for lo, hi in zip(points[:-1], points[1:]):
        mid = _direct_label(1 - (1 - (lo + hi) / 2) ** k, ((lo + hi) / 2) ** k, t)
        want[mid] += integrate.quad(lambda p: stats.beta.pdf(p, a, b), lo, hi)[0]
    return want


def test_label_probabilities_from_draws_count_the_draws() -> None:
    rng = np.random.default_rng(0)
    at = rng.uniform(0.6, 1.0, 5000)
    pw = rng.uniform(0.2, 0.9, 5000)
    got = label_probabilities(at, pw)
    labels = [_direct_label(x, y, Thresholds()) for x, y in zip(at, pw)]
    for label in LABELS:
        assert float(got[label]) == pytest.approx(labels.count(label) / 5000)


def test_assess_labels_and_thresholds() -> None:
    assert assess(0.99, 0.8) == "Reliable"
    assert assess(0.99, 0.8, thresholds=Thresholds(reliable_pass_pow_k=0.85)) == "Unlabelled"
    assert assess(float("nan"), 0.5) is None
    with pytest.raises(ConfigError):
        Thresholds(reliable_pass_at_k=1.5)
    with pytest.raises(ConfigError):
        Thresholds(inconsistent_pass_pow_k=0.8, reliable_pass_pow_k=0.7)


def test_agents_without_repeated_tasks_use_the_exact_beta() -> None:
    agent = ["A"] * 5 + ["B"] * 20
    success = [True] * 5 + [True] * 18 + [False] * 2
    rows = {r.agent: r for r in assess_agents(agent, [None] * 25, success, k=3, mode=BayesianMode())}
    # five of five: the label from the point estimates may say Reliable, its probability says how sure
    want = label_probabilities_beta(6, 1, 3)
    assert rows["A"].prob_reliable == pytest.approx(float(want["Reliable"]))
    assert rows["A"].pass_pow_k == pytest.approx(stats.beta(6, 1).moment(3))
    assert 0.2 < rows["A"].prob_reliable < 0.7
    freq = assess_agents(agent, [None] * 25, success, k=3, mode=FrequentistMode())
    assert freq[0].label == "Reliable" and np.isnan(freq[0].prob_reliable)


@pytest.mark.parametrize("t", [None, Thresholds(0.9, 0.6, 0.4, 0.6)])
def test_conversation_assessment_from_arrays(t: Thresholds | None) -> None:
    """Per conversation: labels read from the given point estimates, probabilities the exact
    Beta(a + c, b + n - c) posterior's (by quadrature here), NaN where nothing was judged."""
    n = np.array([5, 12, 3, 0, 40, 1])
    c = np.array([5, 9, 0, 0, 39, 1])
    counts = build_counts(agent=["x", "x", "y", "y", "y", "x"], task=[None] * 6, n=n, c=c,
                          judge_errors=[0, 0, 1, 2, 0, 0])
    rng = np.random.default_rng(4)
    at, pw = rng.uniform(0.5, 1.0, 6), rng.uniform(0.1, 0.9, 6)
    at[3] = pw[3] = np.nan
    mode = BayesianMode(beta_prior_a=0.5, beta_prior_b=2.0)
    got = assess_conversations(counts, mode, 3, pass_at_k=at, pass_pow_k=pw, thresholds=t)
    tt = t or Thresholds()
    assert got.size == 6 and got.basis == "per-conversation Beta posterior (exact)"
    assert got.label.tolist() == [None if np.isnan(x) else _direct_label(x, y, tt)
                                  for x, y in zip(at, pw)]
    for i in range(6):
        if n[i] == 0:
            assert all(np.isnan(got.probabilities[label][i]) for label in LABELS)
            continue
        want = _by_integration(0.5 + c[i], 2.0 + n[i] - c[i], 3, tt)
        for label in LABELS:
            assert got.probabilities[label][i] == pytest.approx(want[label], abs=1e-8)
    freq = assess_conversations(counts, FrequentistMode(), 3, pass_at_k=at, pass_pow_k=pw,
                                thresholds=t)
    assert freq.label.tolist() == got.label.tolist() and freq.basis == "per-conversation plug-in"
    assert all(np.isnan(v).all() for v in freq.probabilities.values())
    with pytest.raises(ConfigError, match="one value per conversation"):
        assess_conversations(counts, mode, 3, pass_at_k=at[:5], pass_pow_k=pw)


def test_conversation_assessment_of_no_conversations() -> None:
    counts = build_counts(agent=[], task=[], n=[], c=[])
    got = assess_conversations(counts, BayesianMode(), 2, pass_at_k=[], pass_pow_k=[])
    assert got.size == 0 and got.label.tolist() == []
    assert all(v.size == 0 for v in got.probabilities.values())
