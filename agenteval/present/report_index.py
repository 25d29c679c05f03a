"""The report's index of every conversation: the list's rows and the task x attempt grid.

One row per conversation, whatever the drill-down cap: its id, agent, task, attempt, its own
outcome (fully correct, not, unknown), c and n, its mean judge score and its judge errors (no
per-conversation pass@k: over one graded unit that number says nothing about the
conversation). The grid has one block per agent, one line per task (in the run's order; the
conversations without a task_id share one line) and one cell per attempt (by attempt number,
then the run's order), coloured by the conversation's outcome. See
``agenteval.present.report_viewer`` for the row format.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenteval.present.report_transcript import OUTCOMES, outcome_key

__all__ = ["COLUMNS", "NO_TASK", "conversation_index"]

COLUMNS = [
    {"id": "session", "label": "session", "kind": "text"},
    {"id": "agent", "label": "agent", "kind": "cat"},
    {"id": "task", "label": "task", "kind": "text"},
    {"id": "attempt", "label": "attempt", "kind": "num", "blank": True,
     "title": "attempt number from the data (tau-bench trial, Inspect epoch)"},
    {"id": "outcome", "label": "outcome", "kind": "outcome",
     "title": "the conversation's own outcome: every interaction correct (or its given outcome)"},
    {"id": "c", "label": "correct", "kind": "num", "title": "c: interactions correct"},
    {"id": "n", "label": "judged", "kind": "num",
     "title": "n: interactions judged or graded (judge errors left out)"},
    {"id": "score", "label": "score", "kind": "num", "digits": 3,
     "title": "mean answer score (the judge's, or given) over its interactions with one"},
    {"id": "errors", "label": "errors", "kind": "num",
     "title": "judge errors: interactions the judge could not score"},
    {"id": "source", "label": "graded by", "kind": "cat",
     "title": "judged (by the judge), given (a score or outcome in the data: a harness's grade), or mixed"},
]
"""The list's columns (``kind``: text, cat (a select filters it), num, outcome)."""

NO_TASK = "(no task_id)"
"""The grid's line of the conversations that name no task."""


def conversation_index(metrics: Sequence[Any], drilled: dict[int, int], *, capped_note: str,
                       page: int = 500) -> dict[str, Any]:
    """The JSON the viewer script reads: columns, one row per conversation of ``metrics``
    (``drilled``: run position -> drill-down article position), the grid, and texts."""
    rows: list[list[Any]] = []
    for i, m in enumerate(metrics):
        scores = [s for s in m.correctness_scores if s is not None]
        key = outcome_key(m)
        look = int(key != "ok" or m.judge_errors > 0)
        rows.append([m.session_id, m.assistant_id, m.task_id, m.attempt, key,
                     m.correct_interactions, m.total_interactions,
                     sum(scores) / len(scores) if scores else None, m.judge_errors, m.source,
                     drilled.get(i, -1), look])
    cols = list(COLUMNS)
    for name in ("attempt", "task"):  # a column no conversation fills is left out
        j = next(j for j, c in enumerate(cols) if c["id"] == name)
        if all(r[j] is None for r in rows):
            del cols[j]
            for r in rows:
                del r[j]
    return {"key": "session", "noun": "conversation", "cols": cols, "rows": rows,
            "outcomes": {k: list(v) for k, v in OUTCOMES.items()}, "grid": _grid(metrics),
            "capped": capped_note, "page": page}


def _grid(metrics: Sequence[Any]) -> list[dict[str, Any]]:
    agents: dict[str, dict[str, list[int]]] = {}
    for i, m in enumerate(metrics):
        task = m.task_id if m.task_id is not None else NO_TASK
        agents.setdefault(m.assistant_id, {}).setdefault(task, []).append(i)
    out = []
    for agent, tasks in agents.items():
        lines = []
        for task, members in tasks.items():
            members.sort(key=lambda i: (metrics[i].attempt is None, metrics[i].attempt or 0, i))
            lines.append([task, members])
        if len(lines) > 1 and any(t == NO_TASK for t, _ in lines):  # the shared line last
            lines.sort(key=lambda line: line[0] == NO_TASK)
        convs = sum(len(m) for _, m in lines)
        full = sum(metrics[i].is_fully_correct is True for _, m in lines for i in m)
        named = sum(t != NO_TASK for t, _ in lines)
        out.append({"name": agent, "rows": lines,
                    "note": f"{named} task(s), {convs} conversation(s), {full} fully correct"})
    return out
