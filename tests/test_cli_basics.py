"""CLI basics a user trips on: --version, defaults, filters, one-line errors, labels, --min-judged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agenteval
from agenteval.cli import main
from tests.conftest import DEMO


def _record(session: str, agent: str, task: str | None, refs: list[str | None]) -> str:
    turns = [{"qa_id": f"q{i}", "query": f"what is {i}+{i}?", "assistant": f"It is {2 * i}.",
              "ground_truth_assistant": ref} for i, ref in enumerate(refs, start=1)]
    rec = {"session_id": session, "assistant_id": agent, "conversation": turns}
    if task is not None:
        rec["task_id"] = task
    return json.dumps(rec)


def _one_line_error(err: str, *needles: str) -> None:
    assert err.startswith("agenteval: error:") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for needle in needles:
        assert needle in err, (needle, err)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"agenteval {agenteval.__version__}"


def test_defaults_are_k3_and_bayesian(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(_record("s1", "a", None, ["2"]) + "\n")
    assert main(["run", str(data), "--format", "json"]) == 0
    parsed = json.loads(capsys.readouterr().out)
    assert parsed["settings"]["k"] == 3
    assert parsed["manifest"]["statistical_mode"]["class"].endswith(".BayesianMode")
    # 1 of 1 correct under Beta(1, 1): posterior Beta(2, 1), E[p^3] = B(5, 1)/B(2, 1) = 2/5
    assert parsed["conversations"][0]["pass_pow_k"] == pytest.approx(0.4)


def test_python_api_keeps_frequentist_default() -> None:
    results = agenteval.Agentic.run(str(DEMO), k=2)
    assert results.method.startswith("plug-in")


def _demo_records() -> list[dict]:
    return [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("args", [
    ["--agent", "agent-gpt-small"],
    ["--task", "calc-discount", "--task", "weather-lisbon"],
    ["--agent", "agent-planner-v2", "--task", "calc-discount"],
    ["--limit", "5"],
    ["--agent", "agent-gpt-small", "--limit", "3"],
])
def test_filters_select_the_conversations_asked_for(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    records = _demo_records()
    agents = [args[i + 1] for i, a in enumerate(args) if a == "--agent"]
    tasks = [args[i + 1] for i, a in enumerate(args) if a == "--task"]
    limit = int(args[args.index("--limit") + 1]) if "--limit" in args else None
    want = [r["session_id"] for r in records
            if (not agents or r["assistant_id"] in agents) and (not tasks or r.get("task_id") in tasks)]
    want = want[:limit] if limit else want
    assert 0 < len(want) < len(records)
    assert main(["run", str(DEMO), *args, "--format", "json"]) == 0
    parsed = json.loads(capsys.readouterr().out)
    assert [c["session_id"] for c in parsed["conversations"]] == want
    assert parsed["manifest"]["selection"]["limit"] == limit


@pytest.mark.parametrize(("args", "needles"), [
    (["--agent", "nobody"], ["--agent nobody", "agent-gpt-small"]),
    (["--task", "nothing"], ["--task nothing", "calc-discount"]),
    (["--limit", "0"], ["--limit must be"]),
    (["--min-judged", "1.5"], ["--min-judged must be a share in [0, 1]"]),
])
def test_bad_selection_is_a_one_line_usage_error(args: list[str], needles: list[str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(DEMO), *args]) == 2
    _one_line_error(capsys.readouterr().err, *needles)


def test_directory_argument_says_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "runs.jsonl").write_text(_record("s1", "a", None, ["2"]) + "\n")
    assert main(["run", str(tmp_path)]) == 2
    _one_line_error(capsys.readouterr().err, "is a directory", str(tmp_path / "runs.jsonl"))
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "runs.jsonl"), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["run", str(out)]) == 2
    _one_line_error(capsys.readouterr().err, "is a directory", f"agenteval show {out}")


@pytest.mark.parametrize(("name", "content"), [
    ("msgs.jsonl", '[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]\n'),
    ("msgs.json", '[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]'),
])
def test_bare_openai_message_list_says_how_to_wrap_it(tmp_path: Path, name: str, content: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / name
    data.write_text(content)
    assert main(["run", str(data)]) == 2
    _one_line_error(capsys.readouterr().err, name, "line 1", "chat message", '"messages": [...]')


def test_labels_say_what_each_number_is(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(DEMO), "--mode", "bayesian"]) == 0
    bayes = capsys.readouterr().out
    assert "fully correct (posterior mean)" in bayes and "agent x task" in bayes
    assert "pass@3 / pass^3 = posterior mean [interval]" in bayes
    assert main(["run", str(DEMO), "--mode", "frequentist"]) == 0
    freq = capsys.readouterr().out
    assert "fully correct (full / compl)" in freq and "posterior mean" not in freq
    assert "pass@3 / pass^3 = plug-in estimate [interval]" in freq and "agent x task" in freq


def _with_missing_references(tmp_path: Path, missing: int, total: int) -> Path:
    """``total`` one-interaction conversations; the first ``missing`` have no reference."""
    data = tmp_path / "refs.jsonl"
    data.write_text("".join(_record(f"s{i}", "a", None, [None if i < missing else str(2)]) + "\n"
                            for i in range(total)))
    return data


def test_min_judged_exits_1_below_the_share(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _with_missing_references(tmp_path, 2, 20)    # 18 of 20 judged = 0.90
    assert main(["run", str(data)]) == 1                 # default 0.95
    err = capsys.readouterr().err
    assert "2 of 20 interactions (10.0%) could not be judged" in err
    assert "  2 x no_reference" in err and "no ground_truth_assistant to compare with" in err
    assert "only 18 of 20 interactions (90.0%) were judged, below --min-judged 0.95" in err
    assert main(["run", str(data), "--min-judged", "0.9"]) == 0
    err = capsys.readouterr().err
    assert "could not be judged" in err and "error:" not in err
    assert main(["run", str(_with_missing_references(tmp_path, 0, 5))]) == 0
    assert capsys.readouterr().err == ""


def test_nothing_judged_exits_1_even_with_min_judged_0(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    data = _with_missing_references(tmp_path, 3, 3)
    assert main(["run", str(data), "--min-judged", "0"]) == 1
    assert "no interaction could be judged" in capsys.readouterr().err


def test_warnings_are_one_line_without_source_locations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(DEMO), "--limit", "5"]) == 0      # five single attempts at tasks
    err = capsys.readouterr().err
    assert "agenteval: warning: one attempt per task" in err
    assert ".py:" not in err and "agenteval: agenteval" not in err
