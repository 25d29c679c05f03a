"""Results that reload: ``load_results`` (the ``results.json`` of a run, or its ``--out`` folder);
``save`` (what ``--out`` writes, :mod:`agenteval.results.write`) is re-exported here.

Reloading restores the per-conversation metrics (with every interaction), the run settings, the
statistical mode and the judge's accounting, so the summary, DataFrames and comparisons come back
without re-judging. The stored summary is used when it matches the current schema; otherwise it
is recomputed through the normal code path from the metrics and the mode (deterministic: seeded).
What the manifest holds is :mod:`agenteval.results.manifest`.

    >>> import agenteval
    >>> results = agenteval.load_results("out/demo")          # doctest: +SKIP
    >>> print(results.summary())                              # doctest: +SKIP
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenteval.errors import DataError
from agenteval.results.manifest import (
    MANIFEST_VERSION,
    build_manifest,
    describe_call,
    describe_source,
    mode_from_spec,
    mode_spec,
)
from agenteval.results.write import save

if TYPE_CHECKING:
    from agenteval.results.agentic import AgenticResults

__all__ = ["RESULTS_FILE", "MANIFEST_VERSION", "load_results", "results_from_json", "build_manifest",
           "describe_source", "describe_call", "mode_spec", "mode_from_spec", "save"]

RESULTS_FILE = "results.json"


def load_results(path: str | Path, *, recompute: bool = False) -> AgenticResults:
    """Restore the results of a past run from ``results.json`` (or the ``--out`` folder holding it).

    Nothing is judged again. ``recompute=True`` rebuilds the summary from the per-conversation
    metrics through the normal code path instead of using the stored one (which is also what
    happens when the stored summary does not match this version's schema).
    """
    path = Path(path)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        raise DataError(f"no {RESULTS_FILE} here; pass the file or the --out folder of a run",
                        source=str(path))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"not a results file: {exc}", source=str(path)) from None
    return results_from_json(data, source=str(path), recompute=recompute)


def results_from_json(data: Any, *, source: str | None = None,
                      recompute: bool = False) -> AgenticResults:
    """Inverse of ``AgenticResults.to_json()`` (see :func:`load_results`)."""
    from agenteval.results.agentic import results_from_json as restore

    return restore(data, source=source, recompute=recompute)
