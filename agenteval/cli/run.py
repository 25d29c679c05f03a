"""``agenteval run``: evaluate a file of agent conversations, print and write results."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import warnings
from pathlib import Path
from typing import Any

from agenteval._util.sanitize import csv_frame, terminal
from agenteval.cli.graders import add_grader_arguments, grader_options, grader_text
from agenteval.errors import AgentEvalError, ConfigError
from agenteval.results.failures import DEFAULT_MIN_JUDGED
from agenteval.results.write import DEFAULT_FIGURES, FIGURE_FORMATS

FORMATS = ("table", "json", "csv")
DEFAULT_K = 3
"""k when --k is not given: the smallest k at which pass@k and pass^k tell different stories."""
SELECTION_FLAGS = {"agents": "--agent", "tasks": "--task", "limit": "--limit"}
"""How ``agenteval.select``'s errors name its options here."""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``run`` on the subcommand parsers ``sub``."""
    run = sub.add_parser("run", help="evaluate a file of agent conversations",
                         description="Evaluate a file of agent conversations (.jsonl, .json, or "
                         "OpenAI-style traces) and print per-conversation and suite results.")
    run.add_argument("data", type=Path, nargs="+",
                     help="conversations: .jsonl (one per line) or .json (a list), tau-bench "
                     "results (.json) or Inspect AI logs (.eval / .json); several files = "
                     "several agents")
    run.add_argument("--k", type=int, default=DEFAULT_K,
                     help="attempts for pass@k / pass^k, >= 1 (default: %(default)s)")
    run.add_argument("--mode", choices=MODES, default="bayesian",
                     help="bayesian: per conversation the exact conjugate Beta(A + c, B + n - c) "
                     "(Fair Forge's fields), per task each agent's pooled population prior "
                     "(Beta-Binomial, its (mu, kappa) posterior by grid quadrature); "
                     "empirical-bayes: the same as bayesian; conjugate: every task on its own "
                     "under the flat Beta(A, B) (biased at a few attempts per task); "
                     "hierarchical: the pooled model sampled with PyMC NUTS, also per conversation; "
                     "frequentist: plug-in and unbiased estimates with Wilson / bootstrap intervals "
                     "(default: %(default)s; the Python API defaults to FrequentistMode() like "
                     "Fair Forge)")
    run.add_argument("--threshold", type=float, default=0.7,
                     help="judge score an answer needs to count as correct (default: %(default)s)")
    run.add_argument("--tool-threshold", type=float, default=1.0,
                     help="tool correctness needed for tool use to count (default: %(default)s)")
    run.add_argument("--ci-level", type=float, default=0.95, help="interval level (default: %(default)s)")
    run.add_argument("--interval", choices=("wilson", "clopper-pearson"),
                     help="frequentist mode: interval for rates (default: wilson)")
    run.add_argument("--prior", type=float, nargs=2, metavar=("A", "B"),
                     help="Bayesian modes: the Beta(A, B) prior of each conversation's rate (and "
                     "of each task's in --mode conjugate) (default: 1 1)")
    run.add_argument("--out", type=Path, help="directory to write results into: report.html, "
                     "CSV files and results.json (reload with agenteval show)")
    run.add_argument("--figures", nargs="+", choices=FIGURE_FORMATS, default=list(DEFAULT_FIGURES),
                     metavar="FORMAT", help="--out, Bayesian modes: formats of the posterior "
                     "figures in DIR/figures, any of png, pdf, svg (default: png, which the "
                     "report embeds; add pdf for a paper: vector, fonts embedded)")
    run.add_argument("--report-max-conversations", type=int, metavar="N", default=None,
                     help="--out: report.html drills down into at most N conversations, the "
                     "failed and lowest-scoring first (default: 500; 0 = summary only); every "
                     "conversation stays in conversations.csv / results.json")
    run.add_argument("--labels", type=Path, metavar="FILE",
                     help="human labels (JSONL/CSV keyed by session_id, qa_id): the judge's "
                     "agreement and the judge-corrected headline (agenteval.core.labels)")
    run.add_argument("--label-cluster", choices=("none", "conversation", "task"), default="none",
                     help="with labels, --mode frequentist: the correction's bootstrap resamples "
                     "whole conversations or tasks (labelled and judged items together), for "
                     "judge errors correlated within them (calibrate(..., cluster=); default: "
                     "%(default)s)")
    run.add_argument("--format", choices=FORMATS, default="table", help="stdout format")
    run.add_argument("--strict", action="store_true", help="fail if any judge call fails or an Inspect "
                     "log is incomplete (cancelled, errored, epochs missing or beyond the count)")
    run.add_argument("--min-judged", type=float, default=DEFAULT_MIN_JUDGED, metavar="SHARE",
                     help="exit 1 when fewer than this share of interactions got a verdict "
                     "(default: %(default)s; 0 accepts any run that judged something)")
    given = run.add_argument_group("logs and given outcomes")
    given.add_argument("--input-format", choices=("auto", "agenteval", "taubench", "inspect"),
                       default="auto", help="how to read the data files (default: %(default)s: "
                       "by suffix and content)")
    given.add_argument("--scorer", help="Inspect logs with several scorers: the one that gives "
                       "the outcome")
    given.add_argument("--outcome-threshold", type=float,
                       help="value a given outcome or score (reward) needs to be a success "
                       "(default: within 1e-6 of 1)")
    given.add_argument("--argument-matching", action="append", metavar="KEY=RULE",
                       help="how tool arguments are compared, repeatable: KEY is '*', TOOL, "
                       "TOOL.FIELD or *.FIELD; RULE is exact (default), normalized, numeric, "
                       "numeric:TOL, subset, superset, ignore (e.g. '*.city=normalized')")
    pick = run.add_argument_group("selection")
    pick.add_argument("--agent", action="append", metavar="ID",
                      help="evaluate only this assistant_id (repeat for several)")
    pick.add_argument("--task", action="append", metavar="ID",
                      help="evaluate only this task_id (repeat for several)")
    pick.add_argument("--limit", type=int, metavar="N",
                      help="evaluate only the first N conversations (after --agent / --task)")
    bayes = run.add_argument_group("hierarchical mode (PyMC NUTS)")
    bayes.add_argument("--draws", type=int, help="posterior draws per chain (default: 1000)")
    bayes.add_argument("--tune", type=int, help="tuning steps per chain (default: 1000)")
    bayes.add_argument("--chains", type=int, help="chains (default: 4)")
    bayes.add_argument("--cores", type=int, help="processes for the chains (default: 1)")
    bayes.add_argument("--target-accept", type=float, help="NUTS target acceptance (default: 0.9)")
    bayes.add_argument("--nuts-sampler", choices=("auto", "pymc", "nutpie"),
                       help="NUTS implementation (default: auto = nutpie when installed)")
    bayes.add_argument("--seed", type=int, help="random seed of all sampling (default: 42)")
    add_judge_arguments(run)
    add_grader_arguments(run)
    run.set_defaults(handler=run_command)
    return run


