"""Estimators against independent computations: exact fractions, enumeration, scipy, Monte Carlo."""

from __future__ import annotations

import doctest
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from agenteval.errors import ConfigError
from agenteval.statistical import estimators as est
from agenteval.statistical.estimators import (
    beta_interval,
    beta_pass_at_k_mean,
    beta_pass_pow_k_mean,
    clopper_pearson_interval,
    pass_at_k,
    pass_at_k_unbiased,
    pass_pow_k,
    pass_pow_k_unbiased,
    wilson_interval,
)

# All (n, c, k) with n <= 12, c <= n, 1 <= k <= 15 (k > n included on purpose).
TRIPLES = np.array([(n, c, k) for n in range(13) for c in range(n + 1) for k in range(1, 16)])
N, C, K = TRIPLES.T


def _close(got: np.ndarray, want: list[float], rtol: float = 1e-13, atol: float = 1e-15) -> None:
    np.testing.assert_allclose(got, np.array(want, dtype=float), rtol=rtol, atol=atol, equal_nan=True)


# --------------------------------------------------------------------------- exact fractions


def test_plug_in_against_fractions() -> None:
    at = [float(1 - (1 - Fraction(c, n)) ** k) if n else math.nan for n, c, k in TRIPLES]
    pw = [float(Fraction(c, n) ** k) if n else math.nan for n, c, k in TRIPLES]
    _close(pass_at_k(N, C, K), at)
    _close(pass_pow_k(N, C, K), pw)


def test_unbiased_against_fractions() -> None:
    at, pw = [], []
    for n, c, k in TRIPLES:
        if k > n:
            at.append(math.nan)
            pw.append(math.nan)
            continue
        at.append(float(1 - Fraction(math.comb(n - c, k), math.comb(n, k))))
        pw.append(float(Fraction(math.comb(c, k), math.comb(n, k))))
    _close(pass_at_k_unbiased(N, C, K), at)
    _close(pass_pow_k_unbiased(N, C, K), pw)


@pytest.mark.parametrize("n", range(1, 9))
def test_unbiased_against_subset_enumeration(n: int) -> None:
    for c in range(n + 1):
        outcomes = [1] * c + [0] * (n - c)
        for k in range(1, n + 1):
            subsets = list(itertools.combinations(outcomes, k))
            any_ok = Fraction(sum(1 for s in subsets if any(s)), len(subsets))
            all_ok = Fraction(sum(1 for s in subsets if all(s)), len(subsets))
            assert pass_at_k_unbiased(n, c, k) == pytest.approx(float(any_ok), rel=1e-13, abs=1e-15)
            assert pass_pow_k_unbiased(n, c, k) == pytest.approx(float(all_ok), rel=1e-13, abs=1e-15)


def test_scalar_in_float_out_array_in_array_out() -> None:
    for fn in (pass_at_k, pass_pow_k, pass_at_k_unbiased, pass_pow_k_unbiased):
        assert type(fn(5, 2, 3)) is float
        assert type(fn(np.int64(5), np.int64(2), 3)) is float
        out = fn([5, 6], [2, 3], 3)
        assert isinstance(out, np.ndarray) and out.shape == (2,)
        assert out[0] == fn(5, 2, 3) and out[1] == fn(6, 3, 3)
    assert type(beta_pass_at_k_mean(2.0, 3.0, 2)) is float
    lo, hi = wilson_interval(3, 10)
    assert type(lo) is float and type(hi) is float


def test_broadcasting_over_k() -> None:
    got = pass_at_k_unbiased(10, 3, np.arange(1, 11))
    want = [1 - math.comb(7, k) / math.comb(10, k) for k in range(1, 11)]
    _close(got, want, rtol=1e-12)
    grid = pass_pow_k(np.array([[4], [8]]), np.array([[2], [8]]), np.array([1, 2, 3]))
    assert grid.shape == (2, 3)
    _close(grid, [[0.5, 0.25, 0.125], [1.0, 1.0, 1.0]])


def test_n_zero_and_k_above_n_are_nan() -> None:
    assert math.isnan(pass_at_k(0, 0, 1)) and math.isnan(pass_pow_k(0, 0, 3))
    assert math.isnan(pass_at_k_unbiased(3, 1, 4)) and math.isnan(pass_pow_k_unbiased(3, 3, 4))
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    assert all(math.isnan(v) for v in clopper_pearson_interval(0, 0))
    # k may exceed n for the plug-in forms
    assert pass_at_k(2, 1, 3) == pytest.approx(1 - 0.5 ** 3)


