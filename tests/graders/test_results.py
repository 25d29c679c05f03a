"""Results per grader and per check: the summary section, the CSV files, results.json and the
report's drill-down, with every count checked against a hand count of the same data."""

from __future__ import annotations

import json
import math

import pytest

from agenteval import Agentic
from agenteval.cli import main
from agenteval.graders import Check, Score, checks_dataframe, grader_summary, graders_dataframe
from agenteval.graders.summary import drilldown_html, summary_html
from tests.conftest import REPO

HOSTILE = '<script>alert("x")</script>'


def data() -> list[dict]:
    answers = ["yes", "no", "yes", "crash", "yes"]
    return [{"session_id": f"s{i}", "assistant_id": "a", "conversation": [
        {"qa_id": "q1", "query": "ok?", "assistant": a, "ground_truth_assistant": "yes"}]}
        for i, a in enumerate(answers)]


def says_yes(case):
    if case.answer == "crash":
        raise RuntimeError("no")
    ok = case.answer == "yes"
    return Score(1.0 if ok else 0.0, ok, "checked", (Check(HOSTILE, ok, None, "r"),
                                                     Check("second", True, 0.5, "")))


def test_summary_counts_and_wilson_interval():
    results = Agentic.run(data(), None, 1, graders=[says_yes])
    s = grader_summary(results)
    (row,) = s.graders
    assert (row.interactions, row.scored, row.passed, row.errors) == (5, 4, 3, 1)
    assert row.error_codes == {"grader_raised": 1}
    # Wilson 95% for 3/4, by hand: (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)
    z, n, p = 1.959963984540054, 4, 0.75
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert row.pass_rate_low == pytest.approx((centre - half) / (1 + z * z / n))
    assert row.pass_rate_high == pytest.approx((centre + half) / (1 + z * z / n))
    assert row.mean_score == pytest.approx(0.75)
    checks = {c.check: (c.n, c.passed, c.unknown) for c in s.checks}
    assert checks == {HOSTILE: (4, 3, 0), "second": (4, 4, 0)}
    text = s.to_text()
    assert "says_yes [python, score]: passed 3/4" in text and "grader_raised x1" in text


def test_dataframes_and_report_html_escape():
    results = Agentic.run(data(), None, 1, graders=[says_yes])
    frame = graders_dataframe(results)
    assert len(frame) == 5 and frame["error_code"].tolist().count("grader_raised") == 1
    assert len(checks_dataframe(results)) == 8
    html = summary_html(results) + drilldown_html(results[0].interactions[0])
    assert HOSTILE not in html and "&lt;script&gt;" in html
    assert summary_html(Agentic.run(data(), None, 1)) == ""  # no graders, no section


def test_cli_out_writes_grader_files_and_json_round_trips(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    out = tmp_path / "out"
    code = main(["run", "data/agentic_demo.jsonl", "--limit", "5", "--quiet", "--out", str(out),
                 "--grader-cmd", "python data/graders/mentions_reference.py",
                 "--grader", "data/graders/python_graders.py:used_a_tool_when_expected",
                 "--grader-outcome", "mentions_reference"])
    assert code == 0
    graders = (out / "graders.csv").read_text().splitlines()
    assert graders[0].startswith("session_id,assistant_id,task_id,index,qa_id,grader,kind")
    saved = json.loads((out / "results.json").read_text())
    first = saved["conversations"][0]["interactions"][0]["graders"]
    assert [g["name"] for g in first] == ["used_a_tool_when_expected", "mentions_reference"]
    from agenteval.results_io import load_results

    loaded = load_results(out)
    assert grader_summary(loaded).to_text() and grader_summary(loaded).graders[1].role == "outcome"
    report = (out / "report.html").read_text()
    assert 'id="graders"' in report and "mentions 36" in report
    # the outcome grader decided n and c: an interaction is correct when the script passed it
    # (read from graders.csv) and its tool use is correct (DESIGN: tools still apply)
    rows = [line.split(",") for line in graders[1:]]
    passed = {(r[0], r[4]): r[9] == "True" for r in rows if r[5] == "mentions_reference"}
    for m in loaded:
        for r in m.interactions:
            tools_ok = r.tool_correctness is None or r.tool_correctness.is_correct
            assert r.is_correct == (passed[(m.session_id, r.qa_id)] and tools_ok)
    assert sum(m.correct_interactions for m in loaded) == sum(
        passed[(m.session_id, r.qa_id)] and (r.tool_correctness is None
                                             or r.tool_correctness.is_correct)
        for m in loaded for r in m.interactions)


def test_report_html_shows_bidi_and_control_characters_as_escapes():
    def tricky(case):
        return Score(1.0, True, "ok \u202egnp.exe", (Check("nul\x00here", True, None, "r\u202e"),))

    results = Agentic.run(data()[:1], None, 1, graders=[tricky])
    html = summary_html(results) + drilldown_html(results[0].interactions[0])
    assert "\u202e" not in html and "\x00" not in html
    assert "\\u202e" in html and "\\u0000" in html
