"""``agenteval run``: evaluate a file of agent conversations, print and write results."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from agenteval.errors import AgentEvalError, ConfigError

FORMATS = ("table", "json", "csv")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``run`` on the subcommand parsers ``sub``."""
    run = sub.add_parser("run", help="evaluate a file of agent conversations",
                         description="Evaluate a file of agent conversations (.jsonl, .json, or "
                         "OpenAI-style traces) and print per-conversation and suite results.")
    run.add_argument("data", type=Path, help="conversations: .jsonl (one per line) or .json (a list)")
    run.add_argument("--k", type=int, required=True, help="attempts for pass@k / pass^k (>= 1)")
    run.add_argument("--mode", choices=("frequentist", "bayesian"), default="frequentist",
                     help="frequentist: plug-in estimates with Wilson intervals; bayesian: exact "
                     "conjugate Beta-Binomial posterior (default: %(default)s)")
    run.add_argument("--threshold", type=float, default=0.7,
                     help="judge score an answer needs to count as correct (default: %(default)s)")
    run.add_argument("--tool-threshold", type=float, default=1.0,
                     help="tool correctness needed for tool use to count (default: %(default)s)")
    run.add_argument("--ci-level", type=float, default=0.95, help="interval level (default: %(default)s)")
    run.add_argument("--interval", choices=("wilson", "clopper-pearson"),
                     help="frequentist mode: interval for rates (default: wilson)")
    run.add_argument("--prior", type=float, nargs=2, metavar=("A", "B"),
                     help="bayesian mode: Beta(A, B) prior (default: 1 1)")
    run.add_argument("--out", type=Path, help="directory to write results files into")
    run.add_argument("--format", choices=FORMATS, default="table", help="stdout format")
    run.add_argument("--strict", action="store_true", help="fail if any judge call fails")
    judge = run.add_argument_group("judge")
    judge.add_argument("--judge", choices=("offline", "llm"), default="offline",
                       help="offline rules (default) or an LLM over any OpenAI-compatible endpoint")
    judge.add_argument("--judge-model", help="model name for --judge llm")
    judge.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    judge.add_argument("--api-key-env",
                       help="environment variable holding the API key (default: OPENAI_API_KEY "
                       "for OpenAI's endpoint; none for --base-url)")
    judge.add_argument("--max-concurrency", type=int, help="concurrent judge calls (default: 16)")
    judge.add_argument("--max-calls", type=int, help="hard cap on judge requests for this run")
    judge.add_argument("--cache", help="judge cache file (default: the user cache dir)")
    judge.add_argument("--no-cache", action="store_true", help="do not read or write the judge cache")
    judge.add_argument("--plain-text", action="store_true",
                       help="ask for a fenced JSON block instead of structured output")
    run.set_defaults(handler=run_command)
    return run


def make_mode(args: argparse.Namespace) -> Any:
    from agenteval.statistical.modes import BayesianMode, FrequentistMode

    if args.mode == "bayesian":
        if args.interval is not None:
            raise ConfigError("--interval applies to --mode frequentist; bayesian intervals are "
                              "exact posterior quantiles")
        a, b = args.prior if args.prior is not None else (1.0, 1.0)
        return BayesianMode(ci_level=args.ci_level, beta_prior_a=a, beta_prior_b=b)
    if args.prior is not None:
        raise ConfigError("--prior applies to --mode bayesian")
    return FrequentistMode(ci_level=args.ci_level, interval=args.interval or "wilson")


_LLM_ONLY = ("judge_model", "base_url", "api_key_env", "max_concurrency", "max_calls", "cache",
             "no_cache", "plain_text")


def make_judge(args: argparse.Namespace) -> Any:
    """The judge the flags ask for.

    The key comes from the environment only: the variable named by --api-key-env, else the
    LLM judge's own rule ($OPENAI_API_KEY for OpenAI's endpoint or for $OPENAI_BASE_URL; other
    endpoints get no key), so a key is never sent to another endpoint by accident.
    """
    if args.judge == "offline":
        for name in _LLM_ONLY:
            value = getattr(args, name)
            if value is not None and value is not False:  # 0 is a value given, too
                raise ConfigError(f"--{name.replace('_', '-')} applies to --judge llm")
        from agenteval.judge.offline import OfflineJudge

        return OfflineJudge()
    if not args.judge_model:
        raise ConfigError("--judge llm needs --judge-model NAME")
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise ConfigError(f"--api-key-env {args.api_key_env}: ${args.api_key_env} is not set")
    from agenteval.judge.llm import LLMJudge

    cache: Any = False if args.no_cache else (args.cache or True)
    return LLMJudge(args.judge_model, base_url=args.base_url, api_key=api_key,
                    max_concurrency=16 if args.max_concurrency is None else args.max_concurrency, max_calls=args.max_calls,
                    cache=cache, use_structured_output=not args.plain_text, strict=args.strict)


