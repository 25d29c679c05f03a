"""Re-asks on bad verdicts, retries per fault kind, failures as records, strict mode."""

from __future__ import annotations

import time

import pytest

from agenteval.errors import JudgeError
from agenteval.judge.base import AnswerItem, JudgeFailure, Verdict
from agenteval.judge.verdicts import AnswerVerdict
from openai_server import BrokenBody, Reply, Sleep, Status, Truncated

GOOD = Verdict(0.75, "looks right")


def _items(*names: str) -> list[AnswerItem]:
    return [AnswerItem(query=f"query {n}", answer=f"answer {n}", ground_truth="ref") for n in names]


@pytest.mark.parametrize("bad", [
    {"reasoning": "too generous", "score": 1.5},       # out of range
    {"reasoning": "negative", "score": -0.1},          # out of range
    {"reasoning": "no score"},                          # missing field
    {"score": "high", "reasoning": "not a number"},    # wrong type
])
@pytest.mark.parametrize("mode", ["json_schema", "tools", None])
def test_schema_violation_is_reasked_then_accepted(make_judge, fake_server, bad, mode):
    fake_server.on("query A", Reply(bad))
    judge = make_judge(mode=mode, use_structured_output=mode is not None)
    assert judge.judge_answers(_items("A")) == [GOOD]
    assert len(fake_server.requests) == 2
    # the re-ask carries the previous reply and the validation error back to the model
    reask = fake_server.requests[1]["messages"]
    assert len(reask) > len(fake_server.requests[0]["messages"])
    assert judge.run_record.details["reasks"] == 1 and judge.run_record.errors == 0


@pytest.mark.parametrize("max_reasks", [0, 2])
def test_reasks_are_bounded_and_end_in_a_failure_not_a_zero(make_judge, fake_server, max_reasks):
    fake_server.on("query A", *[Reply({"reasoning": "x", "score": 7})] * 10)
    judge = make_judge(max_reasks=max_reasks)
    out = judge.judge_answers(_items("A", "B"))
    assert len(fake_server.requests) == (max_reasks + 1) + 1
    assert isinstance(out[0], JudgeFailure) and out[0].kind == "error"
    assert not hasattr(out[0], "score")
    assert "invalid verdict" in out[0].cause and "item 0" in out[0].cause
    assert f"after {max_reasks} re-ask(s)" in out[0].cause
    assert out[1] == GOOD
    assert judge.run_record.errors == 1
    assert judge.run_record.details["reasks"] == max_reasks
    assert judge.run_record.details["retries"] == 0


def test_truncated_json_before_the_verdict_is_reasked(make_judge, fake_server):
    fake_server.on("query A", Reply('{"score": 0.7'))  # the number may be 0.75: never guessed
    judge = make_judge()
    assert judge.judge_answers(_items("A")) == [GOOD]
    assert len(fake_server.requests) == 2


def test_reply_cut_after_its_verdict_is_salvaged(make_judge, fake_server):
    # Verdict first, reasoning last: a reply cut in the reasoning still carries its verdict.
    fake_server.on("query A", Reply('{"score": 0.25, "reasoning": "the total is wro',
                                    finish_reason="length"))
    fake_server.on("query B", Truncated())  # {"score": 0.75, "reasoni, finish_reason "length"
    judge = make_judge()
    out = judge.judge_answers(_items("A", "B"))
    assert out[0] == Verdict(0.25, "the total is wro…")
    assert out[1].score == 0.75 and "cut at the token limit" in out[1].reasoning
    assert len(fake_server.requests) == 2 and judge.run_record.details["salvaged"] == 2


def test_unclosed_reply_that_ended_normally_is_not_salvaged_but_reasked(make_judge, fake_server):
    # Issue 18.3: only what the server cut at the token limit is repaired; a reply that ended
    # ("stop") with an unclosed JSON is invalid and asked again.
    fake_server.on("query A", Reply('{"score": 0.25, "reasoning": "the total is wro'))
    judge = make_judge()
    assert judge.judge_answers(_items("A")) == [GOOD]
    assert len(fake_server.requests) == 2 and judge.run_record.details["salvaged"] == 0
    assert judge.run_record.details["reasks"] == 1


def test_429_honours_retry_after(make_judge, fake_server):
    fake_server.on("query A", Status(429, {"retry-after": "0.4"}))
    judge = make_judge(retry_initial_delay=0.0)
    start = time.perf_counter()
    assert judge.judge_answers(_items("A")) == [GOOD]
    assert time.perf_counter() - start >= 0.4
    assert len(fake_server.requests) == 2
    assert judge.run_record.details["retries"] == 1 and judge.run_record.calls == 2


def _timeout_for(fault: object) -> float:
    """Short enough that a Sleep(3.0) times out; generous otherwise, so a loaded machine's slow
    reply is never mistaken for the fault under test."""
    return 1.0 if isinstance(fault, Sleep) else 20.0


@pytest.mark.parametrize("fault", [Status(500), Status(502), Status(503), Status(429),
                                   Sleep(3.0), BrokenBody()],
                         ids=["500", "502", "503", "429", "timeout", "broken-body"])
def test_transient_faults_are_retried(make_judge, fake_server, fault):
    fake_server.on("query A", fault, fault)
    judge = make_judge(timeout=_timeout_for(fault), max_retries=2)
    assert judge.judge_answers(_items("A")) == [GOOD]
    assert len(fake_server.requests) == 3
    assert judge.run_record.details["retries"] == 2


