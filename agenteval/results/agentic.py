"""Result containers: a list of per-conversation metrics that also summarises the suite.

``AgenticResults`` is a ``list`` of ``AgenticMetric`` (so Fair Forge code that iterates over the
result keeps working) with ``summary()``, ``to_dataframe()``, ``to_json()`` and an HTML view.
"""

from __future__ import annotations

import dataclasses
import math
import operator
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from agenteval._util.jsonsafe import json_safe as _json_safe
from agenteval.judge.base import JudgeRun
from agenteval.results.comparisons import AgentComparison, QualityRow, RankRow
from agenteval.schemas.results import RESULTS_VERSION, AgenticMetric
from agenteval.schemas.run import RunSettings

__all__ = ["AgenticResults", "NotIdentifiedWarning", "RunSettings", "SuiteRow", "SuiteSummary",
           "UnknownOutcomesWarning",
           "not_identified_note", "results_from_json", "without_data"]

if TYPE_CHECKING:
    import pandas as pd

    from agenteval.statistical.modes import PassEstimate


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
    rate_unknown_wrong: float = Field(
        default=math.nan, description="The observed share if every unknown conversation failed: "
        "fully_correct / conversations (a bound that holds whatever made outcomes unknown).")
    rate_unknown_right: float = Field(
        default=math.nan, description="The observed share if every unknown conversation "
        "succeeded: (conversations - known_failures) / conversations.")
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
    judge_only_comparisons: list[AgentComparison] = Field(
        default_factory=list, description="With human labels: the comparisons on the judge's "
        "verdicts taken as the truth (the comparisons above are then judge-corrected).")
    judge_only_ranking: list[RankRow] = Field(
        default_factory=list, description="With human labels: the ranking on the judge's verdicts.")
    quality: list[QualityRow] = Field(
        default_factory=list, description="Fair Forge's quality table per agent, on the "
        "headline (with human labels: on the judge-corrected headline, basis 'judge-corrected "
        "headline: ...', wherever the correction is identified).")
    judge_only_quality: list[QualityRow] = Field(
        default_factory=list, description="With human labels: the quality table on the judge's "
        "verdicts taken as the truth (the quality above is then judge-corrected).")
    judge: dict[str, Any] = Field(description="What the judge did: calls, cache hits, errors "
                                  "(judgments), usage, and ``interactions``: {total, judged, "
                                  "not_judged}, the interactions of the run and how many got a "
                                  "verdict (every view's unjudged share is not_judged / total).")

    def judged_share(self) -> tuple[int, int]:
        """(interactions with a verdict, interactions in total), from ``judge['interactions']``:
        the numbers every view's unjudged share is made of (a summary of ``AgenticResults``
        always carries them, also one read from a file written before they were kept)."""
        interactions = self.judge["interactions"]
        return int(interactions["judged"]), int(interactions["total"])

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
        from agenteval.present.text import summary_text

        return summary_text(self)

    def to_latex(self, what: str = "summary", **options: Any) -> str:
        """A booktabs table for a paper: 'summary', 'comparisons', 'ranking' or 'quality'
        (options: ``intervals='brackets'|'subsup'``, caption, label, environment; see
        :mod:`agenteval.present.tables`)."""
        from agenteval.present.tables import table_latex

        return table_latex(self, what, **options)

    def to_markdown(self, what: str = "summary", **options: Any) -> str:
        """The same tables as Markdown (GFM pipe tables), caption above."""
        from agenteval.present.tables import table_markdown

        return table_markdown(self, what, **options)

    def _repr_html_(self) -> str:
        from agenteval.present.html import summary_html

        return summary_html(self)

    def __str__(self) -> str:
        return self.to_text()