# --------------------------------------------------------------------------- Beta functionals

BETA_CASES = [(1.0, 1.0, 1), (1.0, 1.0, 5), (0.5, 0.5, 3), (3.0, 8.0, 2), (12.5, 2.25, 7), (40.0, 60.0, 20)]


@pytest.mark.parametrize(("a", "b", "k"), BETA_CASES)
def test_beta_means_against_quadrature(a: float, b: float, k: int) -> None:
    pdf = stats.beta(a, b).pdf
    at, _ = integrate.quad(lambda p: (1 - (1 - p) ** k) * pdf(p), 0, 1, epsabs=1e-13, limit=200)
    pw, _ = integrate.quad(lambda p: p ** k * pdf(p), 0, 1, epsabs=1e-13, limit=200)
    assert beta_pass_at_k_mean(a, b, k) == pytest.approx(at, rel=1e-8, abs=1e-11)
    assert beta_pass_pow_k_mean(a, b, k) == pytest.approx(pw, rel=1e-8, abs=1e-11)


@pytest.mark.parametrize(("a", "b", "k"), BETA_CASES)
def test_beta_means_against_monte_carlo(a: float, b: float, k: int) -> None:
    p = np.random.default_rng(20240611).beta(a, b, size=200_000)
    for got, draws in ((beta_pass_at_k_mean(a, b, k), 1 - (1 - p) ** k),
                       (beta_pass_pow_k_mean(a, b, k), p ** k)):
        se = draws.std() / math.sqrt(draws.size)
        assert abs(got - draws.mean()) <= 5 * se + 1e-12


def test_beta_means_exact_for_integer_parameters_incl_large() -> None:
    # E[p^k] = (a)_k / (a+b)_k and 1 - E[(1-p)^k] = 1 - (b)_k / (a+b)_k, as exact integers
    for a, b, k in [(1, 1, 1), (3, 4, 6), (1_000_001, 7, 3), (500_001, 500_001, 1000), (2, 999_999, 50)]:
        rising = lambda x: math.perm(x + k - 1, k)  # noqa: E731  x (x+1) ... (x+k-1)
        pw = Fraction(rising(a), rising(a + b))
        at = 1 - Fraction(rising(b), rising(a + b))
        assert beta_pass_pow_k_mean(a, b, k) == pytest.approx(float(pw), rel=1e-11)
        assert beta_pass_at_k_mean(a, b, k) == pytest.approx(float(at), rel=1e-11)


@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99])
def test_beta_interval_is_scipy_quantiles(level: float) -> None:
    a = np.array([1.0, 0.5, 3.0, 100.0, 1e6 + 1])
    b = np.array([1.0, 0.5, 9.0, 2.0, 5.0])
    lo, hi = beta_interval(a, b, level)
    np.testing.assert_allclose(lo, stats.beta.ppf((1 - level) / 2, a, b), rtol=1e-10)
    np.testing.assert_allclose(hi, stats.beta.ppf((1 + level) / 2, a, b), rtol=1e-10)
    np.testing.assert_allclose(stats.beta.cdf(hi, a, b) - stats.beta.cdf(lo, a, b), level, atol=1e-10)


# --------------------------------------------------------------------------- binomial intervals


def _wilson_textbook(c: int, n: int, level: float) -> tuple[float, float]:
    z = stats.norm.ppf(1 - (1 - level) / 2)
    p = c / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n), (centre + spread) / (1 + z * z / n)


@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_wilson_against_textbook_and_score_equation(level: float) -> None:
    z = stats.norm.ppf(1 - (1 - level) / 2)
    cs, ns = zip(*[(c, n) for n in range(1, 30) for c in range(n + 1)])
    lo, hi = wilson_interval(np.array(cs), np.array(ns), level)
    for i, (c, n) in enumerate(zip(cs, ns)):
        want = _wilson_textbook(c, n, level)
        assert lo[i] == pytest.approx(max(want[0], 0.0), abs=1e-12)
        assert hi[i] == pytest.approx(min(want[1], 1.0), abs=1e-12)
        # each bound inside (0, 1) solves the score equation (p_hat - p)^2 = z^2 p (1-p) / n
        for bound in (lo[i], hi[i]):
            if 0 < bound < 1:
                assert (c / n - bound) ** 2 == pytest.approx(z * z * bound * (1 - bound) / n, abs=1e-12)


