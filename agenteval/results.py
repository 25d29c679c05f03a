"""Result containers: a list of per-conversation metrics that also summarises the suite.

``AgenticResults`` is a ``list`` of ``AgenticMetric`` (so Fair Forge code that iterates over the
result keeps working) with ``summary()``, ``to_dataframe()``, ``to_json()`` and an HTML view.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from agenteval.comparisons import AgentComparison, QualityRow, RankRow
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
    outcome_threshold: float | None = None  # None: a given outcome succeeds within 1e-6 of 1
    argument_matching: Mapping[str, Any] | None = None  # run-wide rules (metrics/arguments.py)


def _f(description: str) -> Any:
    return Field(description=description)


class SuiteRow(BaseModel):
    """Suite-level estimates for one group of conversations (all, or one agent).

    ``pass_at_k`` / ``pass_pow_k`` are the headline: task level (mean over the suite's tasks)
    wherever ``task_id`` repeats, else the pooled plug-in; ``headline`` says which.
    """

    model_config = ConfigDict(extra="forbid")

    group: str = _f("'all' or an assistant_id.")
    level: Literal["suite", "agent"] = _f("'suite' for all conversations, else one agent.")
    conversations: int = _f("Conversations in the group.")
    complete: int = _f("Conversations with every interaction judged.")
    fully_correct: int = _f("Complete conversations with every interaction correct.")
    known_failures: int = _f("Conversations with a judged wrong interaction (complete or not).")
    unknown: int = _f("Conversations whose judged interactions are all correct but some are "
                      "unjudged: outcome unknown (missing data).")
    rate: float = _f("Share of fully correct conversations p: the chance a new conversation is "
                     "fully correct (posterior mean in Bayesian modes).")
    rate_low: float = _f("Lower interval bound of p.")
    rate_high: float = _f("Upper interval bound of p.")
    rate_method: str = _f("'complete cases' or 'post-stratified by length' (with judge errors "
                          "and mixed lengths: unbiased when failures are unrelated to correctness).")
    headline: Literal["tasks", "pooled"] = _f(
        "'tasks': pass_at_k / pass_pow_k are the suite's-task values (task_id repeats); "
        "'pooled': no repeated tasks, they are the pooled plug-in.")
    pass_at_k: float = _f("Headline pass@k (see headline).")
    pass_at_k_low: float
    pass_at_k_high: float
    pass_pow_k: float = _f("Headline pass^k (see headline).")
    pass_pow_k_low: float
    pass_pow_k_high: float
    pooled_pass_at_k: float = _f("1-(1-p)^k from the pooled share p: assumes every conversation "
                                 "is an attempt at an equally hard task (overstates pass@k when "
                                 "tasks differ).")
    pooled_pass_at_k_low: float
    pooled_pass_at_k_high: float
    pooled_pass_pow_k: float = _f("p^k from the pooled share p: assumes equally hard tasks "
                                  "(understates pass^k when tasks differ).")
    pooled_pass_pow_k_low: float
    pooled_pass_pow_k_high: float
    tasks: int = _f("Tasks (assistant_id x task_id pairs) in the group.")
    tasks_with_k: int = _f("Tasks with at least k complete attempts (the unbiased estimators' tasks).")
    max_attempts: int = _f("Most complete attempts at one task.")
    identified: bool = _f("False when k > 1 and no task has two complete attempts: task-level "
                          "pass^k / pass@k are not identified and are NaN.")
    task_pass_at_k: float = _f("pass@k of the suite's tasks: mean over tasks of 1-(1-p_t)^k.")
    task_pass_at_k_low: float
    task_pass_at_k_high: float
    task_pass_pow_k: float = _f("pass^k of the suite's tasks: mean over tasks of p_t^k.")
    task_pass_pow_k_low: float
    task_pass_pow_k_high: float
    new_task_pass_at_k: float = _f("pass@k of a new task from the same population.")
    new_task_pass_at_k_low: float
    new_task_pass_at_k_high: float
    new_task_pass_pow_k: float = _f("pass^k of a new task from the same population.")
    new_task_pass_pow_k_low: float
    new_task_pass_pow_k_high: float
    unbiased_pass_at_k: float = _f("Mean over tasks with >= k attempts of 1-C(n-c,k)/C(n,k) "
                                   "(Chen et al. 2021).")
    unbiased_pass_pow_k: float = _f("Mean over tasks with >= k attempts of C(c,k)/C(n,k) (tau-bench).")
    task_method: str = _f("How the task-level values were computed.")
    note: str = _f("What the numbers cannot say here (e.g. not identified), or ''.")
    interactions_judged: int = _f("Interactions the judge scored.")
    judge_errors: int = _f("Interactions the judge could not score (kept out of n, c).")


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
    diagnostics: list[dict[str, Any]] = Field(
        default_factory=list, description="Hierarchical fits (conversations, tasks): method, "
        "r_hat, ESS, divergences, time; empty in the conjugate and frequentist modes.")
    comparison_adjust: str = Field(default="none", description="How p-values were adjusted over "
                                   "agent pairs: 'holm', 'bh' or 'none' (Bayesian).")
    comparison_notes: list[str] = Field(default_factory=list,
                                        description="What the comparisons could not compute, and why.")
    ranking: list[RankRow] = Field(default_factory=list, description="Agents ranked, with P(best).")
    quality: list[QualityRow] = Field(default_factory=list,
                                      description="Fair Forge's quality table per agent.")
    judge: dict[str, Any] = Field(description="What the judge did: calls, cache hits, errors, usage.")

    def comparisons_dataframe(self) -> pd.DataFrame:
        """One row per pair of agents."""
        import pandas as pd

        return pd.DataFrame([c.model_dump() for c in self.comparisons])

    def ranking_dataframe(self) -> pd.DataFrame:
        """One row per agent: P(best), expected rank and its interval."""
        import pandas as pd

        return pd.DataFrame([r.model_dump() for r in self.ranking], columns=list(RankRow.model_fields))

    def to_dataframe(self) -> pd.DataFrame:
        """One row per group."""
        import pandas as pd

        return pd.DataFrame([r.model_dump() for r in self.rows]).set_index("group")

    def headline_dataframe(self) -> pd.DataFrame:
        """The headline per group: the share p, pass@k and pass^k with what they are."""
        import pandas as pd

        cols = ["conversations", "complete", "unknown", "rate", "rate_low", "rate_high", "headline",
                "pass_at_k", "pass_at_k_low", "pass_at_k_high", "pass_pow_k", "pass_pow_k_low",
                "pass_pow_k_high", "tasks", "judge_errors"]
        return pd.DataFrame([r.model_dump() for r in self.rows]).set_index("group")[cols]

    def to_text(self) -> str:
        """Plain-text tables for terminals and logs: headline, task level, pooled plug-in."""
        k = self.k
        iv = format_interval
        head = (f"{'group':<22}{'convs':>6}{'compl':>6}{'full':>6}{'unkn':>6}"
                f"{'share fully correct':>24}{f'pass@{k}':>24}{f'pass^{k}':>24}  {'basis':<7}"
                f"{'errors':>7}")
        stratified = any(r.rate_method != "complete cases" for r in self.rows)
        if not self.method.startswith("plug-in"):
            estimate = "posterior mean"
        elif stratified:
            estimate = "full / compl, or post-stratified where 'share:' below says so"
        else:
            estimate = "full / compl"
        lines = [f"method: {self.method}",
                 "share fully correct = p, the chance a new conversation is fully correct "
                 f"({estimate}); "
                 f"pass@{k} / pass^{k}: basis 'tasks' = mean over the suite's tasks, "
                 "'pooled' = plug-in from p; [low, high] = " + _interval_kind(self.method),
                 head, "-" * len(head)]
        for r in self.rows:
            lines.append(
                f"{r.group[:21]:<22}{r.conversations:>6}{r.complete:>6}{r.fully_correct:>6}"
                f"{r.unknown:>6}{iv(r.rate, r.rate_low, r.rate_high):>24}"
                f"{iv(r.pass_at_k, r.pass_at_k_low, r.pass_at_k_high):>24}"
                f"{iv(r.pass_pow_k, r.pass_pow_k_low, r.pass_pow_k_high):>24}  {r.headline:<7}"
                f"{r.judge_errors:>7}")
        methods = sorted({r.rate_method for r in self.rows if r.rate_method != "complete cases"})
        lines += [f"  share: {m}" for m in methods]
        if any(r.tasks for r in self.rows):
            task_head = (f"{'group':<22}{'tasks':>6}{f'>={k}':>5}  {f'pass@{k} suite tasks':>24}"
                         f"{f'pass^{k} suite tasks':>24}{f'pass^{k} new task':>24}"
                         f"{f'unbiased @{k}':>13}{f'^{k}':>8}")
            lines += ["", "task level (task = agent x task_id; suite tasks = mean over these "
                      "tasks; new task = one more from the same population):",
                      task_head, "-" * len(task_head)]
            for r in self.rows:
                lines.append(
                    f"{r.group[:21]:<22}{r.tasks:>6}{r.tasks_with_k:>5}  "
                    f"{iv(r.task_pass_at_k, r.task_pass_at_k_low, r.task_pass_at_k_high):>24}"
                    f"{iv(r.task_pass_pow_k, r.task_pass_pow_k_low, r.task_pass_pow_k_high):>24}"
                    f"{iv(r.new_task_pass_pow_k, r.new_task_pass_pow_k_low, r.new_task_pass_pow_k_high):>24}"
                    f"{_num(r.unbiased_pass_at_k):>13}{_num(r.unbiased_pass_pow_k):>8}")
            lines += [f"  {m}" for m in sorted({r.task_method for r in self.rows if r.task_method})]
        pooled = [r for r in self.rows if r.headline == "tasks"]
        if pooled:
            lines += ["", f"pooled plug-in 1-(1-p)^{k}, p^{k} (assumes every task equally hard; "
                      "shown for comparison):"]
            for r in pooled:
                lines.append(
                    f"  {r.group[:21]:<22}pass@{k} "
                    f"{iv(r.pooled_pass_at_k, r.pooled_pass_at_k_low, r.pooled_pass_at_k_high)}"
                    f"   pass^{k} "
                    f"{iv(r.pooled_pass_pow_k, r.pooled_pass_pow_k_low, r.pooled_pass_pow_k_high)}")
        notes = sorted({r.note for r in self.rows if r.note})
        if notes:
            lines += [""] + [f"note: {n}" for n in notes]
        for d in self.diagnostics:
            lines.append("")
            lines.append(_diagnostics_line(d))
        from agenteval.comparisons import text_lines

        lines += text_lines(self)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from agenteval.display import summary_html

        return summary_html(self)

    def __str__(self) -> str:
        return self.to_text()


class AgenticResults(list[AgenticMetric]):
    """Per-conversation results, in input order, with suite-level views.

    The suite's numbers are computed once and held: the table of counts (one pass over the
    conversations), the hierarchical fits, the summary (``statistical.summarise``) and the
    posterior draws (``statistical.draws``), each on first use. Every view (text, HTML, report,
    CSV / JSON, NetCDF, figures, widgets) reads these values and computes nothing of its own.
    """

    def __init__(self, metrics: Iterable[AgenticMetric], *, settings: RunSettings,
                 judge_run: JudgeRun, method: str) -> None:
        super().__init__(metrics)
        self.settings = settings
        self.judge_run = judge_run
        self.method = method
        self._summary: SuiteSummary | None = None
        self._counts: Any = None
        self._fits: Any = None
        self._values: Any = None
        self._draws: dict[tuple[Any, ...], Any] = {}
        self._idata: dict[tuple[Any, ...], Any] = {}
        self.provenance: dict[str, Any] = {}
        """What produced the run (command, call, data file): merged into the JSON manifest."""

    @property
    def k(self) -> int:
        return self.settings.k

    @property
    def counts(self) -> Any:
        """The table of counts (``statistical.counts.SuiteCounts``), built once in one pass."""
        if self._counts is None:
            from agenteval.statistical.counts import build_counts

            ids: list[str] = []
            verdicts = listed = 0
            cols: dict[str, list[Any]] = {key: [] for key in (
                "agent", "task", "n", "c", "length", "judge_errors", "fully", "source",
                "given_interactions")}
            for m in self:
                cols["agent"].append(m.assistant_id)
                cols["task"].append(m.task_id)
                cols["n"].append(m.total_interactions)
                cols["c"].append(m.correct_interactions)
                cols["length"].append(len(m.interactions) or m.total_interactions)
                cols["judge_errors"].append(m.judge_errors)
                cols["fully"].append(m.is_fully_correct)
                cols["source"].append(m.source)
                cols["given_interactions"].append(sum(r.source == "given" for r in m.interactions))
                ids.append(m.session_id)
                verdicts += (sum(r.is_correct is not None for r in m.interactions)
                             if m.source == "given" else m.total_interactions)
                listed += len(m.interactions)
            self._counts = build_counts(**cols)
            self._session_ids = ids
            self._judged = (verdicts, listed)
        return self._counts

    @property
    def session_ids(self) -> list[str]:
        """Conversation ids in input order (kept from the counts' one pass)."""
        self.counts  # noqa: B018 - builds them
        return self._session_ids

    def judged_share(self) -> tuple[int, int]:
        """(interactions with a verdict, interactions in total), counted per interaction (a
        conversation with a given outcome is one graded unit, yet each interaction has its
        verdict); kept from the counts' one pass."""
        self.counts  # noqa: B018 - builds them
        return self._judged

    @property
    def agents(self) -> tuple[str, ...]:
        """Agent ids in order of first appearance (the order of every table and figure)."""
        return self.counts.agents

    def colours(self) -> dict[str, str]:
        """The run's agent-to-colour map (every figure and widget uses it)."""
        from agenteval.plots import agent_colours

        return agent_colours(self.agents or ("all",))

    def fits(self) -> Any:
        """The hierarchical fits over conversations and tasks (``summarise.Fits``), made once."""
        if self._fits is None:
            from agenteval.statistical.summarise import fit_all

            self._fits = fit_all(self.counts, self.settings.mode)
        return self._fits

    def conversation_fit(self) -> Any:
        """The hierarchical fit over conversations (units) per agent, or None (conjugate and
        frequentist modes): the fit the per-conversation fields came from."""
        return self.fits().conversations

    def task_fit(self) -> Any:
        """The hierarchical fit over tasks (assistant_id x task_id) per agent, or None."""
        return self.fits().tasks

    def values(self) -> Any:
        """Every suite estimate as plain values (``statistical.summarise.SuiteValues``)."""
        if self._values is None:
            from agenteval.statistical.summarise import summarise

            self._values = summarise(self.counts, self.settings.mode, self.k, fits=self.fits(),
                                     method=self.method)
        return self._values

    def summary(self) -> SuiteSummary:
        """Suite-level estimates (computed once)."""
        if self._summary is None:
            self._summary = _summary_of(self)
        return self._summary

    def posterior_draws(self, *, draws: int | None = None,
                        max_conversations: int = 20_000) -> Any:
        """The posterior draws every figure and the NetCDF read (``statistical.draws``), once."""
        from agenteval.errors import ConfigError

        mode = self.settings.mode
        if mode.get_result_type() != "distribution":
            raise ConfigError("posterior draws need a Bayesian mode (BayesianMode(...)); "
                              "frequentist results have no posterior")
        key = (draws, max_conversations)
        if key not in self._draws:
            from agenteval import __version__
            from agenteval.statistical.draws import posterior_draws

            attrs = {"agenteval_version": __version__, "k": self.k, "method": self.method,
                     "ci_level": mode.ci_level, "mode": repr(mode)}
            ids = self.session_ids if len(self) <= max_conversations else None
            self._draws[key] = posterior_draws(self.counts, mode, self.k, self.fits(),
                                               conversation_ids=ids, draws=draws,
                                               max_conversations=max_conversations, attrs=attrs)
        return self._draws[key]

    def to_inference_data(self, *, draws: int | None = None,
                          max_conversations: int = 20_000) -> Any:
        """The posterior as ArviZ data (InferenceData in arviz 0.x, DataTree in 1.x), built once
        from :meth:`posterior_draws` (a second call returns the same object).

        Dims ``conversation`` (session_id), ``task`` ("agent/task_id") and ``agent``. Posterior:
        ``p_conversation`` (per-interaction success rate of each conversation; left out above
        ``max_conversations``), ``p_task`` (each task's success rate), per agent ``share`` (of fully
        correct conversations, on the summary row's basis), ``task_pass_at_k`` /
        ``task_pass_pow_k`` (the suite's tasks), ``new_task_pass_at_k`` / ``new_task_pass_pow_k``
        (a new task), and in the hierarchical methods ``mu`` / ``kappa`` (of tasks) and
        ``mu_conversation`` / ``kappa_conversation``. Prior: the conjugate ``p`` prior, or ``mu``
        / ``kappa`` / ``log_kappa``. Observed data: the counts every estimate came from.
        Conjugate draws (``draws``, default the mode's ``mc_samples``) are seeded from the mode's
        ``rng_seed``; hierarchical ones follow the fit.
        """
        from agenteval.errors import ConfigError

        if self.settings.mode.get_result_type() != "distribution":
            raise ConfigError("to_inference_data needs a Bayesian mode (BayesianMode(...)); "
                              "frequentist results have no posterior")
        key = (draws, max_conversations)
        if key not in self._idata:
            from agenteval import _arviz

            d = self.posterior_draws(draws=draws, max_conversations=max_conversations)
            self._idata[key] = _arviz.from_dict(
                posterior=d.posterior, prior=d.prior, observed_data=d.observed_data,
                constant_data=d.constant_data, sample_stats=d.sample_stats, coords=d.coords,
                dims=d.dims, attrs=d.attrs)
        return self._idata[key]

    def to_netcdf(self, path: Any, **kwargs: Any) -> str:
        """Write the posterior (what :meth:`to_inference_data` holds) to a NetCDF file that
        ``arviz.from_netcdf`` reads; returns the path. Written from the stored draws with
        h5netcdf alone (no arviz import), atomically."""
        from agenteval._netcdf import write_draws

        return write_draws(self.posterior_draws(**kwargs), str(path))

    def comparison_table(self) -> Any:
        """Every pair of agents (paired on shared tasks), the ranking, with draws for figures;
        None with one agent. The summary's comparisons are these."""
        return self.values().comparisons

    def quality(self, level: str = "agent", *, thresholds: Any = None) -> pd.DataFrame:
        """Fair Forge's quality table per agent or per conversation (``level="conversation"``),
        with the posterior probability of each label in Bayesian mode."""
        import pandas as pd

        from agenteval.comparisons import QualityRow, conversation_quality

        if level == "conversation":
            rows = conversation_quality(self, thresholds=thresholds)
        elif level == "agent":  # the default thresholds' table is the summary's: not recomputed
            if thresholds is None:
                rows = self.summary().quality
            else:
                from agenteval.statistical.summarise import quality_rows

                rows = [QualityRow(**q) for q in quality_rows(
                    self.counts, self.values().rows, self.settings.mode, self.k,
                    fits=self.fits(), thresholds=thresholds)]
        else:
            from agenteval.errors import ConfigError

            raise ConfigError(f"level must be 'agent' or 'conversation', got {level!r}")
        return pd.DataFrame([r.model_dump() for r in rows], columns=list(QualityRow.model_fields))

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
                    "qa_id": r.qa_id, "score": r.score, "source": r.source,
                    "is_correct": r.is_correct,
                    "judge_error": r.judge_error, "judge_error_code": r.judge_error_code,
                    "reasoning": r.reasoning,
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
        """Everything, as JSON-ready data (NaN becomes null), with the run's manifest."""
        from agenteval.results_io import build_manifest

        return _json_safe({
            "version": RESULTS_VERSION,
            "manifest": build_manifest(self),
            "settings": {
                "k": self.settings.k, "threshold": self.settings.threshold,
                "tool_threshold": self.settings.tool_threshold,
                "tool_weights": dict(self.settings.tool_weights), "method": self.method,
                "outcome_threshold": self.settings.outcome_threshold,
                "argument_matching": (dict(self.settings.argument_matching)
                                      if self.settings.argument_matching else None),
            },
            "summary": self.summary().model_dump(),
            "conversations": [m.model_dump() for m in self],
        })

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AgenticResults:
        """Restore results from :meth:`to_json` output without re-judging (see ``load_results``)."""
        from agenteval.results_io import results_from_json

        return results_from_json(data)

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


def _summary_of(results: AgenticResults) -> SuiteSummary:
    """The summary model of the results' values (``statistical.summarise``), with the judge's
    accounting; warns once for quantities the data cannot identify."""
    values = results.values()
    for note in values.notes:
        if note.startswith("one attempt per task"):
            warnings.warn(f"agenteval: {note}", NotIdentifiedWarning, stacklevel=3)
    run = results.judge_run
    judge = {"judge": run.judge, "calls": run.calls, "cache_hits": run.cache_hits,
             "errors": run.errors, "not_judged_budget": run.not_judged_budget,
             **values.given,
             "prompt_tokens": run.prompt_tokens, "completion_tokens": run.completion_tokens,
             **run.details}
    from agenteval.comparisons import summary_fields

    rows = [SuiteRow(**r) for r in values.rows]
    extra = summary_fields(values.comparisons)
    return SuiteSummary(k=results.k, method=results.method, rows=rows, judge=_json_safe(judge),
                        diagnostics=_json_safe(values.diagnostics),
                        quality=[QualityRow(**q) for q in values.quality], **extra)


class NotIdentifiedWarning(UserWarning):
    """A requested quantity is not identified by the data (e.g. pass^k with one attempt per task)."""


def not_identified_note(k: int) -> str:
    from agenteval.statistical.suite import not_identified_note as note

    return note(k)


def _diagnostics_line(d: dict[str, Any]) -> str:
    """One line per fit: what was fitted and whether the sampler can be trusted."""
    head = f"{d['level']} fit ({d.get('units')} units, {d.get('distinct_triples')} distinct (agent, n, c))"
    if d.get("method") == "mcmc":
        status = "ok" if d.get("ok") else "CHECK: " + "; ".join(d.get("problems") or [])
        return (f"{head}: NUTS ({d.get('sampler')}) {d.get('chains')} chains x {d.get('draws')} "
                f"draws, max r_hat {_num(d.get('r_hat_max'))}, min ESS bulk "
                f"{_int(d.get('ess_bulk_min'))} tail {_int(d.get('ess_tail_min'))}, "
                f"divergences {d.get('divergences')}, {d.get('seconds', 0):.1f} s: {status}")
    return (f"{head}: pooled population prior, (mu, kappa) posterior by "
            f"{d.get('integration', 'optimisation')}, {d.get('seconds', 0):.2f} s")


def _interval_kind(method: str) -> str:
    """What the printed intervals are, in words (views label what they show)."""
    if method.startswith("plug-in"):
        return "confidence interval (see method; bootstrap percentiles at the task level)"
    return "equal-tailed credible interval (see method)"


def _int(x: Any) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.0f}"


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
    if _missing(x):
        return "n/a"
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
