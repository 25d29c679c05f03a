"""The README's Python example runs as written (a new user's first contact must not break)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO


def test_readme_python_example_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no python example"
    monkeypatch.chdir(REPO)
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "pass@3=" in out and "method: beta-binomial" in out
    results = namespace["results"]
    assert len(results) >= 40 and results.summary().rows[0].group == "all"
