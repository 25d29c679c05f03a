"""Scores of given verdicts by DeepEval's and RAGAS's own scoring code (run in .cache/ref-venv).

Reads JSON on stdin: ``{"precision": [[0/1 per rank], ...], "recall": [[0/1 per statement], ...]}``
and writes JSON on stdout: for each list the score of every reference function below (NaN as
JSON ``NaN``). No LLM is called: each metric gets the verdicts its LLM step would have produced
and only its own scoring method runs. This file must not compute a score itself.
"""

from __future__ import annotations

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
    precision = [{
        "deepeval": deepeval_precision(de_p, ranks),
        "ragas": rg_llm_p._calculate_average_precision(
            [Verification(reason="", verdict=r) for r in ranks]),
        # these two methods read no attribute of self (the non-LLM metric's constructor needs
        # rapidfuzz for its string distance, which scoring never uses)
        "ragas_nonllm": NonLLMContextPrecisionWithReference._calculate_average_precision(
            None, list(ranks)),
        "ragas_collections": ContextPrecisionWithReference._calculate_average_precision(
            None, list(ranks)),
    } for ranks in data["precision"]]
    recall = [{
        "deepeval": deepeval_recall(de_r, statements),
        "ragas": rg_r._compute_score([ContextRecallClassification(statement=f"s{i}", reason="",
                                                                  attributed=s)
                                      for i, s in enumerate(statements)]),
    } for statements in data["recall"]]
    out = {"versions": {p: version(p) for p in ("deepeval", "ragas")},
           "precision": [{k: _num(v) for k, v in row.items()} for row in precision],
           "recall": [{k: _num(v) for k, v in row.items()} for row in recall],
           "types": {"deepeval_precision_empty": type(deepeval_precision(de_p, [])).__name__,
                     "deepeval_recall_empty": type(deepeval_recall(de_r, [])).__name__}}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
