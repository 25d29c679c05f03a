"""The one table of counts of a judged suite: what every suite estimate is a function of.

A :class:`SuiteCounts` holds one entry per conversation in flat numpy arrays (agent and task
codes with their names, judged interactions n, correct ones c, the conversation's length, judge
errors, whether it is complete and fully correct, where its outcome came from) and is frozen:
the results build it once, in one pass over the per-conversation metrics, and every estimate
(``agenteval.statistical.summarise``), the posterior draws and every view read it.

Conventions (the semantics of DESIGN.md):

* a conversation is **complete** when the judge failed on none of its interactions;
* ``fully`` is 1 (every interaction correct), 0 (a judged interaction is wrong: a known
  failure, complete or not) or -1 (unknown: the judged ones are right, some are unjudged);
* a **task** is (agent, task_id); its attempts are its *complete* conversations; conversations
  without a task_id (code -1) are in no task;
* ``length`` is the conversation's number of interactions (judged or not), the stratum of the
  post-stratified share.

Derived tables (tasks, length strata per group) are computed from the arrays on first use and
kept; nothing here walks Python objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from agenteval.errors import ConfigError

__all__ = ["SuiteCounts", "TaskTable", "Strata", "SOURCES", "build_counts"]

SOURCES = ("judged", "given", "mixed")
"""Outcome sources, in the order of ``SuiteCounts.source``'s codes."""


@dataclass(frozen=True)
class TaskTable:
    """Per task (agent x task_id with at least one conversation): complete attempts n, fully
    correct ones c, the agent's code, and the task's key (agent name, task_id)."""

    n: np.ndarray
    c: np.ndarray
    agent: np.ndarray
    keys: tuple[tuple[str, str], ...]

    @property
    def size(self) -> int:
        return int(self.n.size)


@dataclass(frozen=True)
class Strata:
    """One group's conversations by length: per length, conversations, complete ones and fully
    correct ones (the inputs of the post-stratified share)."""

    lengths: np.ndarray
    conversations: np.ndarray
    complete: np.ndarray
    fully_correct: np.ndarray


