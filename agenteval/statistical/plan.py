"""Power and sample-size planning for agent evaluations, before the study is run.

The design: T tasks, m attempts per task by each agent. Task rates follow
Beta(mu kappa, (1 - mu) kappa) per agent (:class:`~agenteval.statistical.difficulty.Difficulty`;
``icc = 1 / (kappa + 1)``), and the two agents' rates on the same task correlate with Pearson
correlation ``correlation`` (both find the same tasks hard), joined by a Gaussian copula. The
analysis is the one agenteval runs: the mean over tasks of per-task unbiased estimates (c/m,
pass@k of Chen et al. 2021, pass^k of tau-bench), paired on shared tasks (a bootstrap over tasks)
or unpaired (each agent on its own tasks).

**Closed form** (normal approximation). One task's estimate U_t has variance
Var(f(p)) + E[Var(U_t | p)]; for success this is mu (1 - mu) / m * (1 + (m - 1) icc), the design
effect of m attempts clustered within a task; for pass^k the within-task part is Hoeffding's
U-statistic variance, sum_j C(k, j) C(m-k, k-j) / C(m, k) (p^(2k-j) - p^(2k)). A paired difference
subtracts 2 Cov(f(p_A), f(p_B)). Moments are exact Beta moments or 2-D Gauss-Hermite quadrature
over the copula (deterministic, no sampling). With V the variance of one task's difference and
delta the true difference, power = Phi(|delta| sqrt(T / V) - z) + Phi(-|delta| sqrt(T / V) - z),
z = Phi^-1(1 - alpha / 2), and the interval half-width on one agent's quantity is z sqrt(V / T).

**Simulation** (:func:`simulate_power`): seeded studies drawn from the same model and analysed by
the actual method (the percentile bootstrap over tasks), so a plan can be checked against the
analysis it promises; the tests do exactly that.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agenteval.errors import ConfigError, check_k, check_level
from agenteval.statistical.difficulty import Difficulty

__all__ = ["PlanResult", "PowerCurve", "plan", "power_curve", "simulate_power", "simulate_suites"]

_QUANTITIES = ("success", "pass^k", "pass@k")
_GH_NODES = 64


# --------------------------------------------------------------------------- the model


def _check_quantity(quantity: str, k: int, attempts: int) -> None:
    if quantity not in _QUANTITIES:
        raise ConfigError(f"quantity must be one of {_QUANTITIES}, got {quantity!r}")
    if quantity != "success" and attempts < k:
        raise ConfigError(f"{quantity} with k={k} needs attempts >= k (the unbiased estimator "
                          f"uses k of a task's attempts), got attempts={attempts}")


def _f(quantity: str, k: int):
    if quantity == "success":
        return lambda p: p
    if quantity == "pass^k":
        return lambda p: p ** k
    return lambda p: 1.0 - (1.0 - p) ** k


def _ppf(d: Difficulty, u: np.ndarray) -> np.ndarray:
    from scipy.special import betaincinv

    if math.isinf(d.kappa):
        return np.full(np.shape(u), d.mu)
    return betaincinv(d.a, d.b, u)


def _gauss_hermite() -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights for E[g(Z)], Z ~ N(0, 1)."""
    x, w = np.polynomial.hermite_e.hermegauss(_GH_NODES)
    return x, w / w.sum()


def _copula_moment(da: Difficulty, db: Difficulty, r: float, fa: Any, fb: Any) -> float:
    """E[fa(p_A) fb(p_B)] under the Gaussian copula with correlation r (2-D Gauss-Hermite)."""
    from scipy.special import ndtr

    x, w = _gauss_hermite()
    z1 = x[:, None]
    z2 = r * x[:, None] + math.sqrt(max(1.0 - r * r, 0.0)) * x[None, :]
    pa = _ppf(da, ndtr(z1))
    pb = _ppf(db, ndtr(z2))
    return float(np.sum(w[:, None] * w[None, :] * fa(pa) * fb(pb)))


def _moments(d: Difficulty, f: Any) -> tuple[float, float]:
    """E[f(p)], Var(f(p)) by 1-D quadrature over the Beta quantile function."""
    from scipy.special import ndtr

    x, w = _gauss_hermite()
    v = f(_ppf(d, ndtr(x)))
    mean = float(np.sum(w * v))
    return mean, float(np.sum(w * (v - mean) ** 2))


