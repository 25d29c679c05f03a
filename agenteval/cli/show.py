"""``agenteval show``: print the summary of a past run from its ``results.json`` (no re-judging)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agenteval._util.sanitize import terminal


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``show`` on the subcommand parsers ``sub``."""
    show = sub.add_parser("show", help="print the summary of a past run (an --out folder)",
                          description="Print the summary of a past run from the results.json "
                          "in its --out folder, without judging anything again.")
    show.add_argument("path", type=Path, help="the run's --out folder, or its results.json")
    show.add_argument("--format", choices=("table", "json"), default="table",
                      help="table: what `agenteval run` printed; json: the summary and manifest")
    show.add_argument("--conversations", action="store_true",
                      help="also print the per-conversation table")
    show.add_argument("--report", type=Path, metavar="HTML",
                      help="also (re)write the run's HTML report to this file; the interactions' "
                      "queries and answers come from the data file if it is unchanged (same SHA-256)")
    show.add_argument("--report-max-conversations", type=int, metavar="N", default=None,
                      help="--report: drill down into at most N conversations, the failed and "
                      "lowest-scoring first (default: 500; 0 = summary only)")
    show.set_defaults(handler=show_command)
    return show


def show_command(args: argparse.Namespace) -> int:
    from agenteval.cli.graders import grader_text
    from agenteval.results.io import load_results

    results = load_results(args.path)
    manifest = results.provenance
    if args.report is not None:
        from agenteval.cli.run import report_cap
        from agenteval.present.report import datasets_from_manifest, write_report

        cap = report_cap(args)
        folder = args.path if args.path.is_dir() else args.path.parent
        datasets = datasets_from_manifest(results)
        write_report(results, args.report, datasets=datasets, figures_dir=folder,
                     lists_dir=folder, max_conversations=cap)
        note = "" if datasets is not None else " (data file missing or changed: verdicts only)"
        print(f"wrote {args.report}{note}", file=sys.stderr)
    if args.format == "json":
        from agenteval._util.jsonsafe import json_safe

        summary = json_safe(results.summary().model_dump())  # not the whole to_json()
        json.dump({"manifest": manifest, "summary": summary}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(terminal(describe_run(manifest)))
    if args.conversations:
        from agenteval.cli.run import format_table

        print(terminal(format_table(results)))
    else:
        print("suite summary (share of fully correct conversations):")
        print(terminal(results.summary().to_text()))
        print(terminal("\n".join(grader_text(results))), end="")
        if results.calibration() is not None:   # stored with the run (agenteval.results.calibration)
            print(terminal("\n" + results.calibration().to_text()))
    return 0


def describe_run(manifest: dict[str, Any]) -> str:
    """Two or three lines: when, how, on what data, with which judge."""
    data = manifest.get("data") or {}
    judge = manifest.get("judge") or {}
    what = manifest.get("command") or manifest.get("call") or "(unknown command)"
    lines = [f"run of {manifest.get('created', '?')} by agenteval {manifest.get('agenteval', '?')}: {what}"]
    if data:
        lines.append(f"data: {data.get('path')} (sha256 {str(data.get('sha256', ''))[:12]}, "
                     f"{data.get('bytes')} bytes)")
    judge_text = ", ".join(f"{k}={v}" for k, v in judge.items() if v is not None)
    mode = (manifest.get("statistical_mode") or {}).get("repr", "?")
    lines.append(f"judge: {judge_text or '?'}; mode: {mode}")
    return "\n".join(lines)
