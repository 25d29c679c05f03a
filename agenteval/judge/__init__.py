"""Judges: the offline rules and the LLM judge (instructor + aiohttp, imported only when used)."""

from __future__ import annotations

from agenteval._util.lazy import lazy_exports

_EXPORTS = {
    "Judge": "agenteval.judge.base",
    "AnswerItem": "agenteval.judge.base",
    "UtilizationItem": "agenteval.judge.base",
    "Verdict": "agenteval.judge.base",
    "JudgeFailure": "agenteval.judge.base",
    "JudgeRun": "agenteval.judge.base",
    "LLMJudge": "agenteval.judge.llm",
    "JudgeCache": "agenteval.judge.cache",
    "default_cache_path": "agenteval.judge.cache",
    "PROMPT_VERSION": "agenteval.judge.prompts",
    "AnswerVerdict": "agenteval.judge.verdicts",
    "UtilizationVerdict": "agenteval.judge.verdicts",
    "NodeVerdict": "agenteval.judge.verdicts",
    "NodeRelevanceVerdict": "agenteval.judge.verdicts",
    "StatementsVerdict": "agenteval.judge.verdicts",
    "AttributionVerdict": "agenteval.judge.verdicts",
    "AttributionsVerdict": "agenteval.judge.verdicts",
    "NodeRelevanceItem": "agenteval.judge.verdicts",
    "StatementsItem": "agenteval.judge.verdicts",
    "AttributionItem": "agenteval.judge.verdicts",
    "OfflineJudge": "agenteval.judge.offline",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports("agenteval.judge", _EXPORTS, globals())
