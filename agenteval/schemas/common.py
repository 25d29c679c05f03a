"""Input models: one Dataset is one conversation, made of Batches (interactions).

Field names follow Fair Forge / Gaussia, so their JSON files and dicts load unchanged. The
tool dicts (``agentic``, ``ground_truth_agentic``) are validated into typed models, which still
answer ``obj["key"]`` and ``obj.get("key")`` so code written against the dicts keeps working.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class _DictAccess(BaseModel):
    """Lets a typed model be read like the dict it was validated from."""

    def __getitem__(self, key: str) -> Any:
        if key not in type(self).model_fields:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default) if key in type(self).model_fields else default


class ToolCall(_DictAccess):
    """A tool call the agent made."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool_name: str = Field(min_length=1, description="Name of the tool that was called.")
    parameters: dict[str, Any] = Field(default_factory=dict, description="Arguments passed.")
    result: Any = Field(default=None, description="What the tool returned, if logged.")
    step: int | None = Field(default=None, description="Position in the agent's call order.")


class ExpectedTool(_DictAccess):
    """A tool call the reference solution makes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool_name: str = Field(min_length=1, description="Name of the expected tool.")
    parameters: dict[str, Any] = Field(default_factory=dict, description="Expected arguments.")
    step: int | None = Field(default=None, description="Expected position in the call order.")


class AgenticTrace(_DictAccess):
    """What the agent did with tools in one interaction (``Batch.agentic``)."""

    model_config = ConfigDict(extra="forbid")

    tools_used: list[ToolCall] = Field(default_factory=list, description="Calls, in call order.")
    final_answer_uses_tools: bool | None = Field(
        default=None, description="Self-reported: does the answer use the tool results? None if unknown."
    )


class GroundTruthAgentic(_DictAccess):
    """The expected tool use for one interaction (``Batch.ground_truth_agentic``)."""

    model_config = ConfigDict(extra="forbid")

    expected_tools: list[ExpectedTool] = Field(default_factory=list, description="Expected calls.")
    tool_sequence_matters: bool = Field(
        default=True, description="Whether the expected calls must happen in this order."
    )


class Batch(BaseModel):
    """One interaction: a user query, the agent's answer, and the references to judge it by."""

    model_config = ConfigDict(extra="forbid")

    qa_id: str = Field(min_length=1, description="Identifier of the interaction.")
    query: str = Field(description="What the user asked.")
    assistant: str = Field(description="What the agent answered.")
    ground_truth_assistant: str | None = Field(default=None, description="Reference answer.")
    observation: str | None = Field(default=None, description="Free-form note or retrieved context.")
    agentic: AgenticTrace | None = Field(default=None, description="Tools the agent used.")
    ground_truth_agentic: GroundTruthAgentic | None = Field(
        default=None, description="Tools the agent was expected to use."
    )
    logprobs: dict[str, Any] | None = Field(default=None, description="Optional token logprobs.")
    weight: float | None = Field(default=None, ge=0, description="Optional interaction weight.")

    @field_validator("qa_id", mode="before")
    @classmethod
    def _id_as_text(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v


class Dataset(BaseModel):
    """One conversation between a user and an assistant (agent)."""

    model_config = ConfigDict(extra="forbid")

    session_id: str = Field(min_length=1, description="Unique id of the conversation.")
    assistant_id: str = Field(min_length=1, description="Which agent (or agent version) spoke.")
    language: str | None = Field(default="english", description="Conversation language.")
    context: str = Field(default="", description="System prompt or task context.")
    conversation: list[Batch] = Field(description="The interactions, in order; at least one.")
    task_id: str | None = Field(
        default=None, description="Shared by conversations that are repeated attempts at one task."
    )
    metadata: dict[str, Any] = Field(default_factory=dict, description="Anything else to carry.")

    @field_validator("session_id", "task_id", mode="before")
    @classmethod
    def _id_as_text(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("conversation")
    @classmethod
    def _non_empty(cls, v: list[Batch]) -> list[Batch]:
        if not v:
            raise ValueError("conversation is empty: a conversation needs at least one interaction")
        return v
