"""The README's Python example runs as written (a new user's first contact must not break), and
every command of the README and of the docs pages runs as written."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.documented import blocks


def test_readme_python_example_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    examples = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert examples, "README has no python example"
    monkeypatch.chdir(REPO)
    namespace: dict = {}
    exec(compile(examples[0], "README.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "pass@3=" in out and "method of p (pass@k / pass^k by task: the tasks fit below): beta-binomial" in out
    results = namespace["results"]
    assert len(results) >= 40 and results.summary().rows[0].group == "all"


def readme_commands() -> list[str]:
    """Every ``agenteval ...`` command in the bash blocks of the README and the docs pages, in
    page order, continuation lines joined."""
    commands = []
    for _, block in blocks("bash"):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip().startswith("agenteval"):
                commands.append(line.strip())
    return commands


def test_readme_names_only_files_that_exist() -> None:
    for command in readme_commands():
        for word in shlex.split(command, comments=True):
            if word.startswith("data/"):  # a Python grader is path/file.py:function
                path = word.rsplit(":", 1)[0] if word.count(":") == 1 else word
                assert (REPO / path).is_file(), (command, word)


def test_every_readme_command_runs_as_written(tmp_path: Path) -> None:
    """Run each command in order (``show out/demo`` reads what ``run --out out/demo`` wrote).

    The working folder is a scratch copy with ``data/`` linked in, so nothing is written into the
    repository. LLM-judge commands are sent to the local fake OpenAI server: through
    ``$OPENAI_BASE_URL`` (the openai SDK's own variable) where the command names no endpoint,
    and by replacing the ``--base-url`` value where it names one; no other word is changed.
    """
    from tests.judge.openai_server import FakeOpenAI

    commands = readme_commands()
    assert any("--judge llm" in c for c in commands) and any(c.startswith("agenteval show") for c in commands)
    (tmp_path / "data").symlink_to(REPO / "data")
    exe = Path(sys.executable).with_name("agenteval")
    with FakeOpenAI() as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-readme-test",
               "MY_PROVIDER_KEY": "sk-readme-test", "NO_COLOR": "1"}
        for command in commands:
            words = shlex.split(command, comments=True)
            if "--base-url" in words:
                words[words.index("--base-url") + 1] = server.base_url
            proc = subprocess.run([str(exe), *words[1:]], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, (command, proc.stdout[-2000:], proc.stderr[-2000:])
            assert "Traceback" not in proc.stderr, command
        assert server.requests, "the LLM commands never reached the judge server"
    assert (tmp_path / "out" / "demo" / "report.html").is_file()
    # the reload example reads the run the commands above wrote
    block = next(b for _, b in blocks("python", ["report.md"]) if "load_results" in b)
    proc = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "agenteval run data/agentic_demo.jsonl --out out/demo" in proc.stdout


# Python blocks another test runs, with the checks of its topic (page, a string of the block).
RUN_ELSEWHERE = {
    ("README.md", "class MyRetriever"): "test_readme_python_example_runs (above)",
    ("arviz.md", "az.compare("): "tests/test_arviz_export.py",
    ("comparisons.md", "agenteval.plan("): "tests/test_cli_plan.py",
    ("graders.md", "def cites_a_source"): "tests/graders/test_readme_graders.py",
    ("rag.md", "ContextualPrecision.run"): "tests/test_cli_rag.py",
    ("report.md", "load_results"): "test_every_readme_command_runs_as_written (above)",
}
# What a block may not do in a test, and what it does instead: the endpoint of a local server is
# the fake OpenAI server's; the PyMC fit samples fewer draws.
REPLACE = {"http://127.0.0.1:8080/v1": "{base_url}", "chains=4, draws=1000": "chains=2, draws=300"}


def _elsewhere(page: str, code: str) -> str | None:
    return next((test for (p, marker), test in RUN_ELSEWHERE.items() if p == page and marker in code),
                None)


def test_the_blocks_run_elsewhere_are_still_documented() -> None:
    python = blocks("python")
    for (page, marker), test in RUN_ELSEWHERE.items():
        assert any(p == page and marker in code for p, code in python), (page, marker, test)


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch folder with data/ linked in and out/demo written as `make demo` writes it."""
    from agenteval.cli import main

    where = tmp_path_factory.mktemp("documented")
    (where / "data").symlink_to(REPO / "data")
    assert main(["run", str(where / "data" / "agentic_demo.jsonl"), "--k", "3", "--mode", "bayesian",
                 "--out", str(where / "out" / "demo"), "--quiet"]) == 0
    return where


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_every_documented_python_block_runs(index: int, demo_dir: Path) -> None:
    """Every Python block of the README and the docs pages runs as written (in its own process,
    from a folder with data/ and the demo run's out/demo), or is run by the test named above."""
    from tests.judge.openai_server import FakeOpenAI

    page, code = blocks("python")[index]
    if _elsewhere(page, code):
        pytest.skip(f"{page}: run by {_elsewhere(page, code)}")
    with FakeOpenAI() as server:
        for old, new in REPLACE.items():
            code = code.replace(old, new.format(base_url=server.base_url))
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-docs-test",
               "MPLBACKEND": "Agg", "NO_COLOR": "1",
               "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        proc = subprocess.run([sys.executable, "-c", code], cwd=demo_dir, env=env,
                              capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, (page, proc.stderr[-3000:])
        if "LLMJudge(" in code and "Agentic.run" in code:
            assert server.requests, f"{page}: the block's judge never reached the server"
