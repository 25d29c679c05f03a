"""How many times one ``agenteval run`` walks the conversations' result objects, and from where.

``AgenticResults`` holds its conversations as columns (``agenteval.results.columns.Columns``)
and builds an ``AgenticMetric`` per conversation only when one is read: iteration
(``Columns.iter_metrics``, a block at a time) or a range (``Columns.metrics(start, stop)``,
``results[a:b]``). A walk is one such read of more than one conversation (an iteration counts
once, not once per block); the script also counts the conversation objects built in all, and
records the calling function of each walk. It runs the CLI in-process:
``agenteval run data/agentic_demo.jsonl --k 3 --mode bayesian`` with and without ``--out``.
Indexing one conversation and ``len()`` are not walks.

Run: ``.venv/bin/python benchmarks/walks.py`` (last line JSON).
"""

from __future__ import annotations

import collections
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _caller(depth: int) -> str:
    frame = sys._getframe(depth)
    while Path(frame.f_code.co_filename).stem in ("columns", "agentic") and frame.f_code.co_name in (
            "iter_metrics", "metrics", "__iter__", "__getitem__"):
        frame = frame.f_back
    return f"{Path(frame.f_code.co_filename).stem}.{frame.f_code.co_name}"


def count(argv: list[str]) -> tuple[int, int, dict[str, int]]:
    """(walks, conversation objects built, walks per calling function) of one in-process CLI
    call."""
    from agenteval.results.columns import Columns

    where: collections.Counter[str] = collections.Counter()
    built = [0]
    iterating = [0]
    metrics, iter_metrics = Columns.metrics, Columns.iter_metrics

    def counted_metrics(self, start=0, stop=None):  # type: ignore[no-untyped-def]
        out = metrics(self, start, stop)
        built[0] += len(out)
        if len(out) > 1 and not iterating[0]:
            where[_caller(2)] += 1
        return out

    def counted_iter(self, block=2048):  # type: ignore[no-untyped-def]
        where[_caller(2)] += 1
        iterating[0] += 1
        try:
            yield from iter_metrics(self, block)
        finally:
            iterating[0] -= 1

    Columns.metrics, Columns.iter_metrics = counted_metrics, counted_iter  # type: ignore[method-assign]
    try:
        from agenteval.cli import main

        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):
            code = main(argv)
        if code:
            raise SystemExit(f"agenteval {' '.join(argv)} exited {code}")
    finally:
        Columns.metrics, Columns.iter_metrics = metrics, iter_metrics  # type: ignore[method-assign]
    return sum(where.values()), built[0], dict(where.most_common())


def main() -> None:
    demo = str(ROOT / "data" / "agentic_demo.jsonl")
    base = ["run", demo, "--k", "3", "--mode", "bayesian"]
    plain, plain_built, plain_where = count(base)
    with tempfile.TemporaryDirectory() as out:
        full, full_built, full_where = count([*base, "--out", str(Path(out) / "run")])
    print(f"walks without --out: {plain} ({plain_built} conversation objects built): {plain_where}")
    print(f"walks with --out: {full} ({full_built} conversation objects built): {full_where}")
    print(json.dumps({"benchmark": "walks", "without_out": plain, "with_out": full,
                      "built_without_out": plain_built, "built_with_out": full_built,
                      "where_without_out": plain_where, "where_with_out": full_where}))


if __name__ == "__main__":
    main()