def add_judge_arguments(parser: argparse.ArgumentParser) -> None:
    """The judge flags (shared by every subcommand that judges; see :func:`make_judge`)."""
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bars (they appear on stderr once a phase takes a moment)")
    judge = parser.add_argument_group("judge")
    judge.add_argument("--judge", choices=("offline", "llm"), default="offline",
                       help="offline rules (default) or an LLM over any OpenAI-compatible endpoint")
    judge.add_argument("--judge-model", help="model name for --judge llm")
    judge.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1")
    judge.add_argument("--api-key-env",
                       help="environment variable holding the API key (default: OPENAI_API_KEY "
                       "for OpenAI's endpoint; none for --base-url)")
    judge.add_argument("--max-concurrency", type=int,
                       help="concurrent judge calls (default: the server's slot count where it "
                       "says, as llama.cpp does, else 16)")
    judge.add_argument("--timeout", type=float,
                       help="seconds per judge request (default: 300 for a local server, else 60)")
    judge.add_argument("--deadline", type=float,
                       help="seconds for the whole judging run; what is not done by then is "
                       "reported as not judged (and retried on the next run)")
    judge.add_argument("--retry-failed", action="store_true",
                       help="ask again for verdicts that failed validation on an earlier run "
                       "(cached as failures otherwise; transport failures are always retried)")
    judge.add_argument("--max-calls", type=int, help="hard cap on judge requests for this run")
    judge.add_argument("--cache", help="judge cache file (default: the user cache dir)")
    judge.add_argument("--no-cache", action="store_true", help="do not read or write the judge cache")
    judge.add_argument("--plain-text", action="store_true",
                       help="ask for a fenced JSON block instead of structured output")


