"""The one estimator of "new task" quantities, shared by the suite rows and the comparisons.

A new task from the population the suite's tasks sample: its expected success, pass@k and pass^k
are the population means E[p], E[1 - (1 - p)^k] and E[p^k]. Each task's unbiased estimate U_t
(c/n; 1 - C(n-c, k)/C(n, k), Chen et al. 2021; C(c, k)/C(n, k), tau-bench) has exactly that
population mean, so the estimate is the mean of U_t over the tasks with at least k attempts, and
its uncertainty is the sampling of tasks:

- Bayesian modes: the Bayesian bootstrap over tasks (Rubin 1981, "The Bayesian bootstrap", Ann.
  Statist. 9), Dirichlet(1, ..., 1) task weights: the posterior of the population mean under a
  nonparametric model of the task population (no Beta shape assumed, so tasks that always fail
  or always succeed do not bend it);
- frequentist mode: the percentile bootstrap over tasks (Efron & Tibshirani 1993).

Comparisons pass several aligned columns (both agents on their shared tasks) so one set of task
weights serves both agents, which keeps the pairing. Tasks with equal values are interchangeable,
so the resampling runs over the distinct rows of values (:func:`collapse`): cost follows the
number of distinct (n, c) pairs, not the number of tasks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agenteval.statistical import estimators as est

__all__ = ["collapse", "new_task_draws", "new_task_estimate", "per_task", "weighted_means"]

#: Entries of one weight block (memory bound for many distinct rows).
_BLOCK = 4_000_000


def per_task(name: str, n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Per-task unbiased estimates of 'success', 'pass@k' or 'pass^k' (NaN where n < k)."""
    n, c = np.asarray(n, dtype=float), np.asarray(c, dtype=float)
    if name == "success":
        with np.errstate(divide="ignore", invalid="ignore"):
            return c / n
    fn = est.pass_at_k_unbiased if name.startswith("pass@") else est.pass_pow_k_unbiased
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.atleast_1d(np.asarray(fn(n, c, k), dtype=float))


def collapse(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of the per-task columns and how many tasks have each: (rows (G, Q), counts)."""
    rows, counts = np.unique(np.stack(columns, axis=1), axis=0, return_counts=True)
    return rows, counts.astype(float)


def weighted_means(values: np.ndarray, counts: np.ndarray, draws: int,
                   rng: np.random.Generator, *, bayesian: bool) -> np.ndarray:
    """Task-resampled means of ``values`` (G distinct rows, Q columns): (draws, Q).

    The Bayesian bootstrap's Dirichlet(1, ..., 1) task weights summed within a row are
    Dirichlet(counts); the bootstrap's multinomial(T, 1/T) task counts summed within a row are
    multinomial(T, counts / T). Both are exact collapses onto the G distinct rows.
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


def new_task_draws(n: Any, c: Any, k: int, *, draws: int = 5000, seed: int | None = 42,
                   bayesian: bool = True) -> dict[str, np.ndarray]:
    """The resampled means behind :func:`new_task_estimate`: ``{"pass_at_k": (draws,),
    "pass_pow_k": (draws,)}`` over the tasks with n_t >= k (NaN draws when there is none); the
    same seed gives the draws whose quantiles are that function's interval."""
    n, c = np.asarray(n, dtype=float).ravel(), np.asarray(c, dtype=float).ravel()
    keep = n >= k
    if not keep.any():
        return {"pass_at_k": np.full(draws, np.nan), "pass_pow_k": np.full(draws, np.nan)}
    at = per_task("pass@", n[keep], c[keep], k)
    pw = per_task("pass^", n[keep], c[keep], k)
    rows, counts = collapse(at, pw)
    means = weighted_means(rows, counts, draws, np.random.default_rng(seed), bayesian=bayesian)
    return {"pass_at_k": means[:, 0], "pass_pow_k": means[:, 1]}


def new_task_estimate(n: Any, c: Any, k: int, *, level: float = 0.95, draws: int = 5000,
                      seed: int | None = 42, bayesian: bool = True) -> dict[str, float]:
    """New-task pass@k and pass^k of one group of tasks: mean of U_t over tasks with n_t >= k,
    equal-tailed interval from ``draws`` seeded (Bayesian) bootstrap resamples of the tasks.

    Returns ``new_task_pass_at_k`` (+ ``_low``, ``_high``), ``new_task_pass_pow_k`` (+ bounds)
    and ``tasks`` (those used); NaN values when no task has k attempts.

    >>> r = new_task_estimate([4, 4, 4], [4, 0, 2], 2)
    >>> round(r["new_task_pass_pow_k"], 4), r["tasks"]   # (1 + 0 + 1/6) / 3
    (0.3889, 3)
    """
    n, c = np.asarray(n, dtype=float).ravel(), np.asarray(c, dtype=float).ravel()
    keep = n >= k
    nan = float("nan")
    out = {f"new_task_{q}{s}": nan for q in ("pass_at_k", "pass_pow_k") for s in ("", "_low", "_high")}
    out["tasks"] = int(keep.sum())
    if not keep.any():
        return out
    at = per_task("pass@", n[keep], c[keep], k)
    pw = per_task("pass^", n[keep], c[keep], k)
    means = new_task_draws(n, c, k, draws=draws, seed=seed, bayesian=bayesian)
    tail = (1.0 - level) / 2.0
    for q, v in (("pass_at_k", at), ("pass_pow_k", pw)):
        lo, hi = np.quantile(means[q], [tail, 1.0 - tail])
        out[f"new_task_{q}"], out[f"new_task_{q}_low"], out[f"new_task_{q}_high"] = (
            float(v.mean()), float(lo), float(hi))
    return out
