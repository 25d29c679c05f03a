"""A lone surrogate escape in a data file never loses a run: it becomes U+FFFD, with a warning."""

from __future__ import annotations

import json

import pytest

from agenteval.cli import main
from agenteval.core.retriever import load_datasets

RECORDS = [
    {"session_id": "s1", "assistant_id": "a", "conversation": [
        {"qa_id": "q1", "query": "What is 2+2? \ud800", "assistant": "4 \udfff",
         "ground_truth_assistant": "4"}]},
    {"session_id": "s2", "assistant_id": "a", "conversation": [
        {"qa_id": "q1", "query": "Smile \ud83d\ude00", "assistant": "6", "ground_truth_assistant": "6"}]},
]


def _write(path):
    # json.dumps writes lone surrogates as \\ud800 escapes, as a buggy logger would
    path.write_text("\n".join(json.dumps(r) for r in RECORDS) + "\n", encoding="utf-8")
    return path


def test_lone_surrogates_become_replacement_characters(tmp_path):
    path = _write(tmp_path / "runs.jsonl")
    with pytest.warns(UserWarning, match="2 lone surrogate"):
        datasets = load_datasets(path)
    first, second = (ds.conversation[0] for ds in datasets)
    assert first.query == "What is 2+2? \ufffd" and first.assistant == "4 \ufffd"
    assert second.query == "Smile \U0001F600"  # a proper pair stays one character


def test_cli_writes_every_output_for_data_with_lone_surrogates(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(_write(tmp_path / "runs.jsonl")), "--k", "1", "--out", str(out)]) == 0
    assert "lone surrogate" in capsys.readouterr().err
    for name in ("report.html", "results.json", "conversations.csv", "interactions.csv"):
        (out / name).read_text(encoding="utf-8")  # valid UTF-8
    assert "\ufffd" in (out / "report.html").read_text(encoding="utf-8")