MODES = ("frequentist", "bayesian", "hierarchical", "empirical-bayes", "conjugate")
_SAMPLER_FLAGS = ("draws", "tune", "chains", "cores", "target_accept", "nuts_sampler")


def make_mode(args: argparse.Namespace) -> Any:
    from agenteval.statistical.modes import BayesianMode, FrequentistMode

    mode = args.mode
    given = {f: getattr(args, f, None) for f in _SAMPLER_FLAGS if getattr(args, f, None) is not None}
    if given and mode != "hierarchical":
        flag = next(iter(given)).replace("_", "-")
        raise ConfigError(f"--{flag} applies to --mode hierarchical")
    seed = {} if getattr(args, "seed", None) is None else {"rng_seed": args.seed}
    if mode in ("bayesian", "hierarchical", "empirical-bayes", "conjugate"):
        if args.interval is not None:
            raise ConfigError("--interval applies to --mode frequentist; bayesian intervals are "
                              "posterior quantiles")
        a, b = args.prior if args.prior is not None else (1.0, 1.0)
        method = {"bayesian": "empirical_bayes", "empirical-bayes": "empirical_bayes"}.get(mode, mode)
        return BayesianMode(ci_level=args.ci_level, beta_prior_a=a, beta_prior_b=b,
                            method=method, **seed, **given)
    if args.prior is not None:
        raise ConfigError("--prior applies to --mode bayesian (and conjugate, empirical-bayes, "
                          "hierarchical)")
    return FrequentistMode(ci_level=args.ci_level, interval=args.interval or "wilson", **seed)


_LLM_ONLY = ("judge_model", "base_url", "api_key_env", "max_concurrency", "max_calls", "cache",
             "no_cache", "plain_text", "timeout", "deadline", "retry_failed")


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
    if args.api_key_env and not os.environ.get(args.api_key_env):
        raise ConfigError(f"--api-key-env {args.api_key_env}: ${args.api_key_env} is not set")
    from agenteval.judge.llm import LLMJudge

    cache: Any = False if args.no_cache else (args.cache or True)
    return LLMJudge(args.judge_model, base_url=args.base_url, api_key_env=args.api_key_env,
                    max_concurrency=args.max_concurrency, max_calls=args.max_calls,
                    timeout=args.timeout, deadline=args.deadline, retry_failed=args.retry_failed,
                    cache=cache, use_structured_output=not args.plain_text, strict=args.strict,
                    progress=False if getattr(args, "quiet", False) else None)


