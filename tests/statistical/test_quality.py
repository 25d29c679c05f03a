"""Quality labels (Fair Forge's table) and their probabilities against direct computation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from agenteval.errors import ConfigError
from agenteval.statistical import BayesianMode, FrequentistMode
from agenteval.statistical.quality import (
    LABELS,
    Thresholds,
    assess,
    assess_agents,
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
    for label in LABELS:
        assert float(got[label]) == pytest.approx(want[label], abs=1e-8)
    assert sum(float(v) for v in got.values()) == pytest.approx(1.0)


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
