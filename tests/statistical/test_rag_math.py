"""RAG math against hand-computed values, exact rational arithmetic, brute force, scipy and
simulation (coverage of the interval over cases)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from agenteval.errors import ConfigError
from agenteval.statistical import rag as rm


def precision_by_definition(relevant: list[bool]) -> Fraction:
    """(1/R) sum_k P@k r_k in exact rational arithmetic, straight from the definition."""
    r_total = sum(relevant)
    if r_total == 0:
        return Fraction(0)
    total = Fraction(0)
    for k in range(1, len(relevant) + 1):
        if relevant[k - 1]:
            total += Fraction(sum(relevant[:k]), k)
    return total / r_total


@pytest.mark.parametrize("ranking, expected", [
    ([True, False, True], Fraction(5, 6)),            # (1 + 2/3) / 2 = 0.8333
    ([False, False, False, True], Fraction(1, 4)),    # relevant node last of 4
    ([False, True], Fraction(1, 2)),
    ([True, False, False, True], Fraction(3, 4)),     # (1 + 2/4) / 2
    ([False, True, True, False, False], Fraction(7, 12)),  # (1/2 + 2/3) / 2
])
def test_hand_computed_precision(ranking, expected):
    assert rm.contextual_precision(ranking) == pytest.approx(float(expected), abs=1e-15)


@pytest.mark.parametrize("n_relevant, n", [(1, 1), (2, 3), (5, 5), (7, 40), (300, 1000)])
def test_perfect_ranking_is_exactly_one_and_none_relevant_exactly_zero(n_relevant, n):
    perfect = [True] * n_relevant + [False] * (n - n_relevant)
    assert rm.contextual_precision(perfect) == 1.0          # exactly, not 0.9999999999
    assert rm.contextual_precision([False] * n) == 0.0
    assert rm.contextual_precision(np.zeros((3, 0), dtype=bool)).tolist() == [0.0, 0.0, 0.0]


def test_vectorised_matches_exact_definition_and_padding_is_neutral():
    rng = np.random.default_rng(7)
    lists = [list(rng.random(rng.integers(1, 12)) < rng.random()) for _ in range(400)]
    got = rm.contextual_precision(rm.pad_rankings(lists))
    want = np.array([float(precision_by_definition(x)) for x in lists])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)
    assert all(0.0 <= g <= 1.0 for g in got)
    # any permutation putting the relevant nodes first scores exactly 1
    perfect = [sorted(x, reverse=True) for x in lists if any(x)]
    assert (rm.contextual_precision(rm.pad_rankings(perfect)) == 1.0).all()


def test_bounds_match_brute_force_over_unknown_verdicts():
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(1, 8))
        row = [None if rng.random() < 0.35 else bool(rng.random() < 0.5) for _ in range(n)]
        unknown = [i for i, v in enumerate(row) if v is None]
        values = []
        for fill in itertools.product([False, True], repeat=len(unknown)):
            filled = list(row)
            for i, v in zip(unknown, fill):
                filled[i] = v
            values.append(float(precision_by_definition(filled)))
        lo, hi = rm.precision_bounds([row])
        assert lo[0] == pytest.approx(min(values), abs=1e-14)
        assert hi[0] == pytest.approx(max(values), abs=1e-14)
    lo, hi = rm.precision_bounds([[None] * (rm.MAX_UNKNOWN_FOR_BOUNDS + 1)])
    assert np.isnan(lo[0]) and np.isnan(hi[0])


def test_aggregate_searches_mean_and_result_count_weighted():
    # case 0: searches 0.5 (2 nodes) and 1.0 (3 nodes); case 1: one search 0.25 (4 nodes);
    # case 2: a search with an unknown score stays unknown
    mean, weighted = rm.aggregate_searches([0.5, 1.0, 0.25, np.nan, 1.0], [2, 3, 4, 1, 1],
                                           [0, 0, 1, 2, 2])
    assert mean[:2].tolist() == [0.75, 0.25]
    assert weighted[0] == pytest.approx((2 * 0.5 + 3 * 1.0) / 5) and weighted[1] == 0.25
    assert np.isnan(mean[2]) and np.isnan(weighted[2])
    _, w = rm.aggregate_searches([0.0], [0], [0])   # a search that returned nothing
    assert np.isnan(w[0])


def test_recall_and_bounds():
    assert rm.recall(2, 3) == pytest.approx(2 / 3)
    assert np.isnan(rm.recall(0, 0))
    lo, hi = rm.recall_bounds([1, 3], [2, 0], [4, 3])
    assert lo.tolist() == [0.25, 1.0] and hi.tolist() == [0.75, 1.0]
    with pytest.raises(ConfigError):
        rm.recall(4, 3)


def test_beta_recall_matches_scipy():
    a = np.array([0, 3, 7, 12])
    n = np.array([2, 4, 7, 20])
    mean, lo, hi = rm.beta_recall(a, n, prior_a=0.5, prior_b=2.0, level=0.9)
    post = stats.beta(0.5 + a, 2.0 + n - a)
    np.testing.assert_allclose(mean, post.mean(), rtol=1e-12)
    np.testing.assert_allclose(lo, post.ppf(0.05), rtol=1e-9)
    np.testing.assert_allclose(hi, post.ppf(0.95), rtol=1e-9)


def test_t_interval_matches_scipy():
    x = np.array([0.2, 0.9, 0.55, 0.7, 0.4, 0.65])
    mean, lo, hi = rm.mean_interval(x, method="t", level=0.9)
    want = stats.t.interval(0.9, df=x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert mean == pytest.approx(x.mean()) and (lo, hi) == pytest.approx(want)


def test_plain_bayesian_bootstrap_has_rubins_variance():
    # Rubin (1981): Var(sum w_c x_c | x) = sum (x_c - xbar)^2 / (C (C + 1)) for Dirichlet(1)
    rng = np.random.default_rng(11)
    x = rng.random(40)
    mean, lo, hi = rm.mean_interval(x, draws=200_000, seed=1, bound_weight=0.0, level=0.95)
    sd = np.sqrt(((x - x.mean()) ** 2).sum() / (x.size * (x.size + 1)))
    assert mean == pytest.approx(x.mean())
    assert (hi - lo) == pytest.approx(2 * stats.norm.ppf(0.975) * sd, rel=0.03)


def test_bounded_bootstrap_contains_the_mean_and_handles_all_perfect_cases():
    mean, lo, hi = rm.mean_interval([1.0] * 6)
    assert mean == 1.0 and hi == 1.0 and 0.5 < lo < 1.0
    assert all(np.isnan(v) for v in rm.mean_interval([np.nan, np.nan]))
    assert rm.mean_interval([0.5])[0] == 0.5
    assert all(np.isnan(v) for v in rm.mean_interval([np.nan]))
    with pytest.raises(ConfigError):
        rm.mean_interval([0.5], method="wald")


def _simulated_precisions(rng: np.random.Generator, cases: int, a: float, b: float) -> np.ndarray:
    """Per-case precision of cases with 1-8 retrieved nodes, each relevant with a case rate
    drawn from Beta(a, b), ranked at random."""
    n = rng.integers(1, 9, cases)
    p = rng.beta(a, b, cases)
    relevant = rng.random((cases, 8)) < p[:, None]
    relevant &= np.arange(8)[None, :] < n[:, None]   # a list of n nodes, padded with False
    return rm.contextual_precision(relevant)


@pytest.mark.parametrize("a, b, cases", [(2.0, 2.0, 10), (8.0, 1.0, 30), (1.0, 6.0, 20)])
def test_interval_over_cases_covers_the_population_mean(a, b, cases):
    """Coverage by simulation: the population mean precision (from 200,000 simulated cases) lies
    in the 95% interval of about 95% of simulated studies. 500 studies: the Monte Carlo
    standard error is 0.01, the bounds allow 0.925-0.975."""
    rng = np.random.default_rng(2024)
    truth = _simulated_precisions(rng, 200_000, a, b).mean()
    studies = 500
    hits = 0
    for i in range(studies):
        x = _simulated_precisions(rng, cases, a, b)
        _, lo, hi = rm.mean_interval(x, draws=2000, seed=i)
        hits += lo <= truth <= hi
    assert 0.925 <= hits / studies <= 0.975, hits / studies


def test_t_interval_undercovers_near_the_bound():
    """Why the bootstrap is bounded: with good retrieval (mean precision ~0.92) and 10 cases,
    the t interval misses the truth far more often than 5% of the time."""
    rng = np.random.default_rng(5)
    truth = _simulated_precisions(rng, 200_000, 8.0, 1.0).mean()
    hits_t = hits_b = 0
    for i in range(400):
        x = _simulated_precisions(rng, 10, 8.0, 1.0)
        _, lo, hi = rm.mean_interval(x, method="t")
        hits_t += lo <= truth <= hi
        _, lo, hi = rm.mean_interval(x, draws=2000, seed=i)
        hits_b += lo <= truth <= hi
    assert hits_t / 400 < 0.88 < 0.93 < hits_b / 400


def test_rag_math_imports_nothing_heavy():
    import json
    import subprocess
    import sys

    code = ("import sys, json, agenteval.statistical.rag as m; m.contextual_precision([True]); "
            "print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    banned = ["pandas", "openai", "instructor", "matplotlib", "IPython", "agenteval.judge",
              "agenteval.core", "agenteval.metrics", "scipy"]
    assert not [m for m in banned if m in loaded]


def test_pooling_tied_cases_leaves_the_bootstrap_distribution_unchanged():
    # 1-D input pools equal scores into one Gamma(count) weight; 2-D input draws one weight
    # per case. Same distribution: the intervals agree up to Monte Carlo error.
    x = np.array([1.0] * 30 + [0.0] * 5 + [5 / 6] * 10 + [0.5] * 5)
    draws = 100_000
    grouped = rm.mean_interval(x, draws=draws, seed=1)
    per_case = rm.mean_interval(np.broadcast_to(x, (draws, x.size)), draws=draws, seed=2)
    assert grouped[0] == pytest.approx(x.mean()) and per_case[0] == pytest.approx(x.mean())
    assert grouped[1:] == pytest.approx(per_case[1:], abs=0.003)


def test_moving_a_relevant_node_up_never_lowers_precision():
    rng = np.random.default_rng(19)
    for _ in range(300):
        ranking = list(rng.random(int(rng.integers(2, 10))) < 0.5)
        hits = [i for i, r in enumerate(ranking) if r]
        misses = [i for i, r in enumerate(ranking) if not r]
        earlier = [(h, m) for h in hits for m in misses if m < h]
        if not earlier:
            continue
        h, m = earlier[int(rng.integers(len(earlier)))]
        swapped = list(ranking)
        swapped[h], swapped[m] = swapped[m], swapped[h]
        assert precision_by_definition(swapped) > precision_by_definition(ranking)
        assert rm.contextual_precision(swapped) > rm.contextual_precision(ranking)
