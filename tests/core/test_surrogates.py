"""A lone surrogate escape in a data file never loses a run: it becomes U+FFFD, with a warning."""

from __future__ import annotations

import json
import random
import warnings

import pytest

from agenteval.cli import main
from agenteval.core import jsonio
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


def test_upper_case_surrogate_escapes_are_caught_and_other_escapes_cost_nothing(tmp_path):
    path = tmp_path / "upper.jsonl"
    record = ('{"session_id": "s1", "assistant_id": "a", "conversation": [{"qa_id": "q1", '
              '"query": "lone \\uD800 and \\u00b0C", "assistant": "4", "ground_truth_assistant": "4"}]}')
    path.write_text(record + "\n", encoding="utf-8")
    with pytest.warns(UserWarning, match="1 lone surrogate"):
        (ds,) = load_datasets(path)
    assert ds.conversation[0].query == "lone \ufffd and \u00b0C"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a degree sign or an escaped backslash is no surrogate
        assert jsonio.loads('{"t": "21\\u00B0C \\\\ud800"}') == {"t": "21\u00b0C \\ud800"}


def test_loads_matches_walking_every_text_on_random_escapes():
    """The shortcut (walk only texts with a surrogate-range escape) against always walking."""
    rng = random.Random(7)
    pieces = ["a", "\\u00b0", "\\uD83D\\uDE00", "\\ud83d\\ude00", "\\ud800", "\\uDFFF", "\\uDbFf",
              "\\\\", "\\\\ud800", "\\n", "\\u0041", "\\ue000", "\\uD7FF", "\u00e9", "\\\""]
    for _ in range(2000):
        text = "[" + ", ".join('"' + "".join(rng.choices(pieces, k=rng.randint(0, 6))) + '"'
                               for _ in range(rng.randint(1, 3))) + "]"
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter("always")
            got = jsonio.loads(text)
        with warnings.catch_warnings(record=True) as reference:
            warnings.simplefilter("always")
            want = jsonio._without_lone_surrogates(json.loads(text))
        assert got == want, text
        assert [str(w.message) for w in ours] == [str(w.message) for w in reference], text
