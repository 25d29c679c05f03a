"""instructor shapes and parses the structured requests; the transport is ours (aiohttp).

The references are instructor itself, called the slow straightforward way (its request handler
per request, on the openai SDK's typed completion), and requests as the local server saw them.
"""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from agenteval.judge import prompts
from agenteval.judge.base import AnswerItem, JudgeFailure, UtilizationItem, Verdict
from agenteval.judge.verdicts import (AnswerVerdict, AttributionItem, NodeRelevanceItem,
                                      StatementsItem, StatementsVerdict, UtilizationVerdict,
                                      ITEM_PLACEHOLDER, attributions_model, echo_model,
                                      node_relevance_model)
from openai_server import Reply, item_id, with_item

from conftest import API_KEY

MODES = ["json_schema", "tools", "tools_strict", "json", "md_json"]

CASES = [
    (AnswerVerdict, prompts.answer_messages(AnswerItem(
        query="What is 2+2? ```json {} ```", answer="4 \u00b0 \ud800", ground_truth="four"))),
    (UtilizationVerdict, prompts.utilization_messages(UtilizationItem(
        query="weather?", answer="21C", tool_results=(("get_weather", {"temp": 21}),)))),
    (node_relevance_model(3), prompts.node_relevance_messages(
        NodeRelevanceItem("q", ("n0", "n1", "n2"), "gt"))),
    (StatementsVerdict, prompts.statements_messages(StatementsItem("q", "Paris is in France."))),
    (attributions_model(2), prompts.attribution_messages(
        AttributionItem(("s0", "s1"), ("n0",)))),
]


def _instructor_request(model, mode: str, base: list[dict], fields: dict) -> dict:
    """The request instructor's own handler prepares for one call (its per-request path)."""
    from instructor.v2 import Mode, Provider, mode_registry

    name = "TOOLS" if mode == "tools_strict" else mode.upper()
    handlers = mode_registry.get_handlers(Provider.OPENAI, Mode[name])
    kwargs = {**fields, "messages": [dict(m) for m in base]}
    if mode == "tools_strict":
        kwargs["strict"] = True
    return handlers.request_handler(model, kwargs)[1]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("max_tokens", ["auto", 77, None])
def test_requests_are_exactly_what_instructor_prepares(mode, max_tokens):
    from agenteval.judge.llm import LLMJudge

    judge = LLMJudge("judge-model", base_url="http://127.0.0.1:9/v1", mode=mode, cache=False,
                     temperature=0.25, max_tokens=max_tokens)
    item = "0123456789abcdef"
    for model, base in CASES:
        template = judge.template(model)
        sent = json.loads(template.encode(template.messages(base, item), item))
        fields = {"model": "judge-model", "temperature": 0.25}
        if max_tokens is not None:
            fields["max_tokens"] = template.body["max_tokens"]
            assert max_tokens == "auto" or template.body["max_tokens"] == max_tokens
        else:
            assert "max_tokens" not in sent
        # json.loads: the bytes on the wire are the JSON of instructor's request for the verdict
        # with its echoed item (issue 18.4), this item's id in, and the id line; nothing else
        expected = json.loads(json.dumps(_instructor_request(echo_model(model), mode, base,
                                                             fields)).replace(ITEM_PLACEHOLDER,
                                                                              item))
        expected["messages"][-1]["content"] += prompts.item_line(item)
        assert sent == expected, (mode, model.__name__)
        assert base == [dict(m) for m in base]  # the caller's messages are not mutated


def test_tools_reask_is_instructors_tool_message_shape(make_judge, fake_server):
    bad = '{"score": 0.6, "reasoning": "between grades"}'
    fake_server.on(None, Reply(bad))
    judge = make_judge(mode="tools")
    assert judge.judge_answers([AnswerItem(query="q", answer="a", ground_truth="t")]) == [
        Verdict(0.75, "looks right")]
    first, second = fake_server.requests
    assert second["messages"][:2] == first["messages"]
    assistant, tool = second["messages"][2:]
    assert assistant["role"] == "assistant"
    bad = with_item(bad, item_id(first))  # the verdict as sent, with its item echoed
    assert [c["function"]["arguments"] for c in assistant["tool_calls"]] == [bad]
    error = _validation_error(echo_model(AnswerVerdict), bad)
    assert tool == {"role": "tool", "tool_call_id": "call_0", "name": "AnswerVerdict",
                    "content": f"Validation Error found:\n{error}\nRecall the function "
                               "correctly, fix the errors"}


