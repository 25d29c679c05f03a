"""Calls overlap up to max_concurrency, usage adds up, and the sync wrapper works in a loop."""

from __future__ import annotations

import asyncio
import time

import pytest

from agenteval.judge.base import AnswerItem, Verdict

GOOD = Verdict(0.75, "looks right")


def _items(n: int) -> list[AnswerItem]:
    return [AnswerItem(query=f"q{i}", answer=f"a{i}", ground_truth="t") for i in range(n)]


@pytest.mark.parametrize("limit", [1, 4, 8])
def test_in_flight_requests_reach_and_respect_the_limit(make_judge, fake_server, limit):
    make_judge(cache=False).judge_answers(_items(1))  # lazy imports stay out of the timing
    fake_server.reset()
    # latency grows with the limit, so reaching `limit` requests in flight leaves the client
    # 0.1 s per request to send them even on a loaded machine; every case ideally takes 1.6 s
    fake_server.latency = latency = 0.1 * limit
    n = 16
    judge = make_judge(max_concurrency=limit, cache=False)
    start = time.perf_counter()
    assert judge.judge_answers(_items(n)) == [GOOD] * n
    elapsed = time.perf_counter() - start
    assert fake_server.max_in_flight == limit
    ideal = n * latency / limit
    assert ideal <= elapsed  # never faster than the limit allows (no upper bound: shared CPUs)


def test_usage_is_summed_over_every_response(make_judge, fake_server):
    from openai_server import Reply, Status

    fake_server.usage = (13, 5)
    fake_server.on("q0", Reply({"reasoning": "bad", "score": 2}))  # re-asked: 2 responses
    fake_server.on("q1", Status(500))                               # retried: no usage on the 500
    judge = make_judge()
    judge.judge_answers(_items(4))
    responses = fake_server.replied
    assert responses == 5
    run = judge.run_record
    assert (run.prompt_tokens, run.completion_tokens) == (13 * responses, 5 * responses)
    assert run.calls == len(fake_server.requests) == 6


def test_sync_wrapper_inside_a_running_event_loop(make_judge, fake_server):
    judge = make_judge()

    async def notebook_cell() -> list:
        asyncio.get_running_loop()  # as in Jupyter: a loop is running in this thread
        return judge.judge_answers(_items(3))

    assert asyncio.run(notebook_cell()) == [GOOD] * 3
    assert len(fake_server.requests) == 3


def test_async_api_composes_with_other_tasks(make_judge, fake_server):
    fake_server.latency = 0.05
    judge = make_judge(cache=False)

    async def both() -> tuple:
        return await asyncio.gather(judge.ajudge_answers(_items(5)),
                                    judge.ajudge_answers(_items(5)))

    a, b = asyncio.run(both())
    assert a == b == [GOOD] * 5
    assert judge.run_record.calls == 10


def test_run_record_details(make_judge, fake_server):
    judge = make_judge(max_calls=50)
    judge.judge_answers(_items(2))
    d = judge.run_record.details
    assert d["model"] == "judge-model" and d["endpoint"] == fake_server.base_url
    assert d["prompt_version"] == __import__("agenteval.judge.prompts").judge.prompts.PROMPT_VERSION
    assert d["max_calls"] == 50 and d["mode"] == "json_schema"


def test_endpoint_credentials_are_stripped():
    from agenteval.judge.llm import safe_endpoint

    assert safe_endpoint("https://user:pw@host.example:8443/v1/?key=abc#x") == \
        "https://host.example:8443/v1"


def test_progress_bar_counts_every_item(make_judge, fake_server, capsys):
    judge = make_judge(progress=True, cache=False)
    judge.judge_answers(_items(5))
    err = capsys.readouterr().err
    assert "5/5" in err
