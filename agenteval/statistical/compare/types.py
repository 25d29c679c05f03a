"""What comparisons return: one difference, one pair of agents, a ranking, the whole table."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ComparisonTable", "Comparison", "Difference", "Ranking"]


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
