"""The grader flags of ``agenteval run`` (and the magic): rubric, Python and script graders.

Code to run is named only here, on the command line (``--grader``, ``--grader-cmd``): the user's
explicit choice. Data files may carry rubric criteria (text) but never a command or a module.
"""

from __future__ import annotations

import argparse
from typing import Any

from agenteval.errors import ConfigError


def add_grader_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the grader flags on ``parser``."""
    g = parser.add_argument_group("your own graders (each gives an extra named score, or with "
                                  "--grader-outcome decides correctness)")
    g.add_argument("--rubric", action="append", metavar="CRITERION",
                   help="a criterion the LLM judge checks on every interaction, repeatable "
                   "(added to the data's 'rubric' fields); grader name: rubric")
    g.add_argument("--rubric-scale", choices=("pass_fail", "grade"), default="pass_fail",
                   help="pass_fail (default) or grade (0-1 in quarters, passed >= --threshold)")
    g.add_argument("--grader", action="append", metavar="MODULE:FUNCTION",
                   help="a Python grader grade(case, judge), repeatable: module:function or "
                   "path/to/file.py:function (your code: it is imported)")
    g.add_argument("--grader-cmd", action="append", metavar="COMMAND",
                   help="a script grader in any language on AgentV's contract (case JSON on "
                   "stdin; score JSON or exit code back), repeatable, e.g. "
                   "\"python data/graders/mentions_reference.py\"")
    g.add_argument("--grader-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="seconds per script invocation before it is killed (default: "
                   "%(default)s)")
    g.add_argument("--grader-max-calls", type=int, default=50, metavar="N",
                   help="LLM calls one script invocation may make through the proxy (AgentV's "
                   "max_calls; default: %(default)s)")
    g.add_argument("--grader-concurrency", type=int, default=4, metavar="N",
                   help="Python or script graders running at once (default: %(default)s)")
    g.add_argument("--grader-outcome", action="append", metavar="NAME",
                   help="the grader (e.g. rubric, or a script's file stem) whose pass decides "
                   "correctness instead of the answer judge, repeatable")


def grader_options(args: argparse.Namespace) -> dict[str, Any]:
    """``Agentic.run`` keyword arguments from the flags."""
    from agenteval.graders.python import load_grader
    from agenteval.graders.script import ScriptGrader

    graders: list[Any] = [load_grader(spec) for spec in (getattr(args, "grader", None) or ())]
    for command in getattr(args, "grader_cmd", None) or ():
        graders.append(ScriptGrader(command, timeout=getattr(args, "grader_timeout", 60.0),
                                    max_calls=getattr(args, "grader_max_calls", 50)))
    if getattr(args, "grader_concurrency", 4) < 1:
        raise ConfigError(f"--grader-concurrency must be >= 1, got {args.grader_concurrency}")
    return {"graders": graders or None, "rubric": getattr(args, "rubric", None),
            "rubric_scale": getattr(args, "rubric_scale", "pass_fail"),
            "grader_outcome": getattr(args, "grader_outcome", None),
            "grader_concurrency": getattr(args, "grader_concurrency", 4)}


def grader_text(results: Any) -> list[str]:
    """The summary's extra section as lines (none without graders)."""
    from agenteval.graders.summary import grader_summary

    text = grader_summary(results).to_text()
    return [text, ""] if text else []
