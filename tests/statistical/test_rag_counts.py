"""The RAG table of counts and its summary, from arrays, against independent computations:
means and bounds by hand, the pooled recall against scipy's Beta and Wilson written out, the
bounded Bayesian bootstrap against a direct Dirichlet simulation (numpy's own sampler)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from agenteval.errors import ConfigError
from agenteval.statistical.modes import BayesianMode, FrequentistMode
from agenteval.statistical.rag_counts import build_rag_counts, summarise_rag

NAN = math.nan
SCORES = [1.0, 0.5, None, 0.25, 1.0, 0.0, 0.8333333333333334, None, 1.0, 0.75]
LOW = [1.0, 0.5, 0.2, 0.25, 1.0, 0.0, 0.8333333333333334, None, 1.0, 0.75]
HIGH = [1.0, 0.5, 0.9, 0.25, 1.0, 0.0, 0.8333333333333334, None, 1.0, 0.75]
WEIGHTED = [1.0, 0.625, 0.4, 0.25, 1.0, 0.0, 0.8, None, 1.0, None]


def _precision(**kw):
    return build_rag_counts(
        "contextual_precision", score=SCORES, score_low=LOW, score_high=HIGH,
        judge_errors=[0, 0, 2, 0, 0, 0, 0, 1, 0, 0], labelled=[1, 0, 0, 4, 0, 0, 0, 0, 2, 0],
        judged=[2, 3, 1, 0, 3, 2, 3, 0, 1, 4], score_weighted=WEIGHTED, **kw)


def _bounded_bootstrap(draws_of_scores: np.ndarray, level: float, rng: np.random.Generator):
    """(D, C) draws of each case's score -> equal-tailed interval of the Dirichlet-weighted mean
    with two half-weight pseudo-cases at 0 and 1 (the definition, simulated directly)."""
    d, c = draws_of_scores.shape
    w = rng.dirichlet(np.r_[np.ones(c), 0.5, 0.5], size=d)
    x = np.concatenate([draws_of_scores, np.zeros((d, 1)), np.ones((d, 1))], axis=1)
    means = (w * x).sum(axis=1)
    return np.quantile(means, [(1 - level) / 2, (1 + level) / 2])


def test_precision_summary_from_the_table() -> None:
    t = _precision()
    v = summarise_rag(t, FrequentistMode())
    scored = [s for s in SCORES if s is not None]
    assert (v.cases, v.scored, v.judge_errors, v.labelled, v.judged) == (10, 8, 3, 7, 19)
    assert v.mean == pytest.approx(np.mean(scored), abs=1e-15)
    # the interval: the bounded Bayesian bootstrap, simulated directly with many draws
    lo, hi = _bounded_bootstrap(np.tile(scored, (200_000, 1)), 0.95, np.random.default_rng(1))
    assert (v.ci_low, v.ci_high) == pytest.approx((lo, hi), abs=0.01)
    # result-count-weighted: mean over scored cases that have one
    want = np.mean([w for s, w in zip(SCORES, WEIGHTED) if s is not None and w is not None])
    assert v.extra["mean_weighted"] == pytest.approx(want)
    # every case whatever the unknown verdicts are: no bound counts as 0 (low) and 1 (high)
    assert v.extra["mean_bounds"] == pytest.approx({
        "low": np.mean([0.0 if x is None else x for x in LOW]),
        "high": np.mean([1.0 if x is None else x for x in HIGH])})
    assert v.method.endswith(f"({FrequentistMode().bootstrap_samples} seeded draws); case = mean "
                             "over its searches")
    assert summarise_rag(_precision(flattened=True), FrequentistMode()).method.endswith(
        "; one flattened ranking per case")


def test_the_modes_seed_and_draws_are_honoured() -> None:
    t = _precision()
    a = summarise_rag(t, FrequentistMode(rng_seed=1, bootstrap_samples=500))
    assert summarise_rag(t, FrequentistMode(rng_seed=1, bootstrap_samples=500)) == a
    b = summarise_rag(t, FrequentistMode(rng_seed=2, bootstrap_samples=500))
    assert (a.ci_low, a.ci_high) != (b.ci_low, b.ci_high) and a.mean == b.mean
    assert "(500 seeded draws)" in a.method and "95%" in a.method
    c = summarise_rag(t, BayesianMode(mc_samples=300, rng_seed=9, ci_level=0.8))
    assert "(300 seeded draws)" in c.method and "80%" in c.method
    assert c.ci_high - c.ci_low < a.ci_high - a.ci_low   # 80% inside 95%, same scores


def test_everything_known_has_no_bounds_and_no_case_is_nan() -> None:
    t = build_rag_counts("contextual_precision", score=[1.0, 1.0], score_low=[1.0, 1.0],
                         score_high=[1.0, 1.0], judge_errors=[0, 0], labelled=[0, 0],
                         judged=[1, 1])
    v = summarise_rag(t, FrequentistMode())
    assert "mean_bounds" not in v.extra and v.mean == 1.0 and v.ci_high == 1.0
    assert v.ci_low < 1.0          # the bounded bootstrap does not collapse at all-perfect
    empty = summarise_rag(build_rag_counts("contextual_recall", score=[], score_low=[],
                                           score_high=[], judge_errors=[], labelled=[],
                                           judged=[]), BayesianMode())
    assert empty.cases == empty.scored == 0 and math.isnan(empty.mean)
    assert empty.extra["pooled"]["statements"] == 0 and "mean_bounds" not in empty.extra


A = np.array([1, 1, 1, 2, 2, 0, 2, 1, 1, 3])
N = np.array([1, 1, 1, 2, 3, 2, 2, 2, 1, 4])
FAILED = np.array([False] * 8 + [True, False])     # case 8 failed: not scored


def _recall():
    score = np.where(FAILED, np.nan, A / N)
    return build_rag_counts(
        "contextual_recall", score=score, score_low=np.where(FAILED, np.nan, A / N),
        score_high=np.where(FAILED, np.nan, A / N), judge_errors=FAILED.astype(int),
        labelled=N - 1, judged=np.ones(10, dtype=int), attributable=A, total=N)


def test_bayesian_recall_pooled_is_the_exact_beta_and_the_mean_carries_each_posterior() -> None:
    mode = BayesianMode(beta_prior_a=0.5, beta_prior_b=2.0, ci_level=0.9, mc_samples=4000,
                        rng_seed=11)
    v = summarise_rag(_recall(), mode)
    ok = ~FAILED
    post = stats.beta(0.5 + A[ok].sum(), 2.0 + (N - A)[ok].sum())
    pooled = v.extra["pooled"]
    assert pooled["mean"] == pytest.approx(post.mean())
    assert (pooled["ci_low"], pooled["ci_high"]) == pytest.approx((post.ppf(0.05), post.ppf(0.95)))
    assert (pooled["attributable"], pooled["statements"]) == (A[ok].sum(), N[ok].sum())
    # mean over scored cases of each case's posterior mean (Monte Carlo of the mode's draws)
    means = (0.5 + A[ok]) / (2.5 + N[ok])
    assert v.mean == pytest.approx(means.mean(), abs=0.01)
    # the interval: per-case Beta draws under the Dirichlet weights, simulated directly
    rng = np.random.default_rng(2)
    draws = rng.beta(0.5 + A[ok], 2.0 + (N - A)[ok], size=(100_000, ok.sum()))
    lo, hi = _bounded_bootstrap(draws, 0.9, rng)
    assert (v.ci_low, v.ci_high) == pytest.approx((lo, hi), abs=0.015)
    assert v.scored == 9 and v.judge_errors == 1 and v.labelled == (N - 1).sum()
    assert v.method.startswith("posterior mean over cases") and "4000 seeded draws" in v.method
    # the failed case has no bounds: anywhere in [0, 1]
    assert v.extra["mean_bounds"] == pytest.approx({"low": (A / N)[ok].sum() / 10,
                                                    "high": ((A / N)[ok].sum() + 1) / 10})


@pytest.mark.parametrize("interval", ["wilson", "clopper-pearson"])
def test_frequentist_recall_pooled_interval(interval: str) -> None:
    v = summarise_rag(_recall(), FrequentistMode(interval=interval, ci_level=0.95))
    ok = ~FAILED
    x, n = A[ok].sum(), N[ok].sum()
    p = x / n
    if interval == "wilson":    # Wilson (1927), written out
        z = stats.norm.ppf(0.975)
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        want = (centre - half, centre + half)
    else:
        want = (stats.beta.ppf(0.025, x, n - x + 1), stats.beta.ppf(0.975, x + 1, n - x))
    pooled = v.extra["pooled"]
    assert pooled["mean"] == pytest.approx(p)
    assert (pooled["ci_low"], pooled["ci_high"]) == pytest.approx(want)
    assert pooled["method"] == f"pooled statements, {interval} 95%"
    assert v.mean == pytest.approx(np.mean((A / N)[ok]))
    assert v.method.startswith("mean over cases; interval: bounded Bayesian bootstrap")


def test_the_table_is_checked_and_read_only() -> None:
    t = _recall()
    with pytest.raises(ValueError):
        t.score[0] = 0.5
    with pytest.raises(ConfigError, match="one of"):
        build_rag_counts("faithfulness", score=[], score_low=[], score_high=[],
                         judge_errors=[], labelled=[], judged=[])
    with pytest.raises(ConfigError, match=r"\[0, 1\]"):
        build_rag_counts("contextual_precision", score=[1.5], score_low=[1], score_high=[1],
                         judge_errors=[0], labelled=[0], judged=[1])
    with pytest.raises(ConfigError, match="one entry per case"):
        build_rag_counts("contextual_precision", score=[1.0, 0.5], score_low=[1], score_high=[1],
                         judge_errors=[0, 0], labelled=[0, 0], judged=[1, 1])
    with pytest.raises(ConfigError, match="exceed"):
        build_rag_counts("contextual_recall", score=[1.0], score_low=[1], score_high=[1],
                         judge_errors=[0], labelled=[0], judged=[1], attributable=[3], total=[2])
