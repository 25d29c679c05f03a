"""``agenteval rag precision|recall DATA``: score retrieval with the RAG metrics, print and write.

Judge flags and the statistical mode are those of ``agenteval run`` (shared helpers in
``agenteval.cli.run``); exit codes too: 0 ok, 2 bad input or usage, 1 when no case could be scored
or an output could not be written. ``--out`` writes what ``RagResults.save`` writes (the same
writer, manifest and one-set rule as ``agenteval run --out``).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from agenteval._util.sanitize import terminal
from agenteval.cli.run import (FORMATS, add_judge_arguments, check_data_path, check_out_dir,
                               make_judge, make_mode, print_results, record_command)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``rag`` on the subcommand parsers ``sub``."""
    rag = sub.add_parser(
        "rag", help="contextual precision or recall of RAG retrieval",
        description="Score retrieval: contextual precision (are relevant nodes ranked first? one "
        "verdict per node) or contextual recall (is every statement of the expected answer "
        "supported by the retrieved context? one verdict per statement). Labels in the data "
        "are used without a judge.")
    rag.add_argument("metric", choices=("precision", "recall"), help="which metric")
    rag.add_argument("data", type=Path, help="RAG cases: .jsonl (one per line), .json or .yaml")
    rag.add_argument("--flatten", action="store_true",
                     help="precision: score a case's searches as one concatenated ranking "
                     "(default: each search on its own, then their mean)")
    rag.add_argument("--mode", choices=("frequentist", "bayesian"), default="frequentist",
                     help="recall per case and pooled: Wilson / Clopper-Pearson (frequentist) or "
                     "the Beta posterior (bayesian); the mean over cases always gets the bounded "
                     "Bayesian bootstrap interval (default: %(default)s)")
    rag.add_argument("--ci-level", type=float, default=0.95,
                     help="interval level (default: %(default)s)")
    rag.add_argument("--prior", type=float, nargs=2, metavar=("A", "B"),
                     help="bayesian mode: Beta(A, B) prior of recall (default: 1 1)")
    rag.add_argument("--interval", choices=("wilson", "clopper-pearson"),
                     help="frequentist mode: interval of each case's recall (default: wilson)")
    rag.add_argument("--out", type=Path, help="directory to write results files into")
    rag.add_argument("--format", choices=FORMATS, default="table", help="stdout format")
    rag.add_argument("--strict", action="store_true", help="fail if any judge call fails")
    add_judge_arguments(rag)
    rag.set_defaults(handler=rag_command)
    return rag


def rag_command(args: argparse.Namespace) -> int:
    from agenteval.metrics.rag import ContextualPrecision, ContextualRecall

    check_data_path(args.data, what="RAG cases")
    if args.out is not None:
        from agenteval.results.write import rag_files

        check_out_dir(args.out, rag_files(args.metric))
    metric = ContextualPrecision if args.metric == "precision" else ContextualRecall
    results = metric.run(str(args.data), make_judge(args), flatten=args.flatten,
                         statistical_mode=make_mode(args), strict=args.strict)
    record_command(results, args)
    if args.out is not None:
        results.save(args.out)
    print_results(results, args.format, format_table,
                  wrote=None if args.out is None else f"wrote {args.metric} results to {args.out}/")
    return _report(results)


_REPR = r"""(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
_ITEM_LABEL = re.compile(rf"item \d+(?: \((?:session_id|qa_id)={_REPR}(?:, qa_id={_REPR})?\))?: ")
"""The judge's per-item label in a failure's cause: dropped, so equal causes group."""


def _report(results: Any) -> int:
    """Failed verdicts on stderr, grouped by cause; exit 1 when no case could be scored."""
    causes: Counter[str] = Counter()
    for case in results:
        for line in case.judge_errors:  # "search 1 rank 2: error: item 7 (session_id=...): why"
            causes[_ITEM_LABEL.sub("", line.split(": ", 1)[-1], count=1)[:200]] += 1
    if causes:
        total = sum(causes.values())
        print(f"agenteval: warning: {total} verdict(s) failed and were left out (the cases "
              "show their bounds); most frequent causes:", file=sys.stderr)
        for cause, count in causes.most_common(3):
            print(f"  {count} x {terminal(cause)}", file=sys.stderr)
    if results.summary().scored == 0:
        print("agenteval: error: no case could be scored", file=sys.stderr)
        return 1
    return 0


def _fmt(x: Any) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def format_table(results: Any) -> str:
    """One line per case (per search for precision), then the summary."""
    import pandas as pd

    rows = []
    for case in results:
        bounds = ("" if case.score is not None or case.score_low is None
                  else f"[{_fmt(case.score_low)}, {_fmt(case.score_high)}]")
        if results.metric == "contextual_precision":
            per_search = "  ".join(f"{_fmt(s.score)} ({s.relevant}/{len(s.nodes)})"
                                   for s in case.searches)
            rows.append({"case": case.case_id, "score": _fmt(case.score), "bounds": bounds,
                         "weighted": _fmt(case.score_weighted),
                         "searches: score (relevant/nodes)": per_search,
                         "errors": len(case.judge_errors)})
        else:
            rows.append({"case": case.case_id, "score": _fmt(case.score), "bounds": bounds,
                         "attributable": f"{case.attributable}/{case.total}",
                         **({"posterior mean": _fmt(case.posterior_mean)}
                            if case.posterior_mean is not None else {}),
                         "interval": (f"[{_fmt(case.ci_low)}, {_fmt(case.ci_high)}]"
                                      if case.ci_low is not None else ""),
                         "errors": len(case.judge_errors)})
    table = pd.DataFrame(rows).to_string(index=False)
    return f"agenteval: {results.metric}, {len(results)} cases\n{table}\n\n{results.summary().to_text()}"
