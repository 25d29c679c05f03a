"""The CLI with an LLM judge on the local fake server: failure policy, grouped causes, manifest."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenteval.cli import main
from agenteval.results_io import load_results
from tests.judge.openai_server import FakeOpenAI, Status

SECRET = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as s:
        yield s


def _data(tmp_path: Path, total: int, broken: int) -> Path:
    """``total`` one-interaction conversations; the queries of the first ``broken`` say BROKEN."""
    lines = []
    for i in range(total):
        query = f"BROKEN question number {i}?" if i < broken else f"question number {i}?"
        lines.append(json.dumps({"session_id": f"conv-{i}", "assistant_id": "a", "conversation": [
            {"qa_id": f"q{i}", "query": query, "assistant": f"answer {i}",
             "ground_truth_assistant": f"answer {i}"}]}))
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _llm(server: FakeOpenAI) -> list[str]:
    return ["--judge", "llm", "--judge-model", "judge-model", "--base-url", server.base_url,
            "--no-cache"]


def test_heavy_failure_exits_1_with_causes_grouped_and_one_full_example(
        tmp_path: Path, server: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    server.on("BROKEN", *[Status(400)] * 50)      # a client error: not retried
    data = _data(tmp_path, 12, 4)
    assert main(["run", str(data), *_llm(server)]) == 1
    err = capsys.readouterr().err
    assert "4 of 12 interactions (33.3%) could not be judged" in err
    groups = [line for line in err.splitlines() if line.startswith("  ") and " x " in line
              and not line.strip().startswith("e.g.")]
    assert len(groups) == 1 and groups[0].strip().startswith("4 x "), err   # one kind, not 4 lines
    assert "item" not in groups[0] and "conv-" not in groups[0]            # ids stripped from the kind
    examples = [line.strip() for line in err.splitlines() if line.strip().startswith("e.g.")]
    assert len(examples) == 1
    # the example is a real cause in full: its session, and the text as the judge recorded it
    assert "conv-" in examples[0] and "400" in examples[0]
    assert "only 8 of 12 interactions (66.7%) were judged, below --min-judged 0.95" in err
    assert main(["run", str(data), *_llm(server), "--min-judged", "0.6"]) == 0


def test_example_cause_is_not_cut(tmp_path: Path, server: FakeOpenAI,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    server.on("BROKEN", *[Status(400)] * 10)
    out = tmp_path / "out"
    assert main(["run", str(_data(tmp_path, 3, 1)), *_llm(server), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    recorded = [r.judge_error for m in load_results(out) for r in m.interactions if r.judge_error]
    assert len(recorded) == 1 and len(recorded[0]) > 40
    assert f"e.g. (session conv-0) {recorded[0]}" in err


def test_manifest_names_the_judge_without_the_key(tmp_path: Path, server: FakeOpenAI,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", SECRET)
    out = tmp_path / "out"
    assert main(["run", str(_data(tmp_path, 3, 0)), *_llm(server), "--api-key-env", "MY_KEY",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    assert server.headers and any(SECRET in v for h in server.headers for v in h.values())
    for name in ("results.json", "report.html"):
        assert SECRET not in (out / name).read_text()
    judge = json.loads((out / "results.json").read_text())["manifest"]["judge"]
    assert judge["model"] == "judge-model" and judge["endpoint"] == server.base_url
    assert judge["prompt_version"] and judge["mode"]
    reloaded = load_results(out)
    assert reloaded.summary().judge["model"] == "judge-model"
