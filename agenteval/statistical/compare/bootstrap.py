"""Frequentist comparisons on tasks: the (cluster) bootstrap over tasks, paired or not."""

from __future__ import annotations

from typing import Any

import numpy as np

from agenteval.errors import check_k, check_level
from agenteval.statistical.compare.common import check_paired, check_task_counts, quantities, tails
from agenteval.statistical.compare.types import Difference
from agenteval.statistical.new_task import collapse, weighted_means

__all__ = ["bootstrap_means", "paired_bootstrap", "percentile_p", "unpaired_bootstrap"]


def bootstrap_means(values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``values`` (one per task) over task resamples with replacement: (resamples,)."""
    rows, counts = collapse(np.asarray(values, dtype=float).ravel())
    return weighted_means(rows, counts, resamples, rng, bayesian=False)[:, 0]


def percentile_p(d: np.ndarray) -> float:
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
    n_a, c_a, n_b, c_b = check_paired(n_a, c_a, n_b, c_b)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    lo_q, hi_q = tails(level)
    out, notes = [], []
    for name, _ in quantities(k):
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
        boot = bootstrap_means(diff, resamples, rng)
        lo, hi = np.quantile(boot, [lo_q, hi_q])
        out.append(Difference(name, "new task", float(np.mean(va)), float(np.mean(vb)),
                              float(diff.mean()), float(lo), float(hi),
                              p_value=percentile_p(boot), tasks=int(keep.sum()), draws=boot))
    return out, notes


def unpaired_bootstrap(n_a: Any, c_a: Any, n_b: Any, c_b: Any, *, k: int, ci_level: float = 0.95,
                       resamples: int = 4000, seed: int | None = 0
                       ) -> tuple[list[Difference], list[str]]:
    """As :func:`paired_bootstrap` for agents on different tasks: each agent's tasks resampled
    on their own (attempts stay clustered within tasks). Returns (differences, notes)."""
    from agenteval.statistical.estimators import pass_at_k_unbiased, pass_pow_k_unbiased

    k = check_k(k)
    level = check_level("ci_level", ci_level)
    n_a, c_a = check_task_counts("a", n_a, c_a)
    n_b, c_b = check_task_counts("b", n_b, c_b)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    lo_q, hi_q = tails(level)
    out, notes = [], []
    for name, _ in quantities(k):
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
        boot = bootstrap_means(va, resamples, rng) - bootstrap_means(vb, resamples, rng)
        lo, hi = np.quantile(boot, [lo_q, hi_q])
        out.append(Difference(name, "new task", float(va.mean()), float(vb.mean()),
                              float(va.mean() - vb.mean()), float(lo), float(hi),
                              p_value=percentile_p(boot), draws=boot))
    return out, notes
