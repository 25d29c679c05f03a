"""Every suite estimate as a pure function of the table of counts and the mode.

``summarise(counts, mode, k)`` returns a :class:`SuiteValues`: one plain row per group ('all',
then each agent) with the share of fully correct conversations (post-stratified by length where
judge errors and lengths make complete cases biased), the task-level and new-task pass@k /
pass^k, the pooled plug-in, the unbiased estimators; the hierarchical fits' diagnostics;
comparisons and ranking (``statistical.compare``); the quality table on the same basis as the
headline. Nothing here reads Python objects of the results, writes files or draws: the results
hold what this returns and every view renders it.

The modes' public methods do the estimation (``estimate``, ``stratified_rate``,
``task_estimates``, ``fit``, ``compare``); this module decides which of them a row rests on, and
keeps the choices in one place so a quantity has one estimator wherever it is shown:

* the **headline** of a group is task-level (mean over its tasks) where some task has two
  attempts, else the pooled plug-in of its share p;
* the **share p** is the complete-case estimate when every conversation is complete or all
  have one length, else post-stratified by length (``mode.stratified_rate``);
* the **quality table** labels each agent from the values of its headline (the same numbers),
  with label probabilities from the posterior of that headline;
* **independent comparisons** of success (agents without shared tasks) compare the shares on
  the basis of the headline's share (post-stratified where it is).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agenteval.statistical import suite
from agenteval.statistical.counts import SuiteCounts

__all__ = ["SuiteValues", "Fits", "summarise", "fit_all", "group_row", "share_draws",
           "quality_rows", "PASS_FIELDS", "RATE_FIELDS", "STRATIFIED"]

PASS_FIELDS = ("pass_at_k", "pass_at_k_low", "pass_at_k_high", "pass_pow_k", "pass_pow_k_low",
               "pass_pow_k_high")
RATE_FIELDS = ("rate", "rate_low", "rate_high", *PASS_FIELDS)
STRATIFIED = "post-stratified by conversation length"
"""How every post-stratified ``rate_method`` begins."""


@dataclass(frozen=True)
class Fits:
    """The hierarchical fits over conversations and over tasks (None where the mode has none)."""

    conversations: Any = None
    tasks: Any = None


@dataclass(frozen=True)
class SuiteValues:
    """What the summary shows, as plain values (the results wrap them in their models)."""

    k: int
    method: str
    rows: list[dict[str, Any]]
    """One dict per group with the fields of ``SuiteRow``."""
    diagnostics: list[dict[str, Any]] = field(default_factory=list)
    comparisons: Any = None
    """``statistical.compare.ComparisonTable`` (with draws, for figures), or None (one agent)."""
    quality: list[dict[str, Any]] = field(default_factory=list)
    """Per agent, the fields of ``QualityRow``."""
    notes: list[str] = field(default_factory=list)
    """Sentences a reader must see (e.g. not identified)."""
    given: dict[str, int] = field(default_factory=dict)
    """Conversations and interactions whose outcomes the data gave (not judged)."""


def _is_bayes(mode: Any) -> bool:
    return mode.get_result_type() == "distribution"


def _fitted(mode: Any) -> bool:
    """True when the mode fits a hierarchical model (empirical Bayes, MCMC)."""
    from agenteval.statistical.modes import StatisticalMode

    return not (getattr(mode, "method", "conjugate") == "conjugate"
                or type(mode).fit is StatisticalMode.fit)


def fit_all(counts: SuiteCounts, mode: Any) -> Fits:
    """The mode's fits over conversations and over tasks, per agent (None without a fit)."""
    if not _fitted(mode) or counts.size == 0:
        return Fits()
    names = list(counts.agents)
    # per conversation only where the mode pools conversations (and the data can inform it)
    conv = mode.conversation_fit(counts.n, counts.c,
                                 groups=[names[a] for a in counts.agent.tolist()])
    tasks = counts.tasks
    task = (mode.fit(tasks.n, tasks.c, groups=[names[a] for a in tasks.agent.tolist()])
            if tasks.size else None)
    return Fits(conv, task)


def diagnostics(fits: Fits) -> list[dict[str, Any]]:
    """The fits' diagnostics, one dict per fit (level, units, distinct triples, the rest)."""
    out = []
    for level, fit in (("conversations", fits.conversations), ("tasks", fits.tasks)):
        if fit is not None:
            d = {key: v for key, v in fit.diagnostics.items() if key != "modes"}
            out.append({"level": level, "units": int(fit.inverse.size),
                        "distinct_triples": int(fit.triples[0].size), **d})
    return out


