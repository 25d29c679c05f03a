"""Choosing conversations: by agent, by task, then the first N (``agenteval.select``).

The CLI's ``--agent`` / ``--task`` / ``--limit`` and the ``%agentic_eval`` magic call this, so a
notebook selects exactly as the command line does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agenteval.errors import ConfigError

__all__ = ["select"]

_NAMES = {"agents": "agents", "tasks": "tasks", "limit": "limit"}


def select(datasets: Sequence[Any], *, agents: Iterable[str] | None = None,
           tasks: Iterable[str] | None = None, limit: int | None = None,
           names: Mapping[str, str] | None = None) -> list[Any]:
    """The conversations of the given agents (``assistant_id``) and tasks (``task_id``), in
    their order, then the first ``limit`` of those.

    An agent or task that none of the conversations has is an error (a typo would otherwise
    evaluate nothing, or everything but it), naming the ones there are. ``names`` says how
    errors call the options (the CLI passes ``{"agents": "--agent", ...}``).

        >>> from agenteval import Dataset, select
        >>> turn = {"qa_id": "q1", "query": "2+2?", "assistant": "4"}
        >>> convs = [Dataset(session_id=f"s{i}", assistant_id=a, conversation=[turn])
        ...          for i, a in enumerate(["x", "y", "x"])]
        >>> [d.session_id for d in select(convs, agents=["x"], limit=1)]
        ['s0']
    """
    called = {**_NAMES, **(names or {})}
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ConfigError(f"{_show(called['limit'])} must be an integer >= 1, got {limit!r}")
    chosen = list(datasets)
    for key, wanted, attr in (("agents", agents, "assistant_id"), ("tasks", tasks, "task_id")):
        if wanted is None:
            continue
        if isinstance(wanted, str):
            wanted = [wanted]
        wanted = list(wanted)
        if not wanted:
            continue
        present = {getattr(d, attr) for d in chosen}
        missing = [w for w in wanted if w not in present]
        if missing:
            known = sorted(str(v) for v in present if v is not None)
            shown = ", ".join(known[:10]) + (", ..." if len(known) > 10 else "")
            raise ConfigError(f"{_show(called[key], missing[0])}: no such {attr} among the "
                              f"selected conversations (have: {shown or 'none'})")
        keep = set(wanted)
        chosen = [d for d in chosen if getattr(d, attr) in keep]
    return chosen[:limit] if limit is not None else chosen


def _show(name: str, value: Any = None) -> str:
    """``--agent nobody`` for a flag, ``agents='nobody'`` for a keyword argument."""
    if value is None:
        return name
    return f"{name} {value}" if name.startswith("-") else f"{name}={value!r}"