def evaluate_args(args: argparse.Namespace, *, source: Any = None,
                  command: str | None = None) -> tuple[Any, list[Any]]:
    """Check the flags, then the public API: ``load_datasets``, ``agenteval.select``,
    ``Agentic.run`` and, with ``--out``, ``results.save``.

    Shared by ``agenteval run`` (``source`` None: the files ``args.data`` are read) and the
    ``%agentic_eval`` magic, whose ``source`` may also be Datasets, dicts or a DataFrame: a flag
    added here works in both. Returns the results and agenteval's warnings, caught.
    """
    from agenteval.core.retriever import load_datasets, streams
    from agenteval.core.selection import select
    from agenteval.metrics.agentic import Agentic
    from agenteval.results.calibration import check_label_cluster

    if source is None:
        for path in args.data:
            check_data_path(path)
    check_unit_flag("--min-judged", args.min_judged)
    judge, mode = make_judge(args), make_mode(args)   # usage errors before anything is written
    label_cluster = check_label_cluster("--label-cluster", _none(args.label_cluster), mode)
    own_graders = grader_options(args)
    cap = report_cap(args)
    if args.out is not None:
        check_out_dir(args.out)
    datasets: Any = None
    if (source is None and len(args.data) == 1
            and args.agent is None and args.task is None and args.limit is None
            and streams(str(args.data[0]), input_format=args.input_format, scorer=args.scorer)):
        data: Any = str(args.data[0])   # one JSONL file: Agentic.run reads it a block at a time
    else:
        loaded = load_for_run(args) if source is None else load_datasets(source)
        data = datasets = select(loaded, agents=args.agent, tasks=args.task, limit=args.limit,
                                 names=SELECTION_FLAGS)
        del loaded
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = Agentic.run(data, judge, args.k, threshold=args.threshold,
                              tool_threshold=args.tool_threshold, statistical_mode=mode,
                              strict=args.strict, outcome_threshold=args.outcome_threshold,
                              argument_matching=parse_argument_matching(args.argument_matching),
                              progress=False if getattr(args, "quiet", False) else None,
                              labels=getattr(args, "labels", None),
                              **own_graders)
        results.label_cluster = label_cluster
        record_provenance(results, args, command=command, data_described=source is None)
        results.summary()
        results.calibration()   # with labels: computed once, its warnings caught here
        if args.out is not None:
            results.save(args.out, datasets=datasets, max_conversations=cap,
                         figures=tuple(getattr(args, "figures", None) or DEFAULT_FIGURES))
    if datasets is None:   # read while judging: the loader's own warnings shown as it shows them
        _show_loader_warnings(caught)
    return results, caught


def _none(choice: str) -> str | None:
    """A flag's 'none' choice as the API's None."""
    return None if choice == "none" else choice


def _show_loader_warnings(caught: list[Any]) -> None:
    seen = set()
    where = os.path.join("agenteval", "core", "")
    for w in caught:
        text = str(w.message)
        if where in str(w.filename) and not text.startswith("agenteval:") and text not in seen:
            seen.add(text)
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def report_cap(args: argparse.Namespace) -> int:
    from agenteval.present.report import DEFAULT_MAX_CONVERSATIONS, check_max_conversations

    value = getattr(args, "report_max_conversations", None)
    if value is not None and value < 0:
        raise ConfigError(f"--report-max-conversations must be >= 0, got {value}")
    return check_max_conversations(DEFAULT_MAX_CONVERSATIONS if value is None else value)


def run_command(args: argparse.Namespace) -> int:
    from agenteval.results.figure_files import warm_worker

    with warm_worker(args.out is not None and args.mode != "frequentist"):
        results, caught = evaluate_args(args)   # the figures' child imports matplotlib meanwhile
    print_warnings(caught)
    wrote = (None if args.out is None else
             f"wrote results to {args.out}/ (open {args.out / 'report.html'} in a browser; "
             f"`agenteval show {args.out}` prints this summary again)")
    # with --out the JSON is already written: print that file, not a second build of it
    written = (args.out / "results.json").read_text(encoding="utf-8") if (
        args.out is not None and args.format == "json") else None
    print_results(results, args.format, format_table, wrote=wrote, json_text=written)
    if args.format == "table" and results.calibration() is not None:
        sys.stdout.write("\n" + results.calibration().to_text() + "\n")
    return judged_policy(results, min_judged=args.min_judged)


def print_results(results: Any, fmt: str, table: Any, *, wrote: str | None = None,
                  json_text: str | None = None) -> None:
    """Results on stdout as JSON (``json_text`` when already built), CSV (one row per unit) or
    ``table(results)``, then ``wrote``."""
    out = sys.stdout
    if fmt == "json":
        if json_text is not None:
            out.write(terminal(json_text))
        else:
            out.write(terminal(json.dumps(results.to_json(), indent=2)))
            out.write("\n")
    elif fmt == "csv":
        out.write(terminal(csv_frame(results.to_dataframe()).to_csv(index=False)))
    else:
        out.write(terminal(table(results)) + "\n")
        if wrote:
            out.write(f"\n{wrote}\n")


