"""Contextual precision: a Python port of AgentV's example script grader.

Ported from EntityProcess/agentv ``examples/features/script-grader-with-llm-calls/scripts/
contextual-precision.ts`` (same prompts, same formula): one LLM call per retrieved node through
the provider proxy (``/invokeBatch``) decides its relevance, then

    score = (1/R) * sum_k precision@k * r_k        (R = relevant nodes, r_k = 1 if relevant)

The retrieval context is read from ``expected_output[].tool_calls[].output.results``, as there.
Changes, each so that no verdict is invented: where the TypeScript returns score 0 (no context,
no proxy, a reply that does not parse, a failed call), this port writes the cause to stderr and
exits 1, an execution error that agenteval keeps out of n and c; the result is written in the
documented contract ``{score, reason, checks}`` (pass left to the run's threshold, as AgentV's
scoreToVerdict does); the request names no ``provider`` override (the run has one judge).
Needs the run to have an LLM judge (``--judge llm``); ``max_calls`` >= the number of nodes.
"""

from __future__ import annotations

import json
import sys

from _agentv import (ProviderError, create_provider_client, fail, first_json_object,
                     message_text, retrieval_context)

SYSTEM = ("You are a precise relevance grader for RAG systems. Determine if a retrieved node "
          "contains information useful for answering the given question. Output valid JSON "
          "only.")


def question(input_text: str, criteria: str, node: str, rank: int) -> str:
    expected = f"Expected Answer: {criteria}" if criteria else ""
    return f"""Determine if this retrieved context node is relevant to answering the question.

Question: {input_text}
{expected}

Retrieved Node (Rank {rank}):
{node}

Is this node relevant to answering the question? Respond with JSON only:
{{
  "relevant": true or false,
  "reasoning": "brief explanation"
}}"""


def main() -> None:
    case = json.load(sys.stdin)
    input_text = message_text(case.get("input") or [], "user")
    nodes = retrieval_context(case.get("expected_output") or [])
    if not nodes:
        fail("no retrieval context in expected_output[].tool_calls[].output.results")
    provider = create_provider_client()
    if provider is None:
        fail("no provider proxy: contextual precision needs an LLM judge (--judge llm)")
    criteria = case.get("criteria") or ""
    try:
        replies = provider.invoke_batch([
            {"question": question(input_text, criteria, node, i + 1), "systemPrompt": SYSTEM}
            for i, node in enumerate(nodes)])
        verdicts = [first_json_object(r.get("rawText") or "") for r in replies]
    except ProviderError as exc:
        fail(str(exc))
    relevant = []
    for i, v in enumerate(verdicts):
        if not isinstance(v.get("relevant"), bool):
            fail(f"node {i + 1}: 'relevant' is not true/false in {v!r}")
        relevant.append(v["relevant"])
    checks = [{"text": f"Node {i + 1}: {'relevant' if r else 'irrelevant'}", "pass": r,
               "reason": str(v.get("reasoning", ""))}
              for i, (r, v) in enumerate(zip(relevant, verdicts))]
    total = sum(relevant)
    if total == 0:
        print(json.dumps({"score": 0.0, "reason": f"Evaluated {len(nodes)} nodes, none were "
                          "relevant to the question.", "checks": checks}))
        return
    found, weighted = 0, 0.0
    for k, r in enumerate(relevant):
        if r:
            found += 1
            weighted += found / (k + 1)
    score = weighted / total
    print(json.dumps({"score": score, "reason": f"{total}/{len(nodes)} nodes relevant; "
                      f"rank-weighted precision {score:.3f}", "checks": checks}))


if __name__ == "__main__":
    main()
