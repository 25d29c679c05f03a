"""Typed parsing in every mode, the RAG verdicts, and the ways to hand the judge a client."""

from __future__ import annotations

import json

import pytest

from agenteval.errors import ConfigError
from agenteval.judge.base import AnswerItem, JudgeFailure, UtilizationItem, Verdict
from agenteval.judge.verdicts import (AttributionItem, AttributionsVerdict, NodeRelevanceItem,
                                      NodeRelevanceVerdict, StatementsItem, StatementsVerdict)
from agenteval.judge.verdicts import GRADES
from openai_server import Reply

from conftest import API_KEY


def _items(n: int) -> list[AnswerItem]:
    return [AnswerItem(query=f"question {i}", answer=f"answer {i}", ground_truth=f"truth {i}",
                       qa_id=f"q{i}") for i in range(n)]


def _score_from_request(body: dict) -> dict:
    """Each request gets a score derived from its own query number, so order is checkable."""
    text = json.dumps(body)
    i = int(text.split("question ")[1].split("\\n")[0].split()[0])
    return {"reasoning": f"item {i}", "score": GRADES[i % 5]}


@pytest.mark.parametrize("mode, expect", [
    ("json_schema", "response_format"), ("tools", "tools"), ("md_json", None), (None, None)])
def test_each_mode_parses_typed_verdicts_in_order(make_judge, fake_server, mode, expect):
    fake_server.verdict = _score_from_request
    judge = make_judge(mode=mode, use_structured_output=mode is not None, max_concurrency=3)
    out = judge.judge_answers(_items(6))
    assert out == [Verdict(score=GRADES[i % 5], reasoning=f"item {i}") for i in range(6)]
    assert len(fake_server.requests) == 6
    for body in fake_server.requests:
        assert ("response_format" in body) == (expect == "response_format")
        assert ("tools" in body) == (expect == "tools")
        assert body["model"] == "judge-model" and body["temperature"] == 0.0
    assert judge.run_record.details["mode"] == (mode or "plain")


def test_plain_mode_honours_custom_clauses(make_judge, fake_server):
    fake_server.fence = ("<<JSON>>", "<</JSON>>")
    judge = make_judge(use_structured_output=False, bos_json_clause="<<JSON>>",
                       eos_json_clause="<</JSON>>")
    out = judge.judge_answers(_items(2))
    assert out == [Verdict(0.75, "looks right")] * 2
    system = fake_server.requests[0]["messages"][0]["content"]
    assert "<<JSON>>" in system and "<</JSON>>" in system and '"score"' in system


def test_plain_mode_with_wrong_clauses_is_reasked_then_fails(make_judge, fake_server):
    # The server fences with ```json but the judge expects other clauses and no bare JSON.
    judge = make_judge(use_structured_output=False, bos_json_clause="[[", eos_json_clause="]]",
                       max_reasks=1)
    [out] = judge.judge_answers(_items(1))
    assert isinstance(out, JudgeFailure) and out.kind == "error"
    assert "invalid verdict" in out.cause
    assert len(fake_server.requests) == 2
    assert "could not be used" in fake_server.requests[1]["messages"][-1]["content"]


def test_utilization_verdicts(make_judge, fake_server):
    judge = make_judge()
    assert judge.supports_utilization
    items = [UtilizationItem(query="weather?", answer="It is 21C",
                             tool_results=(("get_weather", {"temp": 21}),))]
    assert judge.judge_utilization(items) == [Verdict(0.75, "looks right")]
    user = fake_server.requests[0]["messages"][1]["content"]
    assert '<tool_result index="0" name="get_weather">' in user and '{"temp": 21}' in user


def test_rag_verdicts_are_typed_and_length_checked(make_judge, fake_server):
    def verdict(body: dict) -> dict:
        name = body["response_format"]["json_schema"]["name"]
        if name.startswith("NodeRelevance"):
            n = json.dumps(body).count('<node index=')
            return {"verdicts": [{"reasoning": "r", "relevant": i % 2 == 0} for i in range(n)]}
        if name.startswith("Statements"):
            return {"statements": ["Paris is in France.", "Paris is a capital."]}
        return {"verdicts": [{"reasoning": "r", "attributed": True}]}

    fake_server.verdict = verdict
    judge = make_judge()
    [rel] = judge.judge_node_relevance([NodeRelevanceItem("q", ("n0", "n1", "n2"), "gt")])
    assert isinstance(rel, NodeRelevanceVerdict)
    assert [v.relevant for v in rel.verdicts] == [True, False, True]
    [st] = judge.judge_statements([StatementsItem("q", "Paris is the capital of France.")])
    assert isinstance(st, StatementsVerdict) and len(st.statements) == 2
    [att] = judge.judge_attribution([AttributionItem(("Paris is in France.",), ("n0",))])
    assert isinstance(att, AttributionsVerdict) and att.verdicts[0].attributed


def test_wrong_number_of_node_verdicts_is_reasked(make_judge, fake_server):
    two = {"verdicts": [{"reasoning": "r", "relevant": True}] * 2}
    three = {"verdicts": [{"reasoning": "r", "relevant": False}] * 3}
    fake_server.on(None, Reply(two), Reply(three))
    judge = make_judge()
    [rel] = judge.judge_node_relevance([NodeRelevanceItem("q", ("a", "b", "c"))])
    assert isinstance(rel, NodeRelevanceVerdict) and len(rel.verdicts) == 3
    assert len(fake_server.requests) == 2


def test_ready_clients_are_accepted(fake_server, cache_file):
    import instructor
    import openai

    from agenteval.judge.llm import LLMJudge

    async_client = openai.AsyncOpenAI(api_key=API_KEY, base_url=fake_server.base_url)
    sync_client = openai.OpenAI(api_key=API_KEY, base_url=fake_server.base_url)
    wrapped = instructor.from_openai(openai.AsyncOpenAI(api_key=API_KEY,
                                                        base_url=fake_server.base_url),
                                     mode=instructor.Mode.TOOLS)
    for client, has_tools in ((async_client, False), (sync_client, False), (wrapped, True)):
        fake_server.reset()
        judge = LLMJudge("judge-model", client=client, cache=False, progress=False)
        # twice: each call runs in a fresh event loop, so the transport must not be reused
        assert judge.judge_answers(_items(1)) == [Verdict(0.75, "looks right")]
        assert judge.judge_answers(_items(1)) == [Verdict(0.75, "looks right")]
        assert len(fake_server.requests) == 2
        assert ("tools" in fake_server.requests[0]) == has_tools
        assert fake_server.headers[0]["Authorization"] == f"Bearer {API_KEY}"
        assert API_KEY not in repr(judge)


@pytest.mark.parametrize("option, value", [
    ("max_concurrency", 0), ("max_retries", -1), ("max_reasks", 1.5), ("timeout", 0),
    ("max_calls", -1), ("temperature", -0.1), ("mode", "no-such-mode"), ("cache", 3)])
def test_bad_options_name_the_parameter(option, value):
    from agenteval.judge.llm import LLMJudge

    with pytest.raises(ConfigError, match=option if option != "cache" else "cache"):
        LLMJudge("m", base_url="http://127.0.0.1:9/v1", **{option: value})


def test_model_and_key_are_required():
    from agenteval.judge.llm import LLMJudge

    with pytest.raises(ConfigError, match="model"):
        LLMJudge(None, base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        LLMJudge("gpt-4o-mini")  # the OpenAI endpoint without a key