def evaluate_args(source: Any, args: argparse.Namespace) -> Any:
    """Run ``Agentic.run`` on ``source`` as the flags ask and write ``--out``.

    Shared by ``agenteval run`` and the ``%agentic_eval`` magic, whose ``source`` may also be
    Datasets, dicts or a DataFrame: a flag added here works in both.
    """
    from agenteval.metrics.agentic import Agentic

    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise AgentEvalError(f"--out {args.out}: exists and is not a directory")
    results = Agentic.run(source, make_judge(args), args.k, threshold=args.threshold,
                          tool_threshold=args.tool_threshold, statistical_mode=make_mode(args),
                          strict=args.strict)
    if args.out is not None:
        write_outputs(results, args.out)
    return results


def run_command(args: argparse.Namespace) -> int:
    if not args.data.exists():
        raise AgentEvalError(f"{args.data}: no such file")
    results = evaluate_args(str(args.data), args)
    out = sys.stdout
    if args.format == "json":
        json.dump(results.to_json(), out, indent=2)
        out.write("\n")
    elif args.format == "csv":
        results.to_dataframe().to_csv(out, index=False)
    else:
        out.write(format_table(results) + "\n")
        if args.out is not None:
            out.write(f"\nwrote results to {args.out}/\n")
    return _report_judge_errors(results)


def _report_judge_errors(results: Any) -> int:
    """Warn about unjudged interactions with their causes; exit 1 when nothing could be judged."""
    causes: Counter[str] = Counter(r.judge_error for m in results for r in m.interactions
                                   if r.judge_error)
    if causes:
        total = sum(causes.values())
        print(f"agenteval: warning: {total} interaction(s) could not be judged and were left out "
              "of n and c; most frequent causes:", file=sys.stderr)
        for cause, count in causes.most_common(3):
            print(f"  {count} x {cause[:300]}", file=sys.stderr)
    if sum(m.total_interactions for m in results) == 0:
        print("agenteval: error: no interaction could be judged", file=sys.stderr)
        return 1
    return 0


def format_table(results: Any) -> str:
    """Per-conversation table, then the suite summary."""
    import pandas as pd

    from agenteval.results import format_interval

    k = results.k
    df = results.to_dataframe()
    view = pd.DataFrame({
        "session": df["session_id"], "agent": df["assistant_id"],
        "task": df["task_id"].fillna("-"),
        "n": df["total_interactions"], "c": df["correct_interactions"],
        "full": df["is_fully_correct"].map({True: "yes", False: "no"}).fillna("?"),
        f"pass@{k}": [format_interval(r.pass_at_k, r.pass_at_k_ci_low, r.pass_at_k_ci_high)
                      for r in df.itertuples()],
        f"pass^{k}": [format_interval(r.pass_pow_k, r.pass_pow_k_ci_low, r.pass_pow_k_ci_high)
                      for r in df.itertuples()],
        "errors": df["judge_errors"],
    })
    summary = results.summary()
    judge = summary.judge
    lines = [
        f"agenteval: {len(results)} conversations, k={k}",
        view.to_string(index=False),
        "",
        "suite summary (share of fully correct conversations):",
        summary.to_text(),
        "",
        f"judge: {judge.get('judge')}  calls={judge.get('calls')}  cache_hits={judge.get('cache_hits')}"
        f"  errors={judge.get('errors')}  not_judged_budget={judge.get('not_judged_budget')}",
    ]
    return "\n".join(lines)


def write_outputs(results: Any, out: Path) -> None:
    """conversations.csv, interactions.csv, summary.csv and results.json in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    results.to_dataframe().to_csv(out / "conversations.csv", index=False)
    results.interactions_dataframe().to_csv(out / "interactions.csv", index=False)
    results.summary().to_dataframe().to_csv(out / "summary.csv")
    with open(out / "results.json", "w", encoding="utf-8") as fh:
        json.dump(results.to_json(), fh, indent=2)
        fh.write("\n")