def _column(name: str, values: Any, size: int | None, dtype: Any) -> np.ndarray:
    arr = np.asarray(values, dtype=dtype).ravel()
    if size is not None and arr.size != size:
        raise ConfigError(f"{name} must have one entry per conversation ({size}), got {arr.size}")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class SuiteCounts:
    """Per conversation, the counts of a judged suite (see the module docstring).

    Arrays are read-only and of one length (the number of conversations). Build it with
    :func:`build_counts` (from plain columns) or the results' one pass over their metrics.
    """

    agent: np.ndarray
    """Agent code per conversation (index into ``agents``), order of first appearance."""
    agents: tuple[str, ...]
    task: np.ndarray
    """task_id code per conversation (index into ``task_ids``), -1 without a task_id."""
    task_ids: tuple[str, ...]
    n: np.ndarray
    """Interactions judged (or given) per conversation."""
    c: np.ndarray
    """Correct interactions per conversation."""
    length: np.ndarray
    """Interactions per conversation, judged or not."""
    judge_errors: np.ndarray
    """Interactions the judge could not score."""
    fully: np.ndarray
    """1 fully correct, 0 a known failure, -1 unknown (see module docstring)."""
    source: np.ndarray
    """Outcome source code per conversation (index into ``SOURCES``)."""
    given_interactions: np.ndarray = field(default=None)  # type: ignore[assignment]
    """Interactions whose outcome the data gave (not judged)."""

    def __post_init__(self) -> None:
        size = self.agent.size
        for name in ("task", "n", "c", "length", "judge_errors", "fully", "source"):
            if getattr(self, name).size != size:
                raise ConfigError(f"{name} must have one entry per conversation ({size}), got "
                                  f"{getattr(self, name).size}")
        if self.given_interactions is None:
            object.__setattr__(self, "given_interactions",
                               _column("given_interactions", np.zeros(size), size, np.int64))
        if size and (self.agent.min() < 0 or self.agent.max() >= len(self.agents)):
            raise ConfigError("agent codes must index agents")
        if size and (self.task.min() < -1 or self.task.max() >= len(self.task_ids)):
            raise ConfigError("task codes must index task_ids (or be -1)")
        if np.any(self.c > self.n) or np.any(self.c < 0):
            raise ConfigError("counts must satisfy 0 <= c <= n")

    # ------------------------------------------------------------------ sizes and masks

    @property
    def size(self) -> int:
        """Conversations."""
        return int(self.agent.size)

    @cached_property
    def complete(self) -> np.ndarray:
        """Conversations with every interaction judged."""
        return self.judge_errors == 0

    @cached_property
    def fully_correct(self) -> np.ndarray:
        return self.fully == 1

    def groups(self) -> list[tuple[str, str, np.ndarray]]:
        """(name, level, mask): 'all' (level 'suite'), then each agent when there are several."""
        out = [("all", "suite", np.ones(self.size, dtype=bool))]
        if len(self.agents) > 1:
            out += [(name, "agent", self.agent == g) for g, name in enumerate(self.agents)]
        return out

    # ------------------------------------------------------------------ derived tables

    @cached_property
    def tasks(self) -> TaskTable:
        """Per task, complete attempts and fully correct ones (order of first appearance)."""
        has = self.task >= 0
        if not has.any():
            empty = np.zeros(0, dtype=np.int64)
            return TaskTable(empty, empty.copy(), empty.copy(), ())
        width = len(self.task_ids) + 1
        key = self.agent[has].astype(np.int64) * width + self.task[has]
        uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")          # first appearance, as the data ran
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        unit = rank[inverse.ravel()]
        done = self.complete[has]
        n = np.bincount(unit, weights=done, minlength=uniq.size).astype(np.int64)
        c = np.bincount(unit, weights=done & self.fully_correct[has],
                        minlength=uniq.size).astype(np.int64)
        ordered = uniq[order]
        agent = (ordered // width).astype(np.int64)
        keys = tuple((self.agents[a], self.task_ids[t]) for a, t in
                     zip(agent.tolist(), (ordered % width).tolist()))
        return TaskTable(n, c, agent, keys)

    def attempts_per_task(self, mask: np.ndarray) -> np.ndarray:
        """Conversations (complete or not) per task of the group ``mask``: the headline is
        task-level when some task has two."""
        has = mask & (self.task >= 0)
        if not has.any():
            return np.zeros(0, dtype=np.int64)
        width = len(self.task_ids) + 1
        _, counts = np.unique(self.agent[has].astype(np.int64) * width + self.task[has],
                              return_counts=True)
        return counts

    def strata(self, mask: np.ndarray) -> Strata:
        """The group's conversations by length (lengths ascending)."""
        length = self.length[mask]
        lengths, inverse = np.unique(length, return_inverse=True)
        inverse = inverse.ravel()
        size = lengths.size

        def count(weights: np.ndarray | None) -> np.ndarray:
            return np.bincount(inverse, weights=weights, minlength=size).astype(np.int64)

        return Strata(lengths, count(None), count(self.complete[mask]),
                      count(self.fully_correct[mask]))

    def complete_cases(self) -> tuple[list[str], list[str | None], np.ndarray]:
        """The complete conversations as (agent name, task_id or None, fully correct) columns,
        the input shape of ``statistical.compare`` and ``statistical.quality``."""
        done = self.complete
        agents = [self.agents[a] for a in self.agent[done].tolist()]
        tasks = [None if t < 0 else self.task_ids[t] for t in self.task[done].tolist()]
        return agents, tasks, self.fully_correct[done]


def _codes(labels: Any, *, allow_none: bool) -> tuple[np.ndarray, tuple[str, ...]]:
    names: dict[str, int] = {}
    codes = []
    for x in labels:
        if x is None:
            if not allow_none:
                raise ConfigError("every conversation needs an agent (assistant_id)")
            codes.append(-1)
        else:
            codes.append(names.setdefault(str(x), len(names)))
    return np.asarray(codes, dtype=np.int64), tuple(names)


def build_counts(*, agent: Any, task: Any, n: Any, c: Any, length: Any = None,
                 judge_errors: Any = None, fully: Any = None, source: Any = None,
                 given_interactions: Any = None) -> SuiteCounts:
    """A :class:`SuiteCounts` from plain per-conversation columns (lists or arrays).

    ``agent``: agent names; ``task``: task_ids or None. ``length`` defaults to n +
    judge_errors; ``judge_errors`` to 0; ``fully`` (True / False / None, or 1 / 0 / -1) to
    c == n for complete conversations, 0 where a judged interaction is wrong, else -1;
    ``source`` (names in ``SOURCES``) to 'judged'.

    >>> t = build_counts(agent=["a", "a", "b"], task=["t1", "t1", None], n=[2, 2, 1], c=[2, 1, 1])
    >>> t.tasks.n.tolist(), t.tasks.c.tolist(), t.tasks.keys
    ([2], [1], (('a', 't1'),))
    """
    agent_codes, agents = _codes(agent, allow_none=False)
    size = agent_codes.size
    task_codes, task_ids = _codes(task, allow_none=True)
    n_arr = _column("n", n, size, np.int64)
    c_arr = _column("c", c, size, np.int64)
    errors = _column("judge_errors", np.zeros(size) if judge_errors is None else judge_errors,
                     size, np.int64)
    length_arr = _column("length", n_arr + errors if length is None else length, size, np.int64)
    if fully is None:
        full = np.where(c_arr < n_arr, 0, np.where(errors == 0, 1, -1))
    else:
        full = np.array([-1 if f is None else int(f) for f in fully], dtype=np.int64)
        if full.size and (full.min() < -1 or full.max() > 1):
            raise ConfigError("fully must be True / False / None (or 1 / 0 / -1)")
    if source is None:
        src = np.zeros(size, dtype=np.int64)
    else:
        try:
            src = np.array([SOURCES.index(s) for s in source], dtype=np.int64)
        except ValueError:
            raise ConfigError(f"source must be one of {SOURCES}") from None
    given = np.zeros(size) if given_interactions is None else given_interactions
    return SuiteCounts(
        agent=_column("agent", agent_codes, size, np.int64), agents=agents,
        task=_column("task", task_codes, size, np.int64), task_ids=task_ids,
        n=n_arr, c=c_arr, length=length_arr, judge_errors=errors,
        fully=_column("fully", full, size, np.int8), source=_column("source", src, size, np.int8),
        given_interactions=_column("given_interactions", given, size, np.int64))
