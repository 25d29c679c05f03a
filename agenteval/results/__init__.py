"""Results of an evaluation: the containers, their rows, and saving / loading.

agentic (``AgenticResults``, ``SuiteSummary``, ``SuiteRow``, ``RunSettings``), comparisons (the
comparison, ranking and quality rows), rag (``RagResults``), failures (judge failures grouped by
kind), manifest (what produced a run), io (``load_results``). ``agenteval.results`` was one
module before; its public names are still importable from here (imported lazily, so
``agenteval.results.io`` stays light).
"""

from __future__ import annotations

from agenteval._util.lazy import lazy_exports

_EXPORTS = {
    "AgenticResults": "agenteval.results.agentic",
    "SuiteSummary": "agenteval.results.agentic",
    "SuiteRow": "agenteval.results.agentic",
    "RunSettings": "agenteval.schemas.run",
    "NotIdentifiedWarning": "agenteval.results.agentic",
    "not_identified_note": "agenteval.results.agentic",
    "without_data": "agenteval.results.agentic",
    "AgentComparison": "agenteval.results.comparisons",
    "QualityRow": "agenteval.results.comparisons",
    "RankRow": "agenteval.results.comparisons",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports("agenteval.results", _EXPORTS, globals())
