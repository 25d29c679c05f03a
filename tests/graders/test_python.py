"""Python graders: the signature, judge.ask under the run's budget, and errors of the grader."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from agenteval import Agentic
from agenteval.errors import ConfigError
from agenteval.graders import GraderRaised, PythonGrader, Score, load_grader
from tests.conftest import REPO


def data(n: int = 3) -> list[dict]:
    return [{"session_id": f"s{i}", "assistant_id": "a", "task_id": "t", "conversation": [
        {"qa_id": "q1", "query": "Capital of France?", "assistant": ["Paris", "Lyon", "Paris!"][i % 3],
         "ground_truth_assistant": "Paris"},
        {"qa_id": "q2", "query": "And of Spain?", "assistant": "Madrid",
         "ground_truth_assistant": "Madrid"}]} for i in range(n)]


def test_a_grader_that_raises_is_its_error_not_a_crash():
    def flaky(case):
        if case.qa_id == "q2":
            raise KeyError("missing field")
        return case.answer.startswith("Paris")

    results = Agentic.run(data(), None, 1, graders=[flaky])
    per = [[(g.name, g.passed, g.error_code) for r in m.interactions for g in r.graders]
           for m in results]
    assert per[0] == [("flaky", True, None), ("flaky", None, "grader_raised")]
    assert per[1][0] == ("flaky", False, None)
    err = results[0].interactions[1].graders[0].error
    assert err == "KeyError: 'missing field'"
    # an extra score: the answer judge still decides n and c
    assert [m.total_interactions for m in results] == [2, 2, 2]


def test_invalid_returns_are_grader_output_errors():
    returns = iter([1.5, "yes", {"score": 0.5, "pass": "no"}, None, float("nan"), Score(0.4, False)])

    def odd(case):
        return next(returns)

    results = Agentic.run(data(), None, 1, graders=[odd], grader_concurrency=1)
    codes = [g.error_code for m in results for r in m.interactions for g in r.graders]
    assert codes == ["grader_output"] * 5 + [None]


def test_as_outcome_it_decides_correctness_and_errors_are_unknown():
    def exact(case):
        if case.answer == "Paris!":
            raise ValueError("cannot read")
        return Score(1.0 if case.answer == case.expected else 0.0, case.answer == case.expected,
                     "exact match")

    results = Agentic.run(data(), None, 3, graders=[PythonGrader(exact, outcome=True)])
    # s0: Paris, Madrid -> 2/2; s1: Lyon, Madrid -> 1/2; s2: error, Madrid -> 1/1
    assert [(m.total_interactions, m.correct_interactions, m.judge_errors) for m in results] == [
        (2, 2, 0), (2, 1, 0), (1, 1, 1)]
    assert results[2].is_fully_correct is None  # the rest right, one unknown
    # plug-in pass@3 from (n, c), computed independently: 1 - (1 - c/n)^3
    assert results[1].pass_at_k == pytest.approx(1 - (1 - 1 / 2) ** 3)
    assert results[1].interactions[0].reasoning == "exact: exact match"


def test_signature_is_checked_and_names_are_unique():
    with pytest.raises(ConfigError, match="grade\\(case\\) or grade\\(case, judge\\)"):
        PythonGrader(lambda a, b, c: 1)
    with pytest.raises(ConfigError, match="unique"):
        Agentic.run(data(1), None, 1, graders=[PythonGrader(len, name="x"),
                                                PythonGrader(len, name="x")])
    with pytest.raises(ConfigError, match="grader_outcome names 'nope'"):
        Agentic.run(data(1), None, 1, graders=[len], grader_outcome="nope")


def test_load_grader_from_a_file_and_a_module(tmp_path):
    fn = load_grader(f"{REPO}/data/graders/python_graders.py:used_a_tool_when_expected")
    assert fn.name == "used_a_tool_when_expected" and not fn.wants_judge
    assert load_grader("json:dumps").fn is json.dumps
    for bad in ("nocolon", "json:", "json:no_such", f"{tmp_path}/missing.py:f"):
        with pytest.raises(ConfigError):
            load_grader(bad)
    (tmp_path / "broken.py").write_text("raise ImportError('half-installed')\n")
    with pytest.raises(ConfigError, match="half-installed"):
        load_grader(f"{tmp_path}/broken.py:f")


class Cited(BaseModel):
    cited: bool
    reasoning: str


def test_judge_ask_gives_a_typed_verdict_under_the_budget(fake_server, make_judge):
    fake_server.verdict = lambda body: {"cited": "Paris" in body["messages"][-1]["content"],
                                        "reasoning": "checked"}
    seen: list[Any] = []

    def cites(case, judge):
        verdict = judge.ask(f"Does this answer name Paris? {case.answer}", Cited)
        seen.append(verdict)
        return verdict.cited

    judge = make_judge(max_calls=4)
    # answers judged by the LLM too: 6 answer judgments + 6 asks > 4, so some go over budget
    results = Agentic.run(data(), judge, 1, graders=[cites])
    got = [g for m in results for r in m.interactions for g in r.graders]
    assert all(isinstance(v, Cited) for v in seen)
    assert judge.run_record.calls == 4  # exactly the cap, over answers and asks together
    budget = [g for g in got if g.error_code == "budget"]
    assert budget and all(g.score is None for g in budget)
    assert len(budget) + len(seen) == 6
    phase = judge.run_record.details["judgments"]["grader cites"]
    assert phase["items"] == 6 and phase["budget"] == len(budget)
    sent = [b for b in fake_server.requests if "Does this answer" in json.dumps(b)]
    assert sent and all(b["response_format"]["type"] == "json_schema" for b in sent)


def test_async_grader_and_offline_ask():
    async def via_ask(case, judge):
        await judge.aask("Is it right?", Cited)

    results = Agentic.run(data(1), None, 1, graders=[via_ask])
    g = results[0].interactions[0].graders[0]
    assert g.error_code == "unsupported" and "cannot answer judge.ask" in g.error

    def caught(case, judge):
        try:
            judge.ask("Is it right?", Cited)
        except GraderRaised as exc:
            return {"pass": False, "score": 0.0, "reason": f"no judge: {exc.code}"}

    g = Agentic.run(data(1), None, 1, graders=[caught])[0].interactions[0].graders[0]
    assert (g.passed, g.reason) == (False, "no judge: unsupported")
