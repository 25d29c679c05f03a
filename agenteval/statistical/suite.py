"""Suite-level estimates: per-group shares of fully correct conversations and task-level pass@k.

Pure functions over numpy arrays; no I/O, pandas or plotting. ``agenteval.results`` turns
per-conversation metrics into the arrays below and presents what these functions return.

Two quantities, kept apart because they differ whenever tasks differ in difficulty:

* **share of fully correct conversations** p (per group): the chance that a new conversation
  is fully correct. Plugged into p^k and 1-(1-p)^k it gives the *pooled* pass^k / pass@k, which
  assumes every attempt is at an equally hard task.
* **task level** (where ``task_id`` repeats): a task t (one agent, one task_id) has success
  rate p_t; pass^k of the suite's tasks is mean_t p_t^k and pass@k is mean_t 1-(1-p_t)^k
  (tau-bench's and HumanEval's definitions). With p the mean of the p_t, Jensen's inequality
  gives mean_t p_t^k >= p^k and mean_t 1-(1-p_t)^k <= 1-(1-p)^k, equal only when all tasks are
  alike: the pooled plug-in understates pass^k and overstates pass@k. For a *new task* from the
  same population the mean is the same but the interval also carries the sampling of tasks.

With one attempt per task the spread of p_t is invisible, so pass^k and pass@k for k > 1 are
not identified: :func:`task_estimates` returns ``identified=False`` and NaN instead of a number
the prior made up.

**Judge errors are missing data.** A conversation with a judged wrong interaction is a known
failure; one whose judged interactions are all right but some are unjudged is unknown. When
judge failures are unrelated to correctness, the complete conversations *of one length* are a
random sample of all conversations of that length, but long conversations are less often
complete and less often fully correct, so the plain complete-case share is biased whenever
lengths differ. :func:`stratified_rate` therefore estimates the share per conversation length
from the complete conversations of that length and weights the lengths by how many
conversations have them (post-stratification), which is unbiased whatever the lengths. At the
task level the attempts at one task normally share a length (a task fixes its script), so each
task's complete attempts are used as they are.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from agenteval.errors import ConfigError
from agenteval.statistical import estimators as est
from agenteval.statistical.new_task import new_task_estimate

#: How every mode's new-task values are computed (:mod:`agenteval.statistical.new_task`).
NEW_TASK_METHOD = ("new task: mean of per-task unbiased estimates over tasks with >= k attempts, "
                   "Bayesian bootstrap over tasks")

__all__ = [
    "TaskEstimate",
    "length_strata",
    "bayes_stratified_rate",
    "frequentist_stratified_rate",
    "conjugate_task_estimate",
    "conjugate_task_estimates",
    "frequentist_task_estimate",
    "not_identified_note",
    "task_unknown_bounds",
    "unknown_bounds",
    "unknown_bounds_note",
    "WIDE_BOUNDS",
]

# Monte Carlo draws are made in chunks of at most this many numbers (memory bound).
_CHUNK = 4_000_000
# ... and the conjugate task draws in blocks of about this many (2 MB arrays: cache-friendly,
# and six of them at a time instead of six of 32 MB).
_TASK_CHUNK = 262_144


# --------------------------------------------------------------------------- conversation share


def length_strata(length: Any, complete: Any, full: Any) -> tuple[np.ndarray, ...]:
    """Per conversation length L: (L, N_L conversations, M_L complete ones, C_L fully correct).

    ``length`` is each conversation's number of interactions (judged or not), ``complete`` whether
    every one was judged, ``full`` whether it is known fully correct (only complete ones can be).

    >>> L, N, M, C = length_strata([1, 1, 3, 3, 3], [1, 0, 1, 1, 0], [1, 0, 1, 0, 0])
    >>> L.tolist(), N.tolist(), M.tolist(), C.tolist()
    ([1, 3], [2, 3], [1, 2], [1, 1])
    """
    length = np.asarray(length, dtype=np.int64)
    complete = np.asarray(complete, dtype=bool)
    full = np.asarray(full, dtype=bool) & complete
    levels, inverse = np.unique(length, return_inverse=True)
    size = levels.size
    n = np.bincount(inverse, minlength=size)
    m = np.bincount(inverse, weights=complete, minlength=size).astype(np.int64)
    c = np.bincount(inverse, weights=full, minlength=size).astype(np.int64)
    return levels, n, m, c


def _map_k(p: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(1-(1-p)^k, p^k), accurate for small p."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.expm1(k * np.log1p(-p)) + 0.0, p ** k


def bayes_stratified_rate(n: Any, m: Any, c: Any, k: int, *, a: float = 1.0, b: float = 1.0,
                          level: float = 0.95, draws: int = 5000, seed: int | None = 42
                          ) -> dict[str, float]:
    """Posterior of the share of fully correct conversations, post-stratified by length.

    Per length stratum L: p_L ~ Beta(a + C_L, b + M_L - C_L) from its complete conversations;
    the mix of lengths w ~ Dirichlet(N_L) (the Bayesian bootstrap of the conversations' lengths);
    p = sum_L w_L p_L. The mean of p is exact (sum_L N_L/N * E[p_L]); its interval and pass@k /
    pass^k of p come from ``draws`` seeded Monte Carlo draws. A stratum with no complete
    conversation keeps the prior (wide, honest) for its share.

    Returns rate, rate_low, rate_high, pass_at_k(+_low, _high), pass_pow_k(+_low, _high).
    """
    n, m, c = (np.asarray(x, dtype=np.float64) for x in (n, m, c))
    p = stratified_share_draws(n, m, c, a=a, b=b, draws=draws, seed=seed)
    at, pw = _map_k(p, k)
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(p, [tail, 1.0 - tail])
    mean = float(np.sum(n / n.sum() * (a + c) / (a + b + m)))
    (at_lo, at_hi), (pw_lo, pw_hi) = _map_k(np.array([lo, hi]), k)
    return {"rate": mean, "rate_low": float(lo), "rate_high": float(hi),
            "pass_at_k": float(at.mean()), "pass_at_k_low": float(at_lo), "pass_at_k_high": float(at_hi),
            "pass_pow_k": float(pw.mean()), "pass_pow_k_low": float(pw_lo), "pass_pow_k_high": float(pw_hi)}


def stratified_share_draws(n: Any, m: Any, c: Any, *, a: float = 1.0, b: float = 1.0,
                           draws: int = 5000, seed: int | None = 42) -> np.ndarray:
    """Posterior draws of the post-stratified share (see :func:`bayes_stratified_rate`).

    With one stratum this is Beta(a + C, b + M - C) itself.
    """
    n, m, c = (np.atleast_1d(np.asarray(x, dtype=np.float64)) for x in (n, m, c))
    rng = np.random.default_rng(seed)
    w = rng.dirichlet(n, size=draws) if n.size > 1 else np.ones((draws, 1))
    p_l = rng.beta(a + c, b + m - c, size=(draws, n.size))
    return np.sum(w * p_l, axis=1)


def conjugate_unit_draws(n: Any, c: Any, *, a: float = 1.0, b: float = 1.0, draws: int = 5000,
                         seed: int | None = 42) -> np.ndarray:
    """Independent posterior draws of every unit's p ~ Beta(a + c, b + n - c): (draws, units)."""
    n, c = np.asarray(n, dtype=np.float64), np.asarray(c, dtype=np.float64)
    return np.random.default_rng(seed).beta(a + c, b + n - c, size=(draws, n.size))


def conjugate_unit_draw_blocks(n: Any, c: Any, *, a: float = 1.0, b: float = 1.0,
                               draws: int = 5000, seed: int | None = 42, rows: int = 256
                               ) -> Iterator[np.ndarray]:
    """:func:`conjugate_unit_draws` ``rows`` draws at a time: the same numbers (one generator
    read in the same order), never all of them at once."""
    n, c = np.asarray(n, dtype=np.float64), np.asarray(c, dtype=np.float64)
    rng = np.random.default_rng(seed)
    for start in range(0, draws, rows):
        yield rng.beta(a + c, b + n - c, size=(min(rows, draws - start), n.size))


def group_power_draws(p: np.ndarray, groups: np.ndarray, n_groups: int, k: int, *,
                      bootstrap_seed: int | None = None) -> dict[str, np.ndarray]:
    """Per draw and group: mean over the group's units of p^k and 1-(1-p)^k, shape (draws, groups).

    With ``bootstrap_seed`` the mean uses Dirichlet(1, ..., 1) weights per draw (a new unit from
    the group, Bayesian bootstrap) instead of equal weights (the suite's units).
    """
    at, pw = _map_k(p, k)
    weights = np.ones_like(p)
    if bootstrap_seed is not None:
        weights = np.random.default_rng(bootstrap_seed).standard_exponential(size=p.shape)
    out_at = np.full((p.shape[0], n_groups), np.nan)
    out_pw = np.full((p.shape[0], n_groups), np.nan)
    for g in range(n_groups):
        sel = groups == g
        if sel.any():
            w = weights[:, sel]
            out_at[:, g] = (w * at[:, sel]).sum(axis=1) / w.sum(axis=1)
            out_pw[:, g] = (w * pw[:, sel]).sum(axis=1) / w.sum(axis=1)
    return {"pass_at_k": out_at, "pass_pow_k": out_pw}


def frequentist_stratified_rate(n: Any, m: Any, c: Any, k: int, *, level: float = 0.95,
                                interval: str = "wilson") -> dict[str, float]:
    """Post-stratified share of fully correct conversations with an effective-sample-size interval.

    p = sum_L w_L C_L / M_L with w_L = N_L / N over the strata that have complete conversations
    (strata without any are left out and the weights renormalised; ``dropped`` counts their
    conversations). Its variance is sum_L w_L^2 p_L (1-p_L) / M_L (sampling within strata) plus
    sum_L w_L (p_L - p)^2 / N (the sampling of the length mix); the interval is the Wilson or
    Clopper-Pearson interval at the effective sample size n_eff = p (1-p) / var (Korn & Graubard
    1998, "Confidence intervals for proportions with small expected number of positive counts
    estimated from survey data"), n_eff = sum M_L when the variance is 0.
    """
    n, m, c = (np.asarray(x, dtype=np.float64) for x in (n, m, c))
    keep = m > 0
    dropped = int(n[~keep].sum())
    nan = float("nan")
    if not keep.any():
        return {**dict.fromkeys(_RATE_KEYS, nan), "dropped": dropped}
    n, m, c = n[keep], m[keep], c[keep]
    w = n / n.sum()
    p_l = c / m
    p = float(np.sum(w * p_l))
    var = float(np.sum(w * w * p_l * (1 - p_l) / m) + np.sum(w * (p_l - p) ** 2) / n.sum())
    n_eff = p * (1 - p) / var if var > 0 else float(m.sum())
    lo, hi = _real_interval(p, n_eff, level, interval)
    (at, at_lo, at_hi), (pw, pw_lo, pw_hi) = _map_k(np.array([p, lo, hi]), k)
    return {"rate": p, "rate_low": lo, "rate_high": hi, "pass_at_k": float(at),
            "pass_at_k_low": float(at_lo), "pass_at_k_high": float(at_hi), "pass_pow_k": float(pw),
            "pass_pow_k_low": float(pw_lo), "pass_pow_k_high": float(pw_hi), "dropped": dropped}


_RATE_KEYS = ("rate", "rate_low", "rate_high", "pass_at_k", "pass_at_k_low", "pass_at_k_high",
              "pass_pow_k", "pass_pow_k_low", "pass_pow_k_high")


def _real_interval(p: float, n: float, level: float, interval: str) -> tuple[float, float]:
    """Wilson or Clopper-Pearson bounds for a share p at a real-valued sample size n."""
    from scipy.special import betaincinv, ndtri

    if interval == "clopper-pearson":
        tail = (1.0 - level) / 2.0
        x = p * n
        lo = 0.0 if x <= 0 else float(betaincinv(x, n - x + 1.0, tail))
        hi = 1.0 if x >= n else float(betaincinv(x + 1.0, n - x, 1.0 - tail))
        return lo, hi
    z = float(ndtri(0.5 + level / 2.0))
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    lo = 0.0 if p <= 0 else max(centre - half, 0.0)
    hi = 1.0 if p >= 1 else min(centre + half, 1.0)
    return lo, hi


# --------------------------------------------------------------------------- not at random

#: Bounds wider than this share of the rate's interval get a note (see :func:`unknown_bounds_note`).
WIDE_BOUNDS = 0.5


def unknown_bounds(conversations: Any, fully_correct: Any, known_failures: Any,
                   k: int) -> dict[str, float]:
    """What the unknown outcomes allow, whatever made them unknown: the share of fully correct
    conversations with every unknown one wrong (``*_unknown_wrong``) and with every one right
    (``*_unknown_right``), and the pooled pass@k / pass^k of each (increasing maps of the share).

    Post-stratification (:func:`stratified_rate`) is unbiased only when judge failures are
    unrelated to correctness; when they are not (more failures on wrong answers, say) no
    estimate from the data can correct it, but the truth of the sample lies between these bounds.

    >>> b = unknown_bounds(10, 6, 2, 1)
    >>> b["rate_unknown_wrong"], b["rate_unknown_right"]
    (0.6, 0.8)
    """
    n, full, failed = (float(np.asarray(x).sum()) for x in (conversations, fully_correct,
                                                                  known_failures))
    if full < 0 or failed < 0 or full + failed > n:
        raise ConfigError(f"need 0 <= fully_correct + known_failures <= conversations, got "
                          f"{full:g} + {failed:g} of {n:g}")
    nan = float("nan")
    low, high = (full / n, (n - failed) / n) if n > 0 else (nan, nan)
    (at_lo, at_hi), (pw_lo, pw_hi) = _map_k(np.array([low, high]), k)
    return {"rate_unknown_wrong": low, "rate_unknown_right": high,
            "pass_at_k_unknown_wrong": float(at_lo), "pass_at_k_unknown_right": float(at_hi),
            "pass_pow_k_unknown_wrong": float(pw_lo), "pass_pow_k_unknown_right": float(pw_hi),
            "unknown": int(n - full - failed)}


def task_unknown_bounds(n: Any, c: Any, unknown: Any, k: int) -> dict[str, float]:
    """Task-level bounds: per task ``n`` complete attempts, ``c`` of them successes and
    ``unknown`` attempts with no known outcome; the mean over tasks of the unbiased pass@k and
    pass^k with every unknown attempt a failure (n + u, c) and with every one a success
    (n + u, c + u). Both estimators increase with c at fixed n, so these bound what the
    unknowns allow. Tasks with fewer than k attempts in all are left out; NaN without any.

    >>> b = task_unknown_bounds([3, 4], [3, 1], [1, 0], 2)
    >>> round(b["task_pass_pow_k_unknown_wrong"], 4), round(b["task_pass_pow_k_unknown_right"], 4)
    (0.25, 0.5)
    """
    n, c, u = (np.asarray(x, dtype=np.int64).ravel() for x in (n, c, unknown))
    if not (n.shape == c.shape == u.shape) or np.any(u < 0) or np.any(c > n) or np.any(c < 0):
        raise ConfigError("n, c and unknown must have one length per task, 0 <= c <= n, unknown >= 0")
    total = n + u
    keep = total >= k
    nan = float("nan")
    out = {f"task_{q}_unknown_{side}": nan for q in ("pass_at_k", "pass_pow_k")
           for side in ("wrong", "right")}
    out["unknown"] = int(u.sum())
    if not keep.any():
        return out
    for side, succ in (("wrong", c), ("right", c + u)):
        at, pw = _unbiased(total[keep], succ[keep], k)
        out[f"task_pass_at_k_unknown_{side}"] = float(at.mean())
        out[f"task_pass_pow_k_unknown_{side}"] = float(pw.mean())
    return out


def unknown_bounds_note(low: float, high: float, interval_low: float, interval_high: float, *,
                        what: str = "the rate") -> str:
    """A warning sentence when the unknowns' bounds are wide relative to the interval (wider
    than :data:`WIDE_BOUNDS` of it): then how the unknowns came about matters more than the
    sampling error, and an estimate that assumes they are missing at random may be far off.
    '' otherwise (or when any number is NaN)."""
    values = (low, high, interval_low, interval_high)
    if any(v is None or not math.isfinite(v) for v in values):
        return ""
    width, spread = high - low, interval_high - interval_low
    if width <= WIDE_BOUNDS * spread:
        return ""
    return (f"unknown outcomes (judge errors) allow {what} anywhere in [{low:.3f}, {high:.3f}], "
            f"wider than half its interval [{interval_low:.3f}, {interval_high:.3f}]: if judge "
            "failures depend on correctness the estimate can be biased by up to that much")


# --------------------------------------------------------------------------- task level


@dataclass(frozen=True)
class TaskEstimate:
    """Task-level pass@k / pass^k of one group of tasks (floats; NaN where undefined).

    ``task_*``: of the suite's tasks, mean over t of 1-(1-p_t)^k and p_t^k. ``new_task_*``: of a
    new task from the same population (same mean in the per-task modes, wider interval).
    ``unbiased_*``: mean over tasks with at least k attempts of the unbiased estimators (Chen et
    al. 2021; tau-bench), which estimate the suite's-task quantity; ``None`` of these is a
    prior-driven number: where the data cannot identify them they are NaN and ``identified`` is
    False.
    """

    tasks: int
    """Tasks in the group (every one counts in the posterior modes)."""
    tasks_with_k: int
    """Tasks with at least k complete attempts (those the unbiased estimators use)."""
    max_attempts: int
    """Most complete attempts at any one task."""
    identified: bool
    """False when k > 1 and no task has two complete attempts: the spread of p_t is unseen."""
    task_pass_at_k: float
    task_pass_at_k_low: float
    task_pass_at_k_high: float
    task_pass_pow_k: float
    task_pass_pow_k_low: float
    task_pass_pow_k_high: float
    new_task_pass_at_k: float
    new_task_pass_at_k_low: float
    new_task_pass_at_k_high: float
    new_task_pass_pow_k: float
    new_task_pass_pow_k_low: float
    new_task_pass_pow_k_high: float
    unbiased_pass_at_k: float
    unbiased_pass_pow_k: float
    method: str

    @classmethod
    def empty(cls, *, tasks: int = 0, tasks_with_k: int = 0, max_attempts: int = 0,
              identified: bool = True, method: str = "", **values: float) -> TaskEstimate:
        """All values NaN except those given."""
        nan = float("nan")
        names = [f for f in cls.__dataclass_fields__
                 if f not in ("tasks", "tasks_with_k", "max_attempts", "identified", "method")]
        return cls(tasks=tasks, tasks_with_k=tasks_with_k, max_attempts=max_attempts,
                   identified=identified, method=method, **{f: values.get(f, nan) for f in names})


def not_identified_note(k: int) -> str:
    """The sentence results and warnings use when pass^k is not identified."""
    return (f"one attempt per task: pass^{k} and pass@{k} of tasks (k > 1) are not identified by "
            "the data (they hinge on how task difficulty varies, which single attempts cannot "
            "show); repeat attempts per task (same task_id) to measure them")


def _unbiased(n: np.ndarray, c: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    return (np.atleast_1d(est.pass_at_k_unbiased(n, c, k)),
            np.atleast_1d(est.pass_pow_k_unbiased(n, c, k)))


def _counts(n: Any, c: Any, k: int) -> tuple[np.ndarray, np.ndarray, int, int, bool]:
    n_arr, c_arr, _, _ = est.check_counts(n, c)
    n_arr, c_arr = n_arr.ravel(), c_arr.ravel()
    max_attempts = int(n_arr.max()) if n_arr.size else 0
    with_k = int(np.sum(n_arr >= k))
    identified = k == 1 or max_attempts >= 2
    return n_arr, c_arr, max_attempts, with_k, identified


def mean_unbiased(n: np.ndarray, c: np.ndarray, k: int) -> tuple[float, float]:
    """(pass@k, pass^k): means of the unbiased estimators over tasks with n >= k (NaN if none)."""
    ok = n >= k
    if not ok.any():
        return float("nan"), float("nan")
    at, pw = _unbiased(n[ok], c[ok], k)
    return float(at.mean()), float(pw.mean())


def conjugate_task_estimate(n: Any, c: Any, k: int, *, a: float = 1.0, b: float = 1.0,
                            level: float = 0.95, draws: int = 5000, seed: int | None = 42
                            ) -> TaskEstimate:
    """Task level under independent per-task posteriors p_t ~ Beta(a + c_t, b + n_t - c_t).

    Suite's tasks: exact means, mean_t of B(a_t+k, b_t)/B(a_t, b_t) and of
    1 - B(a_t, b_t+k)/B(a_t, b_t); interval from ``draws`` seeded Monte Carlo draws of every p_t.
    Tasks with no complete attempt count with their prior. A fixed prior pulls every task toward
    a/(a+b): with Beta(1, 1) and 4 attempts a task's posterior mean is (c + 1)/6, which biases
    pass@k up and pass^k down at agent-suite sizes (see the README's simulation table); the
    pooled default (:class:`~agenteval.statistical.modes.BayesianMode`) learns the prior instead.
    New task: :func:`agenteval.statistical.new_task.new_task_estimate` (no task prior involved).

    >>> r = conjugate_task_estimate([2, 2], [2, 0], 1)   # Beta(3, 1) and Beta(1, 3): mean 1/2
    >>> r.task_pass_pow_k, r.tasks, r.identified
    (0.5, 2, True)
    """
    return conjugate_task_estimates(n, c, k, a=a, b=b, level=level, draws=draws, seed=seed)[0]


def conjugate_task_estimates(n: Any, c: Any, k: int, *, groups: Any = None, n_groups: int = 0,
                             a: float = 1.0, b: float = 1.0, level: float = 0.95,
                             draws: int = 5000, seed: int | None = 42) -> list[TaskEstimate]:
    """:func:`conjugate_task_estimate` of all tasks, then of each group 0 .. n_groups-1 (agents).

    One set of draws serves every estimate: the tasks' posteriors are independent, so the
    draws of a group's tasks are exact draws for that group. Drawing once instead of once more
    per group halves the work (the draws are what costs).
    """
    n, c, max_attempts, with_k, identified = _counts(n, c, k)
    g = np.zeros(n.size, dtype=np.int64) if groups is None else np.asarray(groups, dtype=np.int64).ravel()
    if g.size != n.size or (groups is not None and g.size and not 0 <= g.min() <= g.max() < n_groups):
        raise ConfigError(f"groups must be one index in 0 .. n_groups-1 per task, got {g.size} "
                         f"for {n.size} tasks and n_groups={n_groups}")
    method = (f"independent per-task Beta({a:g}, {b:g}) posteriors (flat, not pooled): exact "
              f"means, {level * 100:g}% intervals by seeded Monte Carlo ({draws} draws); "
              f"{NEW_TASK_METHOD}")
    selections = [np.ones(n.size, dtype=bool)] + [g == i for i in range(n_groups)]
    out = []
    for sel in selections:
        n_sel, c_sel, most, enough, ok = _counts(n[sel], c[sel], k)
        ub_at, ub_pw = mean_unbiased(n_sel, c_sel, k)
        out.append(TaskEstimate.empty(tasks=n_sel.size, tasks_with_k=enough, max_attempts=most,
                                      identified=ok, method=method, unbiased_pass_at_k=ub_at,
                                      unbiased_pass_pow_k=ub_pw))
    if n.size == 0 or not identified:
        return out
    post_a, post_b = a + c, b + (n - c)
    task_at = est.beta_pass_at_k_mean(post_a, post_b, k)
    task_pw = est.beta_pass_pow_k_mean(post_a, post_b, k)
    # per draw and group: sums over the group's tasks of at and pw
    sums = _group_draw_sums(post_a, post_b, g, n_groups, k, draws, seed)
    tail = (1.0 - level) / 2.0
    q = [tail, 1.0 - tail]
    for j, sel in enumerate(selections):
        if not (sel.any() and out[j].identified):
            continue
        s = sums.sum(axis=1) if j == 0 else sums[:, j - 1]
        tasks = int(sel.sum())
        s_at, s_pw = np.quantile(s[:, 0] / tasks, q), np.quantile(s[:, 1] / tasks, q)
        mean_at, mean_pw = float(np.mean(task_at[sel])), float(np.mean(task_pw[sel]))
        new = new_task_estimate(n[sel], c[sel], k, level=level, draws=draws, seed=seed)
        new.pop("tasks")
        out[j] = dataclasses.replace(
            out[j],
            task_pass_at_k=mean_at, task_pass_at_k_low=float(s_at[0]), task_pass_at_k_high=float(s_at[1]),
            task_pass_pow_k=mean_pw, task_pass_pow_k_low=float(s_pw[0]), task_pass_pow_k_high=float(s_pw[1]),
            **new)
    return out


def _group_draw_sums(post_a: np.ndarray, post_b: np.ndarray, groups: np.ndarray, n_groups: int,
                     k: int, draws: int, seed: int | None) -> np.ndarray:
    """(draws, max(n_groups, 1), 2): per draw and group, the sums over the group's tasks of
    1-(1-p)^k and p^k with p ~ Beta(post_a, post_b) per task. Drawn in blocks of rows of about
    ``_TASK_CHUNK`` numbers (a few MB: memory and cache)."""
    order = np.argsort(groups, kind="stable")
    post_a, post_b, groups = post_a[order], post_b[order], groups[order]
    present, starts = np.unique(groups, return_index=True)
    out = np.zeros((draws, max(n_groups, 1), 2))
    rng = np.random.default_rng(seed)
    rows = max(1, _TASK_CHUNK // post_a.size)
    for start in range(0, draws, rows):
        m = min(rows, draws - start)
        p = rng.beta(post_a, post_b, size=(m, post_a.size))
        # plain powers: absolute error ~1e-16, far below the Monte Carlo error, and several
        # times cheaper than _map_k's log1p / expm1 (which keeps tiny values' relative accuracy)
        at, pw = 1.0 - (1.0 - p) ** k, p ** k
        for j, x in enumerate((at, pw)):
            out[start:start + m, present, j] = np.add.reduceat(x, starts, axis=1)
    return out


def _estimator_table(n: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unbiased estimators for every (n_t, c) with c = 0..n_t, as flat tables plus offsets."""
    sizes = np.unique(n.astype(np.int64))
    offsets = np.concatenate([[0], np.cumsum(sizes + 1)])
    all_n = np.repeat(sizes, sizes + 1)
    all_c = np.concatenate([np.arange(s + 1) for s in sizes])
    at, pw = _unbiased(all_n, all_c, k)
    where = offsets[np.searchsorted(sizes, n.astype(np.int64))]
    return at, pw, where


#: Pseudo-successes and pseudo-failures added to each task's rate in the frequentist suite's-task
#: resampling (chosen by simulation, README "Estimators by simulation": 0 gives tasks at 0/n or
#: n/n no spread and covers 0.86-0.93; 0.5 (Jeffreys) over-covers (0.98-0.99) where many tasks
#: really always fail or succeed; 0.2 covers 0.93-0.98 on both generators).
SMOOTHING = 0.2


def frequentist_task_estimate(n: Any, c: Any, k: int, *, level: float = 0.95,
                              bootstrap: int = 2000, seed: int | None = 42) -> TaskEstimate:
    """Task level from the unbiased estimators, with seeded parametric-bootstrap intervals.

    Point estimates: the mean over tasks with at least k complete attempts of 1 - C(n-c,k)/C(n,k)
    (Chen et al. 2021) and C(c,k)/C(n,k) (Yao et al. 2024, tau-bench); unbiased for the suite's
    tasks (those tasks). Suite's-task interval (the tasks held fixed): each task's attempts are
    redrawn, c*_t ~ Binomial(n_t, (c_t + s)/(n_t + 2 s)) with s = :data:`SMOOTHING` (a task seen
    at 0/n or n/n may still have a rate inside (0, 1): the plug-in c_t/n_t would give it no
    spread and the interval would under-cover), the resampled means shifted to centre on the
    estimate (percentile interval, Efron & Tibshirani 1993). New task: the percentile bootstrap
    over tasks of the same per-task estimates (:func:`agenteval.statistical.new_task.new_task_estimate`,
    the estimator every mode uses). Tasks with fewer than k attempts cannot enter these
    estimators and are left out (``tasks_with_k`` says how many remain).

    >>> r = frequentist_task_estimate([4, 3], [1, 3], 3)
    >>> round(r.task_pass_at_k, 4), r.task_pass_pow_k
    (0.875, 0.5)
    """
    n, c, max_attempts, with_k, identified = _counts(n, c, k)
    method = (f"mean of unbiased estimators over tasks with >= {k} attempts; suite's tasks: "
              f"{level * 100:g}% percentile interval of {bootstrap} seeded redraws of each task's "
              f"attempts at its rate smoothed by {SMOOTHING:g} pseudo-counts; new task: "
              "percentile bootstrap over tasks")
    ok = n >= k
    if not ok.any():
        return TaskEstimate.empty(tasks=n.size, tasks_with_k=0, max_attempts=max_attempts,
                                  identified=identified, method=method)
    n, c = n[ok], c[ok]
    at, pw = _unbiased(n, c, k)
    table_at, table_pw, where = _estimator_table(n, k)
    ss = np.random.SeedSequence(seed).spawn(2)
    rng = np.random.default_rng(ss[0])
    t = n.size
    tail = (1.0 - level) / 2.0
    q = [tail, 1.0 - tail]
    suite_at, suite_pw = np.zeros(bootstrap), np.zeros(bootstrap)
    rate = (c + SMOOTHING) / (n + 2.0 * SMOOTHING)
    step = max(1, _CHUNK // bootstrap)
    for start in range(0, t, step):
        sl = slice(start, min(start + step, t))
        cs = rng.binomial(n[sl].astype(np.int64), rate[sl], size=(bootstrap, n[sl].size))
        idx = where[sl] + cs
        suite_at += table_at[idx].sum(axis=1)
        suite_pw += table_pw[idx].sum(axis=1)
    m_at, m_pw = float(at.mean()), float(pw.mean())
    # redraws centre on the smoothed rates' p^k, not on the estimate: shift them to the
    # estimate (bias-corrected percentile), keep them in [0, 1]
    s_at = np.clip(np.quantile(suite_at / t - np.mean(suite_at / t) + m_at, q), 0.0, 1.0)
    s_pw = np.clip(np.quantile(suite_pw / t - np.mean(suite_pw / t) + m_pw, q), 0.0, 1.0)
    new = new_task_estimate(n, c, k, level=level, draws=bootstrap,
                            seed=int(ss[1].generate_state(1)[0]), bayesian=False)
    new.pop("tasks")
    return TaskEstimate(
        tasks=int(ok.size), tasks_with_k=with_k, max_attempts=max_attempts, identified=identified,
        task_pass_at_k=m_at, task_pass_at_k_low=float(s_at[0]), task_pass_at_k_high=float(s_at[1]),
        task_pass_pow_k=m_pw, task_pass_pow_k_low=float(s_pw[0]), task_pass_pow_k_high=float(s_pw[1]),
        **new, unbiased_pass_at_k=m_at, unbiased_pass_pow_k=m_pw, method=method,
    )
