"""``agenteval rag precision|recall``: output formats, files, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from agenteval.cli import main

from tests.conftest import REPO

DEMO = REPO / "data" / "rag_demo.jsonl"


def test_precision_table_and_files(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["rag", "precision", str(DEMO), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "two-searches" in text and "0.500 (1/2)  1.000 (1/3)" in text
    assert "contextual_precision: 0.704" in text
    cases = pd.read_csv(out / "precision_cases.csv")
    assert len(cases) == 9 and cases.loc[cases.case_id == "mixed-ranking", "score"].item() == \
        pytest.approx(5 / 6)
    assert len(pd.read_csv(out / "precision_details.csv")) == 27
    assert json.loads((out / "precision.json").read_text())["metric"] == "contextual_precision"
    assert (out / "precision_summary.csv").exists()


def test_recall_bayesian_json_and_flatten_csv(capsys):
    assert main(["rag", "recall", str(DEMO), "--mode", "bayesian", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["summary"]["extra"]["pooled"]["statements"] == 15
    assert main(["rag", "precision", str(DEMO), "--flatten", "--format", "csv"]) == 0
    csv = capsys.readouterr().out
    assert "two-searches,0.5833" in csv


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "q", "retrieval_context": [{"text": 1.5}]}\n',
                   encoding="utf-8")
    assert main(["rag", "precision", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"agenteval: error: {bad}, line 1, field 'retrieval_context[0].text': "
                   "expected a string, got 1.5")
    assert main(["rag", "recall", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["rag", "recall", str(DEMO), "--judge-model", "m"]) == 2
    assert "applies to --judge llm" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert main(["rag", "recall", str(DEMO), "--out", str(tmp_path / "file")]) == 2


def test_nothing_scorable_exits_1(tmp_path, capsys):
    data = tmp_path / "c.jsonl"
    data.write_text('{"id": "a", "question": "q", "retrieval_context": ["n"]}\n', encoding="utf-8")
    assert main(["rag", "recall", str(data)]) == 1
    err = capsys.readouterr().err
    assert "no case could be scored" in err and "no expected answer" in err


def test_help_lists_rag_in_a_subprocess():
    out = subprocess.run([sys.executable, "-c",
                          "from agenteval.cli import main; main(['rag', '--help'])"],
                         capture_output=True, text=True, check=True).stdout
    assert "precision" in out and "--flatten" in out and "--judge-model" in out


def test_readme_rag_example_runs(monkeypatch, capsys, tmp_path):
    import re

    section = (REPO / "docs" / "rag.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    monkeypatch.chdir(REPO)
    namespace: dict = {}
    exec(compile(block, "docs/rag.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "Lisbon population 0.5" in out and "0.75 0.8" in out
    assert "contextual_recall" in out and "pooled" in out
    for command in re.findall(r"^agenteval (rag [^#\n]*?)\s*(?:#.*)?$", section, flags=re.M):
        if "--judge llm" in command:
            continue
        args = [str(tmp_path / "rag") if a == "out/rag" else a for a in command.split()]
        assert main(args) == 0, command
    assert (tmp_path / "rag" / "recall_cases.csv").exists()


def test_most_frequent_causes_group_equal_causes(capsys):
    """Issue 18.13: each cause carried its item's label ('item 7 (session_id=..., qa_id=...)'),
    so 'most frequent causes' listed three causes seen once each. After: one line, all of them."""
    import re

    from tests.judge.openai_server import FakeOpenAI, Reply

    with FakeOpenAI() as server:
        server.on(None, *[Reply(payload="not json at all")] * 1000)
        assert main(["rag", "precision", str(DEMO), "--judge", "llm", "--judge-model", "m",
                     "--base-url", server.base_url, "--no-cache", "--timeout", "5"]) == 0
    err = capsys.readouterr().err
    total = int(re.search(r"warning: (\d+) verdict\(s\) failed", err).group(1))
    causes = [line for line in err.splitlines() if line.startswith("  ")]
    assert total == 23 and len(causes) == 1, err
    assert causes[0].startswith(f"  {total} x error: invalid verdict") and "item " not in causes[0]
