"""Contextual recall: a Python port of AgentV's example script grader.

Ported from EntityProcess/agentv ``examples/features/script-grader-with-llm-calls/scripts/
contextual-recall.ts`` (same prompts, same formula): one LLM call (``/invoke``) extracts the
statements of ``criteria`` (the expected answer), then one call per statement (``/invokeBatch``)
decides whether the retrieval context supports it;

    score = attributable statements / statements

Changes, as in ``contextual_precision.py``: where the TypeScript returns score 0 without a
verdict (no criteria, no context, no proxy, an unparseable reply, a failed call, no statement),
this port exits 1 with the cause on stderr (an execution error, kept out of n and c); the result
is ``{score, reason, checks}``; no ``provider`` override. ``max_calls`` >= 1 + statements.
"""

from __future__ import annotations

import json
import sys

from _agentv import (ProviderError, create_provider_client, fail, first_json_object,
                     message_text, retrieval_context)

EXTRACT_SYSTEM = ("You are a precise statement extractor. Break down answers into distinct, "
                  "verifiable claims. Output valid JSON only.")
ATTRIBUTE_SYSTEM = ("You are a precise attribution verifier. Determine if statements can be "
                    "logically derived from or supported by the given context. A statement is "
                    "attributable if the context contains information that directly supports or "
                    "implies it. Output valid JSON only.")


def extract_question(input_text: str, criteria: str) -> str:
    return f"""Extract all distinct factual statements or claims from the following expected answer.
Each statement should be a self-contained claim that can be independently verified.

Question: {input_text}

Expected Answer:
{criteria}

Extract the statements and respond with JSON only:
{{
  "statements": ["statement 1", "statement 2", ...]
}}"""


def attribute_question(statement: str, context: str) -> str:
    return f"""Determine if the following statement can be attributed to (supported by) the retrieval context.

Statement to verify:
"{statement}"

Retrieval Context:
{context}

Can this statement be supported/attributed to information in the retrieval context?
Respond with JSON only:
{{
  "attributable": true or false,
  "reasoning": "brief explanation",
  "supporting_node": <node number if attributable, or null>
}}"""


def main() -> None:
    case = json.load(sys.stdin)
    criteria = case.get("criteria") or ""
    if not criteria:
        fail("no criteria: contextual recall extracts its statements from the expected answer")
    nodes = retrieval_context(case.get("expected_output") or [])
    if not nodes:
        fail("no retrieval context in expected_output[].tool_calls[].output.results")
    provider = create_provider_client()
    if provider is None:
        fail("no provider proxy: contextual recall needs an LLM judge (--judge llm)")
    input_text = message_text(case.get("input") or [], "user")
    try:
        extracted = first_json_object(provider.invoke(extract_question(input_text, criteria),
                                                      EXTRACT_SYSTEM).get("rawText") or "")
        statements = extracted.get("statements")
        if not isinstance(statements, list) or not all(isinstance(s, str) for s in statements):
            fail(f"'statements' is not a list of texts in {extracted!r}")
        if not statements:
            fail("no statements extracted from the criteria")
        context = "\n\n".join(f"[Node {i + 1}]: {n}" for i, n in enumerate(nodes))
        replies = provider.invoke_batch([
            {"question": attribute_question(s, context), "systemPrompt": ATTRIBUTE_SYSTEM}
            for s in statements])
        verdicts = [first_json_object(r.get("rawText") or "") for r in replies]
    except ProviderError as exc:
        fail(str(exc))
    checks = []
    for statement, v in zip(statements, verdicts):
        if not isinstance(v.get("attributable"), bool):
            fail(f"'attributable' is not true/false in {v!r}")
        node = v.get("supporting_node")
        where = f" (Node {node})" if v["attributable"] and node else ""
        checks.append({"text": f'"{statement}" ' + ("attributable" + where if v["attributable"]
                                                      else "not attributable"),
                       "pass": v["attributable"], "reason": str(v.get("reasoning", ""))})
    hits = sum(c["pass"] for c in checks)
    score = hits / len(statements)
    print(json.dumps({"score": score, "reason": f"{hits}/{len(statements)} statements "
                      "attributable to the retrieval context", "checks": checks}))


if __name__ == "__main__":
    main()
