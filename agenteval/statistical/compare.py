"""Comparing agents: paired differences on shared tasks, ranking, and multiple comparisons.

Data are complete conversations (every interaction judged) as aligned arrays ``agent``, ``task``
and ``success`` (fully correct or not). A *task* is (agent, task_id); two agents **share** a task
when both attempted the same ``task_id``. A conversation without a ``task_id`` is its own
one-attempt task, shared with nobody.

Per agent and a set of tasks, with p_t the task's success rate:

- ``success``: task-level success, the mean over tasks of p_t;
- ``pass@k``: mean over tasks of 1 - (1 - p_t)^k;   ``pass^k``: mean over tasks of p_t^k;

each for two **scopes**: ``suite tasks`` (the tasks in the data, a finite set) and ``new task``
(a task drawn from the population the suite's tasks sample). Pairing on shared tasks removes the
between-task variation both agents have in common (both find the same tasks hard), which an
unpaired comparison counts as noise.

Methods (the result says which was used):

- **Bayesian, paired model** (:func:`paired_bayes`). *Suite tasks*: each agent's task rates get
  the population prior Beta(mu kappa, (1 - mu) kappa) fitted to that agent's tasks, with the
  uncertainty of (mu, kappa) carried into every draw by a Laplace approximation
  (:func:`agenteval.statistical.difficulty.hyperposterior_draws`; a plug-in prior makes the mean
  over tasks too certain: measured 84% coverage for a nominal 95%), so per-task posteriors are
  Beta(mu kappa + c_t, (1 - mu) kappa + n_t - c_t). A flat Beta(1, 1) per task would pull every
  task toward 0.5 and, with 4 attempts, every difference toward 0 by a factor n / (n + 2).
  The draws of each difference are the mean over shared tasks.
  *New task*: the Bayesian bootstrap over shared tasks (Rubin 1981, "The Bayesian bootstrap",
  Ann. Statist. 9) of the per-task unbiased estimates, Dirichlet(1, ..., 1) task weights
  **shared by both agents** (:func:`bayesian_bootstrap`). Per-task posteriors with independent
  priors would ignore that both agents find the same tasks hard and give back most of what
  pairing gains (measured: 8% narrower than unpaired instead of 20%).
  :func:`paired_from_draws` and :func:`difference_from_draws` take any posterior draws (per-task
  rates, or population quantities), so a joint hierarchical posterior plugs in unchanged.
- **Frequentist, paired**: a bootstrap over shared tasks (resampling tasks, with both agents'
  attempts at a task kept together: the cluster bootstrap of Davison & Hinkley 1997, section 3.8)
  of the mean per-task difference of the unbiased estimators (c/n; Chen et al. 2021 for pass@k;
  tau-bench for pass^k), with the percentile interval (Efron & Tibshirani 1993, ch. 13) and the
  percentile-inversion p-value. With one attempt per task by each agent, the success difference
  uses Newcombe's interval for paired proportions (:func:`newcombe_paired`) and the exact
  McNemar test.
- **Independent** (agents with no shared task): where tasks repeat, the same task-level analyses
  with each agent on its own tasks (:func:`unpaired_bayes`, :func:`unpaired_bootstrap`), so
  attempts stay clustered within tasks (pooling them as independent conversations understates the
  uncertainty by the design effect 1 + (m - 1) icc); with one conversation per task, the run's mode
  compares the pooled share of fully correct conversations (exact posterior P(A > B), or
  Newcombe's square-and-add interval with a two-proportion z-test).

Frequentist p-values are adjusted for the number of pairs by Holm (default) or
Benjamini-Hochberg (:func:`adjust_pvalues`), within each quantity's family of pairs. Intervals are
per comparison (not simultaneous).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agenteval.errors import ConfigError, check_k, check_level
from agenteval.statistical.difficulty import hyperposterior_draws

__all__ = [
    "Comparison",
    "ComparisonTable",
    "Difference",
    "Ranking",
    "adjust_pvalues",
    "bayesian_bootstrap",
    "compare_agents",
    "difference_from_draws",
    "mcnemar_exact",
    "newcombe_paired",
    "paired_bayes",
    "paired_bootstrap",
    "paired_from_draws",
    "rank_from_draws",
    "suite_mean_draws",
    "unpaired_bayes",
    "unpaired_bootstrap",
]

#: Entries of one bootstrap weight block (memory bound for many tasks).
_BLOCK = 4_000_000


@dataclass(frozen=True)
class Difference:
    """One quantity compared between agents A and B (A minus B)."""

    quantity: str
    """'success', 'pass@k' or 'pass^k' (k filled in)."""
    scope: str
    """'suite tasks', 'new task' or 'conversations' (independent: pooled conversations)."""
    value_a: float
    """A's estimate (posterior mean, or mean of unbiased per-task estimates)."""
    value_b: float
    """B's estimate."""
    difference: float
    """Estimate of A - B."""
    low: float
    """Lower interval bound of A - B."""
    high: float
    """Upper interval bound of A - B."""
    prob_a_better: float = math.nan
    """Posterior P(A > B) (Bayesian); NaN in frequentist mode."""
    p_value: float = math.nan
    """Two-sided p-value of A = B (frequentist); NaN in Bayesian mode."""
    p_adjusted: float = math.nan
    """p_value adjusted for the number of agent pairs (Holm or Benjamini-Hochberg)."""
    tasks: int = 0
    """Shared tasks the difference is computed over (0 for pooled conversations)."""
    draws: np.ndarray | None = field(default=None, repr=False, compare=False)
    """Posterior or bootstrap draws of A - B (for figures); None for closed forms."""


@dataclass(frozen=True)
class Comparison:
    """Agent A against agent B: paired on shared tasks where there are any, else independent."""

    agent_a: str
    agent_b: str
    method: str
    """'paired' or 'independent'."""
    detail: str
    """How the numbers were computed, with the source."""
    shared_tasks: int
    """task_ids both agents attempted (with a complete conversation)."""
    differences: tuple[Difference, ...]
    notes: tuple[str, ...] = ()
    """What could not be computed and why (e.g. pass^k with one attempt per task)."""


