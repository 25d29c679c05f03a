"""Result models. Field names of ``AgenticMetric`` and ``ToolCorrectnessScore`` follow Fair Forge.

Undefined values are ``NaN`` (a rate over zero judged interactions, an unbiased estimator with
k > n) or ``None`` (not applicable), never 0.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

RESULTS_VERSION = "1"

M = TypeVar("M", bound=BaseModel)
_PLANS: dict[tuple[type, tuple[str, ...]], _Plan] = {}


def trusted(model: type[M], **values: Any) -> M:
    """A result model from values agenteval computed itself, already of the declared types.

    The same object ``model.model_construct(set(values), **values)`` makes (same fields in the
    same order, same ``model_fields_set``), without re-validating what was just computed, and
    with one fields-set shared by every result of a model and key set: a suite of 10,000
    conversations builds 100,000 of them. (Assigning a field of a result later adds a name
    already in the set, so the sharing is invisible.) The plan of where each field comes from
    is worked out once per model and key set (``_Plan``); models it cannot plan for (aliases,
    extra fields allowed, private attributes, post-init hooks) go through ``model_construct``.
    Values from outside (a judge, the data) go through the validating constructor instead.
    """
    key = (model, tuple(values))
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS.setdefault(key, _Plan(model, key[1]))
    if not plan.as_given:
        return plan.build(values)
    m = _new(model)  # every field given, in order (the usual call): the dict is the instance's
    _set_dict(m, values)
    _set_fields_set(m, plan.fields_set)
    _set_extra(m, None)
    _set_private(m, None)
    return m


class _Plan:
    """How ``trusted`` fills one model from one sequence of keys (as ``model_construct`` does)."""

    __slots__ = ("model", "fields_set", "direct", "as_given", "fill")

    def __init__(self, model: type[BaseModel], keys: tuple[str, ...]) -> None:
        fields = model.__pydantic_fields__
        self.model = model
        self.fields_set = set(keys)
        self.direct = (  # nothing model_construct does beyond filling fields and BaseModel's slots
            model.model_config.get("extra") != "allow" and not model.__pydantic_root_model__
            and not model.__pydantic_post_init__ and not model.__private_attributes__
            and model.__new__ is object.__new__
            and all(f.alias is None and f.validation_alias is None for f in fields.values())
            and all(k in fields for k in keys)
            and all(next(c for c in model.__mro__ if name in c.__dict__) is BaseModel
                    for name in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__",
                                 "__pydantic_private__"))
        )
        self.as_given = self.direct and keys == tuple(fields)  # every field, in field order
        # (name, given, field) in field order; field None: required and not given (left out)
        self.fill = tuple((name, name in self.fields_set, None if field.is_required() else field)
                          for name, field in fields.items())

    def build(self, values: dict[str, Any]) -> Any:
        """The instance for any other keys (``trusted`` adopts an ``as_given`` dict itself)."""
        model = self.model
        if not self.direct:
            return model.model_construct(self.fields_set, **values)
        fields_values: dict[str, Any] = {}
        for name, given, field in self.fill:
            if given:
                fields_values[name] = values[name]
            elif field is not None:
                fields_values[name] = field.get_default(call_default_factory=True,
                                                        validated_data=fields_values)
        m = _new(model)
        _set_dict(m, fields_values)
        _set_fields_set(m, self.fields_set)
        _set_extra(m, None)
        _set_private(m, None)
        return m


_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__

UtilizationEvidence = Literal["found", "absent", "ambiguous", "no_results", "judge"]


class ToolCorrectnessScore(BaseModel):
    """How well one interaction used tools, each component in [0, 1]."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool_selection_correct: float = Field(
        description="Matched calls / max(expected, used): missing and extra calls both lower it."
    )
    parameter_accuracy: float = Field(
        description="Mean per-key parameter agreement over expected calls (a missed call counts 0)."
    )
    sequence_correct: float = Field(
        description="Share of matched calls in the expected relative order (1.0 when order does not "
        "matter; 0 when nothing matched)."
    )
    result_utilization: float = Field(
        description="Does the answer use the tool results: evidence in the answer text, the flag, or a judge."
    )
    overall_correctness: float = Field(description="Weighted sum of the four components.")
    is_correct: bool = Field(description="overall_correctness >= tool_threshold.")
    reasoning: str = Field(description="Per-component and per-parameter explanation.")
    utilization_evidence: UtilizationEvidence | None = Field(
        default=None, description="How result_utilization was decided."
    )
    result_cut: bool = Field(
        default=False, description="A call's result was searched only in its first "
        "MAX_RESULT_CHARS characters (agenteval.metrics.evidence); the reasoning names the call."
    )


