"""Complete conversations grouped per agent into per-task (attempts, successes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agenteval.errors import ConfigError

__all__ = ["Agent", "group_agents", "is_bayes", "task_arrays"]


@dataclass
class Agent:
    """One agent's complete conversations: per task_id (attempts, successes), and totals."""

    name: str
    tasks: dict[str, tuple[int, int]]   # task_id -> (attempts, successes)
    conversations: int = 0
    successes: int = 0


def task_arrays(ag: Agent) -> tuple[np.ndarray, np.ndarray]:
    """Per-task (n, c), with each conversation without a task_id as its own one-attempt task."""
    n = [v[0] for v in ag.tasks.values()]
    c = [v[1] for v in ag.tasks.values()]
    loose = ag.conversations - sum(n)
    wins = ag.successes - sum(c)
    n += [1] * loose
    c += [1] * wins + [0] * (loose - wins)
    return np.array(n, dtype=float), np.array(c, dtype=float)


def group_agents(agent: Sequence[str], task: Sequence[str | None], success: Any) -> list[Agent]:
    """Aligned conversation columns -> one :class:`Agent` per agent, in order of appearance."""
    s = np.asarray(success, dtype=bool).ravel()
    if not (len(agent) == len(task) == s.size):
        raise ConfigError(f"agent, task and success must have one length, got "
                          f"{len(agent)}, {len(task)}, {s.size}")
    agents: dict[str, Agent] = {}
    for a, t, ok in zip(agent, task, s.tolist()):
        ag = agents.get(a) if type(a) is str else None
        if ag is None:
            ag = agents.setdefault(str(a), Agent(str(a), {}))
        ag.conversations += 1
        ag.successes += ok
        if t is not None and t == t:  # NaN from a DataFrame is no task
            t = t if type(t) is str else str(t)
            n, c = ag.tasks.get(t, (0, 0))
            ag.tasks[t] = (n + 1, c + ok)
    return list(agents.values())


def is_bayes(mode: Any) -> bool:
    """Whether ``mode`` is a :class:`~agenteval.statistical.modes.BayesianMode`."""
    from agenteval.statistical.modes import BayesianMode

    return isinstance(mode, BayesianMode)
