"""AgentV's example contextual precision / recall graders (the Python ports in data/graders/),
run as script graders against the proxy, give the built-in metrics' scores on the same verdicts.

The cases are those of AgentV's examples/features/script-grader-with-llm-calls/evals/*.yaml.
The local server decides every verdict from the request's text alone by one rule, whether the
request is agenteval's typed one or the port's free-text one: a node is relevant when it is in
RELEVANT, a statement is supported when it is in SUPPORTED, and an expected answer splits into
statements at " and ". Expected scores are also worked by hand (AgentV's README gives 1, 0.833
and 0.333 for the three precision cases).
"""

from __future__ import annotations

import asyncio
import re
import sys
from typing import Any

import pytest

from agenteval.graders.proxy import TOKEN_VARIABLE, URL_VARIABLE, GraderProxy
from agenteval.graders.script import ScriptGrader, run_script, script_environment
from agenteval.metrics.rag import ContextualPrecision, ContextualRecall
from tests.conftest import REPO

PRECISION = [
    ("What programming language is TypeScript based on?", "TypeScript is based on JavaScript",
     ["TypeScript is a strongly typed programming language that builds on JavaScript.",
      "TypeScript was developed by Microsoft and first released in 2012.",
      "Python is a high-level programming language known for its readability."], 1.0),
    ("What is the capital of France?", "The capital of France is Paris.",
     ["Paris is the capital and most populous city of France.",
      "The Eiffel Tower was built in 1887.",
      "Paris is often referred to as the City of Light."], (1 + 2 / 3) / 2),
    ("What color is the sky?", "The sky is blue",
     ["Grass is typically green in color.", "Roses can be red, pink, or white.",
      "The sky appears blue due to Rayleigh scattering of sunlight."], 1 / 3),
]
RELEVANT = {PRECISION[0][2][0], PRECISION[1][2][0], PRECISION[1][2][2], PRECISION[2][2][2]}

RECALL = [
    ("Who created Python and when was it released?",
     "Python was created by Guido van Rossum and first released in 1991.",
     ["Python was created by Guido van Rossum while working at CWI in the Netherlands.",
      "Python was first released in 1991 as version 0.9.0.",
      "Guido van Rossum remained Python's lead developer until 2018."], 1.0),
    ("How long is the Great Wall of China and how was it built?",
     "The Great Wall of China is over 13,000 miles long and was built over many centuries by "
     "multiple dynasties.",
     ["The Great Wall of China stretches over 13,000 miles (21,000 km).",
      "The wall was designated a UNESCO World Heritage Site in 1987.",
      "Parts of the wall are now in ruins due to erosion and lack of maintenance."], 0.5),
    ("How tall is Mount Everest and where is it located?",
     "Mount Everest is 29,032 feet tall and located in the Himalayas on the border of Nepal and "
     "Tibet.",
     ["K2 is the second highest mountain in the world at 28,251 feet.",
      "Mount Kilimanjaro is the highest peak in Africa at 19,341 feet.",
      "The Alps are a mountain range in Europe spanning multiple countries."], 0.0),
]
SUPPORTED = {"Python was created by Guido van Rossum", "first released in 1991",
             "The Great Wall of China is over 13,000 miles long"}


def split(text: str) -> list[str]:
    return [s.strip().rstrip(".") for s in text.split(" and ", 1)]


def verdict(body: dict[str, Any]) -> Any:
    user = body["messages"][-1]["content"]
    fmt = body.get("response_format")
    if fmt is not None:  # agenteval's own typed requests
        name = fmt["json_schema"]["name"]
        if name.startswith("NodeRelevance"):
            node = re.search(r'<node index="\d+">\n(.*?)\n</node>', user, re.S).group(1)
            return {"verdicts": [{"relevant": node in RELEVANT, "reasoning": "rule"}]}
        if name.startswith("Statements"):
            return {"statements": split(re.search(r"<text>\n(.*?)\n</text>", user, re.S).group(1))}
        statement = re.search(r'<statement index="\d+">\n(.*?)\n</statement>', user, re.S).group(1)
        return {"verdicts": [{"attributed": statement in SUPPORTED, "node": None,
                              "reasoning": "rule"}]}
    # the ports' free-text requests through the proxy (AgentV's prompts)
    if "Retrieved Node (Rank" in user:
        node = re.search(r"Retrieved Node \(Rank \d+\):\n(.*?)\n\nIs this node", user, re.S).group(1)
        return {"relevant": node in RELEVANT, "reasoning": "rule"}
    if "Extract all distinct factual statements" in user:
        answer = re.search(r"Expected Answer:\n(.*?)\n\nExtract", user, re.S).group(1)
        return {"statements": split(answer)}
    statement = re.search(r'Statement to verify:\n"(.*?)"\n', user, re.S).group(1)
    return {"attributable": statement in SUPPORTED, "reasoning": "rule", "supporting_node": None}


def agentv_case(question: str, expected: str, nodes: list[str]) -> dict[str, Any]:
    """A test of AgentV's eval YAML, as its script grader receives it (snake_case)."""
    return {"input": [{"role": "user", "content": question}], "criteria": expected,
            "expected_output": [
                {"role": "assistant", "tool_calls": [{"tool": "vector_search",
                                                      "input": {"query": question},
                                                      "output": {"results": nodes}}]},
                {"role": "assistant", "content": expected}]}


def port_scores(judge: Any, script: str, cases: list[dict[str, Any]]) -> list[Any]:
    grader = ScriptGrader(f"{sys.executable} {REPO / 'data' / 'graders' / script}",
                          max_calls=15)

    async def body() -> list[Any]:
        out = []
        async with GraderProxy(judge) as proxy:
            for case in cases:
                token, _ = proxy.issue(grader.name, grader.max_calls)
                env = script_environment(judge, {URL_VARIABLE: proxy.url, TOKEN_VARIABLE: token})
                out.append(await run_script(grader, case, env, threshold=0.5))
                proxy.revoke(token)
        return out

    return asyncio.run(body())


@pytest.mark.parametrize("metric, script, table", [
    (ContextualPrecision, "contextual_precision.py", PRECISION),
    (ContextualRecall, "contextual_recall.py", RECALL),
])
def test_ports_equal_the_builtin_metrics(fake_server, make_judge, metric, script, table):
    fake_server.verdict = verdict
    cases = [agentv_case(q, e, nodes) for q, e, nodes, _ in table]
    builtin = metric.run([{"id": f"c{i}", "question": q, "expected_answer": e,
                           "retrieval_context": nodes} for i, (q, e, nodes, _) in
                          enumerate(table)], make_judge())
    ported = port_scores(make_judge(), script, cases)
    hand = [expected for *_, expected in table]
    assert [c.score for c in builtin] == pytest.approx(hand)
    assert [getattr(p, "score", p) for p in ported] == pytest.approx(hand)
    checks = [[c.passed for c in p.checks] for p in ported]
    if metric is ContextualPrecision:
        assert checks == [[n in RELEVANT for n in nodes] for _, _, nodes, _ in table]


def test_the_port_without_a_proxy_is_an_execution_error():
    """Offline (no LLM judge, so no proxy): AgentV's example returns score 0; the port fails."""
    grader = ScriptGrader(f"{sys.executable} {REPO / 'data' / 'graders' / 'contextual_precision.py'}")
    got = asyncio.run(run_script(grader, agentv_case(*PRECISION[0][:3]),
                                 script_environment(None), threshold=0.5))
    assert got.code == "grader_exit" and "no provider proxy" in got.cause
