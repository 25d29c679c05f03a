"""Result models. Field names of ``AgenticMetric`` and ``ToolCorrectnessScore`` follow Fair Forge.

Undefined values are ``NaN`` (a rate over zero judged interactions, an unbiased estimator with
k > n) or ``None`` (not applicable), never 0.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RESULTS_VERSION = "1"

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


class AgenticMetric(BaseModel):
    """Per-conversation result (compat with Fair Forge's ``AgenticMetric``)."""

    model_config = ConfigDict(extra="forbid")

    session_id: str = Field(description="Conversation id.")
    assistant_id: str = Field(description="Agent id.")
    task_id: str | None = Field(default=None, description="Task id, for repeated attempts.")
    total_interactions: int = Field(description="n: interactions judged (judge errors excluded).")
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
