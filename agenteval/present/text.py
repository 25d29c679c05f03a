"""Plain-text views of results: the tables of ``SuiteSummary.to_text()`` (what the CLI prints)
and the number formats every text view shares.

They read the summary's rows and compute nothing; a missing number prints as ``n/a``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agenteval.results.agentic import SuiteSummary

__all__ = ["comparison_lines", "diagnostics_line", "format_count", "format_interval",
           "format_number", "format_p", "format_prob", "format_probability", "interval_kind",
           "is_exact", "is_missing",
           "results_repr", "summary_text"]


def format_interval(value: float, low: float | None, high: float | None) -> str:
    """'0.500 [0.100, 0.900]'; 'n/a' for an undefined value; the value alone without bounds."""
    if is_missing(value):
        return "n/a"
    if is_missing(low) or is_missing(high):
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def interval_kind(method: str) -> str:
    """What the printed intervals are, in words (views label what they show)."""
    if method.startswith("plug-in"):
        return "confidence interval (see method; bootstrap percentiles at the task level)"
    return "equal-tailed credible interval (see method)"


def is_missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def format_prob(x: float) -> str:
    """Probabilities near 0 or 1 keep their magnitude visible (4.1e-04, not 0.000)."""
    if is_missing(x):
        return "n/a"
    return f"{x:.3f}" if 0.001 <= x <= 0.999 else f"{x:.1e}" if x < 0.001 else f"1 - {1 - x:.1e}"


def format_probability(x: float | None, *, exact: bool = False) -> str:
    """The one format of a probability in every view (CLI text, notebook HTML, report, tables).

    From draws or resamples (``exact=False``: P(A > B) over tasks, P(best), P(Reliable),
    p-values) a probability resolves no better than ~1e-3, so it prints ``< 0.001`` /
    ``> 0.999`` (:func:`format_p`); an exact one (quadrature over the conversation-level Beta
    posteriors) keeps its magnitude, ``4.1e-04`` (:func:`format_prob`).
    """
    if is_missing(x):
        return "n/a"
    return format_prob(x) if exact else format_p(float(x))  # type: ignore[arg-type]


def is_exact(comparison: Any) -> bool:
    """Whether a comparison's P(A > B) is exact (conversation scope: quadrature, not draws)."""
    return (getattr(comparison, "scope", None) == "conversations"
            and getattr(comparison, "basis", "") != "judge-corrected")  # corrected: from draws


def format_number(x: float | None) -> str:
    return "n/a" if is_missing(x) else f"{x:.3f}"


def format_count(x: Any) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.0f}"


def format_p(x: float) -> str:
    """Probabilities from draws or resamples resolve no better than ~1e-3: say so."""
    if math.isnan(x):
        return "n/a"
    return "< 0.001" if x < 0.001 else "> 0.999" if x > 0.999 else f"{x:.3f}"


def results_repr(results: Any) -> str:
    """``repr(results)``: a few lines with the key numbers, not a dump of every conversation.

    The suite lines appear once the summary is computed (the magic and the CLI compute it; a
    repr never starts an MCMC fit).
    """
    judged, total = results.judged_share()
    agents = len(results.agents)
    lines = [f"AgenticResults({len(results)} conversations, k={results.k}, "
             f"method={results.method!r})",
             f"  {agents} agent{'s' * (agents != 1)}; {judged} of {total} interactions judged"
             + ("" if judged == total else f" ({total - judged} not: see the HTML's causes)")]
    summary = getattr(results, "_summary", None)
    if summary is None:
        lines.append("  results.summary() for the suite estimates")
    else:
        k = results.k
        for r in summary.rows[:6]:
            lines.append(f"  {r.group[:24]:<25}{r.fully_correct}/{r.conversations} fully correct"
                         f"  p {format_interval(r.rate, r.rate_low, r.rate_high)}"
                         f"  pass@{k} {format_interval(r.pass_at_k, r.pass_at_k_low, r.pass_at_k_high)}"
                         f"  pass^{k} {format_interval(r.pass_pow_k, r.pass_pow_k_low, r.pass_pow_k_high)}")
        if len(summary.rows) > 6:
            lines.append(f"  ... {len(summary.rows) - 6} more agents: results.summary()")
    lines.append("  results[i] one conversation; results.to_dataframe() all of them")
    return "\n".join(lines)