class AgenticResults(Sequence[AgenticMetric]):
    """Per-conversation results, in input order, with suite-level views.

    A sequence of ``AgenticMetric`` (``results[i]``, iteration, ``len``: Fair Forge code that
    iterates over the result keeps working) held as columns (``agenteval.results.columns``):
    each conversation's object is built when it is read, so a suite of a million conversations
    fits in memory. The suite's numbers are computed once and held: the table of counts (from
    the columns, vectorised), the hierarchical fits, the summary (``statistical.summarise``) and
    the posterior draws (``statistical.draws``), each on first use. Every view (text, HTML,
    report, CSV / JSON, NetCDF, figures, widgets) reads these values and computes nothing of its
    own.
    """

    def __init__(self, metrics: Iterable[AgenticMetric] = (), *, settings: RunSettings,
                 judge_run: JudgeRun, method: str, columns: Any = None) -> None:
        from agenteval.results.columns import Columns

        self.columns = columns if columns is not None else Columns.from_metrics(list(metrics))
        """The per-conversation and per-interaction fields (``results.columns.Columns``)."""
        self.settings = settings
        self.judge_run = judge_run
        self.method = method
        self._summary: SuiteSummary | None = None
        self._counts: Any = None
        self._fits: Any = None
        self._values: Any = None
        self._assessment: Any = None
        self._draws: dict[tuple[Any, ...], Any] = {}
        self._idata: dict[tuple[Any, ...], Any] = {}
        self.provenance: dict[str, Any] = {}
        """What produced the run (command, call, data file): merged into the JSON manifest."""
        self.labels: Any = None
        """Human labels for some interactions (agenteval.core.labels.Labels), or None."""
        self._label_cluster: str | None = None
        self._calibration: Any = None
        self._failure_groups: tuple[Any, ...] | None = None

    def __len__(self) -> int:
        return len(self.columns)

    @overload
    def __getitem__(self, index: int) -> AgenticMetric: ...

    @overload
    def __getitem__(self, index: slice) -> list[AgenticMetric]: ...

    def __getitem__(self, index: int | slice) -> AgenticMetric | list[AgenticMetric]:
        size = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(size)
            if step == 1:
                return self.columns.metrics(start, max(start, stop))
            return [self[i] for i in range(start, stop, step)]
        i = operator.index(index)
        if i < 0:
            i += size
        if not 0 <= i < size:
            raise IndexError("AgenticResults index out of range")
        return self.columns.metrics(i, i + 1)[0]

    def __iter__(self) -> Iterator[AgenticMetric]:
        return self.columns.iter_metrics()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (AgenticResults, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # compared by content, as the list it was

    @property
    def k(self) -> int:
        return self.settings.k

    @property
    def counts(self) -> Any:
        """The table of counts (``statistical.counts.SuiteCounts``), built once from the columns."""
        if self._counts is None:
            from agenteval.results.columns import counts_columns
            from agenteval.statistical.counts import build_counts

            cols, ids, judged = counts_columns(self.columns)
            self._counts = build_counts(**cols)
            self._session_ids = ids
            self._judged = judged
        return self._counts

    def tool_means(self) -> list[float | None]:
        """Per conversation, the mean overall tool correctness over its interactions with a
        tool score (None where none has one), from the columns."""
        from agenteval.results.columns import tool_means

        return tool_means(self.columns)

    def overview(self) -> list[Any]:
        """Per conversation, its scalar fields and scores as a small tuple
        (``results.columns.Overview``): what lists of every conversation read."""
        from agenteval.results.columns import overview_rows

        return overview_rows(self.columns)

    def drill_down_keys(self) -> list[tuple[Any, ...]]:
        """Per conversation, what the report's drill-down sorts by
        (``present.report.drill_down_order``), from the columns."""
        from agenteval.results.columns import drill_down_keys

        return drill_down_keys(self.columns)

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

    def failure_groups(self) -> list[Any]:
        """The interactions the judge could not judge, grouped by kind, largest group first
        (``results.failures.FailureGroup``); found once in the columns, read by every view."""
        if self._failure_groups is None:
            from agenteval.results.failures import group_failure_records

            self._failure_groups = tuple(group_failure_records(self.columns.judge_failures()))
        return list(self._failure_groups)

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

    @property
    def label_cluster(self) -> str | None:
        """What the frequentist judge correction resamples whole (``calibrate``'s ``cluster``):
        None (the labelled and judged items apart), 'conversation' or 'task' (for judge errors
        correlated within a task; ``agenteval run --label-cluster``). Setting it drops a
        calibration and, with labels, a summary computed before, so both are made with it."""
        return self._label_cluster

    @label_cluster.setter
    def label_cluster(self, value: str | None) -> None:
        from agenteval.results.calibration import check_label_cluster

        value = check_label_cluster("label_cluster", value, self.settings.mode)
        if value != self._label_cluster and self.labels is not None:
            self._calibration = None
            self._summary = None
        self._label_cluster = value

    def calibration(self) -> Any:
        """The judge against the human labels, with the corrected headline (computed once, with
        :attr:`label_cluster`), or None without labels; see ``agenteval.results.calibration``."""
        if self._calibration is None and self.labels is not None:
            from agenteval.results.calibration import calibrate

            self._calibration = calibrate(self, self.labels, cluster=self._label_cluster)
        return self._calibration

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
            from agenteval._util.version import __version__
            from agenteval.statistical.draws import posterior_draws

            attrs = {"agenteval_version": __version__, "k": self.k, "method": self.method,
                     "ci_level": mode.ci_level, "mode": repr(mode)}
            ids = self.session_ids if len(self) <= max_conversations else None
            self._draws[key] = posterior_draws(self.counts, mode, self.k, self.fits(),
                                               conversation_ids=ids, draws=draws,
                                               max_conversations=max_conversations, attrs=attrs)
        return self._draws[key]

    def to_inference_data(self, *, level: str | None = None, draws: int | None = None,
                          max_conversations: int = 20_000) -> Any:
        """The posterior of one fit level as ArviZ data (InferenceData in arviz 0.x), with
        ``log_likelihood``, ``posterior_predictive`` and dims ``agent`` / ``task_id`` that index;
        built once from :meth:`posterior_draws` (``agenteval.results.inference_data``)."""
        from agenteval.results.inference_data import to_inference_data

        return to_inference_data(self, level=level, draws=draws,
                                 max_conversations=max_conversations)

    def to_netcdf(self, path: Any, *, level: str | None = None, **kwargs: Any) -> str:
        """Write what :meth:`to_inference_data` holds (the same ``level``) to a NetCDF file that
        ``arviz.from_netcdf`` reads; returns the path. Written from the stored draws with
        h5py alone (no arviz import), atomically (a temporary file renamed into place, never
        through a symbolic link), in a child process where the platform forks (a full disk can
        crash HDF5: ``results.write.write_netcdf``)."""
        from agenteval._util.files import check_no_link
        from agenteval._util.netcdf import write_draws
        from agenteval.results.inference_data import inference_layout
        from agenteval.results.write import write_netcdf

        check_no_link(path)
        layout = inference_layout(self, level=level, **kwargs)
        return str(write_netcdf(lambda target: write_draws(layout, target), path))

    def comparison_table(self) -> Any:
        """Every pair of agents (paired on shared tasks), the ranking, with draws for figures;
        None with one agent. The summary's comparisons are these."""
        return self.values().comparisons

    def conversation_assessment(self, thresholds: Any = None) -> Any:
        """Fair Forge's table per conversation (``statistical.quality.ConversationAssessment``)
        from the table of counts and the per-conversation fields; the default thresholds' table
        is computed once and held."""
        if thresholds is None and self._assessment is not None:
            return self._assessment
        from agenteval.statistical.quality import assess_conversations

        fields = np.array([(m.pass_at_k, m.pass_pow_k) for m in self], dtype=float)
        at, pw = fields.reshape(-1, 2).T
        value = assess_conversations(self.counts, self.settings.mode, self.k, pass_at_k=at,
                                     pass_pow_k=pw, thresholds=thresholds)
        if thresholds is None:
            self._assessment = value
        return value

    def quality(self, level: str = "agent", *, thresholds: Any = None) -> pd.DataFrame:
        """Fair Forge's quality table per agent or per conversation (``level="conversation"``),
        with the posterior probability of each label in Bayesian mode. Per agent with human
        labels it is the summary's: on the judge-corrected headline wherever the correction is
        identified (``basis`` says which); other ``thresholds`` relabel the same values and
        draws (``Calibration.quality_rows``)."""
        import pandas as pd

        from agenteval.results.comparisons import QualityRow, conversation_quality

        if level == "conversation":
            rows = conversation_quality(self.conversation_assessment(thresholds),
                                        self.session_ids)
        elif level == "agent":  # the default thresholds' table is the summary's: not recomputed
            if thresholds is None:
                rows = self.summary().quality
            else:
                from agenteval.statistical.summarise import quality_rows

                rows = [QualityRow(**q) for q in quality_rows(
                    self.counts, self.values().rows, self.settings.mode, self.k,
                    fits=self.fits(), thresholds=thresholds)]
                if (cal := self.calibration()) is not None:
                    rows = _quality_with_labels(rows, cal.quality_rows(thresholds))[0]
        else:
            from agenteval.errors import ConfigError

            raise ConfigError(f"level must be 'agent' or 'conversation', got {level!r}")
        return pd.DataFrame([r.model_dump() for r in rows], columns=list(QualityRow.model_fields))

    def to_dataframe(self) -> pd.DataFrame:
        """One row per conversation (scalar fields; per-interaction lists left out)."""
        return self.conversations_frame()

    def conversations_frame(self, start: int = 0, stop: int | None = None) -> pd.DataFrame:
        """``to_dataframe`` of conversations ``start:stop`` (the writers stream in blocks)."""
        import pandas as pd

        from agenteval.results.columns import conversation_records

        records = conversation_records(self.columns, start, stop)
        return pd.DataFrame(records) if records["session_id"] else pd.DataFrame([])

    def interactions_dataframe(self) -> pd.DataFrame:
        """One row per interaction, with judge score, tool components and errors."""
        return self.interactions_frame()

    def interactions_frame(self, start: int = 0, stop: int | None = None) -> pd.DataFrame:
        """``interactions_dataframe`` of the interactions of conversations ``start:stop``."""
        import pandas as pd

        from agenteval.results.columns import interaction_records

        records = interaction_records(self.columns, start, stop)
        return pd.DataFrame(records) if records["session_id"] else pd.DataFrame([])

    def save(self, out: Any, *, datasets: Any = None, max_conversations: int | None = None,
             figures: Any = ("png",)) -> list[Any]:
        """Write what ``agenteval run --out OUT`` writes (CSV files, ``results.json``, the HTML
        report and, in the Bayesian modes, ``posterior.nc`` and the figures in the formats
        ``figures``), atomically and as one set (``agenteval.results.write.save``). Returns the
        files written."""
        from agenteval.results.write import save

        return save(self, out, datasets=datasets, max_conversations=max_conversations,
                    figures=figures)

    def to_json(self) -> dict[str, Any]:
        """Everything, as JSON-ready data (NaN becomes null), with the run's manifest."""
        return {**self.json_head(),
                "conversations": [_json_safe(m.model_dump()) for m in self]}

    def json_head(self) -> dict[str, Any]:
        """:meth:`to_json` but the conversations (which a writer streams after it)."""
        from agenteval.results.manifest import build_manifest

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
            **({"calibration": cal.model_dump()} if (cal := self.calibration()) else {}),
        })

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AgenticResults:
        """Restore results from :meth:`to_json` output without re-judging (see ``load_results``)."""
        return results_from_json(data)

    def _repr_html_(self) -> str:
        from agenteval.present.html import results_html

        return results_html(self)

    def __repr__(self) -> str:
        """A few lines: counts and, once computed, each group's headline (present.text)."""
        from agenteval.present.text import results_repr

        return results_repr(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))  # IPython's list printer would list every conversation


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
        for part in note.split("; "):
            if part.startswith("unknown outcomes (judge errors) allow"):
                warnings.warn(f"agenteval: {part}", UnknownOutcomesWarning, stacklevel=3)
    run = results.judge_run
    judge = {"judge": run.judge, "calls": run.calls, "cache_hits": run.cache_hits,
             "errors": run.errors, "not_judged_budget": run.not_judged_budget,
             **values.given,
             "prompt_tokens": run.prompt_tokens, "completion_tokens": run.completion_tokens,
             **run.details, "interactions": _interactions(results)}
    from agenteval.results.comparisons import summary_fields

    rows = [SuiteRow(**r) for r in values.rows]
    extra = summary_fields(values.comparisons)
    cal = results.calibration()   # with human labels, comparisons rest on corrected outcomes
    if cal is not None and cal.comparisons:
        extra = {**extra, "judge_only_comparisons": extra.get("comparisons", []),
                 "judge_only_ranking": extra.get("ranking", []), "comparisons": cal.comparisons,
                 "ranking": cal.ranking, "comparison_method": cal.comparison_method,
                 "comparison_adjust": cal.comparison_adjust,
                 "comparison_notes": cal.comparison_notes}
    elif cal is not None and cal.comparison_notes:
        extra["comparison_notes"] = [*extra.get("comparison_notes", []), *cal.comparison_notes]
    quality = [QualityRow(**q) for q in values.quality]
    if cal is not None:   # and the quality table on the same corrected values
        quality, extra["judge_only_quality"] = _quality_with_labels(quality, cal.quality)
    return SuiteSummary(k=results.k, method=results.method, rows=rows, judge=_json_safe(judge),
                        diagnostics=_json_safe(values.diagnostics), quality=quality, **extra)


_NOT_IDENTIFIED_QUALITY = ("judge-corrected: not identified (the judge barely tells right from "
                           "wrong), judge-only values")
"""The note a judge-only quality row carries where the labels' correction is not identified."""


def _quality_with_labels(judge_only: list[QualityRow], corrected: list[QualityRow]
                         ) -> tuple[list[QualityRow], list[QualityRow]]:
    """The quality table with human labels, and the judge-only one kept beside it: each
    agent's judge-corrected row (``Calibration.quality``) where its values are identified,
    else its judge-only row with a note; the judge-only table is [] when no row is corrected
    (the table shown is then judge-only, as the comparisons are) or the calibration has no
    quality table (read from a file written before it had one)."""
    if not corrected:
        return list(judge_only), []
    by_unit = {q.unit: q for q in corrected}
    rows, changed = [], False
    for q in judge_only:
        c = by_unit.get(q.unit)
        if c is not None and math.isfinite(c.pass_at_k) and math.isfinite(c.pass_pow_k):
            rows.append(c)
            changed = True
        else:
            rows.append(q.model_copy(update={"basis": f"{q.basis}; {_NOT_IDENTIFIED_QUALITY}"}))
    return rows, (list(judge_only) if changed else [])


def _interactions(results: AgenticResults) -> dict[str, int]:
    """The run's interactions and how many got a verdict (``AgenticResults.judged_share``, the
    count the ``--min-judged`` policy applies to), as ``summary.judge['interactions']``."""
    judged, total = results.judged_share()
    return {"total": total, "judged": judged, "not_judged": total - judged}