class GraderCheck(BaseModel):
    """One aspect a grader checked (AgentV's ``checks`` entry, or one rubric criterion)."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(description="What was checked.")
    passed: bool | None = Field(description="Whether it passed; None when its judgment failed.")
    score: float | None = Field(default=None, description="Its score in [0, 1], if given.")
    reason: str = Field(default="", description="Why (or the failure's cause).")


class GraderResult(BaseModel):
    """One grader's result on one interaction: a score, or an error of that grader."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The grader's name (unique in a run).")
    kind: Literal["rubric", "python", "script"] = Field(description="What kind of grader.")
    outcome: bool = Field(default=False, description="True when this grader's pass decides the "
                          "interaction's correctness; False: an extra named score.")
    score: float | None = Field(description="Score in [0, 1]; None on an error.")
    passed: bool | None = Field(description="The grader's pass; None on an error.")
    reason: str = Field(default="", description="The grader's explanation.")
    checks: list[GraderCheck] = Field(default_factory=list, description="Per-aspect results.")
    error: str | None = Field(default=None, description="Why the grader gave no result (a judge "
                              "error for the statistics: kept out of n and c).")
    error_code: str | None = Field(default=None, description="Stable code of the error, e.g. "
                                   "grader_timeout, grader_exit, grader_output, grader_raised.")
    calls: int = Field(default=0, description="LLM calls the grader asked for (proxy or ask).")


class InteractionResult(BaseModel):
    """The verdicts for one interaction."""

    model_config = ConfigDict(extra="forbid")

    qa_id: str = Field(description="Interaction id from the data.")
    score: float | None = Field(description="Answer correctness in [0, 1]; None on a judge error.")
    reasoning: str = Field(default="", description="The judge's explanation, or the error's cause.")
    tool_correctness: ToolCorrectnessScore | None = Field(
        default=None, description="None when no tools were expected and none were used."
    )
    is_correct: bool | None = Field(
        description="score >= threshold and (if tools apply) tools correct; None on a judge error."
    )
    judge_error: str | None = Field(default=None, description="Why the judge could not score it.")
    judge_error_code: str | None = Field(
        default=None, description="Stable code of the failure for grouping (e.g. invalid_verdict, "
        "timeout, http_5xx, as the judge reports it); None when judged or when the judge gives none."
    )
    source: Literal["judged", "given"] = Field(
        default="judged", description="'given': the score came with the data (Batch.score, or "
        "the conversation's outcome); 'judged': the judge gave it."
    )
    graders: list[GraderResult] | None = Field(
        default=None, description="Results of the run's own graders (rubric, Python, script); "
        "None when the run had none."
    )

    def __repr__(self) -> str:
        """One line: the verdict and its cause, not the judge's whole reasoning."""
        return _short_or_pydantic(self, InteractionResult)

    def _short_repr(self) -> str:
        why = self.judge_error or self.reasoning
        why = why if len(why) <= 60 else why[:57] + "..."
        score = "None" if self.score is None else f"{self.score:.3f}"
        return (f"InteractionResult(qa_id={self.qa_id!r}, {_MARK[self.is_correct]}, score={score}"
                f", source={self.source}" + (f", why={why!r}" if why else "") + ")")


_MARK = {True: "ok", False: "wrong", None: "not judged"}


def _short_or_pydantic(record: Any, cls: type) -> str:
    """The record's short repr; pydantic's own for a partly or oddly built one
    (``model_construct``): a repr never raises."""
    try:
        return record._short_repr()
    except Exception:
        return super(cls, record).__repr__()


