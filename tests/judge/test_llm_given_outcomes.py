"""Given outcomes and scores over real HTTP: only the interactions without one reach the judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenteval import Agentic
from openai_server import FakeOpenAI


def verdict(body: dict[str, Any]) -> dict[str, Any]:
    return {"reasoning": "compared", "score": 1.0 if "RIGHT" in json.dumps(body["messages"]) else 0.0}


def test_llm_judge_is_asked_only_where_nothing_was_given(tmp_path: Path) -> None:
    from agenteval.judge.llm import LLMJudge

    def b(qa: str, answer: str, **extra: Any) -> dict[str, Any]:
        return {"qa_id": qa, "query": f"question {qa}", "assistant": answer,
                "ground_truth_assistant": "ref", **extra}

    data = [
        {"session_id": "given", "assistant_id": "a", "outcome": 1.0,
         "conversation": [b("q1", "GIVEN-1 wrong"), b("q2", "GIVEN-2 wrong")]},
        {"session_id": "scored", "assistant_id": "a",
         "conversation": [b("q1", "SCORED wrong", score=1.0), b("q2", "JUDGED-1 RIGHT")]},
        {"session_id": "judged", "assistant_id": "a", "conversation": [b("q1", "JUDGED-2 wrong")]},
    ]
    with FakeOpenAI(verdict=verdict) as server:
        judge = LLMJudge("judge-model", base_url=server.base_url, api_key="sk-test",
                         cache=tmp_path / "c.sqlite3", retry_initial_delay=0.001, progress=False)
        results = Agentic.run(data, judge, k=1)
        sent = json.dumps(server.requests)
    assert len(server.requests) == 2
    assert "JUDGED-1" in sent and "JUDGED-2" in sent
    assert "GIVEN" not in sent and "SCORED" not in sent
    given, scored, judged = results
    assert (given.is_fully_correct, given.source) == (True, "given")
    assert (scored.is_fully_correct, scored.source) == (True, "mixed")
    assert (judged.is_fully_correct, judged.source) == (False, "judged")
    assert results.summary().judge["calls"] == 2
