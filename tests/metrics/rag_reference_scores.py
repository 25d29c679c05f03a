"""Scores of given verdicts by DeepEval's and RAGAS's own scoring code (run in .cache/ref-venv).

Two ways each: the metric's own scoring method given the verdicts (DeepEval's
``_calculate_score``, RAGAS's ``_calculate_average_precision`` / ``_compute_score``), and the
metric's whole public scoring call (DeepEval's ``measure``, RAGAS v0.4's ``ascore``) with a
model that replays the verdicts instead of asking an LLM, so prompt-to-verdict plumbing is theirs.

Reads JSON on stdin: ``{"precision": [[0/1 per rank], ...], "recall": [[0/1 per statement], ...]}``
and writes JSON on stdout: for each list the score of every reference function below (NaN as
JSON ``NaN``). No LLM is called: each metric gets the verdicts its LLM step would have produced
and only its own scoring method runs. This file must not compute a score itself.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import sys

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

from importlib.metadata import version  # noqa: E402

from deepeval.metrics import ContextualPrecisionMetric, ContextualRecallMetric  # noqa: E402
from deepeval.metrics.contextual_precision.schema import ContextualPrecisionVerdict  # noqa: E402
from deepeval.metrics.contextual_recall.schema import ContextualRecallVerdict  # noqa: E402
from deepeval.models import DeepEvalBaseLLM  # noqa: E402
from deepeval.test_case import LLMTestCase  # noqa: E402
from ragas.llms.base import InstructorBaseRagasLLM  # noqa: E402
from ragas.metrics._context_precision import (  # noqa: E402
    LLMContextPrecisionWithReference,
    NonLLMContextPrecisionWithReference,
    Verification,
)
from ragas.metrics._context_recall import (  # noqa: E402
    ContextRecallClassification,
    LLMContextRecall,
)
from ragas.metrics.collections.context_precision.metric import (  # noqa: E402
    ContextPrecisionWithReference,
)
from ragas.metrics.collections.context_precision.util import ContextPrecisionOutput  # noqa: E402
from ragas.metrics.collections.context_recall.metric import ContextRecall  # noqa: E402
from ragas.metrics.collections.context_recall.util import (  # noqa: E402
    ContextRecallClassification as V2Classification,
)
from ragas.metrics.collections.context_recall.util import ContextRecallOutput  # noqa: E402


class NoLLM(DeepEvalBaseLLM):
    """A model that is never asked: only ``_calculate_score`` runs."""

    def __init__(self) -> None:
        super().__init__(model="no-llm")

    def load_model(self, *args, **kwargs):
        return self

    def generate(self, *args, **kwargs):
        raise RuntimeError("the reference check must not call an LLM")

    async def a_generate(self, *args, **kwargs):
        raise RuntimeError("the reference check must not call an LLM")

    def get_model_name(self, *args, **kwargs) -> str:
        return "no-llm"


class ReplayDeepEval(DeepEvalBaseLLM):
    """Answers each prompt with the next prepared JSON text (DeepEval's custom-model path)."""

    def __init__(self) -> None:
        self.replies: list[str] = []
        super().__init__(model="replay")

    def load_model(self, *args, **kwargs):
        return self

    def generate(self, prompt, *args, **kwargs) -> str:
        return self.replies.pop(0)

    async def a_generate(self, prompt, *args, **kwargs) -> str:
        return self.replies.pop(0)

    def get_model_name(self, *args, **kwargs) -> str:
        return "replay"


class ReplayRagas(InstructorBaseRagasLLM):
    """Answers each prompt with the next prepared structured output (RAGAS v0.4's LLM type)."""

    def __init__(self) -> None:
        self.replies: list = []

    def generate(self, prompt, response_model):
        reply = self.replies.pop(0)
        assert isinstance(reply, response_model), (type(reply), response_model)
        return reply

    async def agenerate(self, prompt, response_model):
        return self.generate(prompt, response_model)


def _json_verdicts(flags: list[int]) -> str:
    return json.dumps({"verdicts": [{"verdict": "yes" if f else "no", "reason": "r"}
                                    for f in flags]})


def deepeval_measure(metric, model: ReplayDeepEval, flags: list[int], *, nodes: int) -> float:
    """``measure`` on a test case with ``nodes`` contexts (at least one: a test case without
    retrieval context is refused), the replayed verdicts being ``flags``."""
    model.replies = [_json_verdicts(flags)]
    case = LLMTestCase(input="q", actual_output="a", expected_output="a",
                       retrieval_context=[f"node {k}" for k in range(nodes)])
    score = metric.measure(case, _show_indicator=False)
    assert not model.replies
    return score


async def ragas_precision_ascore(metric, llm: ReplayRagas, ranks: list[int]) -> float:
    if not ranks:  # ascore refuses an empty list (ValueError)
        return float("nan")
    llm.replies = [ContextPrecisionOutput(reason="r", verdict=r) for r in ranks]
    result = await metric.ascore(user_input="q", reference="a",
                                 retrieved_contexts=[f"node {k}" for k in range(len(ranks))])
    assert not llm.replies
    return result.value


async def ragas_recall_ascore(metric, llm: ReplayRagas, statements: list[int]) -> float:
    llm.replies = [ContextRecallOutput(classifications=[
        V2Classification(statement=f"s{i}", reason="r", attributed=s)
        for i, s in enumerate(statements)])]
    result = await metric.ascore(user_input="q", retrieved_contexts=["n"], reference="a")
    assert not llm.replies
    return result.value


async def ascores(data: dict) -> tuple[list[float], list[float]]:
    llm = ReplayRagas()
    precision, recall = ContextPrecisionWithReference(llm=llm), ContextRecall(llm=llm)
    return ([await ragas_precision_ascore(precision, llm, x) for x in data["precision"]],
            [await ragas_recall_ascore(recall, llm, x) for x in data["recall"]])


def _num(x) -> float:
    x = float(x)
    return x if math.isfinite(x) else float("nan")


def deepeval_precision(metric: ContextualPrecisionMetric, ranks: list[int]) -> float:
    metric.verdicts = [ContextualPrecisionVerdict(verdict="yes" if r else "no", reason="")
                       for r in ranks]
    return metric._calculate_score()


def deepeval_recall(metric: ContextualRecallMetric, statements: list[int]) -> float:
    metric.verdicts = [ContextualRecallVerdict(verdict="yes" if s else "no", reason="")
                       for s in statements]
    return metric._calculate_score()


def main() -> None:
    data = json.load(sys.stdin)
    de_p = ContextualPrecisionMetric(model=NoLLM(), include_reason=False, async_mode=False)
    de_r = ContextualRecallMetric(model=NoLLM(), include_reason=False, async_mode=False)
    rg_llm_p = LLMContextPrecisionWithReference()
    rg_r = LLMContextRecall()
    replay = ReplayDeepEval()
    de_p_measure = ContextualPrecisionMetric(model=replay, include_reason=False, async_mode=False)
    de_r_measure = ContextualRecallMetric(model=replay, include_reason=False, async_mode=False)
    v2_precision, v2_recall = asyncio.run(ascores(data))
    precision = [{
        "deepeval": deepeval_precision(de_p, ranks),
        "deepeval_measure": deepeval_measure(de_p_measure, replay, ranks, nodes=max(len(ranks), 1)),
        "ragas_collections_ascore": v2,
        "ragas": rg_llm_p._calculate_average_precision(
            [Verification(reason="", verdict=r) for r in ranks]),
        # these two methods read no attribute of self (the non-LLM metric's constructor needs
        # rapidfuzz for its string distance, which scoring never uses)
        "ragas_nonllm": NonLLMContextPrecisionWithReference._calculate_average_precision(
            None, list(ranks)),
        "ragas_collections": ContextPrecisionWithReference._calculate_average_precision(
            None, list(ranks)),
    } for ranks, v2 in zip(data["precision"], v2_precision)]
    recall = [{
        "deepeval": deepeval_recall(de_r, statements),
        "deepeval_measure": deepeval_measure(de_r_measure, replay, statements, nodes=1),
        "ragas_collections_ascore": v2,
        "ragas": rg_r._compute_score([ContextRecallClassification(statement=f"s{i}", reason="",
                                                                  attributed=s)
                                      for i, s in enumerate(statements)]),
    } for statements, v2 in zip(data["recall"], v2_recall)]
    out = {"versions": {p: version(p) for p in ("deepeval", "ragas")},
           "precision": [{k: _num(v) for k, v in row.items()} for row in precision],
           "recall": [{k: _num(v) for k, v in row.items()} for row in recall],
           "types": {"deepeval_precision_empty": type(deepeval_precision(de_p, [])).__name__,
                     "deepeval_recall_empty": type(deepeval_recall(de_r, [])).__name__}}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
