"""Call budget, cache (re-run, resume, misses), duplicates sent once, cancellation, no secrets."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agenteval.judge.base import AnswerItem, JudgeFailure, Verdict
from agenteval.judge.cache import JudgeCache, cache_key, default_cache_path
from openai_server import FakeOpenAI, Sleep, Status

from conftest import API_KEY

GOOD = Verdict(0.75, "looks right")


def _items(n: int) -> list[AnswerItem]:
    return [AnswerItem(query=f"query number {i:03d}", answer=f"answer {i}", ground_truth="ref",
                       qa_id=f"q{i}") for i in range(n)]


def _judged_queries(server: FakeOpenAI) -> set[str]:
    return {f"query number {r.split('query number ')[1][:3]}" for r in server.raw}


@pytest.mark.parametrize("max_calls, n, concurrency", [(0, 4, 2), (5, 12, 4), (7, 20, 5),
                                                       (12, 12, 3)])
def test_budget_cap_is_exact(make_judge, fake_server, max_calls, n, concurrency):
    fake_server.latency = 0.01
    judge = make_judge(max_calls=max_calls, max_concurrency=concurrency)
    out = judge.judge_answers(_items(n))
    assert len(fake_server.requests) == max_calls
    assert sum(o == GOOD for o in out) == max_calls
    budget = [o for o in out if isinstance(o, JudgeFailure)]
    assert len(budget) == n - max_calls and all(o.kind == "budget" for o in budget)
    run = judge.run_record
    assert (run.calls, run.not_judged_budget, run.errors) == (max_calls, n - max_calls, 0)


def test_budget_counts_retries(make_judge, fake_server):
    # item 0 needs three requests (two 500s, then a verdict); a cap of 3 leaves nothing else
    fake_server.on("query number 000", Status(500), Status(500))
    judge = make_judge(max_calls=3, max_concurrency=1)
    out = judge.judge_answers(_items(3))
    assert out[0] == GOOD
    assert [o.kind for o in out[1:]] == ["budget", "budget"]
    assert len(fake_server.requests) == 3


def test_budget_resets_per_run(make_judge, fake_server):
    judge = make_judge(max_calls=2, cache=False)
    judge.judge_answers(_items(3))
    judge.start_run()
    out = judge.judge_answers(_items(3))
    assert sum(o == GOOD for o in out) == 2 and len(fake_server.requests) == 4


def test_rerun_hits_the_cache_with_zero_requests(make_judge, fake_server, cache_file):
    judge = make_judge()
    first = judge.judge_answers(_items(10))
    assert len(fake_server.requests) == 10
    fake_server.reset()
    again = make_judge()  # a new judge object, same settings, same cache file
    second = again.judge_answers(_items(10))
    assert second == first
    assert len(fake_server.requests) == 0
    run = again.run_record
    assert (run.calls, run.cache_hits, run.prompt_tokens) == (0, 10, 0)
    assert len(JudgeCache(cache_file)) == 10


def test_resume_after_budget_interruption_pays_only_the_missing(make_judge, fake_server):
    make_judge(max_calls=4).judge_answers(_items(10))
    done = _judged_queries(fake_server)
    fake_server.reset()
    out = make_judge().judge_answers(_items(10))
    assert out == [GOOD] * 10
    assert len(fake_server.requests) == 6
    assert _judged_queries(fake_server) == {it.query for it in _items(10)} - done


def test_resume_after_cancelled_run(make_judge, fake_server, cache_file):
    make_judge(cache=False).judge_answers([AnswerItem("warm-up", "a", "b")])  # lazy imports
    fake_server.reset()
    fake_server.latency = 0.05
    judge = make_judge(max_concurrency=2)

    async def interrupted() -> None:  # stop as soon as the first verdicts are stored
        task = asyncio.ensure_future(judge.ajudge_answers(_items(20)))
        for _ in range(1000):
            await asyncio.sleep(0.01)
            if len(JudgeCache(cache_file)) > 0:
                break
        task.cancel()
        await task

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(interrupted())
    cached = len(JudgeCache(cache_file))
    assert 0 < cached < 20
    for _ in range(200):  # requests abandoned in flight must not land in the next count
        time.sleep(0.02)
        if fake_server.in_flight == 0:
            break
    time.sleep(0.1)
    fake_server.reset()
    fake_server.latency = 0.0
    assert make_judge().judge_answers(_items(20)) == [GOOD] * 20
    assert len(fake_server.requests) == 20 - cached


@pytest.mark.parametrize("change", ["model", "prompt_version", "temperature", "mode", "endpoint"])
def test_a_change_that_affects_the_verdict_misses_the_cache(make_judge, fake_server, monkeypatch,
                                                            change):
    make_judge().judge_answers(_items(2))
    fake_server.reset()
    options: dict = {}
    if change == "model":
        judge = make_judge(model="another-model")
    elif change == "prompt_version":
        monkeypatch.setattr("agenteval.judge.prompts.PROMPT_VERSION", "changed")
        judge = make_judge()
    elif change == "temperature":
        judge = make_judge(temperature=0.5)
    elif change == "mode":
        judge = make_judge(mode="tools")
    else:  # the same server reached through another spelling of its address
        judge = make_judge(base_url=fake_server.base_url.replace("127.0.0.1", "localhost"),
                           **options)
    judge.judge_answers(_items(2))
    assert len(fake_server.requests) == 2


def test_cache_disabled_makes_every_call(make_judge, fake_server, cache_file):
    judge = make_judge(cache=False)
    judge.judge_answers(_items(3))
    judge.judge_answers(_items(3))
    assert len(fake_server.requests) == 6 and not cache_file.exists()


def test_default_cache_location(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENTEVAL_CACHE_DIR", str(tmp_path / "x"))
    assert default_cache_path() == tmp_path / "x" / "judge.sqlite3"
    monkeypatch.delenv("AGENTEVAL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_path() == tmp_path / "xdg" / "agenteval" / "judge.sqlite3"


def test_cache_key_is_canonical():
    a = cache_key({"b": 1, "a": [1, {"y": 2, "x": 1}]})
    b = cache_key({"a": [1, {"x": 1, "y": 2}], "b": 1})
    import hashlib

    expected = hashlib.sha256(b'{"a":[1,{"x":1,"y":2}],"b":1}').hexdigest()
    assert a == b == expected


def test_api_key_is_in_no_file_record_or_repr(make_judge, fake_server, cache_file):
    fake_server.on("query number 001", *[Status(500)] * 10)
    judge = make_judge(max_retries=1)
    out = judge.judge_answers(_items(3))
    assert fake_server.headers[0]["Authorization"] == f"Bearer {API_KEY}"  # the key was used
    texts = [repr(judge), repr(judge.run_record), json.dumps(judge.run_record.details),
             repr(out)]
    assert not [t for t in texts if API_KEY in t]
    files = list(cache_file.parent.iterdir())
    assert files
    for path in files:
        assert API_KEY.encode() not in path.read_bytes()


def test_cache_survives_concurrent_writers(tmp_path):
    path = tmp_path / "shared.sqlite3"
    code = ("import sys\nfrom agenteval.judge.cache import JudgeCache\n"
            "c = JudgeCache(sys.argv[1])\n"
            "for i in range(150):\n"
            "    c.put(f'p{sys.argv[2]}-{i}', {'score': i / 150}, prompt_tokens=i)\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), str(p)]) for p in range(3)]
    cache = JudgeCache(path)

    def writer(t: int) -> None:
        for i in range(150):
            cache.put(f"t{t}-{i}", {"score": i / 150}, completion_tokens=i)

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert all(p.wait(60) == 0 for p in procs)
    assert len(cache) == 6 * 150
    assert cache.get("p2-149") == {"verdict": {"score": 149 / 150}, "prompt_tokens": 149,
                                   "completion_tokens": 0}
    assert cache.get("t1-3")["completion_tokens"] == 3
    assert cache.get("missing") is None


def test_hung_requests_do_not_block_the_cache(make_judge, fake_server, cache_file):
    fake_server.on("query number 000", *[Sleep(3.0)] * 5)
    judge = make_judge(timeout=1.0, max_retries=0)  # < the 3 s hang; > a loaded machine's reply
    out = judge.judge_answers(_items(3))
    assert isinstance(out[0], JudgeFailure) and out[1:] == [GOOD, GOOD]
    assert len(JudgeCache(Path(cache_file))) == 2


def _twins() -> list[AnswerItem]:
    same = dict(query="the same question", answer="the same answer", ground_truth="ref")
    return [AnswerItem(**same, qa_id="first"), AnswerItem(query="another", answer="x",
                                                          ground_truth="ref"),
            AnswerItem(**same, qa_id="second")]


@pytest.mark.parametrize("cache", [True, False])
def test_identical_items_are_sent_once(make_judge, fake_server, cache_file, cache):
    judge = make_judge(cache=cache_file if cache else False)
    out = judge.judge_answers(_twins())
    assert out == [GOOD] * 3
    assert sum("the same question" in r for r in fake_server.raw) == 1
    assert len(fake_server.requests) == 2
    run = judge.run_record
    assert (run.calls, run.cache_hits, run.details["deduplicated"]) == (2, 0, 1)
    assert (run.prompt_tokens, run.completion_tokens) == (2 * 11, 2 * 7)  # per response


def test_duplicates_share_the_budget_of_one_call(make_judge, fake_server):
    judge = make_judge(max_calls=1, max_concurrency=1)
    out = judge.judge_answers(_twins())
    assert len(fake_server.requests) == 1
    assert out[0] == out[2] == GOOD
    assert isinstance(out[1], JudgeFailure) and out[1].kind == "budget"
    run = judge.run_record
    assert (run.calls, run.not_judged_budget, run.details["deduplicated"]) == (1, 1, 1)


def test_duplicates_share_a_failure_with_their_own_labels(make_judge, fake_server):
    fake_server.on("the same question", Status(400))
    judge = make_judge()
    out = judge.judge_answers(_twins())
    assert len(fake_server.requests) == 2 and out[1] == GOOD
    assert isinstance(out[0], JudgeFailure) and isinstance(out[2], JudgeFailure)
    assert "item 0 (qa_id='first')" in out[0].cause and "HTTP 400" in out[0].cause
    assert "item 2 (qa_id='second')" in out[2].cause and "HTTP 400" in out[2].cause
    assert judge.run_record.errors == 2  # errors count items, calls count requests
    assert judge.run_record.calls == 2


def test_cancel_stops_requests_and_a_rerun_pays_only_the_missing(make_judge, fake_server,
                                                                 cache_file):
    make_judge(cache=False).judge_answers([AnswerItem("warm-up", "a", "b")])  # lazy imports
    fake_server.reset()
    fake_server.latency = 0.1
    limit, n = 3, 30
    judge = make_judge(max_concurrency=limit)
    seen: dict[str, int] = {}

    async def cancel_after_some() -> None:
        task = asyncio.ensure_future(judge.ajudge_answers(_items(n)))
        while len(JudgeCache(cache_file)) < 4:  # a few verdicts have been stored
            await asyncio.sleep(0.01)
        seen["replied"] = fake_server.replied
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.15)  # requests already on the wire may still land
        seen["settled"] = len(fake_server.requests)
        await asyncio.sleep(0.5)  # five request latencies: nothing new may start
        seen["later"] = len(fake_server.requests)

    asyncio.run(cancel_after_some())
    # at most the requests in flight when cancelled arrive after the replies already given
    assert seen["later"] == seen["settled"] <= seen["replied"] + limit < n
    cached = len(JudgeCache(cache_file))
    assert seen["replied"] - limit <= cached <= seen["replied"] + limit
    fake_server.reset()
    fake_server.latency = 0.0
    again = make_judge()
    assert again.judge_answers(_items(n)) == [GOOD] * n
    assert len(fake_server.requests) == n - cached
    assert len(_judged_queries(fake_server)) == n - cached  # each missing item once, no other
    assert again.run_record.cache_hits == cached and len(JudgeCache(cache_file)) == n


def test_budget_cut_during_a_reask_says_so(make_judge, fake_server):
    from openai_server import Reply

    fake_server.on("query number 000", Reply({"reasoning": "x", "score": 3}))
    judge = make_judge(max_calls=1, max_concurrency=1)
    [out] = judge.judge_answers(_items(1))
    assert isinstance(out, JudgeFailure) and out.kind == "budget"
    assert "part-way" in out.cause and "1 reply(ies) received, 0 re-ask(s)" in out.cause
    assert len(fake_server.requests) == 1 and judge.run_record.details["reasks"] == 0