@pytest.mark.parametrize("mode", ["json_schema", "json", "md_json"])
def test_json_reask_is_instructors_correction_message(make_judge, fake_server, mode):
    bad = '{"score": 2, "reasoning": "too high"}'
    fake_server.on(None, Reply(bad))
    judge = make_judge(mode=mode)
    assert judge.judge_answers([AnswerItem(query="q", answer="a", ground_truth="t")]) == [
        Verdict(0.75, "looks right")]
    first, second = fake_server.requests
    assert second["messages"][:-2] == first["messages"]
    assistant, user = second["messages"][-2:]
    bad = with_item(bad, item_id(first))  # the verdict as sent, with its item echoed
    assert assistant["role"] == "assistant" and bad in assistant["content"]
    error = _validation_error(echo_model(AnswerVerdict), bad)
    assert user == {"role": "user", "content": "Correct your JSON ONLY RESPONSE, based on the "
                                               f"following errors:\n{error}"}


def _validation_error(model, text: str) -> str:
    with pytest.raises(ValidationError) as info:
        model.model_validate_json(text)
    return str(info.value)


def test_a_tools_reply_in_the_content_still_counts(make_judge, fake_server):
    # Servers that ignore a forced tool_choice answer in the content: instructor rejects that,
    # our reading of the reply accepts it (no re-ask).
    fake_server.on(None, Reply('{"score": 1.0, "reasoning": "in the content"}'))
    original = fake_server._completion

    def content_only(body, payload, finish):
        out = original({k: v for k, v in body.items() if k != "tools"}, payload, finish)
        out["choices"][0]["message"]["content"] = payload
        return out

    fake_server._completion = content_only
    judge = make_judge(mode="tools")
    assert judge.judge_answers([AnswerItem(query="q", answer="a", ground_truth="t")]) == [
        Verdict(1.0, "in the content")]
    assert len(fake_server.requests) == 1


def test_a_ready_client_lends_its_url_key_and_default_headers(fake_server, monkeypatch):
    import instructor
    import openai

    from agenteval.judge.llm import LLMJudge

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # must not be used
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-NOT-THIS-ONE")
    for wrap in (lambda c: c, lambda c: instructor.from_openai(c, mode=instructor.Mode.JSON)):
        fake_server.reset()
        client = wrap(openai.AsyncOpenAI(api_key=API_KEY, base_url=fake_server.base_url,
                                         default_headers={"X-Lab": "team-7"}))
        judge = LLMJudge("judge-model", client=client, cache=False, progress=False,
                         max_concurrency=2)
        assert judge.judge_answers([AnswerItem(query="q", answer="a", ground_truth="t")]) == [
            Verdict(0.75, "looks right")]
        [headers] = fake_server.headers
        assert headers["Authorization"] == f"Bearer {API_KEY}"
        assert headers["X-Lab"] == "team-7"
        assert json.loads(fake_server.raw[0])["model"] == "judge-model"


def test_the_proxy_from_the_environment_is_used(fake_server, monkeypatch):
    from agenteval.judge.llm import LLMJudge

    # The fake server stands in for an HTTP proxy: a request for an unresolvable host arrives.
    for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", fake_server.base_url.rsplit("/v1", 1)[0])
    judge = LLMJudge("judge-model", base_url="http://judge.invalid/v1", api_key=API_KEY,
                     cache=False, progress=False, max_concurrency=1, timeout=5.0)
    assert judge.judge_answers([AnswerItem(query="q", answer="a", ground_truth="t")]) == [
        Verdict(0.75, "looks right")]
    assert fake_server.headers[0]["Host"] == "judge.invalid"


def test_no_proxy_bypasses_the_proxy(fake_server, monkeypatch):
    from agenteval.judge.llm import LLMJudge

    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    judge = LLMJudge("judge-model", base_url=fake_server.base_url, api_key=API_KEY,
                     cache=False, progress=False, max_concurrency=1, max_retries=0)
    out = judge.judge_answers([AnswerItem(query="q", answer="a", ground_truth="t")])
    assert out == [Verdict(0.75, "looks right")], out
    assert not isinstance(out[0], JudgeFailure)
