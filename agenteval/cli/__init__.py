"""The ``agenteval`` command: parse arguments, call the public API, print and write results.

Each subcommand lives in its own module with ``add_parser(sub)``, which registers its arguments and
sets ``handler`` to the function that runs it; ``SUBCOMMANDS`` lists them in ``--help`` order.

Exit codes: 0 ok; 2 bad input or usage (one line on stderr, no traceback); 1 any other failure.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from typing import Any

from agenteval._util.sanitize import terminal
from agenteval._util.version import __version__
from agenteval.errors import AgentEvalError

SUBCOMMANDS = ("run", "show", "rag", "plan")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agenteval", description="Evaluate AI agents with honest statistics."
    )
    parser.add_argument("--version", action="version", version=f"agenteval {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        importlib.import_module(f"agenteval.cli.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    args.argv = argv  # the command as typed, for the results' manifest
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return args.handler(args)
    except AgentEvalError as exc:
        print(f"agenteval: error: {terminal(exc)}", file=sys.stderr)
        return exc.exit_code  # 2 bad input or usage, 1 a judge that failed (strict)
    except ImportError as exc:
        print(f"agenteval: error: {terminal(exc)}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"agenteval: error: {terminal(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("agenteval: interrupted", file=sys.stderr)
        return 130


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    """Warnings in the CLI are one line for the user, not a source location."""
    text = str(message).removeprefix("agenteval: ")
    print(f"agenteval: warning: {terminal(text)}", file=sys.stderr if file is None else file)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
