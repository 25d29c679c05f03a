"""The LLM judge inside Agentic.run and the CLI, over real HTTP to the fake server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenteval import Agentic
from agenteval.cli import main
from openai_server import FakeOpenAI, Status

SECRET = "sk-cli-SECRET-9876543210"


def verdict_by_content(body: dict[str, Any]) -> dict[str, Any]:
    """Score 1 when the answer says RIGHT, 0 otherwise; tool use judged 'not used'."""
    text = json.dumps(body["messages"])
    if "<tool_result index=" in text:
        return {"reasoning": "the answer ignores the tool output", "score": 0.0}
    return {"reasoning": "compared", "score": 1.0 if "RIGHT" in text else 0.0}


def suite() -> list[dict[str, Any]]:
    def batch(qa: str, answer: str, **extra: Any) -> dict[str, Any]:
        return {"qa_id": qa, "query": f"question {qa}", "assistant": answer,
                "ground_truth_assistant": "reference", **extra}

    tools = {
        "agentic": {"tools_used": [{"tool_name": "weather", "parameters": {"city": "Oslo"},
                                     "result": {"temp_c": -3.5, "sky": "overcast"}, "step": 1}],
                    "final_answer_uses_tools": True},
        "ground_truth_agentic": {"expected_tools": [{"tool_name": "weather",
                                                     "parameters": {"city": "Oslo"}, "step": 1}]},
    }
    return [
        {"session_id": "s1", "assistant_id": "a", "conversation": [
            batch("q1", "RIGHT"), batch("q2", "RIGHT but the server fails on me")]},
        {"session_id": "s2", "assistant_id": "a", "conversation": [batch("q3", "wrong")]},
        # flag says the answer used the tool, but no result is visible in it: ambiguous -> judge
        {"session_id": "s3", "assistant_id": "a", "conversation": [
            batch("q4", "RIGHT, it is chilly there", **tools)]},
    ]


@pytest.fixture
def server() -> Any:
    with FakeOpenAI(verdict=verdict_by_content) as s:
        yield s


def make(server: FakeOpenAI, tmp_path: Path, **options: Any) -> Any:
    from agenteval.judge.llm import LLMJudge

    return LLMJudge("judge-model", base_url=server.base_url, api_key=SECRET,
                    cache=tmp_path / "cache.sqlite3", retry_initial_delay=0.001,
                    max_retries=2, progress=False, **options)


def test_agentic_with_llm_judge_excludes_failures_and_asks_about_ambiguous_tool_use(
        server: FakeOpenAI, tmp_path: Path) -> None:
    server.on("server fails", *[Status(500)] * 10)
    results = Agentic.run(suite(), make(server, tmp_path), k=1)
    s1, s2, s3 = results
    assert s1.correctness_scores == [1.0, None]
    assert (s1.total_interactions, s1.correct_interactions, s1.judge_errors) == (1, 1, 1)
    assert s1.is_fully_correct is None and "500" in s1.interactions[1].judge_error
    assert s2.correctness_scores == [0.0] and s2.is_fully_correct is False
    tool = s3.tool_correctness_scores[0]
    assert tool.utilization_evidence == "judge" and tool.result_utilization == 0.0
    assert not tool.is_correct and s3.is_fully_correct is False
    summary = results.summary()
    assert summary.rows[0].judge_errors == 1 and summary.judge["errors"] == 1

    # a second run of the same evaluation is served from the cache except the failed call
    server.reset()
    server.on("server fails", *[Status(500)] * 10)
    again = Agentic.run(suite(), make(server, tmp_path), k=1)
    assert [m.correctness_scores for m in again] == [m.correctness_scores for m in results]
    assert all("server fails" in r for r in server.raw)


def test_cli_llm_judge_end_to_end_keeps_the_key_out_of_every_file(
        server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "suite.jsonl"
    data.write_text("".join(json.dumps(c) + "\n" for c in suite()))
    cache = tmp_path / "cli-cache.sqlite3"
    monkeypatch.setenv("MY_JUDGE_KEY", SECRET)
    out = tmp_path / "out"
    args = ["run", str(data), "--k", "1", "--judge", "llm", "--judge-model", "judge-model",
            "--base-url", server.base_url, "--api-key-env", "MY_JUDGE_KEY", "--cache", str(cache),
            "--out", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "judge: llm" in printed and SECRET not in printed
    assert all(h.get("Authorization") == f"Bearer {SECRET}" for h in server.headers)
    for path in [*(p for p in out.rglob("*") if p.is_file()), cache]:
        assert SECRET.encode() not in path.read_bytes(), path
    first = len(server.requests)
    assert main(args) == 0  # warm cache: no new requests
    assert len(server.requests) == first
    assert "cache_hits=5" in capsys.readouterr().out


def test_budget_cap_through_the_cli(server: FakeOpenAI, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "suite.jsonl"
    data.write_text("".join(json.dumps(c) + "\n" for c in suite()))
    args = ["run", str(data), "--k", "1", "--judge", "llm", "--judge-model", "m",
            "--base-url", server.base_url, "--no-cache", "--max-calls", "2", "--format", "json"]
    assert main(args) == 1                          # most were not judged: below --min-judged
    capsys.readouterr()
    server.reset()
    assert main([*args, "--min-judged", "0"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert len(server.requests) == 2
    assert result["summary"]["judge"]["not_judged_budget"] >= 2


def test_failed_tool_use_judgment_is_a_judge_error_not_a_guess(server: FakeOpenAI, tmp_path: Path) -> None:
    server.on("<tool_result index=", *[Status(400)] * 5)
    s1, s2, s3 = Agentic.run(suite(), make(server, tmp_path), k=1)
    result = s3.interactions[0]
    assert result.score == 1.0 and result.is_correct is None
    assert result.judge_error.startswith("tool-result use: error")
    assert (s3.total_interactions, s3.judge_errors, s3.is_fully_correct) == (0, 1, None)


@pytest.mark.parametrize("where", ["run", "judge"])
def test_history_reaches_the_judge_with_either_switch(server: FakeOpenAI, tmp_path: Path, where: str) -> None:
    conversation = [{"session_id": "h", "assistant_id": "a", "context": "You are a travel agent.",
                     "conversation": [
                         {"qa_id": "1", "query": "first question", "assistant": "first answer",
                          "ground_truth_assistant": "x"},
                         {"qa_id": "2", "query": "second question", "assistant": "second answer",
                          "ground_truth_assistant": "y"}]}]
    judge = make(server, tmp_path, include_history=(where == "judge"))
    Agentic.run(conversation, judge, k=1, include_history=(where == "run"))
    second = next(r for r in server.raw if "second question" in r)
    assert "first question" in second and "first answer" in second and "travel agent" in second
    first = next(r for r in server.raw if "first question" in r and "second question" not in r)
    assert "second answer" not in first


def test_history_stays_out_by_default(server: FakeOpenAI, tmp_path: Path) -> None:
    conversation = [{"session_id": "h", "assistant_id": "a", "conversation": [
        {"qa_id": "1", "query": "first question", "assistant": "first answer", "ground_truth_assistant": "x"},
        {"qa_id": "2", "query": "second question", "assistant": "second answer",
         "ground_truth_assistant": "y"}]}]
    Agentic.run(conversation, make(server, tmp_path), k=1)
    second = next(r for r in server.raw if "second question" in r)
    assert "first question" not in second


def test_cli_never_sends_openai_key_to_another_endpoint(
        server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "suite.jsonl"
    data.write_text(json.dumps(suite()[1]) + "\n")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-REAL-OPENAI-KEY")
    base = ["run", str(data), "--k", "1", "--judge", "llm", "--judge-model", "m",
            "--base-url", server.base_url, "--no-cache"]
    assert main([*base, "--api-key-env", "MY_LOCAL_KEY"]) == 2  # named but unset: no fallback
    assert "$MY_LOCAL_KEY" in capsys.readouterr().err and not server.requests
    assert main(base) == 0  # local endpoint, no key named: a placeholder, not the OpenAI key
    assert {h.get("Authorization") for h in server.headers} == {"Bearer EMPTY"}


def test_cli_exits_1_when_nothing_could_be_judged(
        server: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "suite.jsonl"
    data.write_text(json.dumps(suite()[1]) + "\n")
    server.on(None, *[Status(400)] * 5)
    args = ["run", str(data), "--k", "1", "--judge", "llm", "--judge-model", "m",
            "--base-url", server.base_url, "--no-cache"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "could not be judged" in err and "no interaction could be judged" in err


def test_cli_and_api_share_the_openai_base_url_key_rule(
        server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$OPENAI_BASE_URL and $OPENAI_API_KEY are a pair (as in the openai SDK), in both places."""
    data = tmp_path / "suite.jsonl"
    data.write_text(json.dumps(suite()[1]) + "\n")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-PAIRED-KEY")
    assert main(["run", str(data), "--k", "1", "--judge", "llm", "--judge-model", "m", "--no-cache"]) == 0
    from agenteval.judge.llm import LLMJudge

    judge = LLMJudge("m", cache=False, progress=False)
    Agentic.run([suite()[1]], judge, k=1)
    assert {h.get("Authorization") for h in server.headers} == {"Bearer sk-PAIRED-KEY"}
    assert len(server.headers) == 2


def test_cli_names_the_causes_of_judge_failures(
        server: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "suite.jsonl"
    data.write_text(json.dumps(suite()[0]) + "\n")
    server.on("server fails", Status(400))  # not retried: keeps the test fast
    assert main(["run", str(data), "--k", "1", "--judge", "llm", "--judge-model", "m",
                 "--base-url", server.base_url, "--no-cache", "--min-judged", "0"]) == 0
    err = capsys.readouterr().err
    assert "1 of 2 interactions (50.0%) could not be judged" in err and "400" in err