class UnknownOutcomesWarning(UserWarning):
    """Unknown outcomes (judge errors) allow a rate far wider than its interval: if judge
    failures depend on correctness, the estimate may be off by up to that much."""


class NotIdentifiedWarning(UserWarning):
    """A requested quantity is not identified by the data (e.g. pass^k with one attempt per task)."""


def not_identified_note(k: int) -> str:
    from agenteval.statistical.suite import not_identified_note as note

    return note(k)


def results_from_json(data: Any, *, source: str | None = None,
                      recompute: bool = False) -> AgenticResults:
    """Inverse of ``AgenticResults.to_json()`` (see :func:`agenteval.results.io.load_results`)."""
    from pydantic import ValidationError

    from agenteval._util.jsonsafe import restore_nan
    from agenteval.errors import DataError
    from agenteval.results.manifest import mode_from_spec

    if not isinstance(data, dict) or "conversations" not in data:
        raise DataError("not an agenteval results file (no 'conversations')", source=source)
    manifest = data.get("manifest")
    if not isinstance(manifest, dict) or "statistical_mode" not in manifest:
        raise DataError("no manifest: written by an agenteval before 0.1 reloads; re-run the "
                        "evaluation to get a reloadable file", source=source, field="manifest")
    try:
        stored = manifest["settings"]
        mode = mode_from_spec(manifest["statistical_mode"])
        run_data = dict(manifest["judge_run"])
        run = JudgeRun(**{f.name: run_data[f.name] for f in dataclasses.fields(JudgeRun)
                          if f.name in run_data})
        settings = RunSettings(k=int(stored["k"]), threshold=float(stored["threshold"]),
                               tool_threshold=float(stored["tool_threshold"]),
                               tool_weights={str(k): float(v) for k, v in stored["tool_weights"].items()},
                               mode=mode,
                               outcome_threshold=(None if stored.get("outcome_threshold") is None
                                                  else float(stored["outcome_threshold"])),
                               argument_matching=stored.get("argument_matching") or None)
    except DataError as exc:
        raise DataError(exc.reason, source=source, field=exc.field) from None
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"incomplete manifest ({exc})", source=source, field="manifest") from None
    metrics = []
    for index, record in enumerate(data["conversations"]):
        try:
            metrics.append(AgenticMetric.model_validate(restore_nan(AgenticMetric, record)))
        except ValidationError as exc:
            raise DataError(f"conversation {index} does not match this version's results "
                            f"schema: {exc.errors()[0]['msg']}", source=source,
                            field=f"conversations[{index}]") from None
    results = AgenticResults(metrics, settings=settings, judge_run=run,
                             method=str(stored.get("method", "")))
    results.provenance = dict(manifest)
    if not recompute and isinstance(data.get("summary"), dict):
        try:
            results._summary = SuiteSummary.model_validate(restore_nan(SuiteSummary, data["summary"]))
        except ValidationError:
            results._summary = None  # another version's schema: recomputed on first use
        if results._summary is not None and not isinstance(
                results._summary.judge.get("interactions"), dict):   # written before it was kept
            results._summary.judge["interactions"] = _interactions(results)
    if isinstance(data.get("calibration"), dict):   # the judge's calibration, as computed
        from agenteval.results.calibration import Calibration

        try:
            results._calibration = Calibration.model_validate(
                restore_nan(Calibration, data["calibration"]))
        except ValidationError:
            results._calibration = None
    spec = manifest["statistical_mode"]
    if results._summary is None and spec.get("rebuilds_exactly") is False:
        warnings.warn(f"{source or 'results'}: the statistical mode {spec.get('repr')} could not be "
                      f"rebuilt exactly; the summary is recomputed with {mode!r}", stacklevel=2)
    return results
