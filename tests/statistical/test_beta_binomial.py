"""The one Beta-Binomial fit: the grid hyperposterior against an independent quadrature written
here (scipy's Beta-Binomial pmf, Simpson's rule), the maximum-likelihood fit against scipy's
optimiser, and the draws against the grid's own moments."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, optimize, special, stats

from agenteval.errors import ConfigError
from agenteval.statistical import beta_binomial as bb
from agenteval.statistical import difficulty, hierarchical

ROOT = Path(__file__).resolve().parents[2]
#: tau-bench's demo (data/taubench_demo.json): 8 tasks x 4 trials.
DEMO_C = [0, 3, 2, 2, 4, 2, 4, 4]


def _independent(n: np.ndarray, c: np.ndarray, *, x=(-6.0, 7.0), y=(-6.0, 10.0), points=801,
                 prior=(1.0, 1.0, 2.0, 1.5)) -> dict[str, float]:
    """Posterior summaries of (mu, kappa) by Simpson's rule on a fine grid over (logit mu,
    log kappa), from scipy.stats.betabinom directly (no agenteval code)."""
    xs, ys = np.linspace(*x, points), np.linspace(*y, points)
    X, Y = np.meshgrid(xs, ys, indexing="ij")
    mu, kappa = special.expit(X), np.exp(Y)
    a, b = mu * kappa, (1 - mu) * kappa
    loglik = np.zeros_like(X)
    for nt, ct in zip(n, c):
        loglik += stats.betabinom.logpmf(ct, nt, a, b)
    ma, mb, lm, ls = prior
    logprior = ma * np.log(mu) + mb * np.log1p(-mu) + stats.norm.logpdf(Y, lm, ls)
    dens = np.exp(loglik + logprior - (loglik + logprior).max())
    total = integrate.simpson(integrate.simpson(dens, x=ys, axis=1), x=xs)
    marg_y = integrate.simpson(dens, x=xs, axis=0) / total
    cdf = integrate.cumulative_trapezoid(marg_y, ys, initial=0.0)
    cdf /= cdf[-1]
    lo, hi = np.interp([0.025, 0.975], cdf, ys)

    def expect(f: np.ndarray) -> float:
        return integrate.simpson(integrate.simpson(f * dens, x=ys, axis=1), x=xs) / total

    return {"mu": expect(mu), "log_kappa": expect(Y), "kappa_low": math.exp(lo),
            "kappa_high": math.exp(hi)}


def test_demo_hyperposterior_against_an_independent_grid() -> None:
    """The demo's kappa interval: the grid's [0.66, 58] where the old Laplace approximation said
    [0.45, 18.6]."""
    n, c = np.full(8, 4), np.array(DEMO_C)
    want = _independent(n, c)
    post = bb.hyperposterior(n, c)
    lo, hi = post.kappa_interval()
    assert lo == pytest.approx(want["kappa_low"], rel=0.03)
    assert hi == pytest.approx(want["kappa_high"], rel=0.03)
    assert 0.6 < lo < 0.7 and 50 < hi < 65
    assert post.expect(lambda m, k: m + 0 * k) == pytest.approx(want["mu"], abs=1e-4)
    assert post.expect(lambda m, k: np.log(k) + 0 * m) == pytest.approx(want["log_kappa"], abs=2e-3)


def test_real_taubench_counts_and_a_second_prior_against_the_independent_grid() -> None:
    data = json.loads((ROOT / "benchmarks" / "data" / "taubench_gpt4o_airline_counts.json").read_text())
    n, c = np.array(data["n"]), np.array(data["c"])
    for prior in ((1.0, 1.0, 2.0, 1.5), (2.0, 3.0, 0.0, 1.0)):
        want = _independent(n, c, prior=prior, points=501)
        post = bb.hyperposterior(n, c, prior=bb.HyperPrior(*prior))
        lo, hi = post.kappa_interval()
        assert (lo, hi) == pytest.approx((want["kappa_low"], want["kappa_high"]), rel=0.03)
        assert post.expect(lambda m, k: m + 0 * k) == pytest.approx(want["mu"], abs=1e-4)


def test_draws_follow_the_grid_and_empirical_bayes_uses_them() -> None:
    n, c = np.full(8, 4), np.array(DEMO_C)
    post = bb.hyperposterior(n, c)
    mu, kappa = post.draws(200_000, np.random.default_rng(1))
    assert mu.mean() == pytest.approx(post.expect(lambda m, k: m + 0 * k), abs=3e-3)
    assert np.quantile(kappa, [0.025, 0.975]) == pytest.approx(post.kappa_interval(), rel=0.05)
    fit = hierarchical.fit_empirical_bayes(n, c, draws=100_000, seed=3)
    assert np.quantile(fit.kappa, [0.025, 0.975]) == pytest.approx(post.kappa_interval(), rel=0.05)
    assert fit.diagnostics["modes"][0]["kappa_interval"] == pytest.approx(post.kappa_interval())


def test_a_million_units_are_resolved_by_refinement() -> None:
    """A very narrow posterior: the grid refines until its mass spans many cells; mu's interval
    matches the normal approximation (exact enough at this size) of the independent MLE."""
    rng = np.random.default_rng(0)
    n = rng.integers(1, 5, 1_000_000)
    c = rng.binomial(n, rng.beta(2.0, 3.0, n.size))
    post = bb.hyperposterior(n, c)
    assert post.dx < 1e-3 and post.dy < 1e-2
    lo, hi = post.mu_interval()
    assert lo < 0.4 < hi and hi - lo < 0.003
    klo, khi = post.kappa_interval()
    assert klo < 5.0 < khi and khi / klo < 1.1


def test_no_units_give_the_prior_and_bad_input_is_refused() -> None:
    post = bb.hyperposterior([], [])
    lo, hi = post.kappa_interval()
    assert (math.log(lo), math.log(hi)) == pytest.approx((2 - 1.96 * 1.5, 2 + 1.96 * 1.5), abs=0.05)
    with pytest.raises(ConfigError, match="0 <= c <= n"):
        bb.hyperposterior([2], [3])
    with pytest.raises(ConfigError, match="grid"):
        bb.hyperposterior([2], [1], grid=3)


def test_maximum_likelihood_against_scipy_and_the_issue_numbers() -> None:
    """The gpt-4o airline log's fit is Beta(0.642, 0.858) (the simulation benchmark's generator)."""
    data = json.loads((ROOT / "benchmarks" / "data" / "taubench_gpt4o_airline_counts.json").read_text())
    n, c = np.array(data["n"]), np.array(data["c"])

    def nll(theta: np.ndarray) -> float:
        return -float(stats.betabinom.logpmf(c, n, math.exp(theta[0]), math.exp(theta[1])).sum())

    res = optimize.minimize(nll, np.zeros(2), method="Powell", options={"xtol": 1e-10, "ftol": 1e-12})
    a, b = np.exp(res.x)
    mu, kappa = bb.fit_mle(n, c)
    assert (mu * kappa, (1 - mu) * kappa) == pytest.approx((a, b), rel=1e-3)
    assert (round(mu * kappa, 3), round((1 - mu) * kappa, 3)) == (0.642, 0.858)
    assert difficulty.fit_beta_binomial(n, c) == (mu, kappa)   # one fit, two names
    assert math.isnan(bb.fit_mle([1, 1, 1], [0, 1, 1])[1])