@pytest.mark.parametrize("fault, words", [(Status(500), "HTTP 500"), (Sleep(3.0), "timed out")],
                         ids=["500", "timeout"])
def test_persistent_fault_is_a_failure_with_its_cause(make_judge, fake_server, fault, words):
    fake_server.on("query A", *[fault] * 10)
    judge = make_judge(timeout=_timeout_for(fault), max_retries=2)
    out = judge.judge_answers(_items("A", "B"))
    assert isinstance(out[0], JudgeFailure) and out[0].kind == "error" and words in out[0].cause
    assert out[1] == GOOD
    assert sum("query A" in r for r in fake_server.raw) == 3  # 1 try + max_retries
    run = judge.run_record
    assert (run.errors, run.calls) == (1, 4)


def test_client_errors_are_not_retried(make_judge, fake_server):
    fake_server.on("query A", Status(400))
    judge = make_judge(max_retries=3)
    [out] = judge.judge_answers(_items("A"))
    assert isinstance(out, JudgeFailure) and "HTTP 400" in out.cause
    assert len(fake_server.requests) == 1


def test_slow_responses_within_timeout_succeed(make_judge, fake_server):
    fake_server.on("query A", Sleep(0.3))
    judge = make_judge(timeout=2.0)
    assert judge.judge_answers(_items("A")) == [GOOD]
    assert len(fake_server.requests) == 1 and judge.run_record.details["retries"] == 0


def test_strict_raises_judge_error(make_judge, fake_server):
    fake_server.on("query A", *[Status(500)] * 10)
    judge = make_judge(strict=True, max_retries=1)
    with pytest.raises(JudgeError, match="HTTP 500"):
        judge.judge_answers(_items("A", "B", "C"))


def test_failed_calls_are_not_cached(make_judge, fake_server):
    fake_server.on("query A", *[Status(503)] * 2)
    judge = make_judge(max_retries=1)
    assert isinstance(judge.judge_answers(_items("A"))[0], JudgeFailure)
    fake_server.reset()
    assert judge.judge_answers(_items("A")) == [GOOD]
    assert len(fake_server.requests) == 1


def test_output_cut_by_the_token_limit_is_a_failure_without_reask(make_judge, fake_server):
    fake_server.on("query A", *[Reply('{"reasoning": "cut', finish_reason="length")] * 3)
    judge = make_judge()
    [out] = judge.judge_answers(_items("A"))
    assert isinstance(out, JudgeFailure) and "max_tokens" in out.cause
    assert out.code == "truncated" and not out.transient
    assert len(fake_server.requests) == 1
    # every request bounds the reply
    assert fake_server.requests[0]["max_tokens"] == judge.template(AnswerVerdict).body["max_tokens"]


MODES = [("json_schema", True), ("tools", True), ("md_json", True), (None, False)]
MODE_IDS = ["json_schema", "tools", "md_json", "plain"]


@pytest.mark.parametrize("mode, structured", MODES, ids=MODE_IDS)
def test_broken_body_is_a_transport_fault_never_reasked(make_judge, fake_server, mode, structured):
    # HTTP 200 with a body that is not JSON: 1 try + max_retries, no re-ask, in every mode.
    fake_server.on("query A", *[BrokenBody()] * 20)
    judge = make_judge(mode=mode, use_structured_output=structured, max_retries=2, max_reasks=2)
    out = judge.judge_answers(_items("A", "B"))
    assert sum("query A" in r for r in fake_server.raw) == 3
    assert isinstance(out[0], JudgeFailure) and out[0].kind == "error"
    assert "response body is not a valid completion (JSONDecodeError)" in out[0].cause
    assert "after 2 retries" in out[0].cause and "invalid verdict" not in out[0].cause
    assert out[1] == GOOD
    run = judge.run_record
    assert (run.calls, run.errors) == (4, 1)
    assert (run.details["retries"], run.details["reasks"]) == (2, 0)


@pytest.mark.parametrize("mode, structured", MODES, ids=MODE_IDS)
def test_broken_body_then_verdict_counts_one_retry(make_judge, fake_server, mode, structured):
    fake_server.on("query A", BrokenBody())
    judge = make_judge(mode=mode, use_structured_output=structured, max_retries=2, max_reasks=2)
    assert judge.judge_answers(_items("A")) == [GOOD]
    assert len(fake_server.requests) == 2
    assert (judge.run_record.details["retries"], judge.run_record.details["reasks"]) == (1, 0)


@pytest.mark.parametrize("mode, structured", MODES, ids=MODE_IDS)
def test_reask_whose_request_fails_counts_as_a_reask(make_judge, fake_server, mode, structured):
    # an invalid verdict, then the re-ask meets 500s: 1 + (1 + max_retries) requests
    fake_server.on("query A", Reply({"reasoning": "x", "score": 9}), *[Status(500)] * 10)
    judge = make_judge(mode=mode, use_structured_output=structured, max_retries=1, max_reasks=2)
    [out] = judge.judge_answers(_items("A"))
    assert isinstance(out, JudgeFailure) and "HTTP 500" in out.cause
    assert "after 1 retry" in out.cause
    assert len(fake_server.requests) == 3
    assert (judge.run_record.details["retries"], judge.run_record.details["reasks"]) == (1, 1)
