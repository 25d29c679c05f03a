"""`agenteval plan` and the comparison outputs of `agenteval run`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.cli import main
from agenteval.statistical.plan import plan
from tests.conftest import DEMO


def test_plan_answers_and_examples_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--rate-a", "0.7", "--rate-b", "0.6", "--attempts", "4", "--icc", "0.3",
                 "--correlation", "0.6"]) == 0
    text = capsys.readouterr().out
    want = plan(rate_a=0.7, rate_b=0.6, attempts=4, icc=0.3, correlation=0.6)
    assert f"design: {want.tasks} tasks x 4 attempts" in text and "paired" in text
    assert main(["plan", "--rate-a", "0.7", "--rate-b", "0.6", "--attempts", "4", "--icc", "0.3",
                 "--tasks", "50", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["question"] == "power of design" and out["tasks"] == 50 and 0 < out["power"] < 1
    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    helptext = capsys.readouterr().out
    assert "examples:" in helptext and "--simulate 2000" in helptext and "--pilot" in helptext


def test_plan_from_a_pilot_run_and_curve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pilot"
    assert main(["run", str(DEMO), "--k", "3", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["plan", "--pilot", str(out / "results.json"), "--rate-a", "0.45", "--rate-b", "0.6",
                 "--attempts", "4"]) == 0
    text = capsys.readouterr().out
    assert "pilot_tasks=9" in text and "pilot_correlation" in text
    assert main(["plan", "--rate-a", "0.7", "--rate-b", "0.6", "--icc", "0.3", "--attempts", "4",
                 "--curve", "20:60:20", "--out", str(tmp_path / "plan")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["tasks", "power"] and len(lines) >= 5
    assert (tmp_path / "plan" / "power_curve.png").stat().st_size > 2000


@pytest.mark.parametrize("args,message", [
    (["--rate-a", "0.7"], "rate_b is needed"),
    (["--rate-a", "0.7", "--rate-b", "0.6"], "kappa or icc"),
    (["--rate-a", "0.7", "--rate-b", "0.6", "--icc", "1.5"], "icc must be"),
    (["--pilot", "missing.json"], "no such file"),
    (["--rate-a", "0.7", "--rate-b", "0.6", "--icc", "0.3", "--curve", "a:b"], "--curve"),
])
def test_plan_bad_input_is_one_line_exit_2(args: list[str], message: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_run_writes_comparisons_ranking_and_quality(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["run", str(DEMO), "--k", "3", "--mode", "bayesian", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "(paired, 9 shared tasks)" in text and "ranking by success" in text
    assert "P(Reliable)" in text and "Inconsistent" in text
    for name in ("comparisons.csv", "ranking.csv", "quality.csv"):
        assert (out / name).stat().st_size > 100
    summary = json.loads((out / "results.json").read_text())["summary"]
    rows = summary["comparisons"]
    assert {(r["quantity"], r["scope"]) for r in rows} == {
        (q, s) for q in ("success", "pass@3", "pass^3") for s in ("suite tasks", "new task")}
    assert all(r["method"] == "paired" and r["shared_tasks"] == 9 for r in rows)
    assert [q["unit"] for q in summary["quality"]] == ["agent-gpt-small", "agent-planner-v2"]


def test_readme_planning_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    import re

    from tests.conftest import REPO

    text = (REPO / "docs" / "comparisons.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "agenteval.plan(" in b]
    monkeypatch.chdir(tmp_path)
    exec(compile(block.replace("simulate=400", "simulate=20"), "docs/comparisons.md", "exec"), {})
    assert capsys.readouterr().out.split() == ["105", "0.802"]
    assert (tmp_path / "out" / "power_curve.png").stat().st_size > 2000
