"""Ranking agents from joint draws: P(best), expected rank, rank intervals."""

from __future__ import annotations

from typing import Any

import numpy as np

from agenteval.errors import ConfigError
from agenteval.statistical.compare.common import seed_stream
from agenteval.statistical.compare.grouping import Agent
from agenteval.statistical.compare.types import Ranking
from agenteval.statistical.new_task import collapse, weighted_means

__all__ = ["rank_agents", "rank_from_draws"]


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


def rank_agents(agents: list[Agent], *, mode: Any, bayes: bool, resamples: int) -> Ranking | None:
    """Rank on success for a new task when every agent has task_ids, else on pooled conversations."""
    if len(agents) < 2:
        return None
    seed = getattr(mode, "rng_seed", 0)
    rng = np.random.default_rng(seed_stream(seed, "ranking", *(a.name for a in agents)))
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
        rows, counts = collapse(*table.T)
        sums = weighted_means(rows, counts, size, rng, bayesian=bayes)
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
