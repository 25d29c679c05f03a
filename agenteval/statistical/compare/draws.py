"""Differences from posterior draws, and the draws of one agent's mean over its tasks."""

from __future__ import annotations

from typing import Any

import numpy as np

from agenteval.errors import ConfigError, check_k, check_level
from agenteval.statistical.beta_binomial import HyperPrior
from agenteval.statistical.beta_sums import beta_sums
from agenteval.statistical.compare.common import prob_greater, quantities, tails
from agenteval.statistical.compare.types import Difference
from agenteval.statistical.difficulty import hyperposterior_draws

__all__ = ["difference_from_draws", "paired_from_draws", "suite_mean_draws"]


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
    lo, hi = np.quantile(d, tails(level))
    return Difference(quantity, scope, float(va.mean()), float(vb.mean()), float(d.mean()),
                      float(lo), float(hi), prob_a_better=prob_greater(d), tasks=tasks, draws=d)


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
            for name, f in quantities(k)]


def suite_mean_draws(n: Any, c: Any, k: int, size: int, rng: np.random.Generator, *,
                     prior: tuple[float, float] | None = None,
                     hyper: tuple[Any, Any] | None = None,
                     hyperprior: HyperPrior = HyperPrior()) -> tuple[dict[str, np.ndarray], str]:
    """Posterior draws of one agent's mean over its tasks of p_t, 1-(1-p_t)^k and p_t^k.

    Per draw, (mu, kappa) from the hyperposterior under ``hyperprior`` (exact grid quadrature,
    :func:`~agenteval.statistical.beta_binomial.hyperposterior`) or the fixed ``prior``
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
        mu, kappa, note = hyperposterior_draws(n, c, size, rng, prior=hyperprior)
        a0, b0 = mu * kappa, (1 - mu) * kappa
    else:
        a0, b0, note = np.full(size, float(prior[0])), np.full(size, float(prior[1])), ""
    pairs, counts = np.unique(np.stack([n, c], axis=1), axis=0, return_counts=True)
    names = [name for name, _ in quantities(k)]   # success, then pass@k and pass^k if k > 1
    kinds = ("rate", "at", "pow")[:len(names)]
    sums = {name: np.zeros(size) for name in names}
    for (nt, ct), m in zip(pairs, counts):
        group = beta_sums(a0 + ct, b0 + nt - ct, int(m), k, kinds, rng)
        for name, kind in zip(names, kinds):
            sums[name] += group[kind]
    return {name: v / n.size for name, v in sums.items()}, note