@dataclass(frozen=True)
class Ranking:
    """Agents ranked by one quantity, with uncertainty, from joint draws."""

    agents: tuple[str, ...]
    quantity: str
    scope: str
    method: str
    mean: np.ndarray
    """Mean of each agent's draws of the quantity."""
    prob_best: np.ndarray
    """Share of draws in which the agent is best (ties split)."""
    expected_rank: np.ndarray
    """Mean rank over draws (1 = best)."""
    rank_low: np.ndarray
    rank_high: np.ndarray
    """Equal-tailed interval of the rank."""
    prob_greater: np.ndarray
    """prob_greater[i, j] = share of draws with agent i above agent j (ties split)."""


@dataclass(frozen=True)
class ComparisonTable:
    """Every pair of agents, the ranking, and how p-values were adjusted."""

    comparisons: tuple[Comparison, ...]
    ranking: Ranking | None
    adjust: str
    """'holm', 'bh' or 'none'."""

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per (pair, quantity, scope), ready for a DataFrame, CSV or JSON."""
        out = []
        for cmp in self.comparisons:
            for d in cmp.differences:
                out.append({"agent_a": cmp.agent_a, "agent_b": cmp.agent_b, "method": cmp.method,
                            "shared_tasks": cmp.shared_tasks, "quantity": d.quantity,
                            "scope": d.scope, "tasks": d.tasks, "value_a": d.value_a,
                            "value_b": d.value_b, "difference": d.difference, "low": d.low,
                            "high": d.high, "prob_a_better": d.prob_a_better,
                            "p_value": d.p_value, "p_adjusted": d.p_adjusted,
                            "detail": cmp.detail})
        return out


# --------------------------------------------------------------------------- small pieces


def _quantities(k: int) -> list[tuple[str, Any]]:
    """(name, f) with f mapping rates to the per-task quantity; k == 1 has success only."""
    qs: list[tuple[str, Any]] = [("success", lambda p: p)]
    if k > 1:
        qs += [(f"pass@{k}", lambda p: 1.0 - (1.0 - p) ** k), (f"pass^{k}", lambda p: p ** k)]
    return qs


def _seed(seed: int | None, *names: str) -> np.random.SeedSequence:
    """A stream that depends on the seed and the agents' names only (not on call order)."""
    if seed is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence([int(seed), *(zlib.crc32(n.encode()) for n in names)])