def parse_argument_matching(items: list[str] | None) -> dict[str, str] | None:
    """``["*.city=normalized", "book=subset"]`` -> ``{"*.city": "normalized", "book": "subset"}``."""
    if not items:
        return None
    rules: dict[str, str] = {}
    for item in items:
        key, sep, rule = item.partition("=")
        if not sep or not key.strip() or not rule.strip():
            raise ConfigError(f"--argument-matching {item!r}: expected KEY=RULE, e.g. "
                              "'*.city=normalized' or 'book_flight=subset'")
        rules[key.strip()] = rule.strip()
    return rules


def print_warnings(caught: list[Any]) -> None:
    """agenteval's own warnings (not identified, failed diagnostics) as one line each on stderr."""
    seen = set()
    for w in caught:
        text = str(w.message)
        if not text.startswith("agenteval:") or text in seen:
            continue
        seen.add(text)
        print(terminal(text.replace("agenteval: ", "agenteval: warning: ", 1)), file=sys.stderr)


def check_data_path(path: Path, *, what: str = "conversations (or log files, e.g. {path}/*.eval)"
                    ) -> None:
    """One line that says what to do for the paths a user commonly gets wrong."""
    if not path.exists():
        raise AgentEvalError(f"{path}: no such file")
    if path.is_dir():
        hint = ""
        if (path / "results.json").exists():
            hint = f"; to print the summary of that past run use: agenteval show {path}"
        else:
            files = sorted(p.name for p in path.iterdir() if p.suffix.lower() in (".jsonl", ".json"))
            if files:
                hint = f", e.g. {path / files[0]}"
        raise AgentEvalError(f"{path}: is a directory; pass one .jsonl or .json file of "
                             f"{what.format(path=path)}{hint}")


def check_unit_flag(flag: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"{flag} must be a share in [0, 1], got {value}")


def check_out_dir(out: Path, names: Any = None) -> None:
    """Fail before judging, not after, when the results could not be written (a file, an
    unwritable folder, a symbolic link at an output's path): ``results.write.check_out_dir``."""
    from agenteval.results.write import AGENTIC_FILES
    from agenteval.results.write import check_out_dir as check

    check(out, AGENTIC_FILES if names is None else names)


def load_for_run(args: argparse.Namespace) -> list[Any]:
    """The conversations of ``args.data`` (one file, or several: one per agent), validated."""
    from agenteval.core.retriever import load_datasets

    paths = [str(p) for p in args.data]
    return load_datasets(paths[0] if len(paths) == 1 else paths,
                         input_format=args.input_format, scorer=args.scorer)



def record_command(results: Any, args: argparse.Namespace) -> None:
    """A RAG run's command line and data file, for its manifest."""
    from agenteval.results.manifest import describe_source

    results.provenance["command"] = shlex.join(["agenteval", *getattr(args, "argv", [])])
    if isinstance(args.data, Path) and args.data.is_file():
        results.provenance["data"] = describe_source(args.data)


def record_provenance(results: Any, args: argparse.Namespace, *, command: str | None = None,
                      data_described: bool = True) -> None:
    """The command line and data files go into the results' manifest (the magic passes its own
    command line, and data files only when SOURCE was a file)."""
    from agenteval.results.manifest import describe_source

    results.provenance.update({
        "command": command or shlex.join(["agenteval", *getattr(args, "argv", [])]),
        "input": {"format": args.input_format, "scorer": args.scorer},
        "selection": {"agent": args.agent, "task": args.task, "limit": args.limit},
    })
    if not data_described:
        return
    if len(args.data) == 1:
        data = describe_source(args.data[0])
    else:  # several logs: no one path to re-read, each file hashed
        files = [describe_source(p) for p in args.data]
        data = {"path": " ".join(str(p) for p in args.data), "files": files,
                "bytes": sum(f["bytes"] for f in files)}
    results.provenance["data"] = data



