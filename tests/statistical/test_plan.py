"""Planning: the closed form against enumeration and simulation of the actual analysis."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats
from scipy.special import betaincinv, ndtr

from agenteval.errors import ConfigError
from agenteval.statistical.difficulty import Difficulty, fit_beta_binomial
from agenteval.statistical.plan import (
    _within_var,
    copula_correlation,
    plan,
    power_curve,
    simulate_power,
    simulate_suites,
)


@pytest.mark.parametrize("design", [
    dict(quantity="success", k=1, paired=True, correlation=0.6),
    dict(quantity="pass^k", k=2, paired=True, correlation=0.6),
    dict(quantity="success", k=1, paired=False, correlation=0.0),
])
def test_a_design_planned_for_80_percent_power_detects_in_80_percent(design: dict) -> None:
    kw = dict(rate_a=0.7, rate_b=0.6, icc=0.3, attempts=4, **design)
    planned = plan(**kw)
    assert planned.power >= 0.8 and planned.question == "tasks for power"
    # one task fewer no longer reaches 80%: the answer is the smallest design
    assert plan(tasks=planned.tasks - 1, **kw).power < 0.8
    studies = 2000
    sim, se = simulate_power(Difficulty.from_icc(0.7, 0.3), Difficulty.from_icc(0.6, 0.3),
                             tasks=planned.tasks, attempts=4, quantity=design["quantity"],
                             k=design["k"], correlation=design["correlation"],
                             paired=design["paired"], studies=studies, seed=17)
    # within Monte Carlo error (3.5 s.e. ~ 0.03) of what the planner promised
    assert abs(sim - planned.power) < 3.5 * math.sqrt(0.8 * 0.2 / studies)


def test_paired_needs_fewer_tasks_when_rates_correlate() -> None:
    kw = dict(rate_a=0.7, rate_b=0.6, icc=0.3, attempts=4)
    paired = plan(correlation=0.6, **kw).tasks
    unpaired = plan(paired=False, **kw).tasks
    assert paired < 0.7 * unpaired
    assert plan(correlation=0.0, **kw).tasks == unpaired  # no correlation: pairing gains nothing


def test_success_variance_is_the_design_effect_formula() -> None:
    # one task's c/m: mu (1 - mu) / m * (1 + (m - 1) icc)
    mu, icc, m = 0.7, 0.3, 4
    r = plan(rate_a=mu, icc=icc, attempts=m, width=0.1)
    v = mu * (1 - mu) / m * (1 + (m - 1) * icc)
    z = stats.norm.ppf(0.975)
    assert r.tasks == math.ceil((2 * z) ** 2 * v / 0.01)


def test_within_task_variance_of_pass_pow_k_against_enumeration() -> None:
    d, k, m = Difficulty(0.65, 3.0), 2, 5
    c = np.arange(m + 1)
    u = np.array([math.comb(int(x), k) / math.comb(m, k) for x in c])  # C(c, k) / C(m, k)

    def var_given_p(p: float) -> float:
        pmf = stats.binom.pmf(c, m, p)
        return float(np.sum(pmf * (u - p ** k) ** 2))

    want, _ = integrate.quad(lambda p: var_given_p(p) * stats.beta.pdf(p, d.a, d.b), 0, 1)
    assert _within_var(d, "pass^k", k, m) == pytest.approx(want, rel=1e-9)
    want_at, _ = integrate.quad(lambda p: var_given_p(1 - p) * stats.beta.pdf(p, d.a, d.b), 0, 1)
    assert _within_var(d, "pass@k", k, m) == pytest.approx(want_at, rel=1e-9)


def test_copula_reaches_the_requested_pearson_correlation() -> None:
    da, db = Difficulty.from_icc(0.7, 0.3), Difficulty(0.4, 5.0)
    r = copula_correlation(da, db, 0.5)
    rng = np.random.default_rng(0)
    z1 = rng.standard_normal(400_000)
    z2 = r * z1 + math.sqrt(1 - r * r) * rng.standard_normal(400_000)
    pa, pb = betaincinv(da.a, da.b, ndtr(z1)), betaincinv(db.a, db.b, ndtr(z2))
    assert np.corrcoef(pa, pb)[0, 1] == pytest.approx(0.5, abs=0.005)
    assert pa.mean() == pytest.approx(0.7, abs=0.002) and pa.var() == pytest.approx(0.7 * 0.3 * 0.3, rel=0.02)


def test_width_plan_matches_simulated_interval_width() -> None:
    r = plan(rate_a=0.6, icc=0.2, attempts=3, width=0.12)
    d = Difficulty.from_icc(0.6, 0.2)
    ca, _ = simulate_suites(d, d, tasks=r.tasks, attempts=3, correlation=0.0, studies=800,
                            rng=np.random.default_rng(1), paired=False)
    se = (ca / 3).std(axis=1, ddof=1) / math.sqrt(r.tasks)
    assert np.mean(2 * 1.96 * se) == pytest.approx(0.12, rel=0.03)


def test_beta_binomial_fit_against_scipy() -> None:
    rng = np.random.default_rng(3)
    n = rng.integers(2, 8, 300)
    c = stats.betabinom.rvs(n, 2.0, 3.0, random_state=rng)
    mu, kappa = fit_beta_binomial(n, c)
    res = optimize.minimize(lambda t: -stats.betabinom.logpmf(c, n, math.exp(t[0]), math.exp(t[1])).sum(),
                            [0.0, 0.0], method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-12})
    a, b = np.exp(res.x)
    assert mu == pytest.approx(a / (a + b), rel=1e-4) and kappa == pytest.approx(a + b, rel=1e-3)
    assert math.isnan(fit_beta_binomial([1, 1, 1], [0, 1, 1])[1])


def test_pilot_estimates_spread_and_correlation() -> None:
    da, db = Difficulty.from_icc(0.7, 0.3), Difficulty.from_icc(0.5, 0.3)
    ca, cb = simulate_suites(da, db, tasks=2000, attempts=5, correlation=0.6, studies=1,
                             rng=np.random.default_rng(8))
    n = np.full(2000, 5)
    r = plan(pilot=(n, ca[0], n, cb[0]), attempts=5)
    a = r.assumptions
    assert a["pilot_mu_a"] == pytest.approx(0.7, abs=0.02) and a["pilot_mu_b"] == pytest.approx(0.5, abs=0.02)
    assert a["icc"] == pytest.approx(0.3, abs=0.03)
    assert a["pilot_correlation"] == pytest.approx(0.6, abs=0.06)


def test_power_curve_is_monotone_and_plan_checks_input() -> None:
    curve = power_curve([10, 40, 160], rate_a=0.7, rate_b=0.6, icc=0.3, attempts=2)
    assert np.all(np.diff(curve.power) > 0)
    with pytest.raises(ConfigError, match="kappa or icc"):
        plan(rate_a=0.7, rate_b=0.6)
    with pytest.raises(ConfigError, match="attempts >= k"):
        plan(rate_a=0.7, rate_b=0.6, icc=0.1, quantity="pass^k", k=3, attempts=2)
    with pytest.raises(ConfigError, match="not identified"):
        plan(pilot=([1, 1, 1], [1, 0, 1]), width=0.1)
    with pytest.raises(ConfigError, match="no difference"):
        plan(rate_a=0.6, rate_b=0.6, icc=0.1)


def test_comparison_and_planning_math_imports_nothing_heavy() -> None:
    import json
    import subprocess
    import sys

    code = ("import agenteval.statistical.compare, agenteval.statistical.plan, "
            "agenteval.statistical.quality, agenteval.statistical.difficulty, sys, json; "
            "print(json.dumps(sorted(sys.modules)))")
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                           text=True, check=True).stdout))
    banned = ["pandas", "matplotlib", "openai", "instructor", "IPython", "pymc", "agenteval.judge",
              "agenteval.core", "agenteval.metrics", "agenteval.results", "agenteval.plots"]
    assert not [m for m in banned if m in loaded]
