"""The `agenteval` command: outputs, files written, and exit codes (0 ok, 2 bad input, 1 other)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agenteval.cli import main
from tests.conftest import DEMO

GOOD = ('{"session_id": "s1", "assistant_id": "a", "conversation": [{"qa_id": "1", "query": "2+2?", '
        '"assistant": "The result is 4.", "ground_truth_assistant": "4"}]}\n')


def test_table_output_and_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["run", str(DEMO), "--k", "3", "--mode", "bayesian", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "suite summary" in text and "pass@3" in text and "all" in text
    for name in ("conversations.csv", "interactions.csv", "summary.csv", "results.json"):
        assert (out / name).stat().st_size > 0
    data = json.loads((out / "results.json").read_text())
    assert data["settings"]["k"] == 3 and len(data["conversations"]) >= 40


def test_json_and_csv_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "one.jsonl"
    data.write_text(GOOD)
    assert main(["run", str(data), "--k", "2", "--format", "json"]) == 0
    parsed = json.loads(capsys.readouterr().out)
    assert parsed["conversations"][0]["correct_interactions"] == 1
    assert main(["run", str(data), "--k", "2", "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("session_id,")


@pytest.mark.parametrize(("content", "args", "message"), [
    ('{"session_id": "s1", "assistant_id": "a", "conversation": [}\n', ["--k", "1"], "line 1"),
    ('{"session_id": "s1", "assistant_id": "a", "conversation": [{"qa_id": "1", "assistant": "x"}]}\n',
     ["--k", "1"], "query"),
    ("", ["--k", "1"], "no conversations"),
    (GOOD, ["--k", "0"], "k must be"),
    (GOOD, ["--k", "1", "--threshold", "2"], "threshold"),
])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         content: str, args: list[str], message: str) -> None:
    data = tmp_path / "bad.jsonl"
    data.write_text(content)
    assert main(["run", str(data), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agenteval: error:") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_missing_file_and_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(tmp_path / "nope.jsonl"), "--k", "1"]) == 2
    assert "nope.jsonl" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["run", str(DEMO), "--mode", "magic", "--k", "1"])
    assert exc.value.code == 2


@pytest.mark.parametrize(("args", "message"), [
    (["--mode", "frequentist", "--prior", "2", "2"], "--prior applies to --mode bayesian"),
    (["--mode", "bayesian", "--interval", "wilson"], "--interval applies"),
    (["--judge-model", "m"], "--judge-model applies to --judge llm"),
    (["--max-calls", "5"], "--max-calls applies to --judge llm"),
    (["--no-cache"], "--no-cache applies to --judge llm"),
    (["--max-calls", "0"], "--max-calls applies to --judge llm"),
])
def test_flags_that_would_be_ignored_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      args: list[str], message: str) -> None:
    data = tmp_path / "one.jsonl"
    data.write_text(GOOD)
    assert main(["run", str(data), "--k", "1", *args]) == 2
    assert message in capsys.readouterr().err


def test_out_pointing_at_a_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "one.jsonl"
    data.write_text(GOOD)
    assert main(["run", str(data), "--k", "1", "--out", str(data)]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_unwritable_out_is_a_usage_error_before_judging(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "one.jsonl"
    data.write_text(GOOD)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert main(["run", str(data), "--k", "1", "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agenteval: error: --out") and "cannot write there" in err
    assert "choose a directory you can write to" in err and len(err.strip().splitlines()) == 1


def test_llm_judge_without_key_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "one.jsonl"
    data.write_text(GOOD)
    assert main(["run", str(data), "--k", "1", "--judge", "llm", "--judge-model", "m"]) == 2
    assert "OPENAI_API_KEY" in capsys.readouterr().err


def test_console_script_runs_in_a_subprocess(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("agenteval")
    proc = subprocess.run([str(exe), "run", str(tmp_path / "missing.jsonl"), "--k", "1"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
