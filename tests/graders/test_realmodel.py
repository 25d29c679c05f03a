"""Rubric verdicts, judge.ask and the proxy with a real model (llama.cpp + SmolLM2-135M).

The model judges at chance level, so this checks the plumbing with real tokenisation and
grammar-constrained output: each criterion gets a typed verdict or a recorded failure, never an
invented pass; the proxy's free-text replies carry real token usage.
"""

from __future__ import annotations

import json
import sys

import pytest
from pydantic import BaseModel

from agenteval import Agentic
from agenteval.graders import ScriptGrader
from tests.judge.test_llm_realmodel import llama_server  # noqa: F401  (the module's fixture)

pytestmark = pytest.mark.realmodel


class Short(BaseModel):
    short: bool
    reasoning: str


def test_real_model_rubric_ask_and_proxy(llama_server, tmp_path):  # noqa: F811
    from agenteval.judge.llm import LLMJudge

    judge = LLMJudge("smollm2-135m", base_url=llama_server, cache=False, max_concurrency=2,
                     max_reasks=1, timeout=300, progress=False, max_tokens=160)

    def short(case, judge):
        return judge.ask(f"Is this answer shorter than ten words? {case.answer}", Short).short

    script = tmp_path / "ask.py"
    script.write_text(
        "import json, os, sys, urllib.request\nsys.stdin.read()\n"
        "r = urllib.request.Request(os.environ['AGENTV_PROVIDER_PROXY_URL'] + '/invoke', "
        "data=json.dumps({'question': 'Say yes.'}).encode(), headers={'Authorization': "
        "'Bearer ' + os.environ['AGENTV_PROVIDER_PROXY_TOKEN']})\n"
        "reply = json.loads(urllib.request.urlopen(r, timeout=300).read())\n"
        "print(json.dumps({'pass': True, 'score': 1, 'reason': json.dumps(reply['tokenUsage'])}))\n")
    data = [{"session_id": "s", "assistant_id": "a", "conversation": [
        {"qa_id": "q1", "query": "What is the capital of France?", "assistant": "Paris.",
         "ground_truth_assistant": "Paris", "rubric": "The answer names a city"}]}]
    results = Agentic.run(data, judge, 1, rubric="The answer is one word",
                          graders=[short, ScriptGrader(f"{sys.executable} {script}",
                                                        timeout=600)])
    by_name = {g.name: g for g in results[0].interactions[0].graders}
    rubric, asked, proxied = by_name["rubric"], by_name["short"], by_name["ask"]
    assert len(rubric.checks) == 2
    if rubric.error is None:
        assert all(isinstance(c.passed, bool) for c in rubric.checks)
        assert rubric.score == sum(c.passed for c in rubric.checks) / 2
    else:  # a recorded failure of the judge, with its code
        assert rubric.error_code in ("invalid_verdict", "truncated") and rubric.score is None
    assert (asked.error is None and isinstance(asked.passed, bool)) or asked.error_code in (
        "invalid_verdict", "truncated")
    assert proxied.error is None, proxied.error
    usage = json.loads(proxied.reason)
    assert usage["input"] > 5 and usage["output"] >= 1
    run = judge.run_record
    assert run.details["judgments"]["rubric"]["items"] == 2
    assert run.details["judgments"]["grader proxy"]["verdicts"] == 1
    assert run.prompt_tokens > run.calls
