"""Input models: one Dataset is one conversation, made of Batches (interactions).

Field names follow Fair Forge / Gaussia, so their JSON files and dicts load unchanged. The
tool dicts (``agentic``, ``ground_truth_agentic``) are validated into typed models, which still
answer ``obj["key"]`` and ``obj.get("key")`` so code written against the dicts keeps working.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class _SharedNames(set):
    """The ``model_fields_set`` of many records of one type and shape (:func:`share_fields_sets`).

    A record takes its own plain copy before an assignment or deletion would change it, and
    copies (``model_copy``, ``copy``) are plain sets, so the sharing is invisible.
    """

    __slots__ = ()

    def __copy__(self) -> set[str]:
        return set(self)

    def __deepcopy__(self, memo: dict) -> set[str]:
        return set(self)


_SHARED_NAMES: dict[tuple[type, frozenset[str]], _SharedNames] = {}
_LAST_SHARED: dict[type, _SharedNames] = {}  # per record type, the shape shared last


class _Record(BaseModel):
    """Base of the input models: a record whose fields-set may be shared (see above)."""

    def __setattr__(self, name: str, value: Any) -> None:
        self._own_fields_set()
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._own_fields_set()
        super().__delattr__(name)

    def _own_fields_set(self) -> None:
        names = self.__pydantic_fields_set__
        if type(names) is _SharedNames:
            object.__setattr__(self, "__pydantic_fields_set__", set(names))


def share_fields_sets(dataset: Dataset) -> Dataset:
    """``dataset`` with each of its records' fields-sets shared with records of the same shape.

    Pydantic gives every validated model its own set of the field names it was given: 200-700
    bytes, a third of the memory of a loaded suite (10,000 conversations hold 280,000 records,
    about 90 MB of sets of the same few names). The loaders call this on what they validate.
    """
    records: list[_Record] = [dataset]
    for batch in dataset.conversation:
        records.append(batch)
        if batch.agentic is not None:
            records.append(batch.agentic)
            records.extend(batch.agentic.tools_used)
        if batch.ground_truth_agentic is not None:
            records.append(batch.ground_truth_agentic)
            records.extend(batch.ground_truth_agentic.expected_tools)
    last = _LAST_SHARED
    for record in records:
        names = record.__pydantic_fields_set__
        kind = type(record)
        shared = last.get(kind)
        if shared is None or shared != names:  # most records have their type's last shape
            key = (kind, frozenset(names))
            shared = _SHARED_NAMES.get(key)
            if shared is None:
                shared = _SHARED_NAMES.setdefault(key, _SharedNames(names))
            last[kind] = shared
        object.__setattr__(record, "__pydantic_fields_set__", shared)
    return dataset


class _DictAccess(_Record):
    """Lets a typed model be read like the dict it was validated from."""

    def __getitem__(self, key: str) -> Any:
        if key not in type(self).model_fields:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default) if key in type(self).model_fields else default


def _unit_number(v: Any, *, allow_bool: bool) -> Any:
    """A finite number in [0, 1] (or a bool where allowed); anything else is an error."""
    if v is None:
        return None
    if isinstance(v, bool):
        if allow_bool:
            return v
        raise ValueError(f"expected a number in [0, 1], got {v!r}")
    if not isinstance(v, (int, float)):
        raise ValueError(f"expected {'true/false or ' if allow_bool else ''}a number in [0, 1], "
                         f"got {v!r}")
    f = float(v)
    if not 0.0 <= f <= 1.0:  # NaN fails too
        raise ValueError(f"expected a number in [0, 1], got {v!r}")
    return f


def _criteria(v: Any) -> Any:
    """Rubric criteria: a non-empty text or a list of them (text, never code)."""
    if v is None:
        return None
    items = [v] if isinstance(v, str) else v
    if not isinstance(items, list) or not items:
        raise ValueError(f"expected a criterion text or a non-empty list of texts, got {v!r}")
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise ValueError(f"each rubric criterion must be a non-empty text, got {item!r}")
    return [item.strip() for item in items]


class ToolCall(_DictAccess):
    """A tool call the agent made."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool_name: str = Field(min_length=1, description="Name of the tool that was called.")
    parameters: dict[str, Any] = Field(default_factory=dict, description="Arguments passed.")
    result: Any = Field(default=None, description="What the tool returned, if logged.")
    step: int | None = Field(default=None, description="Position in the agent's call order.")
    after_answer: bool = Field(
        default=False, description="Made after the turn's final answer text (so it cannot have "
        "fed the answer); set by the transcript importers."
    )


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
    argument_matching: dict[str, str] | None = Field(
        default=None, description="How arguments are compared, per tool or field: key ('*', "
        "'tool', 'tool.field', '*.field') -> rule ('exact' (default), 'normalized', 'numeric', "
        "'numeric:TOL', 'subset', 'superset', 'ignore'); see agenteval.metrics.arguments."
    )

    @field_validator("argument_matching", mode="before")
    @classmethod
    def _rules(cls, v: Any) -> Any:
        from agenteval.errors import ConfigError
        from agenteval.schemas.argument_rules import check_argument_matching

        try:
            return check_argument_matching(v, where="rule")
        except ConfigError as exc:
            raise ValueError(str(exc)) from None


class Batch(_Record):
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
    score: float | None = Field(
        default=None, description="A grader's score in [0, 1] (unit test, human label): used "
        "instead of the judge's; success by the outcome rule (see Dataset.outcome)."
    )
    label: bool | None = Field(
        default=None, description="A human's verdict (true = correct) to calibrate the judge "
        "against; the judge still scores the interaction (agenteval.core.labels).")
    human_score: float | None = Field(
        default=None, description="A human's score in [0, 1] to calibrate the judge against, "
        "compared with the run's threshold; the judge still scores the interaction.")
    rubric: list[str] | None = Field(
        default=None, description="Rubric criteria for this interaction (a text or a list of "
        "texts), each judged pass/fail by the LLM judge (agenteval.judge.rubric)."
    )

    @field_validator("qa_id", mode="before")
    @classmethod
    def _id_as_text(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("score", "human_score", mode="before")
    @classmethod
    def _unit_score(cls, v: Any) -> Any:
        return _unit_number(v, allow_bool=False)

    @field_validator("label", mode="before")
    @classmethod
    def _zero_one(cls, v: Any) -> Any:
        if isinstance(v, int) and not isinstance(v, bool) and v in (0, 1):
            return bool(v)
        if v is not None and not isinstance(v, bool):
            raise ValueError(f"expected true/false or 0/1, got {v!r}")
        return v
    _rubric = field_validator("rubric", mode="before")(classmethod(lambda cls, v: _criteria(v)))


class Dataset(_Record):
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
    outcome: bool | float | None = Field(
        default=None, description="An external grader's verdict on the whole conversation "
        "(environment reward, tests, a human label): true/false, or a number in [0, 1] that is a "
        "success when within 1e-6 of 1 (or >= the run's outcome_threshold). Given: no judge is "
        "asked and the conversation is one graded unit."
    )
    attempt: int | None = Field(
        default=None, ge=0, description="Which attempt at its task this is (tau-bench trial, "
        "Inspect epoch), as the harness numbered it."
    )
    rubric: list[str] | None = Field(
        default=None, description="Rubric criteria for every interaction of this conversation "
        "(added to each interaction's own)."
    )

    _rubric = field_validator("rubric", mode="before")(classmethod(lambda cls, v: _criteria(v)))

    @field_validator("outcome", mode="before")
    @classmethod
    def _outcome(cls, v: Any) -> Any:
        return _unit_number(v, allow_bool=True)

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
