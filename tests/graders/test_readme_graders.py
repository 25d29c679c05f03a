"""The graders page (docs/graders.md) runs as written: its commands and its Python example, against the
local fake OpenAI server (the endpoint in the text is replaced by the server's, nothing else)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import REPO
from tests.judge.openai_server import FakeOpenAI

ANSWER_RE = re.compile(r"<answer>\n(.*?)\n</answer>", re.S)


def section() -> str:
    return (REPO / "docs" / "graders.md").read_text(encoding="utf-8")


def verdict(body: dict[str, Any]) -> dict[str, Any]:
    name = body["response_format"]["json_schema"]["name"]
    user = body["messages"][-1]["content"]
    if name == "RubricVerdict":  # passes when the answer holds a digit
        answer = ANSWER_RE.search(user).group(1)
        return {"passed": any(ch.isdigit() for ch in answer), "reasoning": "digits"}
    if name == "Cited":
        return {"cited": "source" in user.split("\n", 1)[-1], "reasoning": "looked"}
    return {"score": 0.75, "reasoning": "looks right"}


def test_readme_grader_commands_run(tmp_path: Path) -> None:
    commands = [line.strip() for block in re.findall(r"```bash\n(.*?)```", section(), re.S)
                for line in block.replace("\\\n", " ").splitlines()
                if line.strip().startswith("agenteval")]
    assert len(commands) == 3
    assert any("--rubric" in c for c in commands) and any("--grader " in c for c in commands)
    assert any("--grader-cmd" in c for c in commands)
    (tmp_path / "data").symlink_to(REPO / "data")
    exe = Path(sys.executable).with_name("agenteval")
    outputs = []
    with FakeOpenAI(verdict=verdict) as server:
        env = {**os.environ, "NO_COLOR": "1"}
        for command in commands:
            words = shlex.split(command)
            if "--base-url" in words:
                words[words.index("--base-url") + 1] = server.base_url
            proc = subprocess.run([str(exe), *words[1:], "--quiet"], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=600)
            assert proc.returncode == 0, (command, proc.stdout[-2000:], proc.stderr[-2000:])
            assert "Traceback" not in proc.stderr
            outputs.append(proc.stdout)
        rubric_requests = [b for b in server.requests
                           if b["response_format"]["json_schema"]["name"] == "RubricVerdict"]
    rubric, python, script = outputs
    assert "rubric [rubric, score]: passed" in rubric and "errors 0" in rubric
    assert len(rubric_requests) > 0
    assert "check 'The answer states the final number'" in rubric
    assert "used_a_tool_when_expected [python, score]" in python
    assert "mentions_reference [script, outcome]" in script
    assert (tmp_path / "out" / "graders" / "graders.csv").is_file()
    assert (tmp_path / "out" / "graders" / "grader_checks.csv").is_file()


def test_readme_grader_python_example_runs(monkeypatch) -> None:
    block = re.findall(r"```python\n(.*?)```", section(), re.S)[0]
    monkeypatch.chdir(REPO)
    with FakeOpenAI(verdict=verdict) as server:
        code = block.replace("http://127.0.0.1:8080/v1", server.base_url)
        assert code != block
        namespace: dict[str, Any] = {}
        exec(compile(code, "docs/graders.md", "exec"), namespace)
    results = namespace["results"]
    names = [g.name for g in results[0].interactions[0].graders]
    assert names == ["cites_a_source", "mentions_reference", "rubric"]
    assert all(g.error is None for m in results for r in m.interactions for g in r.graders)