def judged_policy(results: Any, *, min_judged: float) -> int:
    """Warn about unjudged interactions, grouped by kind; exit 1 below ``min_judged``
    (:func:`agenteval.results.failures.check_judged`, which the magic applies too)."""
    from agenteval.results.failures import check_judged

    check = check_judged(results, min_judged=min_judged)
    lines = check.warning_lines()
    if lines:
        print(terminal("agenteval: warning: " + "\n".join(lines)), file=sys.stderr)
    if check.failed:
        print(terminal(f"agenteval: error: {check.error}"), file=sys.stderr)
        return 1
    return 0


def format_table(results: Any) -> str:
    """Per-conversation table, then the suite summary."""
    import pandas as pd

    from agenteval.present.text import format_interval

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
    tools = (results.tool_means() if hasattr(results, "tool_means")
             else [_mean_tool_score(r) for r in results])
    if any(t is not None for t in tools):  # overall tool correctness, mean over its interactions
        view.insert(view.columns.get_loc("errors"), "tools",
                    ["-" if t is None else f"{t:.3f}" for t in tools])
    if (df["source"] != "judged").any():  # say which conversations were graded with the data
        view.insert(3, "attempt", df["attempt"].map(lambda a: "-" if pd.isna(a) else int(a)))
        view.insert(4, "source", df["source"])
    summary = results.summary()
    judge = summary.judge
    estimate = "plug-in estimate" if results.method.startswith("plug-in") else "posterior mean"
    lines = [
        f"agenteval: {len(results)} conversations, k={k}; per conversation: n interactions "
        f"judged, c correct, pass@{k} / pass^{k} = {estimate} [interval] from its rate c/n"
        + ("; tools = overall tool correctness (mean over its interactions with a tool score)"
           if "tools" in view.columns else ""),
        view.to_string(index=False),
        "",
        "suite summary:",
        summary.to_text(),
        "",
        *_task_lines(summary),
        *grader_text(results),
        f"judge: {judge.get('judge')}  calls={judge.get('calls')}  cache_hits={judge.get('cache_hits')}"
        f"  errors={judge.get('errors')}  not_judged_budget={judge.get('not_judged_budget')}"
        "  (judgments)"
        f"  given: conversations={judge.get('conversations_given')}"
        f" interactions={judge.get('interactions_given')}",
        _accounting_line(judge),
    ]
    return "\n".join(lines)


def _mean_tool_score(result: Any) -> float | None:
    scores = [t.overall_correctness for t in result.tool_correctness_scores if t is not None]
    return sum(scores) / len(scores) if scores else None


def _accounting_line(judge: dict[str, Any]) -> str:
    """Interactions and judgments, each in its own unit (one interaction may need two)."""
    inter = judge.get("interactions") or {}
    parts = [f"interactions: {inter.get('judged', '?')} of {inter.get('total', '?')} judged, "
             f"{inter.get('not_judged', '?')} not judged"]
    for phase, c in (judge.get("judgments") or {}).items():
        parts.append(f"{phase}: {c.get('verdicts', 0)} of {c.get('items', 0)} judgments "
                     f"({c.get('errors', 0)} errors, {c.get('budget', 0)} over budget)")
    return "; ".join(parts)


def _task_lines(summary: Any) -> list[str]:
    """The unbiased per-task estimators, as tau-bench (pass^k) and HumanEval (pass@k) print them."""
    k = summary.k
    lines = [f"  {r.group}: over {r.tasks_with_k} tasks with >= {k} attempts: "
             f"pass@{k} = {r.unbiased_pass_at_k:.4f}, pass^{k} = {r.unbiased_pass_pow_k:.4f}"
             for r in summary.rows if r.tasks_with_k]
    return ["unbiased per-task estimators (mean over tasks of 1-C(n-c,k)/C(n,k) and "
            "C(c,k)/C(n,k), as tau-bench prints pass^k):", *lines, ""] if lines else []