def summary_text(summary: SuiteSummary) -> str:
    """``SuiteSummary.to_text()``: headline, task level, pooled plug-in, fits, comparisons."""
    k = summary.k
    iv = format_interval
    head = (f"{'group':<22}{'convs':>6}{'compl':>6}{'full':>6}{'unkn':>6}"
            f"{'share fully correct':>24}{f'pass@{k}':>24}{f'pass^{k}':>24}  {'basis':<7}"
            f"{'errors':>7}")
    stratified = any(r.rate_method != "complete cases" for r in summary.rows)
    if not summary.method.startswith("plug-in"):
        estimate = "posterior mean"
    elif stratified:
        estimate = "full / compl, or post-stratified where 'share:' below says so"
    else:
        estimate = "full / compl"
    lines = [f"method of p (pass@k / pass^k by task: the tasks fit below): {summary.method}",
             "share fully correct = p, the chance a new conversation is fully correct "
             f"({estimate}); "
             f"pass@{k} / pass^{k}: basis 'tasks' = mean over the suite's tasks, "
             "'pooled' = plug-in from p; [low, high] = " + interval_kind(summary.method),
             head, "-" * len(head)]
    for r in summary.rows:
        lines.append(
            f"{r.group[:21]:<22}{r.conversations:>6}{r.complete:>6}{r.fully_correct:>6}"
            f"{r.unknown:>6}{iv(r.rate, r.rate_low, r.rate_high):>24}"
            f"{iv(r.pass_at_k, r.pass_at_k_low, r.pass_at_k_high):>24}"
            f"{iv(r.pass_pow_k, r.pass_pow_k_low, r.pass_pow_k_high):>24}  {r.headline:<7}"
            f"{r.judge_errors:>7}")
    methods = sorted({r.rate_method for r in summary.rows if r.rate_method != "complete cases"})
    lines += [f"  share: {m}" for m in methods]
    if any(r.tasks for r in summary.rows):
        task_head = (f"{'group':<22}{'tasks':>6}{f'>={k}':>5}  {f'pass@{k} suite tasks':>24}"
                     f"{f'pass^{k} suite tasks':>24}{f'pass^{k} new task':>24}"
                     f"{f'unbiased @{k}':>13}{f'^{k}':>8}")
        lines += ["", "task level (task = agent x task_id; suite tasks = mean over these "
                  "tasks; new task = one more from the same population):",
                  task_head, "-" * len(task_head)]
        for r in summary.rows:
            lines.append(
                f"{r.group[:21]:<22}{r.tasks:>6}{r.tasks_with_k:>5}  "
                f"{iv(r.task_pass_at_k, r.task_pass_at_k_low, r.task_pass_at_k_high):>24}"
                f"{iv(r.task_pass_pow_k, r.task_pass_pow_k_low, r.task_pass_pow_k_high):>24}"
                f"{iv(r.new_task_pass_pow_k, r.new_task_pass_pow_k_low, r.new_task_pass_pow_k_high):>24}"
                f"{format_number(r.unbiased_pass_at_k):>13}{format_number(r.unbiased_pass_pow_k):>8}")
        lines += [f"  {m}" for m in sorted({r.task_method for r in summary.rows if r.task_method})]
    pooled = [r for r in summary.rows if r.headline == "tasks"]
    if pooled:
        lines += ["", f"pooled plug-in 1-(1-p)^{k}, p^{k} (assumes every task equally hard; "
                  "shown for comparison):"]
        for r in pooled:
            lines.append(
                f"  {r.group[:21]:<22}pass@{k} "
                f"{iv(r.pooled_pass_at_k, r.pooled_pass_at_k_low, r.pooled_pass_at_k_high)}"
                f"   pass^{k} "
                f"{iv(r.pooled_pass_pow_k, r.pooled_pass_pow_k_low, r.pooled_pass_pow_k_high)}")
    unknown = [r for r in summary.rows if r.unknown]
    if unknown:
        lines += ["", "share fully correct if every unknown conversation failed / succeeded "
                  "(bounds that hold even when judge failures depend on correctness):"]
        lines += [f"  {r.group[:21]:<22}[{format_number(r.rate_unknown_wrong)}, "
                  f"{format_number(r.rate_unknown_right)}]  ({r.unknown} unknown)" for r in unknown]
    notes = sorted({r.note for r in summary.rows if r.note})
    if notes:
        lines += [""] + [f"note: {n}" for n in notes]
    for d in summary.diagnostics:
        lines.append("")
        lines.append(diagnostics_line(d))
    lines += comparison_lines(summary)
    return "\n".join(lines)


def diagnostics_line(d: dict[str, Any]) -> str:
    """One line per fit: what was fitted and whether the sampler can be trusted."""
    head = f"{d['level']} fit ({d.get('units')} units, {d.get('distinct_triples')} distinct (agent, n, c))"
    if d.get("method") == "mcmc":
        status = "ok" if d.get("ok") else "CHECK: " + "; ".join(d.get("problems") or [])
        return (f"{head}: NUTS ({d.get('sampler')}) {d.get('chains')} chains x {d.get('draws')} "
                f"draws, max r_hat {format_number(d.get('r_hat_max'))}, min ESS bulk "
                f"{format_count(d.get('ess_bulk_min'))} tail {format_count(d.get('ess_tail_min'))}, "
                f"divergences {d.get('divergences')}, {d.get('seconds', 0):.1f} s: {status}")
    return (f"{head}: pooled population prior, (mu, kappa) posterior by "
            f"{d.get('integration', 'optimisation')}")


