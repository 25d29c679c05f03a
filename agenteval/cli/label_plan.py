"""``agenteval plan --results RUN --labels LABELS``: which interactions to label next."""

from __future__ import annotations

import argparse
import json
import sys
from agenteval.errors import ConfigError


def add_label_arguments(p: argparse.ArgumentParser) -> None:
    """The label-planning flags of ``agenteval plan``."""
    g = p.add_argument_group("labels for the judge's calibration (agenteval.plan_labels)")
    g.add_argument("--results", metavar="RESULTS_JSON",
                   help="a run's results.json (agenteval run --out): plan human labels for it")
    g.add_argument("--labels", metavar="FILE", help="the labels given so far (JSONL/CSV)")
    g.add_argument("--add", type=int, metavar="N", help="labels to add (or --width W)")
    g.add_argument("--by", nargs="*", choices=("agent", "task", "length"), default=["agent"],
                   help="strata besides the judge's verdict (default: agent)")
    g.add_argument("--items-out", metavar="FILE",
                   help="write the interactions to label as JSONL (session_id, qa_id)")


def label_plan_command(args: argparse.Namespace) -> int:
    """Parse, call :func:`agenteval.plan_labels`, print."""
    from agenteval.results.calibration import plan_labels

    if args.results is None:
        raise ConfigError("--labels plans labels for a run: give its --results results.json")
    if (args.add is None) == (args.width is None):
        raise ConfigError("give --add N (labels to add) or --width W (interval width wanted)")
    from agenteval.results.io import load_results

    plan = plan_labels(load_results(args.results), args.labels, add=args.add, target_width=args.width,
                       by=args.by, seed=args.seed)
    if args.items_out:
        _write_atomic(args.items_out, "".join(json.dumps(i) + "\n" for i in plan.items))
    if args.format == "json":
        json.dump(plan.model_dump(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(plan.to_text() + "\n")
        if args.items_out:
            sys.stdout.write(f"wrote {len(plan.items)} interactions to label to {args.items_out}\n")
    return 0


def _write_atomic(path: str, text: str) -> None:
    """Write next to ``path``, then rename: a reader never sees half a file."""
    import os
    import tempfile
    from pathlib import Path

    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