def copula_correlation(da: Difficulty, db: Difficulty, correlation: float) -> float:
    """The copula correlation r whose per-task rates have Pearson correlation ``correlation``."""
    from scipy.optimize import brentq

    if correlation == 0 or da.sd() == 0 or db.sd() == 0:
        return 0.0
    ident = lambda p: p  # noqa: E731
    ma, va = _moments(da, ident)
    mb, vb = _moments(db, ident)

    def pearson(r: float) -> float:
        return (_copula_moment(da, db, r, ident, ident) - ma * mb) / math.sqrt(va * vb)

    lo, hi = pearson(-0.9999), pearson(0.9999)
    if not (lo <= correlation <= hi):
        raise ConfigError(f"correlation {correlation} cannot be reached with these difficulty "
                          f"distributions (range [{lo:.3f}, {hi:.3f}])")
    return float(brentq(lambda r: pearson(r) - correlation, -0.9999, 0.9999, xtol=1e-10))


def _within_var(d: Difficulty, quantity: str, k: int, m: int) -> float:
    """E over tasks of Var(U_t | p): binomial for success, Hoeffding's formula for pass^k / pass@k."""
    from scipy.special import comb

    def moment(j: int, fail: bool) -> float:
        # E[p^j] (or E[(1-p)^j]) for p ~ Beta(a, b), exact
        if math.isinf(d.kappa):
            base = 1 - d.mu if fail else d.mu
            return base ** j
        a, b = (d.b, d.a) if fail else (d.a, d.b)
        return float(np.prod([(a + i) / (a + b + i) for i in range(j)]))

    if quantity == "success":
        return (moment(1, False) - moment(2, False)) / m
    fail = quantity == "pass@k"
    total = 0.0
    for j in range(1, k + 1):
        share = comb(k, j, exact=True) * comb(m - k, k - j, exact=True) / comb(m, k, exact=True)
        total += share * (moment(2 * k - j, fail) - moment(2 * k, fail))
    return total


def _task_variance(da: Difficulty, db: Difficulty | None, quantity: str, k: int, m: int,
                   correlation: float, paired: bool) -> tuple[float, float]:
    """(effect, V): the true difference (or the value, for one agent) and the per-task variance."""
    f = _f(quantity, k)
    ea, va = _moments(da, f)
    va += _within_var(da, quantity, k, m)
    if db is None:
        return ea, va
    eb, vb = _moments(db, f)
    vb += _within_var(db, quantity, k, m)
    v = va + vb
    if paired and correlation != 0:
        r = copula_correlation(da, db, correlation)
        v -= 2.0 * (_copula_moment(da, db, r, f, f) - ea * eb)
    return ea - eb, max(v, 1e-15)


def _z(level: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(0.5 + level / 2.0))


def _power(effect: float, v: float, tasks: Any, level: float) -> Any:
    from scipy.special import ndtr

    z = _z(level)
    shift = abs(effect) * np.sqrt(np.asarray(tasks, dtype=float) / v)
    return ndtr(shift - z) + ndtr(-shift - z)


# --------------------------------------------------------------------------- public API


