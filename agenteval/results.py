"""Result containers: a list of per-conversation metrics that also summarises the suite.

``AgenticResults`` is a ``list`` of ``AgenticMetric`` (so Fair Forge code that iterates over the
result keeps working) with ``summary()``, ``to_dataframe()``, ``to_json()`` and an HTML view.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from agenteval.judge.base import JudgeRun
from agenteval.schemas.results import RESULTS_VERSION, AgenticMetric

if TYPE_CHECKING:
    import pandas as pd

    from agenteval.statistical.modes import PassEstimate, StatisticalMode


@dataclass(frozen=True)
class RunSettings:
    """The options one evaluation ran with."""

    k: int
    threshold: float
    tool_threshold: float
    tool_weights: Mapping[str, float]
    mode: StatisticalMode


class SuiteRow(BaseModel):
    """Suite-level estimates for one group of conversations (all, or one agent)."""

    model_config = ConfigDict(extra="forbid")

    group: str = Field(description="'all' or an assistant_id.")
    level: Literal["suite", "agent"] = Field(description="'suite' for all conversations, else one agent.")
    conversations: int = Field(description="Conversations in the group.")
    complete: int = Field(
        description="Conversations with every interaction judged; only these enter the rate."
    )
    fully_correct: int = Field(description="Complete conversations with every interaction correct.")
    rate: float = Field(description="Estimated share of fully correct conversations (p).")
    rate_low: float = Field(description="Lower interval bound of p.")
    rate_high: float = Field(description="Upper interval bound of p.")
    pass_at_k: float = Field(description="1-(1-p)^k: at least one of k new conversations fully correct.")
    pass_at_k_low: float
    pass_at_k_high: float
    pass_pow_k: float = Field(description="p^k: all of k new conversations fully correct.")
    pass_pow_k_low: float
    pass_pow_k_high: float
    tasks: int = Field(description="Tasks (assistant_id, task_id) with at least k complete attempts.")
    task_pass_at_k: float = Field(description="Mean over those tasks of the unbiased pass@k (Chen et al.).")
    task_pass_pow_k: float = Field(description="Mean over those tasks of the unbiased pass^k (tau-bench).")
    task_pass_at_k_se: float = Field(description="Standard error of task_pass_at_k across tasks.")
    task_pass_pow_k_se: float = Field(description="Standard error of task_pass_pow_k across tasks.")
    interactions_judged: int = Field(description="Interactions the judge scored.")
    judge_errors: int = Field(description="Interactions the judge could not score (kept out of n, c).")


class AgentComparison(BaseModel):
    """Agent A against agent B on the share of fully correct conversations."""

    model_config = ConfigDict(extra="forbid")

    agent_a: str
    agent_b: str
    rate_a: float = Field(description="Estimated rate of A (as in A's summary row).")
    rate_b: float = Field(description="Estimated rate of B.")
    difference: float = Field(description="Estimate of p_A - p_B.")
    difference_low: float = Field(description="Lower interval bound of p_A - p_B.")
    difference_high: float = Field(description="Upper interval bound of p_A - p_B.")
    prob_a_better: float = Field(
        description="Posterior P(p_A > p_B) (Bayesian mode); NaN in frequentist mode."
    )


class SuiteSummary(BaseModel):
    """Suite-level results: one row for all conversations, then one per agent."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(default=RESULTS_VERSION, description="Results format version.")
    k: int = Field(description="k of pass@k / pass^k.")
    method: str = Field(description="How estimates and intervals were computed.")
    rows: list[SuiteRow] = Field(description="'all' first, then each assistant_id.")
    comparisons: list[AgentComparison] = Field(
        default_factory=list, description="Every pair of agents, in order of first appearance."
    )
    comparison_method: str = Field(default="", description="How comparisons were computed.")
    judge: dict[str, Any] = Field(description="What the judge did: calls, cache hits, errors, usage.")

    def comparisons_dataframe(self) -> pd.DataFrame:
        """One row per pair of agents."""
        import pandas as pd

        return pd.DataFrame([c.model_dump() for c in self.comparisons])

    def to_dataframe(self) -> pd.DataFrame:
        """One row per group."""
        import pandas as pd

        return pd.DataFrame([r.model_dump() for r in self.rows]).set_index("group")

    def to_text(self) -> str:
        """A plain-text table for terminals and logs."""
        k = self.k
        head = (f"{'group':<22}{'convs':>6}{'compl':>6}{'full':>6}{'rate [interval]':>24}"
                f"{f'pass@{k} [interval]':>26}{f'pass^{k} [interval]':>26}{'tasks':>7}"
                f"{f'task pass@{k}':>14}{'errors':>8}")
        lines = [f"method: {self.method}; rate = full / compl (conversations with every "
                 "interaction judged)", head, "-" * len(head)]
        for r in self.rows:
            lines.append(
                f"{r.group[:21]:<22}{r.conversations:>6}{r.complete:>6}{r.fully_correct:>6}"
                f"{format_interval(r.rate, r.rate_low, r.rate_high):>24}"
                f"{format_interval(r.pass_at_k, r.pass_at_k_low, r.pass_at_k_high):>26}"
                f"{format_interval(r.pass_pow_k, r.pass_pow_k_low, r.pass_pow_k_high):>26}"
                f"{r.tasks:>7}{_num(r.task_pass_at_k):>14}{r.judge_errors:>8}"
            )
        if self.comparisons:
            lines += ["", f"agent comparisons ({self.comparison_method}):"]
            for cmp in self.comparisons:
                better = ("" if math.isnan(cmp.prob_a_better)
                          else f"  P(A > B) = {_prob(cmp.prob_a_better)}")
                lines.append(f"  A={cmp.agent_a} vs B={cmp.agent_b}: p_A - p_B = "
                             f"{format_interval(cmp.difference, cmp.difference_low, cmp.difference_high)}{better}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from agenteval.display import summary_html

        return summary_html(self)

    def __str__(self) -> str:
        return self.to_text()


class AgenticResults(list[AgenticMetric]):
    """Per-conversation results, in input order, with suite-level views."""

    def __init__(self, metrics: Iterable[AgenticMetric], *, settings: RunSettings,
                 judge_run: JudgeRun, method: str) -> None:
        super().__init__(metrics)
        self.settings = settings
        self.judge_run = judge_run
        self.method = method
        self._summary: SuiteSummary | None = None

    @property
    def k(self) -> int:
        return self.settings.k

    def summary(self) -> SuiteSummary:
        """Suite-level estimates (computed once, vectorised over groups)."""
        if self._summary is None:
            self._summary = _summarise(self)
        return self._summary

    def to_dataframe(self) -> pd.DataFrame:
        """One row per conversation (scalar fields; per-interaction lists left out)."""
        import pandas as pd

        skip = {"correctness_scores", "correct_indices", "tool_correctness_scores", "interactions"}
        return pd.DataFrame([m.model_dump(exclude=skip) for m in self])

    def interactions_dataframe(self) -> pd.DataFrame:
        """One row per interaction, with judge score, tool components and errors."""
        import pandas as pd

        rows = []
        for m in self:
            for index, r in enumerate(m.interactions):
                tool = r.tool_correctness
                rows.append({
                    "session_id": m.session_id, "assistant_id": m.assistant_id, "index": index,
                    "qa_id": r.qa_id, "score": r.score, "is_correct": r.is_correct,
                    "judge_error": r.judge_error, "reasoning": r.reasoning,
                    "tool_selection": tool.tool_selection_correct if tool else None,
                    "tool_parameters": tool.parameter_accuracy if tool else None,
                    "tool_sequence": tool.sequence_correct if tool else None,
                    "tool_utilization": tool.result_utilization if tool else None,
                    "tool_overall": tool.overall_correctness if tool else None,
                    "tool_correct": tool.is_correct if tool else None,
                    "tool_reasoning": tool.reasoning if tool else None,
                })
        return pd.DataFrame(rows)

    def to_json(self) -> dict[str, Any]:
        """Everything, as JSON-ready data (NaN becomes null)."""
        return _json_safe({
            "version": RESULTS_VERSION,
            "settings": {
                "k": self.settings.k, "threshold": self.settings.threshold,
                "tool_threshold": self.settings.tool_threshold,
                "tool_weights": dict(self.settings.tool_weights), "method": self.method,
            },
            "summary": self.summary().model_dump(),
            "conversations": [m.model_dump() for m in self],
        })

    def _repr_html_(self) -> str:
        from agenteval.display import results_html

        return results_html(self)

    def __repr__(self) -> str:
        return f"AgenticResults({len(self)} conversations, k={self.k}, method={self.method!r})"


def without_data(est: PassEstimate, n: np.ndarray) -> PassEstimate:
    """NaN wherever nothing was observed (n == 0): a prior is not a result to report."""
    empty = np.asarray(n) == 0
    if not empty.any():
        return est
    values = {f.name: np.where(empty, np.nan, getattr(est, f.name))
              for f in fields(est) if f.name != "method"}
    return replace(est, **values)


def _summarise(results: AgenticResults) -> SuiteSummary:
    """Suite rows use complete cases: only conversations with every interaction judged.

    Dropping only the conversations whose judged part was all correct (their outcome is unknown)
    while keeping those already known to fail would bias the rate down; complete cases do not,
    as long as judge failures are unrelated to correctness.
    """
    agents: dict[str, list[AgenticMetric]] = {}
    for m in results:
        agents.setdefault(m.assistant_id, []).append(m)
    groups: list[tuple[str, str, list[AgenticMetric]]] = [("all", "suite", list(results))]
    if len(agents) > 1:
        groups += [(name, "agent", members) for name, members in agents.items()]
    n = np.array([sum(m.judge_errors == 0 for m in g[2]) for g in groups])
    c = np.array([sum(m.judge_errors == 0 and m.is_fully_correct is True for m in g[2])
                  for g in groups])
    est = without_data(results.settings.mode.estimate(n, c, results.k), n)
    rows = []
    for i, (name, level, members) in enumerate(groups):
        rows.append(SuiteRow(
            group=name, level=level, conversations=len(members), complete=int(n[i]),
            fully_correct=int(c[i]),
            rate=est.rate[i], rate_low=est.rate_low[i], rate_high=est.rate_high[i],
            pass_at_k=est.pass_at_k[i], pass_at_k_low=est.pass_at_k_low[i],
            pass_at_k_high=est.pass_at_k_high[i], pass_pow_k=est.pass_pow_k[i],
            pass_pow_k_low=est.pass_pow_k_low[i], pass_pow_k_high=est.pass_pow_k_high[i],
            **_task_estimates(members, results.k),
            interactions_judged=sum(m.total_interactions for m in members),
            judge_errors=sum(m.judge_errors for m in members),
        ))
    run = results.judge_run
    judge = {"judge": run.judge, "calls": run.calls, "cache_hits": run.cache_hits,
             "errors": run.errors, "not_judged_budget": run.not_judged_budget,
             "prompt_tokens": run.prompt_tokens, "completion_tokens": run.completion_tokens,
             **run.details}
    comparisons, comparison_method = _compare_agents(rows[1:], n[1:], c[1:], results.settings.mode)
    return SuiteSummary(k=results.k, method=results.method, rows=rows, comparisons=comparisons,
                        comparison_method=comparison_method, judge=_json_safe(judge))


def _compare_agents(rows: list[SuiteRow], n: np.ndarray, c: np.ndarray,
                    mode: StatisticalMode) -> tuple[list[AgentComparison], str]:
    """Every pair of agents, compared by the run's statistical mode in one vectorised call."""
    pairs = [(i, j) for i in range(len(rows)) for j in range(i + 1, len(rows))]
    if not pairs:
        return [], ""
    a, b = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    out = mode.compare(n[a], c[a], n[b], c[b])
    empty = (n[a] == 0) | (n[b] == 0)  # nothing judged on one side: a prior, not a comparison
    out.update({key: np.where(empty, np.nan, out[key])
                for key in ("mean_diff", "ci_low", "ci_high", "prob_greater")})
    comparisons = [
        AgentComparison(
            agent_a=rows[i].group, agent_b=rows[j].group, rate_a=rows[i].rate, rate_b=rows[j].rate,
            difference=out["mean_diff"][m], difference_low=out["ci_low"][m],
            difference_high=out["ci_high"][m], prob_a_better=out["prob_greater"][m],
        )
        for m, (i, j) in enumerate(pairs)
    ]
    return comparisons, out["method"]


def _task_estimates(members: list[AgenticMetric], k: int) -> dict[str, Any]:
    """Per-task unbiased pass@k / pass^k over repeated attempts, averaged over tasks.

    A task is one (assistant_id, task_id): attempts by different agents are never pooled.
    """
    from agenteval.statistical.estimators import pass_at_k_unbiased, pass_pow_k_unbiased

    attempts: dict[tuple[str, str], list[bool]] = {}
    for m in members:
        if m.task_id is not None and m.judge_errors == 0:
            attempts.setdefault((m.assistant_id, m.task_id), []).append(m.is_fully_correct)
    eligible = [v for v in attempts.values() if len(v) >= k]
    if not eligible:
        nan = float("nan")
        return {"tasks": 0, "task_pass_at_k": nan, "task_pass_pow_k": nan,
                "task_pass_at_k_se": nan, "task_pass_pow_k_se": nan}
    n = np.array([len(v) for v in eligible])
    c = np.array([sum(v) for v in eligible])
    at, pw = pass_at_k_unbiased(n, c, k), pass_pow_k_unbiased(n, c, k)
    se = (lambda x: float(np.std(x, ddof=1) / math.sqrt(len(x))) if len(x) > 1 else float("nan"))
    return {"tasks": len(eligible), "task_pass_at_k": float(np.mean(at)),
            "task_pass_pow_k": float(np.mean(pw)), "task_pass_at_k_se": se(at),
            "task_pass_pow_k_se": se(pw)}


def format_interval(value: float, low: float | None, high: float | None) -> str:
    """'0.500 [0.100, 0.900]'; 'n/a' for an undefined value; the value alone without bounds."""
    if _missing(value):
        return "n/a"
    if _missing(low) or _missing(high):
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _prob(x: float) -> str:
    """Probabilities near 0 or 1 keep their magnitude visible (4.1e-04, not 0.000)."""
    return f"{x:.3f}" if 0.001 <= x <= 0.999 else f"{x:.1e}" if x < 0.001 else f"1 - {1 - x:.1e}"


def _num(x: float | None) -> str:
    return "n/a" if _missing(x) else f"{x:.3f}"


def _json_safe(obj: Any) -> Any:
    """NaN/inf -> None, numpy scalars -> Python, recursively."""
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj
