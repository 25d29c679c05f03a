"""tau-bench results -> ``Dataset``: the environment's reward is the outcome, no judge needed.

tau-bench's ``run.py`` writes a JSON list with one record per (task, trial)::

    {"task_id": 3, "trial": 0, "reward": 1.0, "info": {...}, "traj": [<OpenAI chat messages>]}

Each record becomes one conversation:

* ``session_id`` = ``<agent>/task-<task_id>-trial-<trial>``, ``task_id`` = the task id as text,
  ``attempt`` = ``trial``, ``assistant_id`` = the option given, else the file's stem (one
  results file per agent, as tau-bench writes them);
* ``outcome`` = ``reward`` (a success when within 1e-6 of 1, tau-bench's own rule), so
  agenteval's per-task pass^k is the quantity tau-bench prints (``C(c, k) / C(n, k)`` averaged
  over tasks);
* the trajectory goes through the OpenAI-transcript importer (``core/traces.py``): every user
  message starts an interaction, every tool call is kept with its result;
* ``info`` is kept in ``metadata["info"]``; a trial that crashed (empty ``traj``, tau-bench
  scores it 0) becomes one empty interaction with its reward, so nothing is dropped;
* the task's ground-truth actions (``info.task.actions``, ``[{"name", "kwargs"}]``, as tau-bench
  logs them) become the expected tools: ``tool_name`` = ``name``, ``parameters`` = ``kwargs``,
  ``step`` = 1, 2, ... in the reference's order, with ``tool_sequence_matters=False`` (tau-bench
  rewards the final database state, which the reference reaches in one of several valid orders).
  ``respond`` actions are messages to the user, not tools: they are left out of the expected
  tools (the agent's messages are its answer text, never a call) and stay in ``metadata``. The
  actions are the reference for the whole episode, not for one user turn, so such a record
  becomes ONE interaction holding every call the agent made (steps numbered across the episode),
  the user's messages as the query and the agent's messages as the answer; it is scored against
  all the expected tools at once. Records without ``info.task.actions`` keep one interaction per
  user message and no expected tools.

Errors name the file, the line where the record starts and the field, e.g.
``results.json, line 40, field 'traj[3].tool_calls[0].function.arguments': ...``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agenteval.core.base import Where as _Where
from agenteval.core.base import read_json_list as _read_json_list
from agenteval.core.records import FileRetriever as _FileRetriever
from agenteval.errors import DataError
from agenteval.schemas.common import Dataset

RESPOND_ACTION = "respond"
"""tau-bench's action for a message to the user (``tau_bench.types.RESPOND_ACTION_NAME``)."""

__all__ = ["TAUBENCH_FIELDS", "TauBenchRetriever", "datasets_from_taubench", "is_taubench_record"]

TAUBENCH_FIELDS = ("task_id", "trial", "reward", "info", "traj")
"""Keys of one tau-bench result record (``EnvRunResult``); all are required but ``info``."""

_REQUIRED = ("task_id", "trial", "reward", "traj")


def is_taubench_record(record: Any) -> bool:
    """A record that looks like tau-bench's (used to recognise a file by its content)."""
    return (isinstance(record, Mapping) and {"task_id", "reward", "traj"} <= record.keys()
            and "conversation" not in record and "messages" not in record)


class _Ctx:
    """Carries the place (file, line) so every error names it."""

    def __init__(self, source: str | None, line: int | None, index: int | None) -> None:
        self.where = _Where(source, line, index)

    def error(self, message: str, field: str | None = None) -> DataError:
        return self.where.error(message, field)


def _record_to_dataset(record: Any, *, assistant_id: str, ctx: _Ctx) -> Dataset:
    from agenteval.core.traces import TraceContext as _TraceCtx
    from agenteval.core.traces import convert_messages as _convert

    if not isinstance(record, Mapping):
        raise ctx.error(f"expected a tau-bench result object, got {type(record).__name__}")
    unknown = [k for k in record if k not in TAUBENCH_FIELDS]
    if unknown:
        raise ctx.error(f"unknown field {unknown[0]!r} in a tau-bench record; allowed: "
                        f"{', '.join(TAUBENCH_FIELDS)}")
    for key in _REQUIRED:
        if key not in record:
            raise ctx.error("missing required field", key)
    task_id, trial, reward = record["task_id"], record["trial"], record["reward"]
    if isinstance(task_id, bool) or not isinstance(task_id, (int, str)) or task_id == "":
        raise ctx.error(f"expected an integer or a string, got {task_id!r}", "task_id")
    if isinstance(trial, bool) or not isinstance(trial, int) or trial < 0:
        raise ctx.error(f"expected an integer >= 0, got {trial!r}", "trial")
    if isinstance(reward, bool) or not isinstance(reward, (int, float)) or \
            not math.isfinite(reward) or not 0 <= reward <= 1:
        raise ctx.error(f"expected a number in [0, 1], got {reward!r}", "reward")
    info = record.get("info")
    if info is not None and not isinstance(info, Mapping):
        raise ctx.error(f"expected an object, got {type(info).__name__}", "info")
    traj = record["traj"]
    expected = _expected_tools(info, ctx)
    fields: dict[str, Any] = {"task_id": str(task_id), "attempt": trial, "outcome": float(reward),
                              "metadata": {"info": dict(info)} if info else {}}
    session_id = f"{assistant_id}/task-{task_id}-trial-{trial}"
    if isinstance(traj, list) and not traj:  # the trial crashed: tau-bench scores it 0
        batch: dict[str, Any] = {"qa_id": "q1", "query": "", "assistant": "",
                                 "agentic": {"tools_used": []}}
        if expected is not None:
            batch["ground_truth_agentic"] = _truth(expected)
        return Dataset.model_validate({"session_id": session_id, "assistant_id": assistant_id,
                                       "conversation": [batch], **fields})
    trace_ctx = _TraceCtx(ctx.where.source, ctx.where.line, ctx.where.index, prefix="traj")
    ds = _convert(traj, session_id=session_id, assistant_id=assistant_id, references=None,
                  fields=fields, ctx=trace_ctx)
    return ds if expected is None else _whole_episode(ds, expected)


def _expected_tools(info: Mapping[str, Any] | None, ctx: _Ctx) -> list[dict[str, Any]] | None:
    """``info.task.actions`` as expected tools (``respond`` left out); None where not logged."""
    task = info.get("task") if info else None
    if not isinstance(task, Mapping) or "actions" not in task:
        return None
    actions = task["actions"]
    if not isinstance(actions, list):
        raise ctx.error(f"expected a list of actions, got {type(actions).__name__}",
                        "info.task.actions")
    tools: list[dict[str, Any]] = []
    for i, action in enumerate(actions):
        where = f"info.task.actions[{i}]"
        if not isinstance(action, Mapping):
            raise ctx.error(f"expected an action object, got {type(action).__name__}", where)
        name, kwargs = action.get("name"), action.get("kwargs", {})
        if not isinstance(name, str) or not name.strip():
            raise ctx.error(f"expected a non-empty string, got {name!r}", f"{where}.name")
        if not isinstance(kwargs, Mapping):
            raise ctx.error(f"expected an object, got {type(kwargs).__name__}", f"{where}.kwargs")
        if name != RESPOND_ACTION:
            tools.append({"tool_name": name, "parameters": dict(kwargs), "step": len(tools) + 1})
    return tools


def _truth(expected: list[dict[str, Any]]) -> dict[str, Any]:
    return {"expected_tools": expected, "tool_sequence_matters": False}


def _whole_episode(ds: Dataset, expected: list[dict[str, Any]]) -> Dataset:
    """The episode as one interaction scored against the task's actions (module docstring).

    Steps continue across user turns; a call is ``after_answer`` only when it came after the
    agent's last message of the episode (a call after one turn's text could feed a later one).
    """
    batches = ds.conversation
    last = max((i for i, b in enumerate(batches) if b.assistant.strip()), default=-1)
    calls: list[dict[str, Any]] = []
    offset = 0
    for i, batch in enumerate(batches):
        used = batch.agentic.tools_used if batch.agentic is not None else []
        for call in used:
            entry = call.model_dump()
            entry["step"] = call.step + offset if call.step is not None else None
            entry["after_answer"] = call.after_answer if i == last else i > last
            calls.append(entry)
        offset += max((c.step or 0 for c in used), default=0)
    merged = {"qa_id": "q1",
              "query": "\n\n".join(b.query for b in batches if b.query.strip()),
              "assistant": "\n\n".join(b.assistant for b in batches if b.assistant.strip()),
              "agentic": {"tools_used": calls}, "ground_truth_agentic": _truth(expected)}
    record = ds.model_dump()
    record["conversation"] = [merged]
    return Dataset.model_validate(record)


def datasets_from_taubench(records: Iterable[Any], *, assistant_id: str,
                           source: str | None = None,
                           lines: Sequence[int | None] | None = None) -> list[Dataset]:
    """Convert tau-bench result records (already parsed) into conversations.

    >>> ds = datasets_from_taubench([{"task_id": 0, "trial": 1, "reward": 1.0, "info": {},
    ...     "traj": [{"role": "user", "content": "Cancel order 7"},
    ...              {"role": "assistant", "content": None, "tool_calls": [{"id": "c1",
    ...               "type": "function", "function": {"name": "cancel",
    ...                                                "arguments": "{\\"order\\": 7}"}}]}]}],
    ...     assistant_id="gpt-4o")
    >>> ds[0].task_id, ds[0].attempt, ds[0].outcome, ds[0].conversation[0].agentic.tools_used[0].tool_name
    ('0', 1, 1.0, 'cancel')
    """
    records = list(records)
    out = []
    for i, record in enumerate(records):
        line = lines[i] if lines is not None else None
        ctx = _Ctx(source, line, None if line is not None else i)
        out.append(_record_to_dataset(record, assistant_id=assistant_id, ctx=ctx))
    return out


class TauBenchRetriever(_FileRetriever):
    """A tau-bench results file (a JSON list of ``{task_id, trial, reward, info, traj}``).

    ``assistant_id`` names the agent (default: the file's stem).
    """

    def __init__(self, path: str | Path, *, assistant_id: str | None = None, **kwargs: Any) -> None:
        super().__init__(path, **kwargs)
        self.assistant_id = assistant_id or Path(path).stem

    def _located(self) -> list[tuple[Dataset, _Where]]:
        return located_from_records(_read_json_list(self.path), source=str(self.path),
                                    assistant_id=self.assistant_id)


def located_from_records(records: Sequence[tuple[Any, int]], *, source: str,
                         assistant_id: str) -> list[tuple[Dataset, _Where]]:
    """(record, line) pairs of a tau-bench file -> (Dataset, where) pairs."""
    return [(_record_to_dataset(record, assistant_id=assistant_id, ctx=_Ctx(source, line, None)),
             _Where(source, line)) for record, line in records]

