"""How many times one ``agenteval run`` walks the list of conversations, and from where.

``AgenticResults`` is a ``list`` of per-conversation metrics; every walk over it (a ``for``
loop, a comprehension, ``list(results)``, ``sum(... for m in results)``) calls its
``__iter__``. This script wraps that method with a counter that records the calling function,
then runs the CLI in-process: ``agenteval run data/agentic_demo.jsonl --k 3 --mode bayesian``
with and without ``--out``. Indexing and ``len()`` are not walks and are not counted.

Run: ``.venv/bin/python benchmarks/walks.py [--out-only]`` (last line JSON).
"""

from __future__ import annotations

import collections
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def count(argv: list[str]) -> tuple[int, dict[str, int]]:
    """(walks, walks per calling function) of one in-process CLI call."""
    from agenteval.results import AgenticResults

    where: collections.Counter[str] = collections.Counter()
    original = list.__iter__

    def counted(self):  # type: ignore[no-untyped-def]
        frame = sys._getframe(1)
        where[f"{Path(frame.f_code.co_filename).stem}.{frame.f_code.co_name}"] += 1
        return original(self)

    AgenticResults.__iter__ = counted  # type: ignore[method-assign]
    try:
        from agenteval.cli import main

        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):
            code = main(argv)
        if code:
            raise SystemExit(f"agenteval {' '.join(argv)} exited {code}")
    finally:
        del AgenticResults.__iter__
    return sum(where.values()), dict(where.most_common())


def main() -> None:
    demo = str(ROOT / "data" / "agentic_demo.jsonl")
    base = ["run", demo, "--k", "3", "--mode", "bayesian"]
    plain, plain_where = count(base)
    with tempfile.TemporaryDirectory() as out:
        full, full_where = count([*base, "--out", out])
    print(f"walks without --out: {plain}: {plain_where}")
    print(f"walks with --out: {full}: {full_where}")
    print(json.dumps({"benchmark": "walks", "without_out": plain, "with_out": full,
                      "where_without_out": plain_where, "where_with_out": full_where}))


if __name__ == "__main__":
    main()
