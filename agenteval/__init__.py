"""agenteval: evaluate AI agents and RAG pipelines with honest statistics.

Public names are imported lazily, so ``import agenteval`` stays fast and pulls in no heavy or
optional library (numpy/scipy come with the first estimator used; openai/instructor with the
LLM judge; pymc/arviz/matplotlib with plots).
"""

from __future__ import annotations

from agenteval._util.lazy import lazy_exports

from agenteval._util.version import __version__

_EXPORTS = {
    "Agentic": "agenteval.metrics.agentic",
    "AgenticResults": "agenteval.results.agentic",
    "AgentEvalError": "agenteval.errors",
    "DataError": "agenteval.errors",
    "ConfigError": "agenteval.errors",
    "JudgeError": "agenteval.errors",
    "OutputError": "agenteval.errors",
    "Dataset": "agenteval.schemas.common",
    "Batch": "agenteval.schemas.common",
    "AgenticMetric": "agenteval.schemas.results",
    "ToolCorrectnessScore": "agenteval.schemas.results",
    "FrequentistMode": "agenteval.statistical.modes",
    "BayesianMode": "agenteval.statistical.modes",
    "pass_at_k": "agenteval.statistical.estimators",
    "pass_pow_k": "agenteval.statistical.estimators",
    "plan": "agenteval.statistical.plan",
    "plan_labels": "agenteval.results.calibration",
    "load_labels": "agenteval.core.labels",
    "Retriever": "agenteval.core.retriever",
    "load_datasets": "agenteval.core.retriever",
    "select": "agenteval.core.selection",
    "load_results": "agenteval.results.io",
    "OfflineJudge": "agenteval.judge.offline",
    "LLMJudge": "agenteval.judge.llm",
    "ContextualPrecision": "agenteval.metrics.rag",
    "ContextualRecall": "agenteval.metrics.rag",
    "load_rag_cases": "agenteval.core.rag",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


__getattr__, __dir__ = lazy_exports("agenteval", _EXPORTS, globals())


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext agenteval``: register ``%agentic_eval`` (IPython is imported only here)."""
    from agenteval.jupyter import load_ipython_extension as load

    load(ipython)