@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_clopper_pearson_against_scipy_binomtest(level: float) -> None:
    cs, ns = zip(*[(c, n) for n in [1, 2, 3, 5, 10, 17, 40, 200] for c in range(n + 1)])
    lo, hi = clopper_pearson_interval(np.array(cs), np.array(ns), level)
    for i, (c, n) in enumerate(zip(cs, ns)):
        ci = stats.binomtest(c, n).proportion_ci(confidence_level=level, method="exact")
        assert lo[i] == pytest.approx(ci.low, rel=1e-9, abs=1e-12)
        assert hi[i] == pytest.approx(ci.high, rel=1e-9, abs=1e-12)
    assert clopper_pearson_interval(0, 7)[0] == 0.0 and clopper_pearson_interval(7, 7)[1] == 1.0


# --------------------------------------------------------------------------- large inputs


@pytest.mark.parametrize(("n", "c", "k"), [
    (1_000_000, 10, 1000), (1_000_000, 500_000, 1000), (1_000_000, 999_000, 1000),
    (1_000_000, 999_999, 1), (1_000_000, 3, 999_990), (123_457, 1, 2), (1_000_000, 1_000, 7),
])
def test_unbiased_large_exact(n: int, c: int, k: int) -> None:
    at = float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))
    pw = float(Fraction(math.comb(c, k), math.comb(n, k)))
    assert pass_at_k_unbiased(n, c, k) == pytest.approx(at, rel=1e-10, abs=1e-300)
    assert pass_pow_k_unbiased(n, c, k) == pytest.approx(pw, rel=1e-10, abs=1e-300)


def test_long_products_use_stable_fallback() -> None:
    k = est._MAX_TERMS + 904  # forces the gammaln path
    n, c = 1_000_000, 50_000
    at = float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))
    assert pass_at_k_unbiased(n, c, k) == pytest.approx(at, rel=1e-8)
    c = 990_000  # n - c and k both above _MAX_TERMS; result ~1e-22
    pw = float(Fraction(math.comb(c, k), math.comb(n, k)))
    assert pass_pow_k_unbiased(n, c, k) == pytest.approx(pw, rel=1e-8)
    # log-space reference where the value itself underflows: exact big-integer logs
    c = 50_000
    pw_log = math.log(math.comb(c, k)) - math.log(math.comb(n, k))
    assert pw_log < -800 and pass_pow_k_unbiased(n, c, k) == 0.0
    log_fail = math.log(math.comb(n - c, k)) - math.log(math.comb(n, k))
    assert est._log_binom_ratio(np.array([n]), np.array([n - c]), np.array([k]))[0] == pytest.approx(
        pw_log, rel=1e-10)
    assert est._log_binom_ratio(np.array([n]), np.array([c]), np.array([k]))[0] == pytest.approx(
        log_fail, rel=1e-10)


def test_large_plug_in_finite() -> None:
    n = np.array([1_000_000, 1_000_000, 1_000_000])
    c = np.array([1, 500_000, 999_999])
    got = pass_at_k(n, c, 1000)
    want = [float(1 - (1 - Fraction(int(ci), int(ni))) ** 1000) for ni, ci in zip(n, c)]
    _close(got, want, rtol=1e-12)
    assert np.all(np.isfinite(pass_pow_k(n, c, 1000)))


@pytest.mark.timeout(120)  # a hang guard; the speed itself is measured in benchmarks/
def test_million_conversations_are_exact() -> None:
    rng = np.random.default_rng(7)
    n = rng.integers(1, 11, 1_000_000)
    c = rng.integers(0, n + 1)
    got = pass_at_k_unbiased(n, c, 3)
    idx = rng.choice(n.size, 50, replace=False)
    want = [1 - math.comb(int(n[i] - c[i]), 3) / math.comb(int(n[i]), 3) if n[i] >= 3 else math.nan
            for i in idx]
    _close(got[idx], want, rtol=1e-12)


# --------------------------------------------------------------------------- properties

counts = st.integers(0, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n)))


