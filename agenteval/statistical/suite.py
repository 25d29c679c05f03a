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
from dataclasses import dataclass
from typing import Any

import numpy as np

from agenteval.errors import ConfigError
from agenteval.statistical import estimators as est

__all__ = [
    "TaskEstimate",
    "length_strata",
    "bayes_stratified_rate",
    "frequentist_stratified_rate",
    "conjugate_task_estimate",
    "conjugate_task_estimates",
    "frequentist_task_estimate",
    "not_identified_note",
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
    n_arr, c_arr, _, _ = est._check_counts(n, c)
    n_arr, c_arr = n_arr.ravel(), c_arr.ravel()
    max_attempts = int(n_arr.max()) if n_arr.size else 0
    with_k = int(np.sum(n_arr >= k))
    identified = k == 1 or max_attempts >= 2
    return n_arr, c_arr, max_attempts, with_k, identified


def _mean_unbiased(n: np.ndarray, c: np.ndarray, k: int) -> tuple[float, float]:
    ok = n >= k
    if not ok.any():
        return float("nan"), float("nan")
    at, pw = _unbiased(n[ok], c[ok], k)
    return float(at.mean()), float(pw.mean())


def conjugate_task_estimate(n: Any, c: Any, k: int, *, a: float = 1.0, b: float = 1.0,
                            level: float = 0.95, draws: int = 5000, seed: int | None = 42
                            ) -> TaskEstimate:
    """Task level under independent per-task posteriors p_t ~ Beta(a + c_t, b + n_t - c_t).

    Means are exact: mean_t of B(a_t+k, b_t)/B(a_t, b_t) and of 1 - B(a_t, b_t+k)/B(a_t, b_t).
    Intervals: ``draws`` seeded Monte Carlo draws of every p_t; the suite's tasks take the plain
    mean over t per draw, a new task the mean under Dirichlet(1, ..., 1) task weights (the
    Bayesian bootstrap over tasks, Rubin 1981), so its interval also carries which tasks happened
    to be in the suite. Tasks with no complete attempt count with their prior.

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
    draws of a group's tasks are exact draws for that group, and Dirichlet(1, ..., 1) weights
    restricted to a group and renormalised are Dirichlet(1, ..., 1) over the group. Drawing
    once instead of once more per group halves the work (the draws are what costs).
    """
    n, c, max_attempts, with_k, identified = _counts(n, c, k)
    g = np.zeros(n.size, dtype=np.int64) if groups is None else np.asarray(groups, dtype=np.int64).ravel()
    if g.size != n.size or (groups is not None and g.size and not 0 <= g.min() <= g.max() < n_groups):
        raise ConfigError(f"groups must be one index in 0 .. n_groups-1 per task, got {g.size} "
                         f"for {n.size} tasks and n_groups={n_groups}")
    method = (f"independent per-task Beta({a:g}, {b:g}) posteriors: exact means, "
              f"{level * 100:g}% intervals by seeded Monte Carlo ({draws} draws); new task: "
              "Bayesian bootstrap over tasks")
    selections = [np.ones(n.size, dtype=bool)] + [g == i for i in range(n_groups)]
    out = []
    for sel in selections:
        n_sel, c_sel, most, enough, ok = _counts(n[sel], c[sel], k)
        ub_at, ub_pw = _mean_unbiased(n_sel, c_sel, k)
        out.append(TaskEstimate.empty(tasks=n_sel.size, tasks_with_k=enough, max_attempts=most,
                                      identified=ok, method=method, unbiased_pass_at_k=ub_at,
                                      unbiased_pass_pow_k=ub_pw))
    if n.size == 0 or not identified:
        return out
    post_a, post_b = a + c, b + (n - c)
    task_at = est.beta_pass_at_k_mean(post_a, post_b, k)
    task_pw = est.beta_pass_pow_k_mean(post_a, post_b, k)
    # per draw and group: sums over the group's tasks of at, pw, e*at, e*pw and e (Exp(1) weights)
    sums = _group_draw_sums(post_a, post_b, g, n_groups, k, draws, seed)
    tail = (1.0 - level) / 2.0
    q = [tail, 1.0 - tail]
    for j, sel in enumerate(selections):
        if not (sel.any() and out[j].identified):
            continue
        s = sums.sum(axis=1) if j == 0 else sums[:, j - 1]
        tasks = int(sel.sum())
        s_at, s_pw = np.quantile(s[:, 0] / tasks, q), np.quantile(s[:, 1] / tasks, q)
        n_at, n_pw = np.quantile(s[:, 2] / s[:, 4], q), np.quantile(s[:, 3] / s[:, 4], q)
        mean_at, mean_pw = float(np.mean(task_at[sel])), float(np.mean(task_pw[sel]))
        out[j] = dataclasses.replace(
            out[j],
            task_pass_at_k=mean_at, task_pass_at_k_low=float(s_at[0]), task_pass_at_k_high=float(s_at[1]),
            task_pass_pow_k=mean_pw, task_pass_pow_k_low=float(s_pw[0]), task_pass_pow_k_high=float(s_pw[1]),
            new_task_pass_at_k=mean_at, new_task_pass_at_k_low=float(n_at[0]),
            new_task_pass_at_k_high=float(n_at[1]), new_task_pass_pow_k=mean_pw,
            new_task_pass_pow_k_low=float(n_pw[0]), new_task_pass_pow_k_high=float(n_pw[1]),
        )
    return out


def _group_draw_sums(post_a: np.ndarray, post_b: np.ndarray, groups: np.ndarray, n_groups: int,
                     k: int, draws: int, seed: int | None) -> np.ndarray:
    """(draws, max(n_groups, 1), 5): per draw and group, the sums over the group's tasks of
    1-(1-p)^k, p^k, e 1-(1-p)^k, e p^k and e, with p ~ Beta(post_a, post_b) and e ~ Exp(1) per
    task. Drawn in blocks of rows of about ``_TASK_CHUNK`` numbers (a few MB: memory and cache)."""
    order = np.argsort(groups, kind="stable")
    post_a, post_b, groups = post_a[order], post_b[order], groups[order]
    present, starts = np.unique(groups, return_index=True)
    out = np.zeros((draws, max(n_groups, 1), 5))
    rng = np.random.default_rng(seed)
    rows = max(1, _TASK_CHUNK // post_a.size)
    for start in range(0, draws, rows):
        m = min(rows, draws - start)
        p = rng.beta(post_a, post_b, size=(m, post_a.size))
        e = rng.standard_exponential(size=p.shape)
        # plain powers: absolute error ~1e-16, far below the Monte Carlo error, and several
        # times cheaper than _map_k's log1p / expm1 (which keeps tiny values' relative accuracy)
        at, pw = 1.0 - (1.0 - p) ** k, p ** k
        for j, x in enumerate((at, pw, e * at, e * pw, e)):
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


def frequentist_task_estimate(n: Any, c: Any, k: int, *, level: float = 0.95,
                              bootstrap: int = 2000, seed: int | None = 42) -> TaskEstimate:
    """Task level from the unbiased estimators, with seeded percentile-bootstrap intervals.

    Point estimates: the mean over tasks with at least k complete attempts of 1 - C(n-c,k)/C(n,k)
    (Chen et al. 2021) and C(c,k)/C(n,k) (Yao et al. 2024, tau-bench); unbiased for the suite's
    tasks (those tasks). Intervals (Efron & Tibshirani 1993, percentile method, ``bootstrap``
    resamples): for the suite's tasks, each task's attempts are resampled (c*_t ~ Binomial(n_t,
    c_t/n_t), the tasks held fixed, and the resamples shifted to centre on the estimate, since
    they centre on the plug-in p_t^k); for a new task, the tasks are resampled with replacement.
    Tasks with fewer than k attempts cannot enter these estimators and are left out
    (``tasks_with_k`` says how many remain). Limits: with few tasks the bootstrap under-covers,
    and a task whose attempts all succeeded (or all failed) adds no spread to the suite's-task
    interval; the Bayesian modes have neither problem.

    >>> r = frequentist_task_estimate([4, 3], [1, 3], 3)
    >>> round(r.task_pass_at_k, 4), r.task_pass_pow_k
    (0.875, 0.5)
    """
    n, c, max_attempts, with_k, identified = _counts(n, c, k)
    method = (f"mean of unbiased estimators over tasks with >= {k} attempts; {level * 100:g}% "
              f"percentile bootstrap ({bootstrap} seeded resamples: attempts within tasks for the "
              "suite's tasks, tasks for a new task)")
    ok = n >= k
    if not ok.any():
        return TaskEstimate.empty(tasks=n.size, tasks_with_k=0, max_attempts=max_attempts,
                                  identified=identified, method=method)
    n, c = n[ok], c[ok]
    at, pw = _unbiased(n, c, k)
    table_at, table_pw, where = _estimator_table(n, k)
    rng = np.random.default_rng(seed)
    t = n.size
    tail = (1.0 - level) / 2.0
    q = [tail, 1.0 - tail]
    suite_at, suite_pw = np.zeros(bootstrap), np.zeros(bootstrap)
    new_at, new_pw = np.zeros(bootstrap), np.zeros(bootstrap)
    step = max(1, _CHUNK // bootstrap)
    for start in range(0, t, step):
        sl = slice(start, min(start + step, t))
        cs = rng.binomial(n[sl].astype(np.int64), c[sl] / n[sl], size=(bootstrap, n[sl].size))
        idx = where[sl] + cs
        suite_at += table_at[idx].sum(axis=1)
        suite_pw += table_pw[idx].sum(axis=1)
    picks = rng.integers(0, t, size=(bootstrap, t)) if t * bootstrap <= _CHUNK else None
    if picks is not None:
        new_at, new_pw = at[picks].mean(axis=1), pw[picks].mean(axis=1)
    else:
        for row in range(bootstrap):
            pick = rng.integers(0, t, size=t)
            new_at[row], new_pw[row] = at[pick].mean(), pw[pick].mean()
    m_at, m_pw = float(at.mean()), float(pw.mean())
    # attempts resampled from c_t/n_t centre on the plug-in p_t^k, not on the unbiased value:
    # shift the resamples to the estimate (bias-corrected percentile), keep them in [0, 1]
    s_at = np.clip(np.quantile(suite_at / t - np.mean(suite_at / t) + m_at, q), 0.0, 1.0)
    s_pw = np.clip(np.quantile(suite_pw / t - np.mean(suite_pw / t) + m_pw, q), 0.0, 1.0)
    n_at, n_pw = np.quantile(new_at, q), np.quantile(new_pw, q)
    return TaskEstimate(
        tasks=int(ok.size), tasks_with_k=with_k, max_attempts=max_attempts, identified=identified,
        task_pass_at_k=m_at, task_pass_at_k_low=float(s_at[0]), task_pass_at_k_high=float(s_at[1]),
        task_pass_pow_k=m_pw, task_pass_pow_k_low=float(s_pw[0]), task_pass_pow_k_high=float(s_pw[1]),
        new_task_pass_at_k=m_at, new_task_pass_at_k_low=float(n_at[0]),
        new_task_pass_at_k_high=float(n_at[1]), new_task_pass_pow_k=m_pw,
        new_task_pass_pow_k_low=float(n_pw[0]), new_task_pass_pow_k_high=float(n_pw[1]),
        unbiased_pass_at_k=m_at, unbiased_pass_pow_k=m_pw, method=method,
    )