def _tails(level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0
    return tail, 1.0 - tail


def _prob_greater(d: np.ndarray) -> float:
    return float(np.mean(d > 0) + 0.5 * np.mean(d == 0))


def _check_paired(n_a: Any, c_a: Any, n_b: Any, c_b: Any) -> tuple[np.ndarray, ...]:
    arrs = [np.asarray(x, dtype=float).ravel() for x in (n_a, c_a, n_b, c_b)]
    if len({a.size for a in arrs}) != 1:
        raise ConfigError("n_a, c_a, n_b, c_b must have one length (one entry per shared task), "
                          f"got {[a.size for a in arrs]}")
    n_a, c_a, n_b, c_b = arrs
    for name, n, c in (("a", n_a, c_a), ("b", n_b, c_b)):
        if np.any(n < 1) or np.any(c < 0) or np.any(c > n) or np.any(c != np.floor(c)):
            raise ConfigError(f"per-task counts of agent {name} must be integers with "
                              f"0 <= c <= n and n >= 1")
    if n_a.size == 0:
        raise ConfigError("no shared task to compare on")
    return n_a, c_a, n_b, c_b


# --------------------------------------------------------------------------- Bayesian, paired


def difference_from_draws(quantity: str, scope: str, value_a: Any, value_b: Any, *,
                          ci_level: float = 0.95, tasks: int = 0) -> Difference:
    """A - B from joint draws of the two agents' values of one quantity (equal-tailed interval,
    P(A > B) with ties split). The entry point for any joint posterior, e.g. a hierarchical
    model's draws of each agent's population pass^k for a new task."""
    level = check_level("ci_level", ci_level)
    va, vb = np.asarray(value_a, dtype=float).ravel(), np.asarray(value_b, dtype=float).ravel()
    if va.shape != vb.shape or va.size == 0:
        raise ConfigError(f"value_a and value_b must be draws of one length, got {va.shape}, {vb.shape}")
    d = va - vb
    lo, hi = np.quantile(d, _tails(level))
    return Difference(quantity, scope, float(va.mean()), float(vb.mean()), float(d.mean()),
                      float(lo), float(hi), prob_a_better=_prob_greater(d), tasks=tasks, draws=d)


def paired_from_draws(p_a: Any, p_b: Any, *, k: int, ci_level: float = 0.95) -> list[Difference]:
    """Differences A - B over the suite's shared tasks from posterior draws of per-task rates.

    ``p_a``, ``p_b``: arrays (draws, tasks), column t of both the same task; per draw, the mean
    over tasks of p_t, 1 - (1 - p_t)^k and p_t^k. Any joint posterior can be passed (draws of A
    and B need not be independent), so the hierarchical model's per-task draws plug in here.

    >>> rng = np.random.default_rng(1)
    >>> pa = rng.beta(9, 3, size=(4000, 5)); pb = rng.beta(5, 5, size=(4000, 5))
    >>> d = paired_from_draws(pa, pb, k=1)[0]
    >>> d.quantity, d.scope, round(d.difference, 2), d.prob_a_better > 0.99
    ('success', 'suite tasks', 0.25, True)
    """
    k = check_k(k)
    p_a, p_b = np.asarray(p_a, dtype=float), np.asarray(p_b, dtype=float)
    if p_a.ndim != 2 or p_a.shape != p_b.shape:
        raise ConfigError(f"p_a and p_b must be (draws, tasks) arrays of one shape, got "
                          f"{p_a.shape} and {p_b.shape}")
    return [difference_from_draws(name, "suite tasks", f(p_a).mean(axis=1), f(p_b).mean(axis=1),
                                  ci_level=ci_level, tasks=p_a.shape[1])
            for name, f in _quantities(k)]


def _per_task(name: str, n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Per-task unbiased estimates of one quantity (NaN where n < k for pass@k / pass^k)."""
    from agenteval.statistical.estimators import pass_at_k_unbiased, pass_pow_k_unbiased

    if name == "success":
        return c / n
    fn = pass_at_k_unbiased if name.startswith("pass@") else pass_pow_k_unbiased
    return np.asarray(fn(n, c, k), dtype=float)


def _collapse(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of the per-task columns and how many tasks have each: (rows (G, Q), counts)."""
    rows, counts = np.unique(np.stack(columns, axis=1), axis=0, return_counts=True)
    return rows, counts.astype(float)


def _weighted_means(values: np.ndarray, counts: np.ndarray, draws: int,
                    rng: np.random.Generator, *, bayesian: bool) -> np.ndarray:
    """Task-resampled means of ``values`` (G distinct rows, Q columns): (draws, Q).

    Tasks with equal values are interchangeable, so both resamplings collapse exactly onto the
    G distinct rows: the Bayesian bootstrap's Dirichlet(1, ..., 1) task weights summed within a
    row are Dirichlet(counts), and the bootstrap's multinomial(T, 1/T) task counts summed within a
    row are multinomial(T, counts / T). Cost and memory follow G, not the number of tasks.
    """
    total = counts.sum()
    block = max(1, _BLOCK // max(counts.size, 1))
    out = []
    for start in range(0, draws, block):
        size = min(block, draws - start)
        if bayesian:
            g = rng.standard_gamma(counts, size=(size, counts.size))
            w = g / g.sum(axis=1, keepdims=True)
        else:
            w = rng.multinomial(int(total), counts / total, size=size) / total
        out.append(w @ values)
    return np.concatenate(out, axis=0)


def bayesian_bootstrap(n_a: Any, c_a: Any, n_b: Any, c_b: Any, *, k: int, paired: bool,
                       ci_level: float = 0.95, draws: int = 5000, seed: int | None = 0
                       ) -> tuple[list[Difference], list[str]]:
    """New-task differences by the Bayesian bootstrap over tasks (Rubin 1981).

    Each task's unbiased estimate U_t (c/n; Chen et al. 2021; tau-bench) has population mean
    equal to the population mean of the quantity, so the posterior of that mean under
    Dirichlet(1, ..., 1) task weights is the posterior for a new task. Paired: the same weights
    for both agents on their shared tasks (aligned inputs), which is what removes the
    difficulty both agents share. Unpaired: independent weights over each agent's own tasks.
    """
    k = check_k(k)
    level = check_level("ci_level", ci_level)
    if paired:
        n_a, c_a, n_b, c_b = _check_paired(n_a, c_a, n_b, c_b)
    else:
        n_a, c_a = _check_counts("a", n_a, c_a)
        n_b, c_b = _check_counts("b", n_b, c_b)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    out, notes = [], []
    for name, _ in _quantities(k):
        ua, ub = _per_task(name, n_a, c_a, k), _per_task(name, n_b, c_b, k)
        if paired:
            keep = ~np.isnan(ua) & ~np.isnan(ub)
            ka = kb = keep
        else:
            ka, kb = ~np.isnan(ua), ~np.isnan(ub)
        if not (ka.any() and kb.any()):
            notes.append(f"{name} for a new task: no task with >= {k} attempts by both agents; "
                         "left out")
            continue
        if name != "success" and not (ka.all() and kb.all()):
            notes.append(f"{name} for a new task: tasks with fewer than {k} attempts left out")
        if paired:
            rows, counts = _collapse(ua[ka], ub[kb])
            means = _weighted_means(rows, counts, draws, rng, bayesian=True)
            va, vb = means[:, 0], means[:, 1]
        else:
            rows, counts = _collapse(ua[ka])
            va = _weighted_means(rows, counts, draws, rng, bayesian=True)[:, 0]
            rows, counts = _collapse(ub[kb])
            vb = _weighted_means(rows, counts, draws, rng, bayesian=True)[:, 0]
        out.append(difference_from_draws(name, "new task", va, vb, ci_level=level,
                                         tasks=int(ka.sum()) if paired else 0))
    return out, notes


#: Tasks sharing (n, c) with more members than this are summed by their exact Beta moments
#: (a normal sum) instead of one draw per task: memory and time stay bounded for huge suites.
_EXACT_GROUP = 24


def _beta_moment(a: np.ndarray, b: np.ndarray, j: int) -> np.ndarray:
    """E[p^j] for p ~ Beta(a, b), exactly: prod_{i<j} (a + i) / (a + b + i)."""
    out = np.ones(np.shape(a))
    for i in range(j):
        out = out * (a + i) / (a + b + i)
    return out


def suite_mean_draws(n: Any, c: Any, k: int, size: int, rng: np.random.Generator, *,
                     prior: tuple[float, float] | None = None,
                     hyper: tuple[Any, Any] | None = None) -> tuple[dict[str, np.ndarray], str]:
    """Posterior draws of one agent's mean over its tasks of p_t, 1-(1-p_t)^k and p_t^k.

    Per draw, (mu, kappa) from the Laplace-approximated hyperposterior
    (:func:`~agenteval.statistical.difficulty.hyperposterior_draws`) or the fixed ``prior``
    (a, b), or the posterior draws ``hyper`` = (mu, kappa) of a hierarchical fit (one per draw;
    ``size`` is then their number), then each p_t from its conjugate
    Beta(mu kappa + c_t, (1 - mu) kappa + n_t - c_t).
    Tasks with equal (n, c) share a posterior: a group of m such tasks gets m draws when m is
    small, else the normal sum with the exact Beta mean and variance of the quantity (the
    central limit theorem over m > 24 independent tasks), so a million tasks cost what their
    distinct (n, c) pairs cost. Returns ({quantity: draws (size,)}, note).
    """
    n, c = np.asarray(n, dtype=float).ravel(), np.asarray(c, dtype=float).ravel()
    if hyper is not None:
        mu, kappa = (np.asarray(x, dtype=float).ravel() for x in hyper)
        size, note = mu.size, ""
        a0, b0 = mu * kappa, (1 - mu) * kappa
    elif prior is None:
        mu, kappa, note = hyperposterior_draws(n, c, size, rng)
        a0, b0 = mu * kappa, (1 - mu) * kappa
    else:
        a0, b0, note = np.full(size, float(prior[0])), np.full(size, float(prior[1])), ""
    pairs, counts = np.unique(np.stack([n, c], axis=1), axis=0, return_counts=True)
    sums = {name: np.zeros(size) for name, _ in _quantities(k)}
    for (nt, ct), m in zip(pairs, counts):
        a, b = a0 + ct, b0 + nt - ct
        if m <= _EXACT_GROUP:
            p = rng.beta(a[:, None], b[:, None], size=(size, int(m)))
            for name, f in _quantities(k):
                sums[name] += f(p).sum(axis=1)
            continue
        z = rng.standard_normal((len(sums), size))
        for i, (name, _) in enumerate(_quantities(k)):
            if name == "success":
                mean, second = _beta_moment(a, b, 1), _beta_moment(a, b, 2)
            elif name.startswith("pass^"):
                mean, second = _beta_moment(a, b, k), _beta_moment(a, b, 2 * k)
            else:  # 1 - (1-p)^k: the variance of (1-p)^k, (1-p) ~ Beta(b, a)
                fail, second = _beta_moment(b, a, k), _beta_moment(b, a, 2 * k)
                mean, second = 1.0 - fail, second - 2 * fail + 1.0
            var = np.maximum(second - mean ** 2, 0.0)
            sums[name] += m * mean + np.sqrt(m * var) * z[i]
    return {name: v / n.size for name, v in sums.items()}, note


def paired_bayes(n_a: Any, c_a: Any, n_b: Any, c_b: Any, *, k: int, ci_level: float = 0.95,
                 draws: int = 5000, seed: int | None = 0,
                 priors: tuple[tuple[float, float], tuple[float, float]] | None = None,
                 hyper: tuple[Any, Any] | None = None) -> tuple[list[Difference], list[str]]:
    """The paired model on shared tasks (module doc): suite-task posteriors and, for a new task,
    the Bayesian bootstrap with shared task weights.

    ``n_*``/``c_*``: attempts and successes per shared task, aligned. ``priors``: fixed task
    priors ((a_A, b_A), (a_B, b_B)) instead of the fitted population priors. ``hyper``: the
    two agents' posterior (mu, kappa) draws from a hierarchical fit, ((mu_A, kappa_A), (mu_B,
    kappa_B)), used instead of the Laplace approximation (the same number of draws each).
    Returns (differences, notes).
    """
    k = check_k(k)
    level = check_level("ci_level", ci_level)
    n_a, c_a, n_b, c_b = _check_paired(n_a, c_a, n_b, c_b)
    ss = np.random.SeedSequence(seed).spawn(3)
    va, note_a = suite_mean_draws(n_a, c_a, k, draws, np.random.default_rng(ss[0]),
                                  prior=None if priors is None else priors[0],
                                  hyper=None if hyper is None else hyper[0])
    vb, note_b = suite_mean_draws(n_b, c_b, k, draws, np.random.default_rng(ss[1]),
                                  prior=None if priors is None else priors[1],
                                  hyper=None if hyper is None else hyper[1])
    notes = sorted({x for x in (note_a, note_b) if x})
    diffs = [difference_from_draws(name, "suite tasks", va[name], vb[name], ci_level=level,
                                   tasks=n_a.size) for name, _ in _quantities(k)]
    diffs, notes = _identified(diffs, notes, k, n_a, n_b)
    new, new_notes = bayesian_bootstrap(n_a, c_a, n_b, c_b, k=k, paired=True, ci_level=level,
                                        draws=draws, seed=int(ss[2].generate_state(1)[0]))
    return diffs + new, notes + new_notes


# --------------------------------------------------------------------------- frequentist, paired


def _bootstrap_means(values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``values`` (one per task) over task resamples with replacement: (resamples,)."""
    rows, counts = _collapse(np.asarray(values, dtype=float).ravel())
    return _weighted_means(rows, counts, resamples, rng, bayesian=False)[:, 0]


def _percentile_p(d: np.ndarray) -> float:
    """Two-sided p-value by inverting the percentile interval: 2 min(P*(d <= 0), P*(d >= 0)).

    With (count + 1) / (B + 1) so a finite number of resamples never claims p = 0.
    """
    b = d.size
    low, high = np.sum(d <= 0), np.sum(d >= 0)
    return float(min(1.0, 2.0 * (min(low, high) + 1) / (b + 1)))


def paired_bootstrap(n_a: Any, c_a: Any, n_b: Any, c_b: Any, *, k: int, ci_level: float = 0.95,
                     resamples: int = 4000, seed: int | None = 0
                     ) -> tuple[list[Difference], list[str]]:
    """Bootstrap over shared tasks of the mean per-task difference of unbiased estimates.

    Per task: c/n for success, 1 - C(n-c, k)/C(n, k) for pass@k (Chen et al. 2021) and
    C(c, k)/C(n, k) for pass^k (tau-bench), which need n >= k on both sides (other tasks are
    left out of that quantity and noted). The interval is the percentile interval of the
    resampled means; it targets the task population (the new-task scope), the point estimate
    is the suite's mean. Returns (differences, notes).

    >>> d, _ = paired_bootstrap([2, 2, 2, 2], [2, 2, 1, 2], [2, 2, 2, 2], [1, 0, 0, 1], k=1)
    >>> d[0].difference, d[0].low <= d[0].difference <= d[0].high
    (0.625, True)
    """
    from agenteval.statistical.estimators import pass_at_k_unbiased, pass_pow_k_unbiased

    k = check_k(k)
    level = check_level("ci_level", ci_level)
    n_a, c_a, n_b, c_b = _check_paired(n_a, c_a, n_b, c_b)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    lo_q, hi_q = _tails(level)
    out, notes = [], []
    for name, _ in _quantities(k):
        if name == "success":
            keep = np.ones(n_a.size, dtype=bool)
            va, vb = c_a / n_a, c_b / n_b
        else:
            keep = (n_a >= k) & (n_b >= k)
            if not keep.any():
                notes.append(f"{name}: no shared task has >= {k} attempts by both agents; left out")
                continue
            if not keep.all():
                notes.append(f"{name}: {int((~keep).sum())} shared task(s) with fewer than {k} "
                             "attempts left out")
            fn = pass_at_k_unbiased if name.startswith("pass@") else pass_pow_k_unbiased
            va = fn(n_a[keep], c_a[keep], k)
            vb = fn(n_b[keep], c_b[keep], k)
        diff = np.asarray(va - vb, dtype=float)
        boot = _bootstrap_means(diff, resamples, rng)
        lo, hi = np.quantile(boot, [lo_q, hi_q])
        out.append(Difference(name, "new task", float(np.mean(va)), float(np.mean(vb)),
                              float(diff.mean()), float(lo), float(hi),
                              p_value=_percentile_p(boot), tasks=int(keep.sum()), draws=boot))
    return out, notes


def _check_counts(name: str, n: Any, c: Any) -> tuple[np.ndarray, np.ndarray]:
    n, c = np.asarray(n, dtype=float).ravel(), np.asarray(c, dtype=float).ravel()
    if n.size == 0 or n.shape != c.shape or np.any(n < 1) or np.any(c < 0) or np.any(c > n):
        raise ConfigError(f"per-task counts of agent {name} must be non-empty, one length, with "
                          "0 <= c <= n and n >= 1")
    return n, c


def unpaired_bayes(n_a: Any, c_a: Any, n_b: Any, c_b: Any, *, k: int, ci_level: float = 0.95,
                   draws: int = 5000, seed: int | None = 0,
                   priors: tuple[tuple[float, float], tuple[float, float]] | None = None,
                   ) -> tuple[list[Difference], list[str]]:
    """As :func:`paired_bayes` for agents on different tasks: each agent's own tasks, and
    independent Bayesian-bootstrap weights for a new task. Returns (differences, notes)."""
    k = check_k(k)
    level = check_level("ci_level", ci_level)
    n_a, c_a = _check_counts("a", n_a, c_a)
    n_b, c_b = _check_counts("b", n_b, c_b)
    ss = np.random.SeedSequence(seed).spawn(3)
    va, note_a = suite_mean_draws(n_a, c_a, k, draws, np.random.default_rng(ss[0]),
                                  prior=None if priors is None else priors[0])
    vb, note_b = suite_mean_draws(n_b, c_b, k, draws, np.random.default_rng(ss[1]),
                                  prior=None if priors is None else priors[1])
    notes = sorted({x for x in (note_a, note_b) if x})
    diffs = [difference_from_draws(name, "suite tasks", va[name], vb[name], ci_level=level)
             for name, _ in _quantities(k)]
    diffs, notes = _identified(diffs, notes, k, n_a, n_b)
    new, new_notes = bayesian_bootstrap(n_a, c_a, n_b, c_b, k=k, paired=False, ci_level=level,
                                        draws=draws, seed=int(ss[2].generate_state(1)[0]))
    return diffs + new, notes + new_notes


def _identified(diffs: list[Difference], notes: list[str], k: int, n_a: np.ndarray,
                n_b: np.ndarray) -> tuple[list[Difference], list[str]]:
    if k > 1 and (np.all(n_a < 2) or np.all(n_b < 2)):
        diffs = [d for d in diffs if d.quantity == "success"]
        notes = [*notes, f"pass@{k} / pass^{k}: not identified with one attempt per task (they "
                 "hinge on the spread of task difficulty); left out"]
    return diffs, notes


def unpaired_bootstrap(n_a: Any, c_a: Any, n_b: Any, c_b: Any, *, k: int, ci_level: float = 0.95,
                       resamples: int = 4000, seed: int | None = 0
                       ) -> tuple[list[Difference], list[str]]:
    """As :func:`paired_bootstrap` for agents on different tasks: each agent's tasks resampled
    on their own (attempts stay clustered within tasks). Returns (differences, notes)."""
    from agenteval.statistical.estimators import pass_at_k_unbiased, pass_pow_k_unbiased

    k = check_k(k)
    level = check_level("ci_level", ci_level)
    n_a, c_a = _check_counts("a", n_a, c_a)
    n_b, c_b = _check_counts("b", n_b, c_b)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    lo_q, hi_q = _tails(level)
    out, notes = [], []
    for name, _ in _quantities(k):
        if name == "success":
            va, vb = c_a / n_a, c_b / n_b
        else:
            ka, kb = n_a >= k, n_b >= k
            if not (ka.any() and kb.any()):
                notes.append(f"{name}: an agent has no task with >= {k} attempts; left out")
                continue
            fn = pass_at_k_unbiased if name.startswith("pass@") else pass_pow_k_unbiased
            va, vb = fn(n_a[ka], c_a[ka], k), fn(n_b[kb], c_b[kb], k)
        va, vb = np.asarray(va, dtype=float), np.asarray(vb, dtype=float)
        boot = _bootstrap_means(va, resamples, rng) - _bootstrap_means(vb, resamples, rng)
        lo, hi = np.quantile(boot, [lo_q, hi_q])
        out.append(Difference(name, "new task", float(va.mean()), float(vb.mean()),
                              float(va.mean() - vb.mean()), float(lo), float(hi),
                              p_value=_percentile_p(boot), draws=boot))
    return out, notes


def newcombe_paired(both: Any, a_only: Any, b_only: Any, neither: Any, *,
                    ci_level: float = 0.95) -> tuple[Any, Any, Any]:
    """Newcombe's interval for the difference of paired proportions, (difference, low, high).

    Newcombe (1998), "Improved confidence intervals for the difference between binomial
    proportions based on paired data", Statistics in Medicine 17: 2635-2650, method 10: the
    Wilson score intervals (l1, u1), (l2, u2) of p1 = (both + a_only)/n and p2 = (both + b_only)/n
    combined with the phi correlation of the 2x2 table,

        low  = d - sqrt((p1 - l1)^2 - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)^2)
        high = d + sqrt((u1 - p1)^2 - 2 phi (u1 - p1)(p2 - l2) + (p2 - l2)^2)

    with phi = (AD - BC) / sqrt(EFGH) over the cells A = both, B = a_only, C = b_only, D = neither
    and margins E, F, G, H, where AD - BC > 0 is first reduced by n/2 (and floored at 0), and
    phi = 0 when a margin is 0. Vectorised over tables.

    The worked example of Fagerland, Lydersen & Laake (2017), "Statistical Analysis of
    Contingency Tables", ch. 8 (Cavo et al. 2012):

    >>> d, lo, hi = newcombe_paired(59, 6, 16, 80)
    >>> round(d, 4), round(lo, 4), round(hi, 4)
    (-0.0621, -0.1186, -0.0046)
    """
    from agenteval.statistical.estimators import wilson_interval

    level = check_level("ci_level", ci_level)
    cells = [np.asarray(x, dtype=float) for x in (both, a_only, b_only, neither)]
    scalar = all(x.ndim == 0 for x in cells)
    A, B, C, D = (np.atleast_1d(x) for x in np.broadcast_arrays(*cells))
    if np.any(np.concatenate([A, B, C, D]) < 0):
        raise ConfigError("cell counts must be >= 0")
    n = A + B + C + D
    if np.any(n == 0):
        raise ConfigError("a paired table needs at least one pair")
    p1, p2 = (A + B) / n, (A + C) / n
    l1, u1 = wilson_interval(A + B, n, level)
    l2, u2 = wilson_interval(A + C, n, level)
    margins = (A + B) * (C + D) * (A + C) * (B + D)
    cross = A * D - B * C
    cross = np.where(cross > 0, np.maximum(cross - n / 2.0, 0.0), cross)
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(margins > 0, cross / np.sqrt(margins), 0.0)
    d = p1 - p2
    low = d - np.sqrt(np.maximum((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0))
    high = d + np.sqrt(np.maximum((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0))
    if scalar:
        return float(d[0]), float(low[0]), float(high[0])
    return d, low, high


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Exact McNemar test (two-sided): the discordant pairs against Binomial(a_only + b_only, 1/2).

    >>> round(mcnemar_exact(6, 16), 4)
    0.0525
    """
    from scipy.stats import binomtest

    m = int(a_only) + int(b_only)
    if m == 0:
        return 1.0
    return float(binomtest(int(a_only), m, 0.5).pvalue)


# --------------------------------------------------------------------------- independent


def _independent(n_a: int, c_a: int, n_b: int, c_b: int, mode: Any, bayes: bool
                 ) -> tuple[Difference, str]:
    out = mode.compare(n_a, c_a, n_b, c_b)
    if bayes:
        ea = (mode.beta_prior_a + c_a) / (mode.beta_prior_a + mode.beta_prior_b + n_a)
        eb = (mode.beta_prior_a + c_b) / (mode.beta_prior_a + mode.beta_prior_b + n_b)
        diff = Difference("success", "conversations", ea, eb, out["mean_diff"], out["ci_low"],
                          out["ci_high"], prob_a_better=out["prob_greater"],
                          draws=np.asarray(out["samples"]))
    else:
        from scipy.special import ndtr

        pa, pb = c_a / n_a, c_b / n_b
        pool = (c_a + c_b) / (n_a + n_b)
        se = math.sqrt(pool * (1 - pool) * (1 / n_a + 1 / n_b))
        p = 1.0 if se == 0 else float(2 * ndtr(-abs(pa - pb) / se))
        diff = Difference("success", "conversations", pa, pb, out["mean_diff"], out["ci_low"],
                          out["ci_high"], p_value=p)
        out["method"] += "; two-proportion z-test"
    return diff, out["method"]


# --------------------------------------------------------------------------- multiplicity


def adjust_pvalues(p: Any, method: str = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons; NaN entries are left out of the family.

    - ``"holm"``: Holm (1979), "A simple sequentially rejective multiple test procedure", Scand.
      J. Statist. 6: step-down Bonferroni, controls the family-wise error rate.
    - ``"bh"``: Benjamini & Hochberg (1995), J. R. Statist. Soc. B 57: step-up, controls the
      false discovery rate (independent or positively dependent tests).
    - ``"none"``: unchanged.

    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    if method not in ("holm", "bh", "none"):
        raise ConfigError(f"adjust must be one of 'holm', 'bh', 'none', got {method!r}")
    p = np.asarray(p, dtype=float)
    out = p.copy()
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0 or method == "none":
        return out
    if np.any((q < 0) | (q > 1)):
        raise ConfigError("p-values must be in [0, 1]")
    order = np.argsort(q, kind="stable")
    ranked = q[order]
    if method == "holm":
        adj = np.maximum.accumulate((m - np.arange(m)) * ranked)
    else:
        adj = np.minimum.accumulate((m / np.arange(m, 0, -1)) * ranked[::-1])[::-1]
    res = np.empty(m)
    res[order] = np.minimum(adj, 1.0)
    out[ok] = res
    return out


# --------------------------------------------------------------------------- ranking


def rank_from_draws(draws: Any) -> tuple[np.ndarray, ...]:
    """From joint draws (draws, agents), higher is better: (mean, prob_best, expected_rank,
    rank_low, rank_high, prob_greater) with 95% rank intervals; ties are split evenly.

    >>> x = np.array([[0.9, 0.5, 0.1], [0.8, 0.6, 0.2], [0.4, 0.7, 0.3], [0.9, 0.1, 0.2]])
    >>> mean, best, rank, *_ = rank_from_draws(x)
    >>> best.tolist(), rank.tolist()
    ([0.75, 0.25, 0.0], [1.25, 2.0, 2.75])
    """
    x = np.asarray(draws, dtype=float)
    if x.ndim != 2 or x.shape[1] < 1:
        raise ConfigError(f"draws must be (draws, agents), got shape {x.shape}")
    top = x == x.max(axis=1, keepdims=True)
    best = (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
    above = x[:, None, :] > x[:, :, None]   # [d, i, j]: agent j beats agent i in draw d
    level = x[:, None, :] == x[:, :, None]  # ties, the agent itself included
    # average rank (1 = best), as scipy.stats.rankdata(-x, method="average") per draw, without
    # importing scipy.stats (half a second) for a few agents
    ranks = above.sum(axis=2) + (level.sum(axis=2) + 1) / 2
    gt = above.mean(axis=0).T + 0.5 * level.mean(axis=0)
    np.fill_diagonal(gt, np.nan)
    lo, hi = np.quantile(ranks, [0.025, 0.975], axis=0)
    return x.mean(axis=0), best, ranks.mean(axis=0), lo, hi, gt


# --------------------------------------------------------------------------- all pairs


@dataclass
class _Agent:
    name: str
    tasks: dict[str, tuple[int, int]]   # task_id -> (attempts, successes)
    conversations: int = 0
    successes: int = 0


def _task_arrays(ag: _Agent) -> tuple[np.ndarray, np.ndarray]:
    """Per-task (n, c), with each conversation without a task_id as its own one-attempt task."""
    n = [v[0] for v in ag.tasks.values()]
    c = [v[1] for v in ag.tasks.values()]
    loose = ag.conversations - sum(n)
    wins = ag.successes - sum(c)
    n += [1] * loose
    c += [1] * wins + [0] * (loose - wins)
    return np.array(n, dtype=float), np.array(c, dtype=float)


def _group(agent: Sequence[str], task: Sequence[str | None], success: Any) -> list[_Agent]:
    s = np.asarray(success, dtype=bool).ravel()
    if not (len(agent) == len(task) == s.size):
        raise ConfigError(f"agent, task and success must have one length, got "
                          f"{len(agent)}, {len(task)}, {s.size}")
    agents: dict[str, _Agent] = {}
    for a, t, ok in zip(agent, task, s.tolist()):
        ag = agents.get(a) if type(a) is str else None
        if ag is None:
            ag = agents.setdefault(str(a), _Agent(str(a), {}))
        ag.conversations += 1
        ag.successes += ok
        if t is not None and t == t:  # NaN from a DataFrame is no task
            t = t if type(t) is str else str(t)
            n, c = ag.tasks.get(t, (0, 0))
            ag.tasks[t] = (n + 1, c + ok)
    return list(agents.values())


def _is_bayes(mode: Any) -> bool:
    from agenteval.statistical.modes import BayesianMode

    return isinstance(mode, BayesianMode)


def _compare_pair(a: _Agent, b: _Agent, *, k: int, mode: Any, bayes: bool,
                  resamples: int, hyper: Any = None) -> Comparison:
    if a.conversations == 0 or b.conversations == 0:
        nan = math.nan
        return Comparison(a.name, b.name, "independent", "nothing judged for one agent", 0,
                          (Difference("success", "conversations", nan, nan, nan, nan, nan),),
                          ("an agent has no complete conversation: nothing to compare",))
    shared = [t for t in a.tasks if t in b.tasks]
    level = mode.ci_level
    seed = getattr(mode, "rng_seed", 0)
    stream = _seed(seed, a.name, b.name)
    if not shared:
        repeats = any(n > 1 for n, _ in a.tasks.values()) or any(n > 1 for n, _ in b.tasks.values())
        if not repeats:
            diff, detail = _independent(a.conversations, a.successes, b.conversations,
                                        b.successes, mode, bayes)
            return Comparison(a.name, b.name, "independent",
                              "no shared task_id: pooled share of fully correct conversations; "
                              + detail, 0, (diff,))
        n_a, c_a = _task_arrays(a)
        n_b, c_b = _task_arrays(b)
        sub = int(stream.generate_state(1)[0])
        if bayes:
            diffs, notes = unpaired_bayes(n_a, c_a, n_b, c_b, k=k, ci_level=level,
                                          draws=mode.mc_samples, seed=sub,
                                          priors=_conjugate_priors(mode, hyper))
            detail = ("no shared task_id: each agent on its own tasks, per-task Beta posteriors "
                      f"under {_prior_source(mode, hyper)}, independent Bayesian-bootstrap task "
                      "weights; "
                      f"{level * 100:g}% intervals from {mode.mc_samples} seeded draws")
        else:
            diffs, notes = unpaired_bootstrap(n_a, c_a, n_b, c_b, k=k, ci_level=level,
                                              resamples=resamples, seed=sub)
            detail = ("no shared task_id: each agent's tasks resampled on their own "
                      f"({resamples} seeded resamples), {level * 100:g}% percentile interval")
        return Comparison(a.name, b.name, "independent", detail, 0, tuple(diffs), tuple(notes))
    n_a, c_a = (np.array([a.tasks[t][i] for t in shared], dtype=float) for i in (0, 1))
    n_b, c_b = (np.array([b.tasks[t][i] for t in shared], dtype=float) for i in (0, 1))
    if bayes:
        draws = mode.mc_samples
        pair_hyper = None
        if hyper and a.name in hyper and b.name in hyper:
            size = min(len(hyper[a.name][0]), len(hyper[b.name][0]))
            pair_hyper = tuple((np.asarray(hyper[x.name][0])[:size],
                                np.asarray(hyper[x.name][1])[:size]) for x in (a, b))
            draws = size
        priors = None if pair_hyper else _conjugate_priors(mode, hyper)
        diffs, notes = paired_bayes(n_a, c_a, n_b, c_b, k=k, ci_level=level, draws=draws,
                                    seed=int(stream.generate_state(1)[0]), hyper=pair_hyper,
                                    priors=priors)
        source = (f"each agent's population prior (the {getattr(mode, 'method', 'hierarchical')} "
                  "fit's (mu, kappa) draws)" if pair_hyper else _prior_source(mode, hyper))
        detail = (f"paired model on {len(shared)} shared tasks: per-task Beta posteriors under "
                  f"{source}; new task by the Bayesian bootstrap "
                  f"over tasks (Rubin 1981); {level * 100:g}% equal-tailed intervals from "
                  f"{draws} seeded draws")
        return Comparison(a.name, b.name, "paired", detail, len(shared), tuple(diffs), tuple(notes))
    if np.all(n_a == 1) and np.all(n_b == 1):
        A = float(np.sum((c_a == 1) & (c_b == 1)))
        B = float(np.sum((c_a == 1) & (c_b == 0)))
        C = float(np.sum((c_a == 0) & (c_b == 1)))
        D = float(np.sum((c_a == 0) & (c_b == 0)))
        d, lo, hi = newcombe_paired(A, B, C, D, ci_level=level)
        diff = Difference("success", "new task", (A + B) / len(shared), (A + C) / len(shared),
                          d, lo, hi, p_value=mcnemar_exact(int(B), int(C)), tasks=len(shared))
        notes = ((f"pass@{k} / pass^{k}: not identified with one attempt per task; left out",)
                 if k > 1 else ())
        detail = (f"paired on {len(shared)} shared tasks, one attempt each: Newcombe (1998) method 10 "
                  f"{level * 100:g}% interval; exact McNemar test")
        return Comparison(a.name, b.name, "paired", detail, len(shared), (diff,), notes)
    diffs, notes = paired_bootstrap(n_a, c_a, n_b, c_b, k=k, ci_level=level, resamples=resamples,
                                    seed=int(stream.generate_state(1)[0]))
    detail = (f"paired on {len(shared)} shared tasks: bootstrap over tasks ({resamples} seeded "
              f"resamples), {level * 100:g}% percentile interval of the mean per-task difference "
              "of unbiased estimates")
    return Comparison(a.name, b.name, "paired", detail, len(shared), tuple(diffs), tuple(notes))


def _ranking(agents: list[_Agent], *, mode: Any, bayes: bool, resamples: int) -> Ranking | None:
    """Rank on success for a new task when every agent has task_ids, else on pooled conversations."""
    if len(agents) < 2:
        return None
    seed = getattr(mode, "rng_seed", 0)
    rng = np.random.default_rng(_seed(seed, "ranking", *(a.name for a in agents)))
    size = mode.mc_samples if bayes else resamples
    if all(a.tasks for a in agents):
        union = sorted({t for a in agents for t in a.tasks})
        index = {t: i for i, t in enumerate(union)}
        # per task of the union: each agent's c/n (0 if absent) and whether it attempted the task;
        # one weight per task, shared by every agent, then each agent's weighted mean over its tasks
        table = np.zeros((len(union), 2 * len(agents)))
        for j, a in enumerate(agents):
            idx = np.array([index[t] for t in a.tasks])
            table[idx, j] = [c / n for n, c in a.tasks.values()]
            table[idx, len(agents) + j] = 1.0
        rows, counts = _collapse(*table.T)
        sums = _weighted_means(rows, counts, size, rng, bayesian=bayes)
        with np.errstate(invalid="ignore", divide="ignore"):
            x = sums[:, :len(agents)] / sums[:, len(agents):]
        x = x[~np.isnan(x).any(axis=1)]
        scope = "new task"
        method = ("Bayesian bootstrap over task_ids (Rubin 1981), the same task weights for every "
                  "agent" if bayes else "bootstrap over task_ids (share of resamples, not a probability)")
    else:
        cols = []
        for a in agents:
            if bayes:
                cols.append(rng.beta(mode.beta_prior_a + a.successes,
                                     mode.beta_prior_b + a.conversations - a.successes, size=size))
            else:
                cols.append(rng.binomial(a.conversations, a.successes / a.conversations,
                                         size=size) / a.conversations)
        x = np.stack(cols, axis=1)
        scope = "conversations"
        method = ("posterior draws of each agent's pooled rate" if bayes
                  else "parametric bootstrap of pooled rates (share of resamples, not a probability)")
    mean, best, rank, lo, hi, gt = rank_from_draws(x)
    return Ranking(tuple(a.name for a in agents), "success", scope, method, mean, best, rank, lo,
                   hi, gt)


def _conjugate_priors(mode: Any, hyper: Any) -> tuple[tuple[float, float], ...] | None:
    """The run's own Beta(a, b) task prior in the conjugate mode, so the comparison rests on the
    same per-task posteriors as the suite headline; None (fit the population) otherwise."""
    if hyper or getattr(mode, "method", "conjugate") != "conjugate":
        return None
    a, b = float(mode.beta_prior_a), float(mode.beta_prior_b)
    return ((a, b), (a, b))


def _prior_source(mode: Any, hyper: Any) -> str:
    priors = _conjugate_priors(mode, hyper)
    if priors is not None:
        a, b = priors[0]
        return f"the run's Beta({a:g}, {b:g}) prior (as the suite headline)"
    return "each agent's population prior (Laplace-approximated hyperposterior)"


def compare_agents(agent: Sequence[str], task: Sequence[str | None], success: Any, *, k: int,
                   mode: Any, adjust: str = "holm", resamples: int | None = None,
                   names: Sequence[str] | None = None,
                   hyper: dict[str, tuple[Any, Any]] | None = None) -> ComparisonTable:
    """Every pair of agents (in order of first appearance), a ranking and adjusted p-values.

    ``agent``, ``task`` (None for none) and ``success`` describe complete conversations, one
    entry each. ``mode`` is the run's :class:`~agenteval.statistical.modes.BayesianMode` (paired
    model) or :class:`~agenteval.statistical.modes.FrequentistMode` (bootstrap / Newcombe).
    ``names``: every agent in order, including any with no complete conversation (their
    comparisons are NaN and they are left out of the ranking). ``resamples``: bootstrap
    resamples (default: the mode's ``bootstrap_samples``, else 4000). ``hyper``: per agent, the
    (mu, kappa) posterior draws of a hierarchical fit over its tasks, for the paired model.
    """
    if resamples is None:
        resamples = int(getattr(mode, "bootstrap_samples", 4000))
    k = check_k(k)
    if adjust not in ("holm", "bh", "none"):
        raise ConfigError(f"adjust must be one of 'holm', 'bh', 'none', got {adjust!r}")
    grouped = {a.name: a for a in _group(agent, task, success)}
    order = list(dict.fromkeys([*(names or []), *grouped]))
    agents = [grouped.get(name, _Agent(name, {})) for name in order]
    bayes = _is_bayes(mode)
    comps = [_compare_pair(agents[i], agents[j], k=k, mode=mode, bayes=bayes, resamples=resamples,
                           hyper=hyper)
             for i in range(len(agents)) for j in range(i + 1, len(agents))]
    if not bayes and comps:
        fam: dict[str, list[tuple[int, int]]] = {}  # one family per quantity
        for ci, cmp in enumerate(comps):
            for di, d in enumerate(cmp.differences):
                fam.setdefault(d.quantity, []).append((ci, di))
        adjusted: dict[tuple[int, int], float] = {}
        for members in fam.values():
            p = [comps[ci].differences[di].p_value for ci, di in members]
            for key, value in zip(members, adjust_pvalues(p, adjust)):
                adjusted[key] = float(value)
        comps = [Comparison(c.agent_a, c.agent_b, c.method, c.detail, c.shared_tasks,
                            tuple(_with_p(d, adjusted.get((ci, di), math.nan))
                                  for di, d in enumerate(c.differences)), c.notes)
                 for ci, c in enumerate(comps)]
    ranking = _ranking([a for a in agents if a.conversations > 0], mode=mode, bayes=bayes,
                       resamples=resamples)
    return ComparisonTable(tuple(comps), ranking, adjust if not bayes else "none")


def _with_p(d: Difference, p: float) -> Difference:
    from dataclasses import replace

    return replace(d, p_adjusted=p)
