"""Small shared pieces of the comparisons: quantities, seeds, tails, input checks."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from agenteval.errors import ConfigError
from agenteval.statistical.compare.types import Difference

__all__ = ["check_paired", "check_task_counts", "drop_unidentified", "prob_greater", "quantities", "seed_stream", "tails"]


def quantities(k: int) -> list[tuple[str, Any]]:
    """(name, f) with f mapping rates to the per-task quantity; k == 1 has success only."""
    qs: list[tuple[str, Any]] = [("success", lambda p: p)]
    if k > 1:
        qs += [(f"pass@{k}", lambda p: 1.0 - (1.0 - p) ** k), (f"pass^{k}", lambda p: p ** k)]
    return qs


def seed_stream(seed: int | None, *names: str) -> np.random.SeedSequence:
    """A stream that depends on the seed and the agents' names only (not on call order)."""
    if seed is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence([int(seed), *(zlib.crc32(n.encode()) for n in names)])


def tails(level: float) -> tuple[float, float]:
    """The quantiles of an equal-tailed interval at ``level``."""
    tail = (1.0 - level) / 2.0
    return tail, 1.0 - tail


def prob_greater(d: np.ndarray) -> float:
    """Share of draws with d > 0, ties counted half."""
    return float(np.mean(d > 0) + 0.5 * np.mean(d == 0))


def check_paired(n_a: Any, c_a: Any, n_b: Any, c_b: Any) -> tuple[np.ndarray, ...]:
    """Aligned per-shared-task counts of two agents as float arrays, or a ConfigError."""
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


def check_task_counts(name: str, n: Any, c: Any) -> tuple[np.ndarray, np.ndarray]:
    """One agent's per-task counts as float arrays, or a ConfigError naming the agent."""
    n, c = np.asarray(n, dtype=float).ravel(), np.asarray(c, dtype=float).ravel()
    if n.size == 0 or n.shape != c.shape or np.any(n < 1) or np.any(c < 0) or np.any(c > n):
        raise ConfigError(f"per-task counts of agent {name} must be non-empty, one length, with "
                          "0 <= c <= n and n >= 1")
    return n, c


def drop_unidentified(diffs: list[Difference], notes: list[str], k: int, n_a: np.ndarray,
                n_b: np.ndarray) -> tuple[list[Difference], list[str]]:
    """Leave out pass@k / pass^k (k > 1) when an agent has one attempt per task, with a note."""
    if k > 1 and (np.all(n_a < 2) or np.all(n_b < 2)):
        diffs = [d for d in diffs if d.quantity == "success"]
        notes = [*notes, f"pass@{k} / pass^{k}: not identified with one attempt per task (they "
                 "hinge on the spread of task difficulty); left out"]
    return diffs, notes
