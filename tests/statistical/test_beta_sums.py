"""beta_sums: the per-draw sum over m tasks sharing a Beta posterior, exact and normal branches."""

import numpy as np
import pytest
from scipy import stats

from agenteval.statistical.beta_sums import EXACT_GROUP, beta_sums, term_moments
from agenteval.statistical.hierarchical import fit_empirical_bayes


@pytest.mark.parametrize("a, b, k", [(0.7, 2.3, 1), (3.0, 1.5, 4), (12.0, 0.4, 6), (0.5, 4.0, 3)])
def test_term_moments_equal_scipys_integrals(a, b, k):
    """Mean, variance and skewness of p, 1 - (1-p)^k and p^k for p ~ Beta(a, b), against scipy's
    numerical integration of each function over the Beta density."""
    dist = stats.beta(a, b)
    for kind, f in (("rate", lambda p: p), ("at", lambda p: 1 - (1 - p) ** k),
                    ("pow", lambda p: p ** k)):
        mean = dist.expect(f)
        var = dist.expect(lambda p: (f(p) - mean) ** 2)
        skew = dist.expect(lambda p: (f(p) - mean) ** 3) / var ** 1.5
        got = term_moments(kind, k, np.array(a), np.array(b))
        assert [float(x) for x in got[:2]] == pytest.approx([mean, var], rel=1e-6, abs=1e-12)
        assert float(got[2]) == pytest.approx(skew, rel=1e-4)   # quad's error at skew ~ -119


@pytest.mark.parametrize("m", [3, EXACT_GROUP, EXACT_GROUP + 1, 400])
def test_sums_have_the_exact_mean_and_variance(m):
    """Both branches: the sum over m iid Beta(a, b) terms has mean m E[f] and variance m Var[f]
    (computed here by scipy's numerical integration, independently of term_moments)."""
    a, b, k, draws = 2.5, 1.5, 3, 200_000
    rng = np.random.default_rng(7)
    got = beta_sums(np.full((draws, 1), a), np.full((draws, 1), b), [m], k, ("rate", "at", "pow"),
                    rng)
    dist = stats.beta(a, b)
    for kind, f in (("rate", lambda p: p), ("at", lambda p: 1 - (1 - p) ** k),
                    ("pow", lambda p: p ** k)):
        mean = dist.expect(f)
        var = dist.expect(lambda p: f(p) ** 2) - mean ** 2
        assert got[kind].mean() == pytest.approx(m * mean, rel=2e-3)
        assert got[kind].var() == pytest.approx(m * var, rel=2e-2)


@pytest.mark.parametrize("a, b, m, tol", [(0.8, 1.9, 60, 0.015), (0.5, 4.0, EXACT_GROUP + 1, 0.04),
                                         (0.3, 0.3, 200, 0.015)])
def test_normal_branch_quantiles_match_brute_force(a, b, m, tol):
    """Above EXACT_GROUP the skew-corrected normal sum's 2.5% / 97.5% quantiles match drawing
    every task (within ``tol`` of the interval's width: 4% for p^3 of Beta(0.5, 4), mean 0.02, at
    m = 25, the worst case seen; the plain normal missed the skewed
    p^3 sum of Beta(0.8, 1.9) by 4%)."""
    k, draws = 3, 100_000
    rng = np.random.default_rng(3)
    approx = beta_sums(np.full((draws, 1), a), np.full((draws, 1), b), [m], k,
                       ("rate", "at", "pow"), rng)
    p = rng.beta(a, b, size=(draws, m))
    brute = {"rate": p.sum(axis=1), "at": (1 - (1 - p) ** k).sum(axis=1),
             "pow": (p ** k).sum(axis=1)}
    for kind, want in brute.items():
        got_ends = np.quantile(approx[kind], [0.025, 0.975])
        want_ends = np.quantile(want, [0.025, 0.975])
        assert np.abs(got_ends - want_ends).max() < tol * (want_ends[1] - want_ends[0]), kind


def test_a_suite_of_small_groups_is_summed_as_drawing_every_task():
    """Thirty tasks in nine groups (the sum over the suite, not over one group, is what the
    normal branch draws): its interval's ends equal per-task draws' within 1.5% of the width."""
    rng = np.random.default_rng(5)
    k, draws = 3, 100_000
    a = rng.uniform(0.3, 6.0, size=9)
    b = rng.uniform(0.3, 6.0, size=9)
    counts = np.array([1, 2, 3, 4, 5, 6, 4, 3, 2])
    approx = beta_sums(np.tile(a, (draws, 1)), np.tile(b, (draws, 1)), counts, k,
                       ("rate", "at", "pow"), rng)
    p = rng.beta(np.repeat(a, counts), np.repeat(b, counts), size=(draws, counts.sum()))
    brute = {"rate": p.sum(axis=1), "at": (1 - (1 - p) ** k).sum(axis=1),
             "pow": (p ** k).sum(axis=1)}
    for kind, want in brute.items():
        got_ends = np.quantile(approx[kind], [0.025, 0.975])
        want_ends = np.quantile(want, [0.025, 0.975])
        assert np.abs(got_ends - want_ends).max() < 0.015 * (want_ends[1] - want_ends[0]), kind
        assert approx[kind].mean() == pytest.approx(want.mean(), rel=2e-3)


def test_a_suite_of_at_most_24_tasks_draws_every_task():
    """Small suites are drawn exactly: the same stream as drawing each task's p."""
    a, b = np.array([[2.0, 3.0]]), np.array([[1.0, 0.5]])
    got = beta_sums(a, b, [3, 2], 2, ("pow",), np.random.default_rng(1))["pow"]
    rng = np.random.default_rng(1)
    want = (rng.beta(a[:, 0, None], b[:, 0, None], size=(1, 3)) ** 2).sum() + (
        rng.beta(a[:, 1, None], b[:, 1, None], size=(1, 2)) ** 2).sum()
    assert got[0] == pytest.approx(want, rel=1e-12)


def test_task_summary_interval_matches_per_unit_draws():
    """A suite of 300 tasks with few distinct (n, c): the fit's suite interval equals the one
    from drawing every task's p from the fit's own posterior draws (within Monte Carlo error)."""
    rng = np.random.default_rng(11)
    n = np.full(300, 3)
    c = rng.binomial(3, rng.beta(1.2, 0.9, size=300))
    fit = fit_empirical_bayes(n, c, draws=4000, seed=5)
    got = fit.task_summary(3, 0.95)
    mu, kappa = fit.flat
    a0, b0 = (mu * kappa)[:, 0], ((1 - mu) * kappa)[:, 0]
    p = rng.beta((a0[:, None] + c), (b0[:, None] + n - c))
    pw = (p ** 3).mean(axis=1)
    at = (1 - (1 - p) ** 3).mean(axis=1)
    for name, draws in (("pass_pow_k", pw), ("pass_at_k", at)):
        lo, hi = np.quantile(draws, [0.025, 0.975])
        assert got[name] == pytest.approx(draws.mean(), abs=2e-3)
        assert got[f"{name}_low"] == pytest.approx(lo, abs=0.006)
        assert got[f"{name}_high"] == pytest.approx(hi, abs=0.006)
