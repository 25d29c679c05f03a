"""RAG metrics with the LLM judge over real HTTP to the local OpenAI-compatible test server.

The server decides from the request itself: a node containing ``[rel]`` is relevant, a
statement containing ``[sup]`` is supported (by node 0), and the expected answer is split at
``|``. Every request must carry exactly one node (relevance) or one statement (attribution).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agenteval.cli import main
from agenteval.metrics.rag import ContextualPrecision, ContextualRecall
from tests.judge.openai_server import FakeOpenAI, Status

NODE_RE = re.compile(r'<node index="\d+">\n(.*?)\n</node>', re.S)
STATEMENT_RE = re.compile(r'<statement index="\d+">\n(.*?)\n</statement>', re.S)
TEXT_RE = re.compile(r"<text>\n(.*?)\n</text>", re.S)


def verdict(body: dict[str, Any]) -> dict[str, Any]:
    user = body["messages"][-1]["content"]
    name = body["response_format"]["json_schema"]["name"]
    if name.startswith("Statements"):
        text = TEXT_RE.search(user).group(1)
        parts = [s.strip() for s in text.split("|") if s.strip()]
        return {"statements": parts + parts[:1]}     # a repeated statement is counted once
    if name.startswith("Attributions"):
        [statement] = STATEMENT_RE.findall(user)
        nodes = NODE_RE.findall(user)
        supported = "[sup]" in statement
        # the supporting node: the last one marked [rel] (an index the metric maps to a search)
        node = max((i for i, n in enumerate(nodes) if "[rel]" in n), default=None)
        return {"verdicts": [{"reasoning": "node 0 says so" if supported else "absent",
                              "attributed": supported, "node": node if supported else None}]}
    [node] = NODE_RE.findall(user)
    return {"verdicts": [{"reasoning": "useful" if "[rel]" in node else "off topic",
                          "relevant": "[rel]" in node}]}


@pytest.fixture
def server():
    with FakeOpenAI(verdict=verdict) as s:
        yield s


def judge(server: FakeOpenAI, tmp_path: Path, **options: Any):
    from agenteval.judge.llm import LLMJudge

    settings = dict(base_url=server.base_url, api_key="sk-test", cache=tmp_path / "c.sqlite3",
                    retry_initial_delay=0.001, max_retries=1, progress=False, timeout=5.0)
    settings.update(options)
    return LLMJudge("judge-model", **settings)


def search(query: str, *nodes: str) -> dict[str, Any]:
    return {"tool": "vector_search", "input": {"query": query}, "output": {"results": list(nodes)}}


CASES = [
    {"id": "mixed", "question": "q1?", "expected_answer": "a1 [sup] | a2",
     "retrieval_context": ["n1 [rel]", "n2", "n3 [rel]"]},
    {"id": "perfect", "question": "q2?", "expected_answer": "b1 [sup] | b2 [sup]",
     "retrieval_context": ["m1 [rel]", "m2 [rel]", "m3"]},
    {"id": "none", "question": "q3?", "expected_answer": "c1",
     "retrieval_context": ["k1", "k2"]},
    {"id": "two", "question": "q4?", "expected_output": [
        {"role": "assistant", "tool_calls": [search("first", "x1", "x2 [rel]"),
                                             search("second", "y1 [rel]", "y2", "y3")]},
        {"role": "assistant", "content": "d1 [sup] | d2 [sup] | d3"}]},
]


def test_one_request_per_node_and_hand_computed_precision(server, tmp_path):
    results = ContextualPrecision.run(CASES, judge(server, tmp_path))
    nodes = sum(len(c.get("retrieval_context", [])) for c in CASES) + 5
    assert len(server.requests) == nodes == 13
    for body in server.requests:       # each request is self-contained: one node, no other
        assert len(NODE_RE.findall(body["messages"][-1]["content"])) == 1
    scores = {c.case_id: c for c in results}
    assert scores["mixed"].score == pytest.approx((1 + 2 / 3) / 2)
    assert scores["perfect"].score == 1.0 and scores["none"].score == 0.0
    two = scores["two"]
    assert [s.score for s in two.searches] == [0.5, 1.0]
    assert two.score == 0.75 and two.score_weighted == pytest.approx(0.8)
    assert [n.reason for n in scores["mixed"].misses] == ["off topic"]
    run = results.summary().judge
    assert run["calls"] == 13 and run["errors"] == 0 and run["prompt_tokens"] == 13 * 11

    # flattened: the same 13 verdicts, now from the cache (no request), one ranking per case
    server.reset()
    flat = {c.case_id: c for c in ContextualPrecision.run(CASES, judge(server, tmp_path),
                                                          flatten=True)}
    assert server.requests == []
    assert flat["two"].score == pytest.approx((1 / 2 + 2 / 3) / 2)  # [no, yes, yes, no, no]
    assert flat["mixed"].score == scores["mixed"].score


def test_one_request_per_statement_and_hand_computed_recall(server, tmp_path):
    results = ContextualRecall.run(CASES, judge(server, tmp_path, max_concurrency=4))
    splits = [b for b in server.requests
              if b["response_format"]["json_schema"]["name"].startswith("Statements")]
    attributions = [b for b in server.requests if b not in splits]
    assert len(splits) == 4 and len(attributions) == 2 + 2 + 1 + 3
    for body in attributions:          # one statement each, against the combined context
        user = body["messages"][-1]["content"]
        assert len(STATEMENT_RE.findall(user)) == 1
    # found by its statement (not a substring of the whole prompt: the item id is hex, "d1" too)
    two = [b for b in attributions
           if STATEMENT_RE.findall(b["messages"][-1]["content"])[0].startswith("d1")][0]
    assert NODE_RE.findall(two["messages"][-1]["content"]) == ["x1", "x2 [rel]", "y1 [rel]",
                                                               "y2", "y3"]
    got = {c.case_id: (c.attributable, c.total) for c in results}
    assert got == {"mixed": (1, 2), "perfect": (2, 2), "none": (0, 1), "two": (2, 3)}
    assert results[0].statements[0].reason == "node 0 says so"
    # the judge names the supporting node by its index in the combined context: node 2 of
    # "two" is the first result of its second search
    d1, d2, d3 = {c.case_id: c for c in results}["two"].statements
    assert (d1.supporting_search, d1.supporting_rank, d1.supporting_text) == (1, 1, "y1 [rel]")
    assert d3.attributable is False and d3.supporting_rank is None
    assert {c.case_id: c for c in results}["two"].searches[1]["statements_supported"] == 2
    assert server.max_in_flight <= 4


def test_a_failing_verdict_is_an_error_not_irrelevant(server, tmp_path):
    cases = [{"id": "bad", "question": "q?", "expected_answer": "a",
              "retrieval_context": ["n1 [rel]", "n2 NODEFAIL", "n3 [rel]"],
              "statements": ["a [sup]", "b STMTFAIL"]},
             {"id": "good", "question": "q?", "expected_answer": "a",
              "retrieval_context": ["n1 [rel]"], "statements": ["a [sup]"]}]
    server.on("NODEFAIL", *[Status(500)] * 2)   # the first try and its one retry
    results = ContextualPrecision.run(cases, judge(server, tmp_path))
    bad, good = results
    node = bad.searches[0].nodes[1]
    assert node.relevant is None and node.source == "error" and "HTTP 500" in node.error
    assert bad.score is None and len(bad.judge_errors) == 1
    assert bad.judge_errors[0].startswith("search 0 rank 2: error: ")
    # counted as irrelevant the case would score 5/6; the bounds say what it could be
    assert (bad.score_low, bad.score_high) == pytest.approx((5 / 6, 1.0))
    assert good.score == 1.0
    s = results.summary()
    assert (s.scored, s.judge_errors, s.mean) == (1, 1, 1.0)
    assert s.extra["mean_bounds"] == pytest.approx({"low": (5 / 6 + 1) / 2, "high": 1.0})
    assert "whatever the failed verdicts turn out to be: [0.917, 1.000]" in s.to_text()
    assert s.judge["errors"] == 1

    cases[0]["retrieval_context"][1] = "n2"
    server.on("STMTFAIL", *[Status(500)] * 2)
    recall = ContextualRecall.run(cases, judge(server, tmp_path))
    bad_r = recall[0]
    assert bad_r.score is None and bad_r.unknown == 1
    assert [st.attributable for st in bad_r.statements] == [True, None]
    assert (bad_r.score_low, bad_r.score_high) == (0.5, 1.0)
    assert recall.summary().scored == 1


def test_budget_cuts_are_reported_not_scored(server, tmp_path):
    results = ContextualPrecision.run(CASES[:1], judge(server, tmp_path, max_calls=2))
    [case] = results
    assert len(server.requests) == 2 and case.score is None
    assert sum("budget" in e for e in case.judge_errors) == 1
    assert results.summary().judge["not_judged_budget"] == 1


def test_cli_with_the_llm_judge(server, tmp_path, capsys):
    data = tmp_path / "cases.jsonl"
    data.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    code = main(["rag", "precision", str(data), "--judge", "llm", "--judge-model", "m",
                 "--base-url", server.base_url, "--cache", str(tmp_path / "cli.sqlite3"),
                 "--format", "json"])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert len(server.requests) == 13
    assert payload["cases"][0]["score"] == pytest.approx(5 / 6)
    assert payload["summary"]["judge"]["calls"] == 13