def _interval(value: float, low: float | None, high: float | None) -> str:
    """'0.500 [0.100, 0.900]' (present.text.format_interval, which this layer cannot import)."""
    if value is None or value != value:
        return "n/a"
    if low is None or high is None or low != low or high != high:
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


class AgenticMetric(BaseModel):
    """Per-conversation result (compat with Fair Forge's ``AgenticMetric``)."""

    model_config = ConfigDict(extra="forbid")

    session_id: str = Field(description="Conversation id.")
    assistant_id: str = Field(description="Agent id.")
    task_id: str | None = Field(default=None, description="Task id, for repeated attempts.")
    attempt: int | None = Field(default=None, description="Attempt number from the data "
                                "(tau-bench trial, Inspect epoch).")
    source: Literal["judged", "given", "mixed"] = Field(
        default="judged", description="Where correctness came from: 'given' (the conversation's "
        "outcome, or a given score on every interaction), 'judged', or 'mixed'."
    )
    total_interactions: int = Field(description="n: interactions judged or given a score (judge "
                                    "errors excluded); 1 for a conversation with a given outcome, "
                                    "which is one graded unit.")
    correct_interactions: int = Field(description="c: interactions judged correct.")
    is_fully_correct: bool | None = Field(
        description="Every interaction correct. None when the judged ones are all correct but some "
        "could not be judged (unknown)."
    )
    threshold: float = Field(description="Answer-correctness threshold used.")
    correctness_scores: list[float | None] = Field(description="Judge score per interaction (None = error).")
    correct_indices: list[int] = Field(description="Indices of correct interactions.")
    tool_correctness_scores: list[ToolCorrectnessScore | None] = Field(
        description="Tool correctness per interaction (None = no tools involved)."
    )
    k: int = Field(description="k of pass@k / pass^k.")
    pass_at_k: float = Field(description="Estimate of 1-(1-p)^k with p the interaction success rate.")
    pass_at_k_ci_low: float | None = Field(default=None, description="Lower interval bound.")
    pass_at_k_ci_high: float | None = Field(default=None, description="Upper interval bound.")
    pass_pow_k: float = Field(description="Estimate of p^k.")
    pass_pow_k_ci_low: float | None = Field(default=None, description="Lower interval bound.")
    pass_pow_k_ci_high: float | None = Field(default=None, description="Upper interval bound.")
    pass_at_k_unbiased: float = Field(
        description="1 - C(n-c,k)/C(n,k) (Chen et al. 2021); NaN when k > n."
    )
    pass_pow_k_unbiased: float = Field(description="C(c,k)/C(n,k) (tau-bench); NaN when k > n.")
    judge_errors: int = Field(default=0, description="Interactions the judge failed to score.")
    interactions: list[InteractionResult] = Field(default_factory=list, description="Per-interaction detail.")

    def __repr__(self) -> str:
        """Three lines with the key numbers (``model_dump()`` has every field)."""
        return _short_or_pydantic(self, AgenticMetric)

    def _short_repr(self) -> str:
        where = f"agent {self.assistant_id!r}" + (f", task {self.task_id!r}" if self.task_id else "")
        where += f", attempt {self.attempt}" if self.attempt is not None else ""
        full = {True: "yes", False: "no", None: "unknown"}[self.is_fully_correct]
        errors = f", {self.judge_errors} not judged" if self.judge_errors else ""
        marks = " ".join(f"{r.qa_id}:{_MARK[r.is_correct]}" for r in self.interactions[:12])
        more = f" ... ({len(self.interactions)} in all)" if len(self.interactions) > 12 else ""
        k = self.k
        return (f"AgenticMetric(session {self.session_id!r}, {where}): c/n = "
                f"{self.correct_interactions}/{self.total_interactions} correct{errors}, fully "
                f"correct: {full}, source: {self.source}\n"
                f"  pass@{k} {_interval(self.pass_at_k, self.pass_at_k_ci_low, self.pass_at_k_ci_high)}"
                f"  pass^{k} {_interval(self.pass_pow_k, self.pass_pow_k_ci_low, self.pass_pow_k_ci_high)}\n"
                f"  interactions {marks}{more}  (.interactions: verdicts; .model_dump(): all)")
