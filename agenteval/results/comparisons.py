"""Agent comparisons, ranking and the quality table as result rows (presentation only).

``agenteval.statistical.summarise`` computes them from the table of counts (with
``statistical.compare`` and ``statistical.quality``); this module turns its answers into typed
rows for ``SuiteSummary`` (text, HTML, CSV, JSON).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from agenteval.statistical.quality import LABELS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agenteval.statistical.compare import ComparisonTable
    from agenteval.statistical.quality import ConversationAssessment

__all__ = ["AgentComparison", "QualityRow", "RankRow", "conversation_quality", "judge_corrected",
           "summary_fields"]

JUDGE_ONLY = "judge-only"
"""Comparisons that take the judge's verdicts as the truth (no human labels)."""
JUDGE_CORRECTED = "judge-corrected"
"""Comparisons on outcomes corrected for the judge's errors with human labels."""


class AgentComparison(BaseModel):
    """Agent A against agent B on one quantity: paired on shared tasks, else independent."""

    model_config = ConfigDict(extra="forbid")

    agent_a: str
    agent_b: str
    rate_a: float = Field(description="A's value of `quantity` (on the tasks compared).")
    rate_b: float = Field(description="B's value of `quantity`.")
    difference: float = Field(description="Estimate of A - B.")
    difference_low: float = Field(description="Lower interval bound of A - B.")
    difference_high: float = Field(description="Upper interval bound of A - B.")
    prob_a_better: float = Field(
        description="Posterior P(A > B) (Bayesian mode); NaN in frequentist mode."
    )
    method: str = Field(default="independent",
                        description="'paired' (on shared task_ids) or 'independent'.")
    quantity: str = Field(default="success",
                          description="'success' (task-level, or pooled conversations), 'pass@k', "
                          "'pass^k'.")
    scope: str = Field(default="conversations",
                       description="'suite tasks', 'new task' or 'conversations' (pooled).")
    shared_tasks: int = Field(default=0, description="task_ids both agents attempted.")
    p_value: float = Field(default=math.nan, description="Two-sided p-value (frequentist); NaN "
                           "in Bayesian mode.")
    p_adjusted: float = Field(default=math.nan, description="p_value adjusted over the agent pairs "
                              "(see SuiteSummary.comparison_adjust).")
    basis: str = Field(default=JUDGE_ONLY, description="'judge-only' (the judge's verdicts taken "
                       "as the truth) or 'judge-corrected' (the judge's errors corrected with "
                       "the human labels: agenteval.results.calibration).")


class RankRow(BaseModel):
    """One agent's place in the ranking, with its uncertainty."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    quantity: str = Field(description="What agents are ranked by.")
    scope: str = Field(description="'new task' (task-level) or 'conversations' (pooled).")
    mean: float = Field(description="Mean of the agent's draws of the quantity.")
    prob_best: float = Field(description="Share of draws in which the agent is best (posterior "
                             "probability in Bayesian mode; bootstrap share in frequentist mode).")
    expected_rank: float = Field(description="Mean rank over draws (1 = best).")
    rank_low: float
    rank_high: float = Field(description="95% interval of the rank.")
    basis: str = Field(default=JUDGE_ONLY, description="'judge-only' or 'judge-corrected' (as "
                       "AgentComparison.basis).")


class QualityRow(BaseModel):
    """Fair Forge's assessment of one agent (or conversation), with label probabilities."""

    model_config = ConfigDict(extra="forbid")

    unit: str = Field(description="assistant_id (or session_id at the conversation level).")
    pass_at_k: float
    pass_pow_k: float
    label: str | None = Field(description="Reliable / Inconsistent / Needs improvement / "
                              "Unlabelled, from the estimates (None if undefined).")
    prob_reliable: float = Field(description="Posterior probability of the label (NaN in "
                                 "frequentist mode); likewise the three below.")
    prob_inconsistent: float
    prob_needs_improvement: float
    prob_unlabelled: float
    basis: str = Field(description="What the estimates rest on.")


CORRECTED_QUALITY = "on the headline corrected with the human labels' calibration of the judge"
"""What a quality table on judge-corrected outcomes rests on, as its views say it."""


def judge_corrected(quality: Sequence[QualityRow]) -> bool:
    """The quality table rests on judge-corrected outcomes (``results.calibration``'s rows,
    whose basis starts ``judge-corrected``), so its views say so."""
    return any(q.basis.startswith(JUDGE_CORRECTED) for q in quality)


def summary_fields(table: ComparisonTable | None, *, basis: str = JUDGE_ONLY) -> dict[str, Any]:
    """The comparison and ranking fields of ``SuiteSummary`` from the results' comparison table
    (``statistical.summarise.comparisons``, or ``statistical.compare.compare_corrected`` with
    ``basis`` 'judge-corrected'; None with one agent)."""
    if table is None:
        return {}
    comparisons = []
    notes: list[str] = []
    methods: list[str] = []
    for cmp in table.comparisons:
        methods.append(f"{cmp.agent_a} vs {cmp.agent_b}: {cmp.detail}")
        notes += [f"{cmp.agent_a} vs {cmp.agent_b}: {n}" for n in cmp.notes]
        for d in cmp.differences:
            comparisons.append(AgentComparison(
                agent_a=cmp.agent_a, agent_b=cmp.agent_b, rate_a=d.value_a, rate_b=d.value_b,
                difference=d.difference, difference_low=d.low, difference_high=d.high,
                prob_a_better=d.prob_a_better, method=cmp.method, quantity=d.quantity,
                scope=d.scope, shared_tasks=cmp.shared_tasks, p_value=d.p_value,
                p_adjusted=d.p_adjusted, basis=basis))
    ranking = []
    if table.ranking is not None:
        r = table.ranking
        ranking = [RankRow(agent=a, quantity=r.quantity, scope=r.scope, mean=float(r.mean[i]),
                           prob_best=float(r.prob_best[i]), expected_rank=float(r.expected_rank[i]),
                           rank_low=float(r.rank_low[i]), rank_high=float(r.rank_high[i]),
                           basis=basis)
                   for i, a in enumerate(r.agents)]
        methods.append(f"ranking: {r.method}")
    return {"comparisons": comparisons, "comparison_method": "\n".join(methods),
            "comparison_adjust": table.adjust, "comparison_notes": notes, "ranking": ranking}


def conversation_quality(assessment: ConversationAssessment, units: Sequence[str]
                         ) -> list[QualityRow]:
    """The table per conversation as rows: ``assessment`` is the results' value
    (``statistical.quality.assess_conversations``), ``units`` the session_ids in its order."""
    probs = [assessment.probabilities[label].tolist() for label in LABELS]
    return [QualityRow(unit=unit, pass_at_k=at, pass_pow_k=pw, label=label, prob_reliable=rel,
                       prob_inconsistent=inc, prob_needs_improvement=need, prob_unlabelled=rest,
                       basis=assessment.basis)
            for unit, at, pw, label, rel, inc, need, rest in zip(
                units, assessment.pass_at_k.tolist(), assessment.pass_pow_k.tolist(),
                assessment.label.tolist(), *probs, strict=True)]