@settings(max_examples=150, deadline=None)
@given(counts, st.integers(1, 40))
def test_monotone_in_k_and_c(nc: tuple[int, int], k: int) -> None:
    n, c = nc
    if n == 0:
        return
    tol = 1e-12
    assert pass_at_k(n, c, k + 1) >= pass_at_k(n, c, k) - tol
    assert pass_pow_k(n, c, k + 1) <= pass_pow_k(n, c, k) + tol
    if c < n:
        assert pass_at_k(n, c + 1, k) >= pass_at_k(n, c, k) - tol
        assert pass_pow_k(n, c + 1, k) >= pass_pow_k(n, c, k) - tol
    if k + 1 <= n:
        assert pass_at_k_unbiased(n, c, k + 1) >= pass_at_k_unbiased(n, c, k) - tol
        assert pass_pow_k_unbiased(n, c, k + 1) <= pass_pow_k_unbiased(n, c, k) + tol
        if c < n:
            assert pass_at_k_unbiased(n, c + 1, k) >= pass_at_k_unbiased(n, c, k) - tol
            assert pass_pow_k_unbiased(n, c + 1, k) >= pass_pow_k_unbiased(n, c, k) - tol
    a, b = 1.0 + c, 1.0 + n - c
    assert beta_pass_at_k_mean(a, b, k + 1) >= beta_pass_at_k_mean(a, b, k) - tol
    assert beta_pass_pow_k_mean(a, b, k + 1) <= beta_pass_pow_k_mean(a, b, k) + tol


@settings(max_examples=100, deadline=None)
@given(counts, st.floats(0.05, 0.999))
def test_intervals_ordered_and_contain_the_rate(nc: tuple[int, int], level: float) -> None:
    n, c = nc
    if n == 0:
        return
    p = c / n
    for fn in (wilson_interval, clopper_pearson_interval):
        lo, hi = fn(c, n, level)
        assert 0.0 <= lo <= p + 1e-12 and p - 1e-12 <= hi <= 1.0
    lo, hi = beta_interval(1.0 + c, 1.0 + n - c, level)
    assert 0.0 <= lo <= hi <= 1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(counts, min_size=1, max_size=30), st.integers(1, 8), st.randoms(use_true_random=False))
def test_permutation_invariance_and_scalar_agreement(pairs: list[tuple[int, int]], k: int, rnd) -> None:
    n = np.array([p[0] for p in pairs])
    c = np.array([p[1] for p in pairs])
    perm = list(range(len(pairs)))
    rnd.shuffle(perm)
    for fn in (pass_at_k, pass_pow_k, pass_at_k_unbiased, pass_pow_k_unbiased):
        full = fn(n, c, k)
        np.testing.assert_array_equal(fn(n[perm], c[perm], k), full[perm])
        np.testing.assert_array_equal(full, [fn(int(a), int(b), k) for a, b in zip(n, c)])
    for fn in (wilson_interval, clopper_pearson_interval):
        lo, hi = fn(c, n)
        plo, phi = fn(c[perm], n[perm])
        np.testing.assert_array_equal(plo, lo[perm])
        np.testing.assert_array_equal(phi, hi[perm])


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(("args", "words"), [
    ((5, 2, 0), ["k", ">= 1", "0"]),
    ((5, 2, 1.5), ["k", "integer", "1.5"]),
    ((5, 2, -3), ["k", "-3"]),
    ((5, 6, 1), ["c", "[0, n]", "6"]),
    ((-1, 0, 1), ["n", ">= 0", "-1"]),
    ((5, -2, 1), ["c", "-2"]),
    ((5.5, 2, 1), ["n", "5.5"]),
    ((5, float("nan"), 1), ["c", "nan"]),
    (("5", 2, 1), ["n", "'5'"]),
    (([3, 4, 5], [1, 5, 2], 1), ["c", "index 1", "5"]),
    (([3, 4], [1, 2, 3], 1), ["broadcast"]),
])
def test_bad_counts_raise_config_error(args: tuple, words: list[str]) -> None:
    for fn in (pass_at_k, pass_pow_k, pass_at_k_unbiased, pass_pow_k_unbiased):
        with pytest.raises(ConfigError) as info:
            fn(*args)
        for word in words:
            assert word in str(info.value)


def test_bad_beta_and_level_raise_config_error() -> None:
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ConfigError, match="a must be a finite number > 0"):
            beta_pass_at_k_mean(bad, 1.0, 2)
        with pytest.raises(ConfigError, match="b must be a finite number > 0"):
            beta_interval(1.0, bad)
    with pytest.raises(ConfigError, match="k must be an integer"):
        beta_pass_pow_k_mean(1.0, 1.0, 0)
    for level in (0.0, 1.0, 1.5, -0.1, "x"):
        for fn in (wilson_interval, clopper_pearson_interval):
            with pytest.raises(ConfigError, match="level"):
                fn(1, 3, level)
        with pytest.raises(ConfigError, match="level"):
            beta_interval(1.0, 1.0, level)


def test_docstring_examples() -> None:
    result = doctest.testmod(est, raise_on_error=False)
    assert result.attempted >= 9 and result.failed == 0