@dataclass(frozen=True)
class PlanResult:
    """A planning answer: the design, what it achieves, and the assumptions it rests on."""

    question: str
    """'tasks for power', 'power of design' or 'tasks for width'."""
    tasks: int
    attempts: int
    quantity: str
    """'success', 'pass^k' or 'pass@k' (k filled in)."""
    paired: bool
    effect: float
    """True difference A - B of the quantity implied by the assumptions (or A's value for width)."""
    power: float
    """Closed-form power of the design (NaN for a width question)."""
    half_width: float
    """Expected half-width of the interval of the difference (or of A's value) at ``tasks``."""
    ci_level: float
    assumptions: dict[str, Any]
    method: str
    simulated_power: float = math.nan
    """Power of the actual analysis in seeded simulated studies (when asked for)."""
    simulated_se: float = math.nan
    """Monte Carlo standard error of ``simulated_power``."""

    def to_text(self) -> str:
        a = self.assumptions
        one = self.question == "tasks for width"
        how = ("one agent" if one else "paired: both agents on the same tasks" if self.paired
               else "unpaired: each agent on its own tasks")
        lines = [f"question: {self.question}",
                 f"design: {self.tasks} tasks x {self.attempts} attempts per "
                 f"{'task' if one else 'agent and task'} ({how})",
                 f"quantity: {self.quantity}; "
                 + (f"true difference A - B = {self.effect:.4f}" if self.question != "tasks for width"
                    else f"value = {self.effect:.4f}")]
        if not math.isnan(self.power):
            lines.append(f"power (closed form, two-sided, level {self.ci_level:g}): {self.power:.3f}")
        lines.append(f"expected interval half-width: {self.half_width:.4f}")
        if not math.isnan(self.simulated_power):
            lines.append(f"power of the actual analysis in simulated studies: "
                         f"{self.simulated_power:.3f} +/- {self.simulated_se:.3f} (MC s.e.)")
        lines.append("assumptions: " + ", ".join(f"{k}={v}" for k, v in a.items()))
        lines.append(f"method: {self.method}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()


@dataclass(frozen=True)
class PowerCurve:
    """Power against the number of tasks for one design (what :func:`plot_power_curve` draws)."""

    tasks: np.ndarray
    power: np.ndarray
    attempts: int
    quantity: str
    paired: bool
    target: float = 0.8
    simulated: np.ndarray | None = field(default=None)
    simulated_se: np.ndarray | None = field(default=None)


def _difficulties(rate_a: float, rate_b: float | None, kappa: float | None, icc: float | None,
                  kappa_b: float | None) -> tuple[Difficulty, Difficulty | None]:
    if kappa is not None and icc is not None:
        raise ConfigError("give kappa or icc, not both")
    if kappa is None and icc is None:
        raise ConfigError("the spread of task difficulty is needed: give kappa or icc (an "
                          "assumption), or a pilot run")
    da = Difficulty.from_icc(rate_a, icc) if icc is not None else Difficulty(rate_a, kappa)
    if rate_b is None:
        return da, None
    kb = kappa_b if kappa_b is not None else da.kappa
    return da, Difficulty(rate_b, kb)


def _label(quantity: str, k: int) -> str:
    return quantity.replace("k", str(k)) if quantity != "success" else "success"


def plan(*, rate_a: float | None = None, rate_b: float | None = None, kappa: float | None = None,
         icc: float | None = None, kappa_b: float | None = None, correlation: float | None = None,
         attempts: int = 1, tasks: int | None = None, power: float = 0.8, ci_level: float = 0.95,
         quantity: str = "success", k: int = 1, paired: bool = True, width: float | None = None,
         pilot: tuple[Any, ...] | None = None, simulate: int = 0, seed: int = 0) -> PlanResult:
    """Answer one planning question (closed form; add ``simulate=N`` to check by simulation).

    - ``width`` given: tasks needed for an interval of total width ``width`` on agent A's quantity;
    - ``tasks`` given: the power of that design to tell A from B;
    - otherwise: tasks needed to reach ``power``.

    ``rate_a``, ``rate_b``: mean task success rates (the difference to detect is implied:
    ``rate_a - rate_b`` for success, E[p_A^k] - E[p_B^k] for pass^k). The spread of difficulty:
    ``kappa`` or ``icc`` (assumptions), or ``pilot`` = per-task counts (n_a, c_a) or
    (n_a, c_a, n_b, c_b) of a pilot run, aligned by task, from which kappa, the correlation and
    (when not given) the rates are estimated. ``correlation``: of the two agents' per-task rates
    (default 0.5 when paired without pilot).

    >>> r = plan(rate_a=0.7, rate_b=0.6, icc=0.3, correlation=0.6, attempts=4)
    >>> r.tasks, round(r.power, 3) >= 0.8
    (105, True)
    """
    k = check_k(k)
    level = check_level("ci_level", ci_level)
    target = check_level("power", power)
    if isinstance(attempts, bool) or not isinstance(attempts, (int, np.integer)) or attempts < 1:
        raise ConfigError(f"attempts must be an integer >= 1, got {attempts!r}")
    attempts = int(attempts)
    _check_quantity(quantity, k, attempts)
    estimated: dict[str, Any] = {}
    if pilot is not None:
        rate_a, rate_b, kappa, kappa_b, correlation, estimated = _from_pilot(
            pilot, rate_a, rate_b, kappa if icc is None else None, kappa_b, correlation)
        if icc is not None:
            kappa = None
    if rate_a is None:
        raise ConfigError("rate_a is needed (or a pilot run to estimate it)")
    if width is None and rate_b is None:
        raise ConfigError("rate_b is needed to plan a comparison (or give width for one agent)")
    if correlation is None:
        correlation = 0.5 if paired else 0.0
    if not (-1.0 < correlation < 1.0):
        raise ConfigError(f"correlation must be in (-1, 1), got {correlation!r}")
    da, db = _difficulties(rate_a, None if width is not None else rate_b, kappa, icc, kappa_b)
    label = _label(quantity, k)
    z = _z(level)
    assumptions: dict[str, Any] = {"rate_a": rate_a}
    if db is not None:
        assumptions["rate_b"] = rate_b
    assumptions.update(kappa=round(da.kappa, 4), icc=round(da.icc, 4))
    if db is not None and db.kappa != da.kappa:
        assumptions["kappa_b"] = round(db.kappa, 4)
    if db is not None and paired:
        assumptions["correlation"] = correlation
    assumptions.update(estimated)
    if width is not None:
        if not (isinstance(width, (int, float)) and 0 < width < 1):
            raise ConfigError(f"width must be a number in (0, 1), got {width!r}")
        value, v = _task_variance(da, None, quantity, k, attempts, 0.0, False)
        need = max(2, math.ceil((2 * z) ** 2 * v / width ** 2))
        return PlanResult("tasks for width", need, attempts, label, False, value, math.nan,
                          z * math.sqrt(v / need), level, assumptions,
                          f"normal approximation: T = (2 z)^2 V / width^2 with V = {v:.5f}")
    effect, v = _task_variance(da, db, quantity, k, attempts, correlation, paired)
    if tasks is None:
        if effect == 0:
            raise ConfigError("rate_a and rate_b imply no difference: nothing to detect")
        need = max(2, math.ceil((z + _z(2 * target - 1)) ** 2 * v / effect ** 2))
        while _power(effect, v, need, level) < target:
            need += 1
        question, tasks = "tasks for power", need
    else:
        if isinstance(tasks, bool) or not isinstance(tasks, (int, np.integer)) or tasks < 2:
            raise ConfigError(f"tasks must be an integer >= 2, got {tasks!r}")
        question, tasks = "power of design", int(tasks)
    pw = float(_power(effect, v, tasks, level))
    sim, se = math.nan, math.nan
    if simulate:
        sim, se = simulate_power(da, db, tasks=tasks, attempts=attempts, quantity=quantity, k=k,
                                 correlation=correlation, paired=paired, ci_level=level,
                                 studies=int(simulate), seed=seed)
    design = "paired" if paired else "unpaired"
    return PlanResult(question, tasks, attempts, label, paired, effect, pw,
                      z * math.sqrt(v / tasks), level, assumptions,
                      f"normal approximation ({design}), per-task variance V = {v:.5f}; power = "
                      "Phi(|d| sqrt(T/V) - z) + Phi(-|d| sqrt(T/V) - z)"
                      + (f"; simulated: {int(simulate)} seeded studies analysed by the "
                         f"{design} percentile bootstrap over tasks" if simulate else ""),
                      simulated_power=sim, simulated_se=se)


def _from_pilot(pilot: tuple[Any, ...], rate_a: float | None, rate_b: float | None,
                kappa: float | None, kappa_b: float | None, correlation: float | None
                ) -> tuple[Any, ...]:
    """Estimate what the caller did not assume from pilot per-task counts."""
    if len(pilot) not in (2, 4):
        raise ConfigError("pilot must be (n_a, c_a) or (n_a, c_a, n_b, c_b) per-task counts")
    n_a, c_a = (np.asarray(x, dtype=float) for x in pilot[:2])
    fa = Difficulty.from_counts(n_a, c_a)
    est: dict[str, Any] = {"pilot_tasks": int(n_a.size), "pilot_mu_a": round(fa.mu, 4),
                           "pilot_kappa_a": round(fa.kappa, 4)}
    rate_a = fa.mu if rate_a is None else rate_a
    kappa = fa.kappa if kappa is None else kappa
    if len(pilot) == 4:
        n_b, c_b = (np.asarray(x, dtype=float) for x in pilot[2:])
        if n_b.shape != n_a.shape:
            raise ConfigError("pilot counts of the two agents must be aligned by task (one length)")
        fb = Difficulty.from_counts(n_b, c_b)
        est.update(pilot_mu_b=round(fb.mu, 4), pilot_kappa_b=round(fb.kappa, 4))
        rate_b = fb.mu if rate_b is None else rate_b
        kappa_b = fb.kappa if kappa_b is None else kappa_b
        if correlation is None:
            # Binomial noise is independent between agents, so the covariance of the observed
            # per-task rates estimates the covariance of the true rates.
            cov = float(np.cov(c_a / n_a, c_b / n_b)[0, 1])
            denom = fa.sd() * fb.sd()
            correlation = 0.0 if denom == 0 else float(np.clip(cov / denom, -0.95, 0.95))
            est["pilot_correlation"] = round(correlation, 4)
    return rate_a, rate_b, kappa, kappa_b, correlation, est


def power_curve(tasks: Any, *, simulate: int = 0, seed: int = 0, **kwargs: Any) -> PowerCurve:
    """Power at each number of tasks in ``tasks`` (closed form; ``simulate`` studies per point)."""
    grid = np.asarray(tasks, dtype=int).ravel()
    results = [plan(tasks=int(t), simulate=simulate, seed=seed + i, **kwargs)
               for i, t in enumerate(grid)]
    sim = np.array([r.simulated_power for r in results]) if simulate else None
    se = np.array([r.simulated_se for r in results]) if simulate else None
    return PowerCurve(grid, np.array([r.power for r in results]), results[0].attempts,
                      results[0].quantity, results[0].paired, kwargs.get("power", 0.8), sim, se)


# --------------------------------------------------------------------------- simulation


def simulate_suites(da: Difficulty, db: Difficulty, *, tasks: int, attempts: int,
                    correlation: float, studies: int, rng: np.random.Generator,
                    paired: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Per-task success counts (studies, tasks) for A and B from the planning model.

    Paired: both agents on the same tasks, rates joined by the Gaussian copula whose Pearson
    correlation is ``correlation``; unpaired: independent task samples.
    """
    from scipy.special import ndtr

    r = copula_correlation(da, db, correlation) if paired else 0.0
    z1 = rng.standard_normal((studies, tasks))
    z2 = r * z1 + math.sqrt(1 - r * r) * rng.standard_normal((studies, tasks))
    pa, pb = _ppf(da, ndtr(z1)), _ppf(db, ndtr(z2))
    return rng.binomial(attempts, pa), rng.binomial(attempts, pb)


def simulate_power(da: Difficulty, db: Difficulty, *, tasks: int, attempts: int,
                   quantity: str = "success", k: int = 1, correlation: float = 0.0,
                   paired: bool = True, ci_level: float = 0.95, studies: int = 1000,
                   resamples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """Share of simulated studies whose percentile-bootstrap interval excludes 0, with its MC s.e.

    The analysis of each study is agenteval's frequentist one: per-task unbiased estimates, a
    bootstrap over tasks (paired: tasks resampled with both agents together; unpaired: each
    agent's tasks resampled on their own), the percentile interval at ``ci_level``. One set of
    multinomial resampling weights serves all studies (each study's data are independent of it).
    """
    from agenteval.statistical.estimators import pass_at_k_unbiased, pass_pow_k_unbiased

    _check_quantity(quantity, k, attempts)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    ca, cb = simulate_suites(da, db, tasks=tasks, attempts=attempts, correlation=correlation,
                             studies=studies, rng=rng, paired=paired)
    if quantity == "success":
        ua, ub = ca / attempts, cb / attempts
    else:
        fn = pass_pow_k_unbiased if quantity == "pass^k" else pass_at_k_unbiased
        ua = fn(np.full(ca.shape, attempts), ca, k)
        ub = fn(np.full(cb.shape, attempts), cb, k)
    tail = (1.0 - ci_level) / 2.0
    probs = np.full(tasks, 1.0 / tasks)
    wa = rng.multinomial(tasks, probs, size=resamples).T / tasks       # (tasks, resamples)
    if paired:
        boot = (ua - ub) @ wa
    else:
        wb = rng.multinomial(tasks, probs, size=resamples).T / tasks
        boot = ua @ wa - ub @ wb
    lo, hi = np.quantile(boot, [tail, 1.0 - tail], axis=1)
    reject = (lo > 0) | (hi < 0)
    p = float(reject.mean())
    return p, math.sqrt(max(p * (1 - p), 1e-12) / studies)
