"""Script graders on AgentV's contract: each way a script can answer, and what it becomes.

The rules (agenteval/graders/script.py, read from EntityProcess/agentv
packages/core/src/evaluation/graders/script-grader.ts): JSON object -> its score; plain text ->
the exit code (0 = 1, non-zero = 0); non-zero exit with stderr or with JSON -> execution error;
where AgentV would clamp or score 0 without a verdict, agenteval reports a judge error instead.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from agenteval import Agentic
from agenteval.graders import ScriptGrader
from agenteval.graders.base import GraderCase, GraderFailure, Score, ToolUse
from agenteval.graders.script import agentv_payload, read_output

PY = sys.executable


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text("import json, os, sys, time\ncase = json.load(sys.stdin)\n" + body)
    return f"{PY} {path}"


def dataset(answers: list[str]) -> list[dict]:
    return [{"session_id": f"s{i}", "assistant_id": "a", "conversation": [
        {"qa_id": "q1", "query": "What is 6 x 7?", "assistant": a, "ground_truth_assistant": "42"}]}
        for i, a in enumerate(answers)]


def grade_one(tmp_path: Path, body: str, *, timeout: float = 20.0, answer: str = "42"):
    grader = ScriptGrader(script(tmp_path, "g", body), name="g", timeout=timeout)
    results = Agentic.run(dataset([answer]), None, 1, graders=[grader])
    (g,) = results[0].interactions[0].graders
    return g, results


def test_json_form(tmp_path):
    g, _ = grade_one(tmp_path, "print(json.dumps({'pass': True, 'score': 0.8, 'reason': 'ok', "
                               "'checks': [{'text': 'a', 'pass': True, 'score': 0.6, "
                               "'reason': 'r'}, {'text': 'b', 'pass': False, 'reason': 's'}]}))\n")
    assert (g.score, g.passed, g.reason, g.error) == (0.8, True, "ok", None)
    assert [(c.text, c.passed, c.score, c.reason) for c in g.checks] == [
        ("a", True, 0.6, "r"), ("b", False, None, "s")]


def test_json_defaults_follow_agentv(tmp_path):
    # no score: the checks' mean (a check without a score counts 1 if it passed); no pass:
    # score >= the run's threshold (0.7)
    g, _ = grade_one(tmp_path, "print(json.dumps({'checks': [{'text': 'a', 'pass': True, "
                               "'reason': ''}, {'text': 'b', 'pass': False, 'reason': ''}, "
                               "{'text': 'c', 'pass': True, 'score': 0.25, 'reason': ''}]}))\n")
    assert g.score == pytest.approx((1 + 0 + 0.25) / 3) and g.passed is False
    g, _ = grade_one(tmp_path, "print(json.dumps({'score': 0.7}))\n")
    assert (g.score, g.passed) == (0.7, True)
    g, _ = grade_one(tmp_path, "print(json.dumps({'pass': False}))\n")
    assert (g.score, g.passed) == (0.0, False)


def test_exit_code_form(tmp_path):
    g, _ = grade_one(tmp_path, "print('the answer is 42')\n")
    assert (g.score, g.passed, g.error) == (1.0, True, None)
    assert g.checks[0].text == "the answer is 42"
    # non-zero without stderr: a quality failure (score 0), AgentV's exit-code convention
    g, _ = grade_one(tmp_path, "print('wrong answer'); sys.exit(3)\n")
    assert (g.score, g.passed, g.error) == (0.0, False, None)
    g, _ = grade_one(tmp_path, "sys.exit(0)\n")  # silent one-liners work too
    assert (g.score, g.passed, g.checks[0].text) == (1.0, True, "exit 0")


@pytest.mark.parametrize("body, code, words", [
    ("print('{not json')\n", "grader_output", "not JSON"),
    ("print('[1, 2]')\n", "grader_output", "not an object"),
    ("print(json.dumps({'score': 1.5}))\n", "grader_output", "[0, 1]"),
    ("print(json.dumps({'score': -0.1, 'pass': False}))\n", "grader_output", "[0, 1]"),
    ("print(json.dumps({'score': 'high'}))\n", "grader_output", "number"),
    ("print('{\"score\": NaN}')\n", "grader_output", "[0, 1]"),
    ("print(json.dumps({'score': True}))\n", "grader_output", "number"),
    ("print(json.dumps({'reason': 'no verdict'}))\n", "grader_output", "none of pass"),
    ("print(json.dumps({'pass': 'yes'}))\n", "grader_output", "true or false"),
    ("print(json.dumps({'score': 1, 'checks': [{'text': 'a', 'pass': 1}]}))\n",
     "grader_output", "checks[0].pass"),
    ("raise RuntimeError('boom')\n", "grader_exit", "RuntimeError: boom"),
    ("print(json.dumps({'pass': True, 'score': 1})); sys.exit(2)\n", "grader_exit", "code 2"),
    ("sys.stderr.write('disk full'); sys.exit(1)\n", "grader_exit", "disk full"),
])
def test_errors_are_judge_errors_never_a_zero(tmp_path, body, code, words):
    g, results = grade_one(tmp_path, body)
    assert (g.score, g.passed, g.error_code) == (None, None, code)
    assert words in g.error


@pytest.mark.timeout(60)  # a hang guard: the script sleeps 60 s unless it is killed at 1 s
def test_hanging_script_is_killed_at_its_timeout(tmp_path):
    pid_file = tmp_path / "child.pid"
    body = ("import subprocess\n"
            f"child = subprocess.Popen(['sleep', '60'])\nopen({str(pid_file)!r}, 'w')"
            ".write(str(child.pid))\ntime.sleep(60)\n")
    g, _ = grade_one(tmp_path, body, timeout=1.0)
    assert (g.score, g.error_code) == (None, "grader_timeout") and "1 s" in g.error
    child = int(pid_file.read_text())
    for _ in range(50):  # the whole process group was killed, the script's child too
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the script's child process survived the timeout")


def test_a_command_that_cannot_start(tmp_path):
    results = Agentic.run(dataset(["42"]), None, 1,
                          graders=[ScriptGrader(str(tmp_path / "no-such-grader"))])
    (g,) = results[0].interactions[0].graders
    assert g.error_code == "grader_start" and g.score is None


def test_outcome_errors_stay_out_of_n_and_c(tmp_path):
    """As outcome, a script decides correctness; its errors are judge errors (not n, not c)."""
    body = ("a = case['output']\n"
            "if a == 'crash': raise SystemExit('bad input')\n"  # stderr + exit 1
            "if a == 'garbage': print('{oops'); sys.exit(0)\n"
            "print(json.dumps({'pass': a == '42', 'score': 1.0 if a == '42' else 0.0}))\n")
    grader = ScriptGrader(script(tmp_path, "judge42", body), outcome=True)
    answers = ["42", "41", "crash", "42", "garbage"]
    results = Agentic.run(dataset(answers), None, 1, graders=[grader])
    got = [(m.total_interactions, m.correct_interactions, m.judge_errors) for m in results]
    assert got == [(1, 1, 0), (1, 0, 0), (0, 0, 1), (1, 1, 0), (0, 0, 1)]
    assert results[2].interactions[0].judge_error_code == "grader_exit"
    assert results[4].interactions[0].judge_error_code == "grader_output"
    assert results[1].interactions[0].score == 0.0 and results[1].interactions[0].source == "judged"


def test_scripts_run_concurrently_with_a_bound(tmp_path):
    log = tmp_path / "log"
    body = (f"open({str(log)!r}, 'a').write(f'start {{time.time()}}\\n')\ntime.sleep(0.6)\n"
            f"open({str(log)!r}, 'a').write(f'end {{time.time()}}\\n')\nprint('ok')\n")
    grader = ScriptGrader(script(tmp_path, "slow", body))
    Agentic.run(dataset(["42"] * 6), None, 1, graders=[grader], grader_concurrency=3)
    events = sorted((float(t), kind) for kind, t in
                    (line.split() for line in log.read_text().splitlines()))
    running = peak = 0
    for _, kind in events:
        running += 1 if kind == "start" else -1
        peak = max(peak, running)
    assert peak == 3


def test_payload_uses_agentv_snake_case_keys():
    case = GraderCase(session_id="s", assistant_id="a", task_id="t", qa_id="q2", index=1,
                      query="And in Celsius?", answer="100 C", expected="100 degrees Celsius",
                      context="Be brief.", history=(("Boiling point in F?", "212 F"),),
                      tool_calls=(ToolUse("convert", {"f": 212}, {"c": 100}),),
                      expected_tools=(ToolUse("convert", {"f": 212}),),
                      rubric=("names the unit",), metadata={"split": "dev"})
    p = agentv_payload(case)
    assert p["input"] == [{"role": "system", "content": "Be brief."},
                          {"role": "user", "content": "Boiling point in F?"},
                          {"role": "assistant", "content": "212 F"},
                          {"role": "user", "content": "And in Celsius?"}]
    assert p["output"] == "100 C" and p["criteria"] == "names the unit"
    assert p["expected_output"] == [
        {"role": "assistant", "tool_calls": [{"tool": "convert", "input": {"f": 212}}]},
        {"role": "assistant", "content": "100 degrees Celsius"}]
    assert p["messages"][1] == {"role": "assistant", "tool_calls": [
        {"tool": "convert", "input": {"f": 212}, "output": {"c": 100}}]}
    assert p["trace_summary"] == {"event_count": 2, "tool_calls": {"convert": 1},
                                  "error_count": 0, "llm_call_count": None}
    assert p["metadata"]["split"] == "dev" and p["metadata"]["qa_id"] == "q2"
    assert all(k == k.lower() for k in p)  # snake_case on the wire
    json.dumps(p)


def test_read_output_directly():
    assert read_output("  hello \n", "", 0, threshold=0.7) == Score(1.0, True, "hello", (
        read_output("hello", "", 0, threshold=0.7).checks))
    failure = read_output("", "Traceback ...", 1, threshold=0.7)
    assert isinstance(failure, GraderFailure) and failure.code == "grader_exit"
    # stderr with exit 0 is not an error (AgentV: only stderr AND non-zero)
    assert read_output('{"score": 1}', "a warning", 0, threshold=0.7).score == 1.0
