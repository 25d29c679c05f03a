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
bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import re
import shlex
import tempfile
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


class _HelpShown(Exception):
    """``--help`` was printed; nothing to run."""


class _MagicArgumentParser(argparse.ArgumentParser):
    """argparse that raises instead of exiting the kernel."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message} (see {PROG} --help)")

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if status:
            raise UsageError(message or f"{self.prog}: error")
        raise _HelpShown


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
                        help="also store the results in the notebook variable NAME")
    return parser


def parse_cell(text: str, workdir: Path) -> tuple[Any, list[int] | None]:
    """The data in a ``%%agentic_eval`` cell, and for YAML the body line where each item starts.

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
        docs, lines = docs[0], [item.start_mark.line + 1 for item in nodes[0].value]
    else:
        lines = [node.start_mark.line + 1 for node in nodes]
    for doc, line in zip(docs, lines):
        if not isinstance(doc, Mapping):
            raise DataError(f"expected a conversation (a mapping with session_id, assistant_id, "
                            f"conversation), got {type(doc).__name__} {str(doc)[:40]!r}",
                            source=CELL, line=line)
    return docs, lines


@magics_class
class AgentEvalMagics(Magics):
    """``%agentic_eval`` / ``%%agentic_eval``: evaluate conversations, show and return results."""

    @line_cell_magic
    def agentic_eval(self, line: str, cell: str | None = None) -> Any:
        """Evaluate agent conversations; ``%agentic_eval --help`` lists the options.

        Line: ``%agentic_eval SOURCE --k K [...]``, SOURCE a file path or a variable holding a
        DataFrame, Datasets or dicts. Cell: options on the first line, the data in the body.
        The value is the ``AgenticResults`` (shown as HTML); ``-o NAME`` also stores it.
        """
        try:
            argv = shlex.split(line)
        except ValueError as exc:
            raise UsageError(f"{PROG}: {exc}") from None
        if cell is not None and not {"-h", "--help"} & set(argv):
            argv = ["<cell>", *argv]  # the cell is SOURCE; one given on the line is an error
        try:
            args = build_parser().parse_args(argv)
        except _HelpShown:
            return None
        if cell is not None and len(args.data) > 1:
            raise UsageError(f"%{PROG}: the cell body is the data; give no SOURCE on the line "
                             f"(got {' '.join(str(p) for p in args.data[1:])})")
        if args.output_name is not None and not args.output_name.isidentifier():
            raise UsageError(f"-o {args.output_name}: not a valid Python variable name")
        from agenteval.cli.run import evaluate_args, print_warnings

        item_lines: list[int] | None = None
        try:
            with tempfile.TemporaryDirectory(prefix="agentic-eval-") as tmp:
                if cell is not None:
                    source, item_lines = parse_cell(cell, Path(tmp))
                    command = f"%%agentic_eval {line}".rstrip()
                else:  # None: files, read as the CLI reads them
                    source = self._source(args.data)
                    command = f"{PROG} {line}".rstrip()
                results, caught = evaluate_args(args, source=source, command=command)
                print_warnings(caught)
        except DataError as exc:
            raise UsageError(terminal(_cell_error(exc, cell, item_lines))) from None
        except AgentEvalError as exc:
            raise UsageError(terminal(exc)) from None
        except (ImportError, OSError) as exc:  # a missing extra, an unwritable --out: as the CLI
            raise UsageError(terminal(exc)) from None
        if args.output_name is not None:
            self.shell.user_ns[args.output_name] = results
        return results

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


def _cell_error(exc: DataError, cell: str | None, item_lines: list[int] | None) -> str:
    """Errors about a cell's data name the cell and the line as the cell shows it (the magic's
    own line is line 1): the file loaders' line, or where the YAML item starts."""
    if cell is None or exc.source is None:
        return str(exc)
    source, line = str(exc.source), exc.line
    item = re.fullmatch(r"list item (\d+)", source)
    if Path(source).name in ("cell.jsonl", "cell.json") and isinstance(line, int):
        source, line = CELL, line + 1
    elif item and item_lines is not None and int(item.group(1)) < len(item_lines):
        source, line = CELL, item_lines[int(item.group(1))] + 1
    elif source == CELL and isinstance(line, int):
        line += 1
    return str(DataError(exc.reason, source=source, line=line, field=exc.field))


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics (``%load_ext agenteval`` calls this)."""
    ipython.register_magics(AgentEvalMagics)
