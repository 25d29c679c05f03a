"""The harness-log commands of the docs (tau-bench, Inspect AI; docs/harness-logs.md) run as
written on the demo files."""

from __future__ import annotations

import glob
import re
import shlex

import pytest

from agenteval.cli import main
from tests.conftest import REPO
from tests.documented import page


def _commands() -> list[str]:
    return [line.split("#", 1)[0].strip() for line in page("harness-logs.md").splitlines()
            if line.startswith("agenteval run ")]


def test_readme_shows_two_harness_commands_that_run(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(REPO)
    commands = _commands()
    assert len(commands) == 2 and "taubench_demo.json" in commands[0] and ".eval" in commands[1]
    for command in commands:
        argv = [a for arg in shlex.split(command)[1:]
                for a in (sorted(glob.glob(arg)) if re.search(r"[*?]", arg) else [arg])]
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "suite summary" in out and "unbiased per-task" in out and "given: conversations=" in out
