"""Turn what a user passes as ``model=`` into a Judge."""

from __future__ import annotations

from typing import Any

from agenteval.errors import ConfigError
from agenteval.judge.base import Judge


def resolve_judge(model: Any = None, **llm_options: Any) -> Judge:
    """None or "offline" -> OfflineJudge; a Judge -> itself; a model name or an openai/instructor
    client -> LLMJudge(**llm_options). Options only an LLM judge understands are ignored otherwise.
    """
    if model is None or (isinstance(model, str) and model.lower() == "offline"):
        from agenteval.judge.offline import OfflineJudge

        return OfflineJudge()
    if isinstance(model, Judge):
        return model
    if isinstance(model, type) and issubclass(model, Judge):
        return model()
    try:
        from agenteval.judge.llm import LLMJudge
    except ImportError as exc:  # the extra is missing: say which one
        raise ImportError(
            "the LLM judge needs the 'llm' extra: pip install 'agenteval[llm]'"
        ) from exc
    if isinstance(model, str):
        if not model.strip():
            raise ConfigError("model must be a model name, a client or a Judge, got an empty string")
        return LLMJudge(model, **llm_options)
    return LLMJudge(client=model, **llm_options)
