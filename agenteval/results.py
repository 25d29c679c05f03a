"""Result containers: a list of per-conversation metrics that also summarises the suite.

``AgenticResults`` is a ``list`` of ``AgenticMetric`` (so Fair Forge code that iterates over the
result keeps working) with ``summary()``, ``to_dataframe()``, ``to_json()`` and an HTML view.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
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
        lines = [f"method: {self.method}",
                 "share fully correct = p, the chance a new conversation is fully correct "
                 f"({'full / compl' if self.method.startswith('plug-in') else 'posterior mean'}); "
                 f"pass@{k} / pass^{k}: basis 'tasks' = mean over the suite's tasks, "
                 "'pooled' = plug-in from p", head, "-" * len(head)]
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
    """Per-conversation results, in input order, with suite-level views."""

    def __init__(self, metrics: Iterable[AgenticMetric], *, settings: RunSettings,
                 judge_run: JudgeRun, method: str) -> None:
        super().__init__(metrics)
        self.settings = settings
        self.judge_run = judge_run
        self.method = method
        self._summary: SuiteSummary | None = None
        self._comparisons: Any = None
        self.provenance: dict[str, Any] = {}
        """What produced the run (command, call, data file): merged into the JSON manifest."""

    @property
    def k(self) -> int:
        return self.settings.k

    def conversation_fit(self) -> Any:
        """The hierarchical fit over conversations (units) per agent, or None (conjugate and
        frequentist modes). Cached by the mode: the same fit the per-conversation fields came from."""
        mode = self.settings.mode
        n = np.array([m.total_interactions for m in self])
        c = np.array([m.correct_interactions for m in self])
        return mode.conversation_fit(n, c, groups=[m.assistant_id for m in self])

    def task_fit(self) -> Any:
        """The hierarchical fit over tasks (assistant_id x task_id) per agent, or None."""
        tasks = _tasks(self)
        if not tasks["keys"]:
            return None
        names = list(dict.fromkeys(m.assistant_id for m in self))
        return self.settings.mode.fit(tasks["n"], tasks["c"],
                                      groups=[names[i] for i in tasks["agent"]])

    def summary(self) -> SuiteSummary:
        """Suite-level estimates (computed once, vectorised over groups)."""
        if self._summary is None:
            self._summary = _summarise(self)
        return self._summary

    def to_inference_data(self, *, draws: int | None = None,
                          max_conversations: int = 20_000) -> Any:
        """The posterior as ArviZ data (InferenceData in arviz 0.x, DataTree in 1.x).

        Dims ``conversation`` (session_id), ``task`` ("agent/task_id") and ``agent``. Posterior:
        ``p_conversation`` (per-interaction success rate of each conversation; left out above
        ``max_conversations``), ``p_task`` (each task's success rate), per agent ``share`` (of fully
        correct conversations), ``task_pass_at_k`` / ``task_pass_pow_k`` (the suite's tasks),
        ``new_task_pass_at_k`` / ``new_task_pass_pow_k`` (a new task), and in the hierarchical
        methods ``mu`` / ``kappa`` (of tasks) and ``mu_conversation`` / ``kappa_conversation``.
        Prior: the conjugate ``p`` prior, or ``mu`` / ``kappa`` / ``log_kappa``. Observed data:
        the counts every estimate came from. Conjugate draws (``draws``, default the mode's
        ``mc_samples``) are seeded from the mode's ``rng_seed``; hierarchical ones follow the fit.
        """
        from agenteval import _arviz, __version__
        from agenteval.errors import ConfigError
        from agenteval.statistical import suite

        mode = self.settings.mode
        if mode.get_result_type() != "distribution":
            raise ConfigError("to_inference_data needs a Bayesian mode (BayesianMode(...)); "
                              "frequentist results have no posterior")
        k = self.k
        names = list(dict.fromkeys(m.assistant_id for m in self))
        agent_idx = {a: i for i, a in enumerate(names)}
        conv_agent = np.array([agent_idx[m.assistant_id] for m in self], dtype=np.int64)
        n = np.array([m.total_interactions for m in self])
        c = np.array([m.correct_interactions for m in self])
        tasks = _tasks(self)
        conv_fit, task_fit = self.conversation_fit(), self.task_fit()
        fit = task_fit or conv_fit
        seeds = np.random.SeedSequence(mode.rng_seed).spawn(4)
        if fit is not None:
            chains, per_chain = fit.mu.shape[:2]
        else:
            chains, per_chain = 1, int(draws or mode.mc_samples)
        total = chains * per_chain

        def shaped(x: np.ndarray) -> np.ndarray:
            return x.reshape(chains, per_chain, *x.shape[1:])

        a0, b0 = mode.beta_prior_a, mode.beta_prior_b
        posterior: dict[str, np.ndarray] = {}
        dims: dict[str, list[str]] = {}
        if len(self) <= max_conversations:
            p_conv = (conv_fit.unit_draws() if conv_fit is not None else shaped(
                suite.conjugate_unit_draws(n, c, a=a0, b=b0, draws=total, seed=seeds[0])))
            posterior["p_conversation"] = p_conv
            dims["p_conversation"] = ["conversation"]
        share = np.empty((total, len(names)))
        for g, name in enumerate(names):
            members = [m for m in self if m.assistant_id == name]
            length = np.array([len(m.interactions) or m.total_interactions for m in members])
            complete = np.array([m.judge_errors == 0 for m in members])
            full = np.array([m.is_fully_correct is True for m in members])
            _, n_l, m_l, c_l = suite.length_strata(length, complete, full)
            if complete.all() or n_l.size == 1:
                n_l, m_l, c_l = n_l.sum(keepdims=True), m_l.sum(keepdims=True), c_l.sum(keepdims=True)
            share[:, g] = suite.stratified_share_draws(n_l, m_l, c_l, a=a0, b=b0, draws=total,
                                                       seed=int(seeds[1].generate_state(1)[0]) + g)
        posterior["share"] = shaped(share)
        dims["share"] = ["agent"]
        coords: dict[str, Any] = {"conversation": [m.session_id for m in self], "agent": names}
        observed = {"n_conversation": n, "c_conversation": c,
                    "fully_correct": np.array([-1 if m.is_fully_correct is None
                                               else int(m.is_fully_correct) for m in self])}
        obs_dims = {"n_conversation": ["conversation"], "c_conversation": ["conversation"],
                    "fully_correct": ["conversation"]}
        constant = {"agent_of_conversation": conv_agent}
        dims["agent_of_conversation"] = ["conversation"]
        if tasks["keys"]:
            coords["task"] = [f"{a}/{t}" for a, t in tasks["keys"]]
            if task_fit is not None:
                p_task = task_fit.unit_draws().reshape(total, -1)
            else:
                p_task = suite.conjugate_unit_draws(tasks["n"], tasks["c"], a=a0, b=b0,
                                                    draws=total, seed=seeds[2])
            posterior["p_task"] = shaped(p_task)
            dims["p_task"] = ["task"]
            suite_draws = suite.group_power_draws(p_task, tasks["agent"], len(names), k)
            for key, v in suite_draws.items():
                posterior[f"task_{key}"] = shaped(v)
                dims[f"task_{key}"] = ["agent"]
            if task_fit is not None:
                mu, kappa = task_fit.flat
                order = [task_fit.names.index(a) if a in task_fit.names else None for a in names]
                a_, b_ = mu * kappa, (1 - mu) * kappa
                new = {"pass_pow_k": _beta_pow(a_, b_, k), "pass_at_k": _beta_at(a_, b_, k)}
                for key, v in new.items():
                    full_v = np.full((total, len(names)), np.nan)
                    for g, j in enumerate(order):
                        if j is not None:
                            full_v[:, g] = v[:, j]
                    posterior[f"new_task_{key}"] = shaped(full_v)
                for name_, v in (("mu", mu), ("kappa", kappa)):
                    full_v = np.full((total, len(names)), np.nan)
                    for g, j in enumerate(order):
                        if j is not None:
                            full_v[:, g] = v[:, j]
                    posterior[name_] = shaped(full_v)
                    dims[name_] = ["agent"]
            else:
                seed = int(seeds[3].generate_state(1)[0])
                new = suite.group_power_draws(p_task, tasks["agent"], len(names), k,
                                              bootstrap_seed=seed)
                for key, v in new.items():
                    posterior[f"new_task_{key}"] = shaped(v)
            dims["new_task_pass_pow_k"] = dims["new_task_pass_at_k"] = ["agent"]
            observed.update({"n_task": tasks["n"], "c_task": tasks["c"]})
            obs_dims.update({"n_task": ["task"], "c_task": ["task"]})
            constant["agent_of_task"] = tasks["agent"]
            dims["agent_of_task"] = ["task"]
        if conv_fit is not None:
            mu, kappa = conv_fit.mu, conv_fit.kappa
            order = [conv_fit.names.index(a) for a in names]
            posterior["mu_conversation"] = mu[..., order]
            posterior["kappa_conversation"] = kappa[..., order]
            dims["mu_conversation"] = dims["kappa_conversation"] = ["agent"]
        rng = np.random.default_rng(seeds[3])
        if fit is not None:
            pr = fit.prior
            size = (1, total, len(names))   # each agent's (independent) prior
            log_kappa = rng.normal(pr.log_kappa_mean, pr.log_kappa_sd, size=size)
            prior = {"mu": rng.beta(pr.mu_a, pr.mu_b, size=size), "log_kappa": log_kappa,
                     "kappa": np.exp(log_kappa)}
            dims["log_kappa"] = ["agent"]
        else:
            prior = {"p": rng.beta(a0, b0, size=(1, total))}
        stats = None
        if fit is not None and fit.idata is not None and "sample_stats" in fit.idata.groups():
            ss = fit.idata.sample_stats
            stats = {key: np.asarray(ss[key].values) for key in ("diverging", "tree_depth",
                                                                   "energy") if key in ss}
        attrs = {"agenteval_version": __version__, "k": k, "method": self.method,
                 "ci_level": mode.ci_level, "mode": repr(mode)}
        return _arviz.from_dict(posterior=posterior, prior=prior, observed_data=observed,
                                constant_data=constant, sample_stats=stats, coords=coords,
                                dims={**dims, **obs_dims}, attrs=attrs)

    def to_netcdf(self, path: Any, **kwargs: Any) -> str:
        """Write :meth:`to_inference_data` to a NetCDF file; returns the path."""
        from agenteval import _arviz

        return _arviz.to_netcdf(self.to_inference_data(**kwargs), str(path))

    def comparison_table(self) -> Any:
        """Every pair of agents (paired on shared tasks), the ranking, with draws for figures."""
        if self._comparisons is None:
            from agenteval.comparisons import comparison_table

            self._comparisons = comparison_table(self)
        return self._comparisons

    def quality(self, level: str = "agent", *, thresholds: Any = None) -> pd.DataFrame:
        """Fair Forge's quality table per agent or per conversation (``level="conversation"``),
        with the posterior probability of each label in Bayesian mode."""
        import pandas as pd

        from agenteval.comparisons import QualityRow, conversation_quality

        if level == "conversation":
            rows = conversation_quality(self, thresholds=thresholds)
        elif level == "agent":  # the default thresholds' table is the summary's: not recomputed
            rows = self.summary().quality if thresholds is None else _agent_quality(self, thresholds)
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


def _summarise(results: AgenticResults) -> SuiteSummary:
    """Gather each group's conversation outcomes and tasks; ``statistical.suite`` does the math."""
    agents: dict[str, list[AgenticMetric]] = {}
    for m in results:
        agents.setdefault(m.assistant_id, []).append(m)
    groups: list[tuple[str, str, list[AgenticMetric]]] = [("all", "suite", list(results))]
    if len(agents) > 1:
        groups += [(name, "agent", members) for name, members in agents.items()]
    mode, k = results.settings.mode, results.k
    tasks = _tasks(results)
    names = list(agents)
    estimates = mode.task_estimates(tasks["n"], tasks["c"], k, groups=tasks["agent"], names=names)
    per_group = [estimates[0]] + (estimates[1:] if len(agents) > 1 else [])
    rows = [_group_row(name, level, members, k, mode, task)
            for (name, level, members), task in zip(groups, per_group)]
    notes = sorted({r.note for r in rows if r.note})
    for note in notes:
        if note.startswith("one attempt per task"):
            warnings.warn(f"agenteval: {note}", NotIdentifiedWarning, stacklevel=3)
    run = results.judge_run
    judge = {"judge": run.judge, "calls": run.calls, "cache_hits": run.cache_hits,
             "errors": run.errors, "not_judged_budget": run.not_judged_budget,
             "conversations_given": sum(m.source == "given" for m in results),
             "interactions_given": sum(r.source == "given" for m in results for r in m.interactions),
             "prompt_tokens": run.prompt_tokens, "completion_tokens": run.completion_tokens,
             **run.details}
    from agenteval.comparisons import summary_fields

    extra = summary_fields(results)
    return SuiteSummary(k=results.k, method=results.method, rows=rows, judge=_json_safe(judge),
                        diagnostics=_json_safe(_diagnostics(results)), **extra)


def _diagnostics(results: AgenticResults) -> list[dict]:
    """The hierarchical fits' diagnostics (the fits are cached by the mode, not refitted)."""
    from agenteval.statistical.modes import StatisticalMode

    out: list[dict] = []
    mode = results.settings.mode
    if getattr(mode, "method", None) == "conjugate" or type(mode).fit is StatisticalMode.fit:
        return out  # nothing fitted (conjugate, frequentist): the data need not be gathered
    for level, fit in (("conversations", results.conversation_fit()),
                       ("tasks", results.task_fit())):
        if fit is not None:
            d = {k: v for k, v in fit.diagnostics.items() if k != "modes"}
            out.append({"level": level, "units": int(fit.inverse.size),
                        "distinct_triples": int(fit.triples[0].size), **d})
    return out


class NotIdentifiedWarning(UserWarning):
    """A requested quantity is not identified by the data (e.g. pass^k with one attempt per task)."""


def _beta_pow(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    from agenteval.statistical.estimators import beta_pass_pow_k_mean

    return beta_pass_pow_k_mean(a, b, k)


def _beta_at(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    from agenteval.statistical.estimators import beta_pass_at_k_mean

    return beta_pass_at_k_mean(a, b, k)


def _tasks(results: AgenticResults) -> dict[str, np.ndarray]:
    """Per task (assistant_id, task_id): complete attempts n, fully correct c, agent index."""
    agents: dict[str, int] = {}
    attempts: dict[tuple[str, str], list[bool]] = {}
    for m in results:
        agents.setdefault(m.assistant_id, len(agents))
        if m.task_id is not None:
            done = attempts.setdefault((m.assistant_id, m.task_id), [])
            if m.judge_errors == 0:
                done.append(m.is_fully_correct is True)
    return {"n": np.array([len(v) for v in attempts.values()], dtype=np.int64),
            "c": np.array([sum(v) for v in attempts.values()], dtype=np.int64),
            "agent": np.array([agents[a] for a, _ in attempts], dtype=np.int64),
            "keys": list(attempts)}


def _group_row(name: str, level: str, members: list[AgenticMetric], k: int,
               mode: StatisticalMode, task: Any) -> SuiteRow:
    """One group's row: the share of fully correct conversations (judge errors as missing data)
    and the task-level pass@k / pass^k."""
    from agenteval.statistical import suite

    length = np.array([len(m.interactions) or m.total_interactions for m in members])
    complete = np.array([m.judge_errors == 0 for m in members])
    full = np.array([m.is_fully_correct is True for m in members])
    failed = sum(m.is_fully_correct is False for m in members)
    levels, n_l, m_l, c_l = suite.length_strata(length, complete, full)
    n_complete, n_full = int(complete.sum()), int(full.sum())
    if complete.all() or levels.size == 1:
        est = without_data(mode.estimate(n_complete, n_full, k), np.array(n_complete))
        rate = {f: float(getattr(est, f)) for f in _RATE_FIELDS}
        rate_method = "complete cases"
    else:
        rate = mode.stratified_rate(n_l, m_l, c_l, k)
        rate_method = (f"post-stratified by conversation length ({levels.size} lengths): complete "
                       "conversations of each length, weighted by all conversations of that length")
        if rate.get("dropped"):
            rate_method += (f"; {rate['dropped']} conversations of lengths with no complete "
                            "conversation left out")

    repeated = Counter((m.assistant_id, m.task_id) for m in members if m.task_id is not None)
    attempts = bool(repeated)
    headline = "tasks" if repeated and max(repeated.values()) >= 2 else "pooled"
    note = ""
    if attempts and not task.identified:
        note = not_identified_note(k)
    elif not attempts and k > 1:
        note = ("no task_id: pass@k / pass^k are the pooled plug-in, which assumes every "
                "conversation is an attempt at an equally hard task")
    untasked = sum(m.task_id is None for m in members)
    if attempts and untasked:
        note = (note + "; " if note else "") + f"{untasked} conversations without task_id are not in the task level"
    head = ({f: getattr(task, f"task_{f}") for f in _PASS_FIELDS} if headline == "tasks"
            else {f: rate[f] for f in _PASS_FIELDS})
    return SuiteRow(
        group=name, level=level, conversations=len(members), complete=n_complete,
        fully_correct=n_full, known_failures=failed, unknown=len(members) - n_full - failed,
        rate=rate["rate"], rate_low=rate["rate_low"], rate_high=rate["rate_high"],
        rate_method=rate_method, headline=headline, **head,
        **{f"pooled_{f}": rate[f] for f in _PASS_FIELDS},
        tasks=task.tasks, tasks_with_k=task.tasks_with_k, max_attempts=task.max_attempts,
        identified=task.identified,
        **{f"task_{f}": getattr(task, f"task_{f}") for f in _PASS_FIELDS},
        **{f"new_task_{f}": getattr(task, f"new_task_{f}") for f in _PASS_FIELDS},
        unbiased_pass_at_k=task.unbiased_pass_at_k, unbiased_pass_pow_k=task.unbiased_pass_pow_k,
        task_method=task.method if attempts else "", note=note,
        interactions_judged=sum(m.total_interactions for m in members),
        judge_errors=sum(m.judge_errors for m in members),
    )


_PASS_FIELDS = ("pass_at_k", "pass_at_k_low", "pass_at_k_high", "pass_pow_k", "pass_pow_k_low",
                "pass_pow_k_high")
_RATE_FIELDS = ("rate", "rate_low", "rate_high", *_PASS_FIELDS)


def not_identified_note(k: int) -> str:
    from agenteval.statistical.suite import not_identified_note as note

    return note(k)


def _agent_quality(results: AgenticResults, thresholds: Any) -> list[QualityRow]:
    from agenteval.comparisons import agent_quality

    return agent_quality(results, thresholds=thresholds)


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