def without_data(values: dict[str, float], n: int) -> dict[str, float]:
    """NaN everywhere when nothing was observed: a prior is not a result to report."""
    return {key: math.nan for key in values} if n == 0 else values


def _share(counts: SuiteCounts, mask: np.ndarray, mode: Any, k: int
           ) -> tuple[dict[str, float], str]:
    """The share p of fully correct conversations of one group, and how it was computed."""
    strata = counts.strata(mask)
    complete = counts.complete[mask]
    n_complete = int(complete.sum())
    n_full = int(counts.fully_correct[mask].sum())
    if complete.all() or strata.lengths.size <= 1:
        est = mode.estimate(n_complete, n_full, k)
        rate = without_data({f: float(getattr(est, f)) for f in RATE_FIELDS}, n_complete)
        return rate, "complete cases"
    out = mode.stratified_rate(strata.conversations, strata.complete, strata.fully_correct, k)
    rate = without_data({f: float(out[f]) for f in RATE_FIELDS}, n_complete)
    method = (f"{STRATIFIED} ({strata.lengths.size} lengths): complete conversations of each "
              "length, weighted by all conversations of that length")
    if out.get("dropped"):
        method += (f"; {out['dropped']} conversations of lengths with no complete conversation "
                   "left out")
    return rate, method


def group_row(counts: SuiteCounts, mask: np.ndarray, name: str, level: str, mode: Any, k: int,
              task: Any) -> dict[str, Any]:
    """One group's row (the fields of ``SuiteRow``); ``task`` is its ``TaskEstimate``."""
    rate, rate_method = _share(counts, mask, mode, k)
    per_task = counts.attempts_per_task(mask)
    attempts = per_task.size > 0
    headline = "tasks" if attempts and per_task.max() >= 2 else "pooled"
    note = ""
    if attempts and not task.identified:
        note = suite.not_identified_note(k)
    elif not attempts and k > 1:
        note = ("no task_id: pass@k / pass^k are the pooled plug-in, which assumes every "
                "conversation is an attempt at an equally hard task")
    untasked = int(np.sum(counts.task[mask] < 0))
    if attempts and untasked:
        note = ((note + "; ") if note else "") + (f"{untasked} conversations without task_id are "
                                                  "not in the task level")
    head = ({f: getattr(task, f"task_{f}") for f in PASS_FIELDS} if headline == "tasks"
            else {f: rate[f] for f in PASS_FIELDS})
    fully = counts.fully[mask]
    n_full, failed = int(np.sum(fully == 1)), int(np.sum(fully == 0))
    bounds = suite.unknown_bounds(int(mask.sum()), n_full, failed, k)
    if bounds["unknown"]:   # failures that depend on correctness: only these bounds hold
        wide = suite.unknown_bounds_note(bounds["rate_unknown_wrong"], bounds["rate_unknown_right"],
                                         rate["rate_low"], rate["rate_high"],
                                         what=f"the share fully correct of {name}")
        note = ((note + "; ") if note and wide else note) + wide
    return {
        "group": name, "level": level, "conversations": int(mask.sum()),
        "complete": int(counts.complete[mask].sum()), "fully_correct": n_full,
        "known_failures": failed, "unknown": int(mask.sum()) - n_full - failed,
        "rate": rate["rate"], "rate_low": rate["rate_low"], "rate_high": rate["rate_high"],
        "rate_method": rate_method,
        "rate_unknown_wrong": bounds["rate_unknown_wrong"],
        "rate_unknown_right": bounds["rate_unknown_right"], "headline": headline, **head,
        **{f"pooled_{f}": rate[f] for f in PASS_FIELDS},
        "tasks": task.tasks, "tasks_with_k": task.tasks_with_k, "max_attempts": task.max_attempts,
        "identified": task.identified,
        **{f"task_{f}": getattr(task, f"task_{f}") for f in PASS_FIELDS},
        **{f"new_task_{f}": getattr(task, f"new_task_{f}") for f in PASS_FIELDS},
        "unbiased_pass_at_k": task.unbiased_pass_at_k,
        "unbiased_pass_pow_k": task.unbiased_pass_pow_k,
        "task_method": task.method if attempts else "", "note": note,
        "interactions_judged": int(counts.n[mask].sum()),
        "judge_errors": int(counts.judge_errors[mask].sum()),
    }