def _comparison_rows(summary: Any, comparisons: Any) -> list[str]:
    lines: list[str] = []
    current = None
    for c in comparisons:
        pair = (c.agent_a, c.agent_b)
        if pair != current:
            current = pair
            shared = f", {c.shared_tasks} shared tasks" if c.method == "paired" else ""
            lines.append(f"  A={c.agent_a} vs B={c.agent_b} ({c.method}{shared}):")
        if math.isnan(c.prob_a_better):
            extra = (f"  p {format_p(c.p_value)}, adjusted ({summary.comparison_adjust}) "
                     f"{format_p(c.p_adjusted)}")
        else:
            extra = f"  P(A > B) {format_probability(c.prob_a_better, exact=is_exact(c))}"
        lines.append(f"    {c.quantity:<9} {c.scope:<14} A {c.rate_a:.3f}  B {c.rate_b:.3f}  "
                     f"A - B = {format_interval(c.difference, c.difference_low, c.difference_high)}"
                     f"{extra}")
    return lines


def comparison_lines(summary: Any) -> list[str]:
    """The comparison, ranking and quality sections of ``SuiteSummary.to_text()``."""
    lines: list[str] = []
    corrected = bool(summary.comparisons) and getattr(summary.comparisons[0], "basis",
                                                      "") == "judge-corrected"
    if summary.comparisons:
        basis = ("; JUDGE-CORRECTED: true outcomes from the human labels' calibration of the "
                 "judge" if corrected else "")
        lines += ["", f"agent comparisons (A - B; paired on shared task_ids, else independent"
                  f"{basis}):"]
        lines += _comparison_rows(summary, summary.comparisons)
        lines += [f"  method, {m}" for m in summary.comparison_method.split("\n") if m]
        lines += [f"  note: {n}" for n in summary.comparison_notes]
        if summary.comparison_adjust not in ("none", ""):
            lines.append(f"  p-values adjusted for the {len({(c.agent_a, c.agent_b) for c in summary.comparisons})} "
                         f"agent pairs per quantity by {_ADJUST[summary.comparison_adjust]}; "
                         "intervals are per comparison")
    judge_only = getattr(summary, "judge_only_comparisons", None) or []
    if judge_only:
        lines += ["", "judge-only comparisons (the judge's verdicts taken as the truth; "
                  "for reference):"]
        lines += _comparison_rows(summary, judge_only)
    if summary.ranking:
        r0 = summary.ranking[0]
        tag = "; judge-corrected" if getattr(r0, "basis", "") == "judge-corrected" else ""
        lines += ["", f"ranking by {r0.quantity} ({r0.scope}{tag}):"]
        for r in sorted(summary.ranking, key=lambda r: r.expected_rank):
            lines.append(f"  {r.agent[:30]:<31} mean {r.mean:.3f}  P(best) "
                         f"{format_probability(r.prob_best)}  "
                         f"expected rank {r.expected_rank:.2f} [{r.rank_low:g}, {r.rank_high:g}]")
        judge_rank = getattr(summary, "judge_only_ranking", None) or []
        if judge_rank:
            lines.append("  judge-only ranking: " + ", ".join(
                f"{r.agent} (P(best) {format_probability(r.prob_best)})"
                for r in sorted(judge_rank, key=lambda r: r.expected_rank)))
    if summary.quality:
        k = summary.k
        from agenteval.results.comparisons import CORRECTED_QUALITY, judge_corrected

        tag = f"; JUDGE-CORRECTED: {CORRECTED_QUALITY}" if judge_corrected(summary.quality) else ""
        lines += ["", f"quality (Fair Forge: Reliable pass@{k} > 0.95 and pass^{k} > 0.70; "
                  f"Inconsistent pass@{k} > 0.95 and pass^{k} < 0.50; Needs improvement "
                  f"pass@{k} < 0.70{tag}):"]
        lines += _quality_rows(summary.quality, k)
        judge_quality = getattr(summary, "judge_only_quality", None) or []
        if judge_quality:
            lines += ["", "judge-only quality (the judge's verdicts taken as the truth; for "
                      "reference):"]
            lines += _quality_rows(judge_quality, k)
    return lines


def _quality_rows(rows: Any, k: int) -> list[str]:
    lines = []
    for q in rows:
        probs = ("" if math.isnan(q.prob_reliable) else
                 f"  P(Reliable) {format_probability(q.prob_reliable)}  P(Inconsistent) "
                 f"{format_probability(q.prob_inconsistent)}  P(Needs improvement) "
                 f"{format_probability(q.prob_needs_improvement)}")
        lines.append(f"  {q.unit[:30]:<31} pass@{k} {q.pass_at_k:.3f}  pass^{k} "
                     f"{q.pass_pow_k:.3f}  {q.label or 'n/a':<18}{probs}  ({q.basis})")
    return lines


_ADJUST = {"holm": "Holm (1979)", "bh": "Benjamini-Hochberg (1995)"}
