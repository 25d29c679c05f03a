"""FrequentistMode and BayesianMode against scipy, quadrature, closed forms and seeded Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from scipy.special import betaln

from agenteval.errors import ConfigError
from agenteval.statistical import BayesianMode, FrequentistMode, PassEstimate, StatisticalMode

FIELDS = ["rate", "rate_low", "rate_high", "pass_at_k", "pass_at_k_low", "pass_at_k_high",
          "pass_pow_k", "pass_pow_k_low", "pass_pow_k_high"]

CASES = [(1, 0), (1, 1), (3, 2), (10, 7), (10, 0), (10, 10), (25, 4), (200, 150)]


def _arrays(cases: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    n, c = zip(*cases)
    return np.array(n), np.array(c)


# --------------------------------------------------------------------------- frequentist


@pytest.mark.parametrize("interval", ["wilson", "clopper-pearson"])
def test_frequentist_plug_in_and_mapped_interval(interval: str) -> None:
    n, c = _arrays(CASES)
    k = 3
    est = FrequentistMode(ci_level=0.9, interval=interval).estimate(n, c, k)
    p = c / n
    if interval == "clopper-pearson":
        want = [stats.binomtest(int(ci), int(ni)).proportion_ci(0.9, method="exact") for ni, ci in zip(n, c)]
    else:
        want = [stats.binomtest(int(ci), int(ni)).proportion_ci(0.9, method="wilson") for ni, ci in zip(n, c)]
    lo = np.array([w.low for w in want])
    hi = np.array([w.high for w in want])
    np.testing.assert_allclose(est.rate, p, rtol=1e-15)
    np.testing.assert_allclose(est.rate_low, lo, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(est.rate_high, hi, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(est.pass_at_k, 1 - (1 - p) ** k, rtol=1e-12)
    np.testing.assert_allclose(est.pass_at_k_low, 1 - (1 - lo) ** k, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(est.pass_at_k_high, 1 - (1 - hi) ** k, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(est.pass_pow_k, p ** k, rtol=1e-12)
    np.testing.assert_allclose(est.pass_pow_k_low, lo ** k, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(est.pass_pow_k_high, hi ** k, rtol=1e-9, atol=1e-12)
    assert est.method == f"plug-in + {interval} 90%"


def test_frequentist_n_zero_is_nan_and_compat() -> None:
    mode = FrequentistMode()
    est = mode.estimate([0, 4], [0, 2], 2)
    assert all(math.isnan(getattr(est, f)[0]) for f in FIELDS)
    assert est.pass_at_k[1] == pytest.approx(0.75)
    scalar = mode.estimate(4, 2, 2)
    assert isinstance(scalar, PassEstimate) and type(scalar.pass_pow_k) is float
    assert scalar.pass_pow_k == pytest.approx(0.25)
    assert mode.rate_estimation(3, 4) == 0.75 and type(mode.rate_estimation(3, 4)) is float
    assert math.isnan(mode.rate_estimation(0, 0))
    assert mode.get_result_type() == "point_estimate"
    assert isinstance(mode, StatisticalMode) and mode.ci_level == 0.95


# --------------------------------------------------------------------------- Bayesian exact path


@pytest.mark.parametrize(("prior_a", "prior_b", "k", "level"), [(1.0, 1.0, 1, 0.95), (1.0, 1.0, 3, 0.95),
                                                                 (0.5, 0.5, 5, 0.9), (2.0, 7.5, 2, 0.8)])
def test_bayesian_means_and_bounds_against_scipy(prior_a: float, prior_b: float, k: int, level: float) -> None:
    n, c = _arrays(CASES)
    mode = BayesianMode(ci_level=level, beta_prior_a=prior_a, beta_prior_b=prior_b)
    est = mode.estimate(n, c, k)
    for i, (ni, ci) in enumerate(zip(n, c)):
        post = stats.beta(prior_a + ci, prior_b + ni - ci)
        lo, hi = post.ppf((1 - level) / 2), post.ppf((1 + level) / 2)
        at, _ = integrate.quad(lambda p: (1 - (1 - p) ** k) * post.pdf(p), 0, 1, epsabs=1e-12, limit=200)
        pw, _ = integrate.quad(lambda p: p ** k * post.pdf(p), 0, 1, epsabs=1e-12, limit=200)
        assert est.rate[i] == pytest.approx(post.mean(), rel=1e-12)
        assert est.pass_at_k[i] == pytest.approx(at, rel=1e-7, abs=1e-10)
        assert est.pass_pow_k[i] == pytest.approx(pw, rel=1e-7, abs=1e-10)
        assert est.rate_low[i] == pytest.approx(lo, rel=1e-9, abs=1e-14)
        assert est.rate_high[i] == pytest.approx(hi, rel=1e-9, abs=1e-14)
        assert est.pass_at_k_low[i] == pytest.approx(1 - (1 - lo) ** k, rel=1e-9, abs=1e-14)
        assert est.pass_at_k_high[i] == pytest.approx(1 - (1 - hi) ** k, rel=1e-9, abs=1e-14)
        assert est.pass_pow_k_low[i] == pytest.approx(lo ** k, rel=1e-9, abs=1e-300)
        assert est.pass_pow_k_high[i] == pytest.approx(hi ** k, rel=1e-9, abs=1e-300)
        # coverage identity: the posterior puts exactly `level` on [lo, hi] of each quantity,
        # inverting the maps independently: pass@k <= t  <=>  p <= 1 - (1-t)^(1/k);  p^k <= t  <=>  p <= t^(1/k)
        inv_at = lambda t: 1 - (1 - t) ** (1 / k)  # noqa: E731
        inv_pw = lambda t: t ** (1 / k)  # noqa: E731
        assert post.cdf(est.rate_high[i]) - post.cdf(est.rate_low[i]) == pytest.approx(level, abs=1e-9)
        cov_at = post.cdf(inv_at(est.pass_at_k_high[i])) - post.cdf(inv_at(est.pass_at_k_low[i]))
        cov_pw = post.cdf(inv_pw(est.pass_pow_k_high[i])) - post.cdf(inv_pw(est.pass_pow_k_low[i]))
        assert cov_pw == pytest.approx(level, abs=1e-6)
        if est.pass_at_k_high[i] < 1 - 1e-9:  # 1 - (1-t)^(1/k) loses digits when t is ~1
            assert cov_at == pytest.approx(level, abs=1e-6)
    assert "beta-binomial exact" in est.method and f"{level * 100:g}%" in est.method


def test_bayesian_n_zero_gives_prior() -> None:
    est = BayesianMode(beta_prior_a=2.0, beta_prior_b=3.0).estimate(0, 0, 2)
    prior = stats.beta(2.0, 3.0)
    assert est.rate == pytest.approx(0.4)
    assert est.pass_pow_k == pytest.approx(prior.moment(2))
    assert est.pass_at_k == pytest.approx(1 - prior.expect(lambda p: (1 - p) ** 2))
    assert est.rate_low == pytest.approx(prior.ppf(0.025))


def test_grouped_path_matches_per_conversation_calls() -> None:
    rng = np.random.default_rng(3)
    n = rng.integers(0, 15, 3000)
    c = rng.integers(0, n + 1)
    k = rng.integers(1, 6, 3000)
    for mode in (BayesianMode(), FrequentistMode(interval="clopper-pearson")):
        est = mode.estimate(n, c, k)
        for i in rng.choice(3000, 40, replace=False):
            one = mode.estimate(int(n[i]), int(c[i]), int(k[i]))
            for f in FIELDS:
                got, want = getattr(est, f)[i], getattr(one, f)
                assert got == want or (math.isnan(got) and math.isnan(want))


def test_grouped_path_with_huge_counts() -> None:
    # keys that would overflow int64 take the row-wise unique path
    n = np.array([3_000_000_000] * 40 + [5] * 40)
    c = np.array([1_000_000_000] * 40 + [2] * 40)
    est = BayesianMode().estimate(n, c, 2)
    assert est.rate[0] == pytest.approx((1 + 1e9) / (2 + 3e9), rel=1e-12)
    assert est.pass_pow_k[-1] == pytest.approx(stats.beta(3, 4).moment(2), rel=1e-12)


@pytest.mark.timeout(120)  # a hang guard; the speed itself is measured in benchmarks/
def test_bayesian_million_conversations_are_exact() -> None:
    rng = np.random.default_rng(11)
    n = rng.integers(1, 11, 1_000_000)
    c = rng.integers(0, n + 1)
    est = BayesianMode().estimate(n, c, 3)
    i = 12345
    post = stats.beta(1 + c[i], 1 + n[i] - c[i])
    assert est.pass_at_k_high[i] == pytest.approx(1 - (1 - post.ppf(0.975)) ** 3, rel=1e-9)


# --------------------------------------------------------------------------- Bayesian sampling


def test_posterior_samples_shape_distribution_and_determinism() -> None:
    mode = BayesianMode(mc_samples=4000, rng_seed=5)
    n, c = np.array([10, 3, 50]), np.array([7, 0, 49])
    draws = mode.posterior_samples(n, c)
    assert draws.shape == (4000, 3)
    assert mode.posterior_samples(4, 1, size=7).shape == (7,)
    assert mode.posterior_samples([[4, 5]], [[1, 2]], size=6).shape == (6, 1, 2)
    for j in range(3):
        ks = stats.kstest(draws[:, j], stats.beta(1 + c[j], 1 + n[j] - c[j]).cdf)
        assert ks.pvalue > 1e-3
    np.testing.assert_array_equal(draws, mode.posterior_samples(n, c))  # same object, again
    np.testing.assert_array_equal(draws, BayesianMode(mc_samples=4000, rng_seed=5).posterior_samples(n, c))
    mode.estimate(n, c, 2)
    mode.rate_estimation(1, 2)
    np.testing.assert_array_equal(draws, mode.posterior_samples(n, c))  # other calls in between
    # a conversation's draws depend only on (seed, n, c): not on position or neighbours
    np.testing.assert_array_equal(draws[:, 1], mode.posterior_samples(3, 0))
    np.testing.assert_array_equal(draws[:, 0], mode.posterior_samples([1, 10, 10], [1, 7, 7])[:, 1])
    assert not np.array_equal(draws, BayesianMode(mc_samples=4000, rng_seed=6).posterior_samples(n, c))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
                min_size=1, max_size=20), st.integers(1, 6), st.randoms(use_true_random=False))
def test_permutation_invariance_and_scalar_agreement(pairs, k: int, rnd) -> None:
    n = np.array([p[0] for p in pairs])
    c = np.array([p[1] for p in pairs])
    perm = list(range(len(pairs)))
    rnd.shuffle(perm)
    for mode in (BayesianMode(mc_samples=50), FrequentistMode()):
        full = mode.estimate(n, c, k)
        permuted = mode.estimate(n[perm], c[perm], k)
        for f in FIELDS:
            np.testing.assert_array_equal(getattr(permuted, f), getattr(full, f)[perm])
            np.testing.assert_array_equal(getattr(full, f), [getattr(mode.estimate(int(a), int(b), k), f)
                                                              for a, b in zip(n, c)])
    mode = BayesianMode(mc_samples=50)
    draws = mode.posterior_samples(n, c)
    np.testing.assert_array_equal(mode.posterior_samples(n[perm], c[perm]), draws[:, perm])


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 80).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
       st.integers(1, 12), st.floats(0.5, 5.0), st.floats(0.5, 5.0))
def test_bounds_ordered_and_in_unit_interval(nc, k: int, a: float, b: float) -> None:
    n, c = nc
    bayes = BayesianMode(beta_prior_a=a, beta_prior_b=b).estimate(n, c, k)
    modes = [bayes] + ([FrequentistMode().estimate(n, c, k),
                        FrequentistMode(interval="clopper-pearson").estimate(n, c, k)] if n else [])
    for est in modes:
        for q in ("rate", "pass_at_k", "pass_pow_k"):
            lo, mid, hi = (getattr(est, q + s) for s in ("_low", "", "_high"))
            assert 0.0 <= lo <= hi <= 1.0 and 0.0 <= mid <= 1.0
    # point estimate inside its interval (for Bayes: the mean of p; see the next test for p^k)
    for est in modes:
        assert est.rate_low - 1e-12 <= est.rate <= est.rate_high + 1e-12
    for est in modes[1:]:
        assert est.pass_at_k_low - 1e-12 <= est.pass_at_k <= est.pass_at_k_high + 1e-12
        assert est.pass_pow_k_low - 1e-12 <= est.pass_pow_k <= est.pass_pow_k_high + 1e-12


def test_posterior_mean_of_skewed_quantity_can_leave_equal_tailed_interval() -> None:
    # Not a bug: E[p^k] = 1/(k+1) under Beta(1, 1) while the 97.5% quantile of p^k is 0.975^k.
    est = BayesianMode().estimate(0, 0, 1000)
    assert est.pass_pow_k == pytest.approx(1 / 1001)
    assert est.pass_pow_k_high == pytest.approx(0.975 ** 1000)
    assert est.pass_pow_k > est.pass_pow_k_high


def test_rate_estimation_compat() -> None:
    mode = BayesianMode(mc_samples=3000, ci_level=0.9)
    out = mode.rate_estimation(7, 10)
    assert set(out) == {"mean", "ci_low", "ci_high", "samples"}
    assert out["mean"] == pytest.approx(8 / 12)
    assert out["ci_low"] == pytest.approx(stats.beta(8, 4).ppf(0.05))
    assert out["ci_high"] == pytest.approx(stats.beta(8, 4).ppf(0.95))
    assert out["samples"].shape == (3000,)
    assert abs(out["samples"].mean() - 8 / 12) < 5 * stats.beta(8, 4).std() / math.sqrt(3000)
    assert mode.get_result_type() == "distribution"
    vec = mode.rate_estimation(np.array([7, 0]), np.array([10, 0]))
    np.testing.assert_allclose(vec["mean"], [8 / 12, 0.5])


# --------------------------------------------------------------------------- comparisons


def _prob_greater_closed_form(a1: int, b1: int, a2: int, b2: int) -> float:
    """P(p1 > p2) for integer Beta parameters (Evan Miller's sum; independent of quadrature)."""
    # P(p2 > p1) = sum_{i=0}^{a2-1} B(a1+i, b1+b2) / ((b2+i) B(1+i, b2) B(a1, b1))
    total = sum(math.exp(betaln(a1 + i, b1 + b2) - math.log(b2 + i) - betaln(1 + i, b2) - betaln(a1, b1))
                for i in range(a2))
    return 1.0 - total


@pytest.mark.parametrize(("n1", "c1", "n2", "c2"), [(10, 7, 10, 3), (10, 5, 10, 5), (3, 0, 40, 1),
                                                    (200, 120, 180, 100), (1, 1, 1, 0)])
def test_compare_against_closed_form_and_monte_carlo(n1: int, c1: int, n2: int, c2: int) -> None:
    mode = BayesianMode(mc_samples=20_000, ci_level=0.9, rng_seed=1)
    out = mode.compare(n1, c1, n2, c2)
    a1, b1, a2, b2 = 1 + c1, 1 + n1 - c1, 1 + c2, 1 + n2 - c2
    assert out["prob_greater"] == pytest.approx(_prob_greater_closed_form(a1, b1, a2, b2), abs=1e-8)
    assert out["mean_diff"] == pytest.approx(a1 / (a1 + b1) - a2 / (a2 + b2), rel=1e-12, abs=1e-15)
    rng = np.random.default_rng(99)
    diff = rng.beta(a1, b1, 200_000) - rng.beta(a2, b2, 200_000)
    se = math.sqrt(out["prob_greater"] * (1 - out["prob_greater"]) / diff.size)
    assert abs((diff > 0).mean() - out["prob_greater"]) <= 5 * se + 1e-9
    ref_lo, ref_hi = np.quantile(diff, [0.05, 0.95])
    spread = diff.std()
    assert out["ci_low"] == pytest.approx(ref_lo, abs=0.05 * spread)
    assert out["ci_high"] == pytest.approx(ref_hi, abs=0.05 * spread)
    assert out["samples"].shape == (20_000,)
    assert abs(out["samples"].mean() - out["mean_diff"]) <= 5 * spread / math.sqrt(20_000)
    assert "quadrature" in out["method"] and "Monte Carlo" in out["method"]
    again = BayesianMode(mc_samples=20_000, ci_level=0.9, rng_seed=1).compare(n1, c1, n2, c2)
    np.testing.assert_array_equal(again["samples"], out["samples"])
    assert again["ci_low"] == out["ci_low"]


@pytest.mark.parametrize(("n1", "c1", "n2", "c2"), [
    (20, 20, 1_000_000, 999_990), (8, 3, 51_141, 43_908), (6, 1, 546, 472), (23, 20, 34_643, 19_157),
    (1_000_000, 999_990, 20, 20),
])
def test_compare_small_agent_against_large_agent(n1: int, c1: int, n2: int, c2: int) -> None:
    """One posterior much narrower than the other: the step in the integrand must not be missed."""
    a1, b1, a2, b2 = 1 + c1, 1 + n1 - c1, 1 + c2, 1 + n2 - c2
    if a1 <= a2:  # P(p1 > p2) as a direct sum over a1 terms (no 1 - x cancellation for tiny values)
        terms = [betaln(a2 + i, b2 + b1) - math.log(b1 + i) - betaln(1 + i, b1) - betaln(a2, b2)
                 for i in range(a1)]
        top = max(terms)
        expected = math.exp(top) * math.fsum(math.exp(t - top) for t in terms)
    else:
        expected = _prob_greater_closed_form(a1, b1, a2, b2)
    got = BayesianMode().compare(n1, c1, n2, c2)["prob_greater"]
    assert got == pytest.approx(expected, rel=1e-6)


def test_compare_on_a_random_grid_against_the_closed_form() -> None:
    """Exact to 1e-8 over many (n, c) pairs, small and large, and silent (no IntegrationWarning)."""
    import warnings

    rng = np.random.default_rng(2024)
    mode = BayesianMode()
    for _ in range(300):
        n1, n2 = (int(x) for x in rng.choice([1, 2, 3, 6, 10, 67, 168, 500], size=2))
        c1, c2 = int(rng.integers(0, n1 + 1)), int(rng.integers(0, n2 + 1))
        a1, b1, a2, b2 = 1 + c1, 1 + n1 - c1, 1 + c2, 1 + n2 - c2
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = mode.compare(n1, c1, n2, c2)["prob_greater"]
        assert got == pytest.approx(_prob_greater_closed_form(a1, b1, a2, b2), abs=1e-8), (n1, c1, n2, c2)


def test_compare_vectorised_and_independent_streams() -> None:
    mode = BayesianMode(mc_samples=2000)
    out = mode.compare([10, 10], [7, 5], 10, 5)
    assert out["prob_greater"].shape == (2,) and out["samples"].shape == (2000, 2)
    assert out["prob_greater"][1] == pytest.approx(0.5, abs=1e-9)
    # equal posteriors: draws of p1 and p2 must not be the same stream (that would give 0 spread)
    assert out["samples"][:, 1].std() > 0.1


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(("kwargs", "word"), [
    ({"mc_samples": 0}, "mc_samples"), ({"mc_samples": 2.5}, "mc_samples"), ({"mc_samples": True}, "mc_samples"),
    ({"ci_level": 0.0}, "ci_level"), ({"ci_level": 1.0}, "ci_level"), ({"ci_level": "high"}, "ci_level"),
    ({"beta_prior_a": 0.0}, "beta_prior_a"), ({"beta_prior_a": float("inf")}, "beta_prior_a"),
    ({"beta_prior_b": -1.0}, "beta_prior_b"), ({"beta_prior_b": float("nan")}, "beta_prior_b"),
    ({"rng_seed": -1}, "rng_seed"), ({"rng_seed": 1.5}, "rng_seed"),
])
def test_bayesian_bad_options(kwargs: dict, word: str) -> None:
    with pytest.raises(ConfigError, match=word):
        BayesianMode(**kwargs)


def test_frequentist_bad_options_and_bad_counts() -> None:
    with pytest.raises(ConfigError, match="interval"):
        FrequentistMode(interval="wald")
    with pytest.raises(ConfigError, match="ci_level"):
        FrequentistMode(ci_level=1.2)
    for mode in (FrequentistMode(), BayesianMode()):
        with pytest.raises(ConfigError, match="k must be an integer >= 1"):
            mode.estimate(5, 2, 0)
        with pytest.raises(ConfigError, match="c must be an integer in"):
            mode.estimate([5, 3], [2, 4], 1)
        with pytest.raises(ConfigError, match="n must be"):
            mode.estimate(-1, 0, 1)
    with pytest.raises(ConfigError, match="size"):
        BayesianMode().posterior_samples(3, 1, size=0)