def suite_rows(counts: SuiteCounts, mode: Any, k: int) -> list[dict[str, Any]]:
    """'all', then one row per agent when there are several."""
    tasks = counts.tasks
    estimates = mode.task_estimates(tasks.n, tasks.c, k, groups=tasks.agent,
                                    names=list(counts.agents))
    groups = counts.groups()
    per_group = [estimates[0]] + (estimates[1:] if len(groups) > 1 else [])
    return [group_row(counts, mask, name, level, mode, k, task)
            for (name, level, mask), task in zip(groups, per_group)]


def share_draws(counts: SuiteCounts, mask: np.ndarray, mode: Any, *, draws: int | None = None,
                seed: int | None = None) -> np.ndarray:
    """Posterior draws of a group's share p, on the basis of its row (complete cases, or
    post-stratified by length). With the defaults (the mode's ``mc_samples`` and ``rng_seed``)
    these are the very draws behind a post-stratified row's interval."""
    strata = counts.strata(mask)
    m, c = strata.complete, strata.fully_correct
    n = strata.conversations
    if counts.complete[mask].all() or n.size <= 1:
        n, m, c = n.sum(keepdims=True), m.sum(keepdims=True), c.sum(keepdims=True)
    return suite.stratified_share_draws(
        n, m, c, a=mode.beta_prior_a, b=mode.beta_prior_b,
        draws=int(draws or mode.mc_samples), seed=mode.rng_seed if seed is None else seed)


def _hyper(fits: Fits) -> dict[str, tuple[Any, Any]] | None:
    """Per agent, the (mu, kappa) draws of the fit over tasks, for the paired model."""
    fit = fits.tasks
    if fit is None or not getattr(fit, "names", None):
        return None
    mu, kappa = fit.flat
    return {name: (mu[:, g], kappa[:, g]) for g, name in enumerate(fit.names)}


