"""IPython extension: ``%load_ext agenteval`` registers ``%agentic_eval`` and ``%%agentic_eval``.

The magic has no logic of its own: its options are the ``agenteval run`` parser (built by the
CLI's own ``add_parser``, so every flag the CLI gains works here too) plus ``-o NAME``, and it
calls the CLI's ``evaluate_args``: the same checks and judge and mode constructors, then the
public API (``load_datasets``, ``agenteval.select``, ``Agentic.run``, ``results.save`` for
``--out``). What it adds is where the data comes from:

    %agentic_eval ../data/agentic_demo.jsonl --k 3 --mode bayesian    # a file
    %agentic_eval df --k 3 -o results                                  # a variable: DataFrame,
                                                                       # Datasets, dicts
    r = %agentic_eval convs --k 1                                      # the value is the results

    %%agentic_eval --k 1                                               # the cell body is the data:
    {"session_id": "s1", "assistant_id": "a", "conversation": [...]}   # JSON lines, a JSON list,
                                                                       # or YAML conversations

Bad options or data raise ``UsageError`` (one line in the cell, no traceback); anything else is a
bug and keeps its traceback. The CLI's ``--min-judged`` policy
(:func:`agenteval.results.failures.check_judged`) applies as it is: a run that judged nothing, or
less than that share of its interactions, shows a red panel (the sentence the CLI prints and the
causes grouped by kind) and raises ``UsageError``, so "Run all" stops where ``agenteval run``
would exit 1; ``-o NAME`` still holds the results, and so does the error's ``.results`` (with
``.check``, the ``JudgedCheck``). ``--format`` (stdout only) is refused; ``--help`` is the short
list of what a notebook needs, ``--help-all`` the CLI's full help. A trailing ``;`` hides the
value, as after any expression, and is not part of the last argument (``-o NAME;``).
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
import tempfile
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class

from agenteval._util.sanitize import terminal
from agenteval.errors import AgentEvalError, DataError

__all__ = ["AgentEvalMagics", "build_parser", "load_ipython_extension", "parse_cell"]

PROG = "%agentic_eval"
CELL = "%%agentic_eval cell"


CLI_ONLY = {"format": "the magic shows HTML; use results.to_dataframe() or results.to_json()"}
"""``agenteval run`` options that have no meaning in a notebook (dest: what to do instead)."""

SHORT_HELP: tuple[tuple[tuple[str, ...], str], ...] = (
    (("data",), "a variable (DataFrame, Datasets, dicts) or files as for `agenteval run`"),
    (("output_name",), "also store the results in NAME (kept when the run fails)"),
    (("k",), "attempts for pass@k / pass^k (default: %(default)s)"),
    (("mode",), "%(choices)s (default: %(default)s)"),
    (("threshold",), "judge score that counts as correct (default: %(default)s)"),
    (("min_judged",), "fail below this share of judged interactions (default: %(default)s)"),
    (("ci_level",), "interval level (default: %(default)s)"),
    (("prior",), "Bayesian modes: each conversation's Beta(A, B) prior (default: 1 1)"),
    (("interval",), "frequentist mode: wilson (default) | clopper-pearson"),
    (("agent", "task", "limit"), "evaluate a subset (--agent, --task repeatable)"),
    (("judge", "judge_model", "base_url"), "an LLM judge at an OpenAI-compatible URL "
     "(default: offline rules)"),
    (("labels",), "human labels: judge agreement and the corrected headline"),
    (("label_cluster",), "the correction resamples whole conversations or tasks (frequentist)"),
    (("out",), "also write report.html, CSV files and results.json there"),
    (("draws", "tune", "chains", "seed"), "hierarchical mode: NUTS settings"),
    (("quiet",), "no progress bars"),
    (("help", "help_all"), "this help / every option (those of `agenteval run`)"),
)
"""What ``%agentic_eval --help`` lists, in this order: the flags come from the parser (so they
stay the CLI's), the one-line texts from here; ``--help-all`` prints the CLI's full help."""


class _HelpShown(Exception):
    """``--help`` was printed; nothing to run."""


class _HelpAll(argparse.Action):
    """``--help-all``: the full help of every option (the CLI's ``agenteval run --help``)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(argparse.ArgumentParser.format_help(parser))
        raise _HelpShown


class _MagicArgumentParser(argparse.ArgumentParser):
    """argparse that raises instead of exiting the kernel."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message} (see {PROG} --help)")

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if status:
            raise UsageError(message or f"{self.prog}: error")
        raise _HelpShown

    def format_help(self) -> str:
        """The short help (:data:`SHORT_HELP`) once ``build_parser`` set it up; argparse's else."""
        if getattr(self, "short_help", None) is None:
            return super().format_help()
        return short_help(self)


_METAVARS = {"threshold": "X", "ci_level": "LEVEL", "judge": "llm", "judge_model": "NAME",
             "base_url": "URL", "out": "DIR", "draws": "N", "tune": "N", "chains": "N",
             "seed": "N", "interval": "NAME"}
"""Shorter placeholders for the short help (display only; the parser is the CLI's)."""


def _flag(action: argparse.Action) -> str:
    """``--k K``, ``-o NAME``, ``--prior A B``, ``--quiet``: the option as a user types it."""
    if not action.option_strings:
        return str(action.metavar or action.dest)
    name = min(action.option_strings, key=len) if action.dest == "output_name" else max(
        action.option_strings, key=len)
    if action.nargs == 0:
        return name
    if action.choices and len(action.choices) > 2 and action.dest != "interval":
        return f"{name} MODE"
    metavar = _METAVARS.get(action.dest) or action.metavar or action.dest.upper()
    return f"{name} {' '.join(metavar) if isinstance(metavar, tuple) else metavar}"


def short_help(parser: argparse.ArgumentParser) -> str:
    """About 25 lines: usage, then the options a notebook needs most (:data:`SHORT_HELP`)."""
    actions = {a.dest: a for a in parser._actions}
    lines = [parser.format_usage().rstrip(), "",
             "Evaluate agent conversations; the value is the AgenticResults (shown as HTML).",
             "A run that judged less than --min-judged of its interactions shows an error panel "
             "and raises.", ""]
    for dests, text in SHORT_HELP:
        found = [actions[d] for d in dests if d in actions]
        if not found:
            continue
        first = found[0]
        values = {"default": first.default, "choices": " | ".join(first.choices or ())}
        flags = ", ".join(_flag(a) for a in found)
        text = text % values
        head = f"  {flags:<26}" if len(flags) < 26 else f"  {flags}\n{'':<28}"
        lines.append(head + textwrap.fill(text, width=100 - 28, subsequent_indent=" " * 28))
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The ``agenteval run`` parser, renamed, with ``-o NAME`` added."""
    from agenteval.cli.run import add_parser

    holder = _MagicArgumentParser(prog="agenteval", add_help=False)
    parser = add_parser(holder.add_subparsers(parser_class=_MagicArgumentParser))
    parser.prog = PROG
    parser.usage = ("%(prog)s SOURCE --k K [options]\n       %%%(prog)s --k K [options]   "
                    "(cell form: the cell body is the data)")
    parser.description = ("Evaluate agent conversations and show the results; the value of the "
                          "magic is the AgenticResults.")
    for action in parser._actions:
        if action.dest == "data":
            action.metavar = "SOURCE"
            action.help = ("files as for `agenteval run`, or a notebook variable holding a "
                           "DataFrame, Datasets or dicts")
    parser.conflict_handler = "resolve"  # -o is the magic's, whatever the CLI defines
    parser.add_argument("-o", "--output-name", metavar="NAME", dest="output_name",
                        help="also store the results in the notebook variable NAME (also when "
                        "the run fails --min-judged)")
    parser.add_argument("--help-all", action=_HelpAll,
                        help="every option, with the CLI's full help texts")
    for action in parser._actions:
        if action.dest in CLI_ONLY:
            action.help = argparse.SUPPRESS
    parser.short_help = SHORT_HELP  # type: ignore[attr-defined]
    return parser


def parse_cell(text: str, workdir: Path) -> tuple[Any, list[Any] | None]:
    """The data in a ``%%agentic_eval`` cell, and for YAML each item's node (its lines, so an
    error names the line of the field it is about: :func:`field_line`).

    JSON lines (every record starts with ``{``) and JSON lists are written to a file in
    ``workdir`` and read by the file loaders, so errors name the line; anything else is YAML (a
    list of conversations, one mapping, or several ``---`` documents), returned as a list.
    """
    stripped = text.strip()
    if not stripped:
        raise DataError("the cell is empty: put conversations (JSON lines or YAML) in it",
                        source=CELL)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if all(line.startswith("{") for line in lines) or stripped.startswith("["):
        path = workdir / ("cell.json" if stripped.startswith("[") else "cell.jsonl")
        path.write_text(text, encoding="utf-8")
        return path, None
    import yaml

    try:
        nodes = [n for n in yaml.compose_all(text, Loader=yaml.SafeLoader) if n is not None]
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise DataError(f"not JSON lines, and not valid YAML: {problem}", source=CELL,
                        line=None if mark is None else mark.line + 1) from None
    if len(docs) == 1 and isinstance(docs[0], list):
        docs, nodes = docs[0], list(nodes[0].value)
    for doc, node in zip(docs, nodes):
        if not isinstance(doc, Mapping):
            raise DataError(f"expected a conversation (a mapping with session_id, assistant_id, "
                            f"conversation), got {type(doc).__name__} {str(doc)[:40]!r}",
                            source=CELL, line=node.start_mark.line + 1)
    return docs, nodes


_PATH = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def field_line(node: Any, field: str | None) -> int:
    """The 1-based line of ``field`` (``conversation[0].assistant``) inside the YAML ``node``:
    the value's own line, or, for a missing field, the line of the mapping that lacks it."""
    for name, index in _PATH.findall(field or ""):
        children = node.value
        if index:
            if not isinstance(children, list) or int(index) >= len(children) or (
                    children and isinstance(children[0], tuple)):
                break
            node = children[int(index)]
            continue
        if not isinstance(children, list):
            break
        found = [v for k, v in children if isinstance(k.value, str) and k.value == name] if (
            children and isinstance(children[0], tuple)) else []
        if not found:
            break
        node = found[0]
    return node.start_mark.line + 1


@magics_class
class AgentEvalMagics(Magics):
    """``%agentic_eval`` / ``%%agentic_eval``: evaluate conversations, show and return results."""

    @line_cell_magic
    def agentic_eval(self, line: str, cell: str | None = None) -> Any:
        """Evaluate agent conversations; ``%agentic_eval --help`` lists the options.

        Line: ``%agentic_eval SOURCE --k K [...]``, SOURCE a file path or a variable holding a
        DataFrame, Datasets or dicts. Cell: options on the first line, the data in the body.
        The value is the ``AgenticResults`` (shown as HTML); ``-o NAME`` also stores it. A run
        that judged less than ``--min-judged`` of its interactions shows a red panel with the
        causes grouped by kind and raises ``UsageError`` (so "Run all" stops there, as the CLI
        exits 1); ``-o NAME`` still holds the results, and so does the error's ``.results``.
        """
        hidden = cell is None and self._hidden_by_semicolon(line)
        line = _strip_semicolon(line)
        try:
            argv = shlex.split(line)
        except ValueError as exc:
            raise UsageError(f"{PROG}: {exc}") from None
        if cell is not None and not {"-h", "--help", "--help-all"} & set(argv):
            argv = ["<cell>", *argv]  # the cell is SOURCE; one given on the line is an error
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except _HelpShown:
            return None
        for dest, instead in CLI_ONLY.items():
            if getattr(args, dest) != parser.get_default(dest):
                flag = "--" + dest.replace("_", "-")
                raise UsageError(f"{PROG}: {flag} is a CLI option: {instead}")
        if cell is not None and len(args.data) > 1:
            raise UsageError(f"%{PROG}: the cell body is the data; give no SOURCE on the line "
                             f"(got {' '.join(str(p) for p in args.data[1:])})")
        if args.output_name is not None and not args.output_name.isidentifier():
            raise UsageError(f"-o {args.output_name}: not a valid Python variable name")
        from agenteval.cli.run import evaluate_args, print_warnings
        from agenteval.results.failures import check_judged

        item_nodes: list[Any] | None = None
        try:
            with tempfile.TemporaryDirectory(prefix="agentic-eval-") as tmp:
                if cell is not None:
                    source, item_nodes = parse_cell(cell, Path(tmp))
                    command = f"%%agentic_eval {line}".rstrip()
                else:  # None: files, read as the CLI reads them
                    source = self._source(args.data)
                    command = f"{PROG} {line}".rstrip()
                results, caught = evaluate_args(args, source=source, command=command)
                print_warnings(caught)
        except DataError as exc:
            raise UsageError(terminal(_cell_error(exc, cell, item_nodes))) from None
        except AgentEvalError as exc:
            raise UsageError(terminal(exc)) from None
        except (ImportError, OSError) as exc:  # a missing extra, an unwritable --out: as the CLI
            raise UsageError(terminal(exc)) from None
        if args.output_name is not None:
            self.shell.user_ns[args.output_name] = results
        check = check_judged(results, min_judged=args.min_judged)
        if check.failed:
            _show_failure(check)
            kept = (f"the results are in {args.output_name}" if args.output_name
                    else "add -o NAME to keep the results")
            error = UsageError(terminal(f"{PROG}: {check.error} ({kept})"))
            error.results, error.check = results, check  # type: ignore[attr-defined]
            raise error
        if check.groups:  # the HTML lists them too; stderr is seen even when output is suppressed
            print(terminal("agenteval: warning: " + "\n".join(check.warning_lines())),
                  file=sys.stderr)
        return None if hidden else results

    def _hidden_by_semicolon(self, line: str) -> bool:
        """Whether this call is the cell's last expression and ends in ``;``: IPython hides such
        a value, but the ``;`` of a line magic lands in the magic's line (as with ``%time``), so
        the magic hides it itself. An assignment (``r = %agentic_eval ...;``) keeps its value."""
        import ast

        try:
            tree = ast.parse(self.shell.history_manager.input_hist_parsed[-1])
        except (AttributeError, IndexError, SyntaxError, ValueError):
            return False
        last = tree.body[-1] if tree.body else None
        call = last.value if isinstance(last, ast.Expr) else None
        return (line.rstrip().endswith(";") and isinstance(call, ast.Call)
                and getattr(call.func, "attr", None) == "run_line_magic"
                and [getattr(a, "value", None) for a in call.args[:2]] == ["agentic_eval", line])

    def _source(self, data: list[Path]) -> Any:
        """The value of a variable of the user namespace; None when SOURCE is files."""
        namespace = self.shell.user_ns
        name = str(data[0])
        if len(data) == 1 and name.isidentifier() and name in namespace:
            value = namespace[name]
            return [value] if isinstance(value, Mapping) else value  # one dict = one conversation
        for path in data:
            if not path.exists():
                raise UsageError(f"{PROG}: SOURCE {str(path)!r} is neither a variable in the "
                                 f"notebook nor an existing file (working directory: {Path.cwd()})")
        return None


def _strip_semicolon(line: str) -> str:
    """``-o NAME;``: IPython keeps the ``;`` that hides a cell's value in the magic's line;
    it is not part of the last argument."""
    stripped = line.rstrip()
    return stripped[:-1].rstrip() if stripped.endswith(";") else line


def _show_failure(check: Any) -> None:
    """The red panel of a failed run (HTML in a notebook, the CLI's lines elsewhere)."""
    from IPython.display import display

    from agenteval.present.html import failure_html

    text = "\n".join([f"agenteval: error: {check.error}", *check.warning_lines()])
    display({"text/html": failure_html(check), "text/plain": terminal(text)}, raw=True)


def _cell_error(exc: DataError, cell: str | None, item_nodes: list[Any] | None) -> str:
    """Errors about a cell's data name the cell and the line as the cell shows it (the magic's
    own line is line 1): the file loaders' line, or in YAML the line of the field itself."""
    if cell is None or exc.source is None:
        return str(exc)
    source, line, reason = str(exc.source), exc.line, exc.reason
    item = re.fullmatch(r"list item (\d+)", source)
    if Path(source).name in ("cell.jsonl", "cell.json") and isinstance(line, int):
        source, line = CELL, line + 1
    elif item and item_nodes is not None and int(item.group(1)) < len(item_nodes):
        source = CELL
        line = field_line(item_nodes[int(item.group(1))], exc.field) + 1
        reason = _yaml_hint(reason)
    elif source == CELL and isinstance(line, int):
        line += 1
    return str(DataError(reason, source=source, line=line, field=exc.field))


def _yaml_hint(reason: str) -> str:
    """YAML reads ``4``, ``1.5``, ``yes`` and ``null`` as numbers, booleans and null: say so
    where a string was expected (the loaders' hint speaks of quotes in general)."""
    if reason.startswith("expected a string") and "quote" in reason:
        return reason + "; YAML reads unquoted 4, 1.5, yes, no, null as non-strings"
    return reason


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics (``%load_ext agenteval`` calls this)."""
    ipython.register_magics(AgentEvalMagics)