def _agent_rows(counts: SuiteCounts, rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    if len(counts.agents) == 1:
        return {counts.agents[0]: rows[0]}
    return {row["group"]: row for row in rows[1:]}


def quality_rows(counts: SuiteCounts, rows: list[dict[str, Any]], mode: Any, k: int, *,
                 fits: Fits = Fits(), thresholds: Any = None) -> list[dict[str, Any]]:
    """Fair Forge's quality table per agent, on its headline: the values are the headline's
    pass@k / pass^k (task-level where tasks repeat, else the pooled plug-in of the share, post-
    stratified where the row is); probabilities (Bayesian) come from that quantity's posterior."""
    from agenteval.statistical import quality as q

    if counts.size == 0 or not counts.complete.any():
        return []
    t = thresholds or q.Thresholds()
    by_agent = _agent_rows(counts, rows)
    agent, task, success = counts.complete_cases()
    per_task = {r.agent: r for r in q.assess_agents(agent, task, success, k=k, mode=mode,
                                                    thresholds=t, hyper=_hyper(fits))}
    out = []
    bayes = _is_bayes(mode)
    for g, name in enumerate(counts.agents):
        row = by_agent[name]
        at, pw = row["pass_at_k"], row["pass_pow_k"]
        if row["headline"] == "tasks" and name in per_task:
            src = per_task[name]
            probs = (src.prob_reliable, src.prob_inconsistent, src.prob_needs_improvement,
                     src.prob_unlabelled)
            basis = f"headline: task-level, {row['tasks']} tasks"
        else:
            basis = f"headline: pooled plug-in of the share ({row['rate_method']})"
            if bayes and row["complete"]:
                mask = counts.agent == g
                if row["rate_method"] == "complete cases":
                    a = mode.beta_prior_a + row["fully_correct"]
                    b = mode.beta_prior_b + row["complete"] - row["fully_correct"]
                    p = q.label_probabilities_beta(a, b, k, thresholds=t)
                else:
                    s = share_draws(counts, mask, mode)
                    p = q.label_probabilities(1.0 - (1.0 - s) ** k, s ** k, thresholds=t)
                probs = tuple(float(p[label]) for label in q.LABELS)
            else:
                probs = (math.nan,) * 4
        label = None if (math.isnan(at) or math.isnan(pw)) else q.assess(at, pw, thresholds=t)
        out.append({"unit": name, "pass_at_k": at, "pass_pow_k": pw, "label": label,
                    "prob_reliable": probs[0], "prob_inconsistent": probs[1],
                    "prob_needs_improvement": probs[2], "prob_unlabelled": probs[3],
                    "basis": basis})
    return out


def _independent_share(counts: SuiteCounts, rows: list[dict[str, Any]], mode: Any,
                       a: str, b: str, d: Any) -> Any:
    """An independent comparison of success on the rows' share basis (post-stratified where a
    row is): Bayesian, from the share draws; frequentist, Newcombe's square-and-add of the two
    rows' intervals."""
    by_agent = _agent_rows(counts, rows)
    ra, rb = by_agent[a], by_agent[b]
    if ra["rate_method"] == "complete cases" and rb["rate_method"] == "complete cases":
        return d
    level = mode.ci_level
    tail = (1.0 - level) / 2.0
    if _is_bayes(mode):
        ga, gb = counts.agents.index(a), counts.agents.index(b)
        ss = np.random.SeedSequence(mode.rng_seed).spawn(2)
        sa = share_draws(counts, counts.agent == ga, mode, seed=int(ss[0].generate_state(1)[0]))
        sb = share_draws(counts, counts.agent == gb, mode, seed=int(ss[1].generate_state(1)[0]))
        diff = sa - sb
        lo, hi = np.quantile(diff, [tail, 1.0 - tail])
        return dataclasses.replace(d, value_a=ra["rate"], value_b=rb["rate"],
                                   difference=ra["rate"] - rb["rate"], low=float(lo),
                                   high=float(hi), prob_a_better=float(np.mean(diff > 0)),
                                   draws=diff)
    pa, pb = ra["rate"], rb["rate"]
    diff = pa - pb
    low = diff - math.sqrt((pa - ra["rate_low"]) ** 2 + (rb["rate_high"] - pb) ** 2)
    high = diff + math.sqrt((ra["rate_high"] - pa) ** 2 + (pb - rb["rate_low"]) ** 2)
    return dataclasses.replace(d, value_a=pa, value_b=pb, difference=diff, low=low, high=high,
                               p_value=math.nan, p_adjusted=math.nan)


def comparisons(counts: SuiteCounts, rows: list[dict[str, Any]], mode: Any, k: int, *,
                fits: Fits = Fits(), adjust: str = "holm") -> Any:
    """Every pair of agents and the ranking (``statistical.compare.compare_agents`` on the
    complete conversations), with independent success comparisons on the headline's share."""
    from agenteval.statistical.compare import compare_agents

    if len(counts.agents) < 2:
        return None
    agent, task, success = counts.complete_cases()
    table = compare_agents(agent, task, success, k=k, mode=mode, adjust=adjust,
                           names=list(counts.agents), hyper=_hyper(fits))
    pairs = []
    for cmp in table.comparisons:
        if cmp.method != "independent":
            pairs.append(cmp)
            continue
        diffs = [(_independent_share(counts, rows, mode, cmp.agent_a, cmp.agent_b, d)
                  if d.quantity == "success" and d.scope == "conversations" else d)
                 for d in cmp.differences]
        changed = any(x is not y for x, y in zip(diffs, cmp.differences))
        detail = cmp.detail + ("; success: the groups' post-stratified shares, as in the "
                               "summary rows (frequentist: Newcombe square-and-add of the rows' "
                               "intervals, no p-value)" if changed else "")
        pairs.append(dataclasses.replace(cmp, differences=tuple(diffs), detail=detail))
    return dataclasses.replace(table, comparisons=tuple(pairs))


def summarise(counts: SuiteCounts, mode: Any, k: int, *, fits: Fits | None = None,
              method: str | None = None) -> SuiteValues:
    """Every suite estimate of the judged suite ``counts`` under ``mode`` at ``k``; ``fits``
    reuses fits already made (:func:`fit_all`), ``method`` names the run's estimates (default:
    the mode's per-conversation method)."""
    from agenteval.errors import check_k

    k = check_k(k)
    fits = fit_all(counts, mode) if fits is None else fits
    rows = suite_rows(counts, mode, k)
    notes = sorted({r["note"] for r in rows if r["note"]})
    given = {"conversations_given": int(np.sum(counts.source == 1)),
             "interactions_given": int(counts.given_interactions.sum())}
    if method is None:
        method = mode.estimate(1, 1, k).method
    return SuiteValues(
        k=k, method=method, rows=rows, diagnostics=diagnostics(fits),
        comparisons=comparisons(counts, rows, mode, k, fits=fits),
        quality=quality_rows(counts, rows, mode, k, fits=fits), notes=notes, given=given)
