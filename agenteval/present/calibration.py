"""The judge's calibration as HTML (report and notebook): reads ``results.calibration()``."""

from __future__ import annotations

import html
import math
from typing import Any

__all__ = ["calibration_html"]

MAX_DISAGREEMENTS = 50


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _iv(value: float, low: float, high: float) -> str:
    def num(x: float) -> str:
        return "n/a" if not math.isfinite(x) else f"{x:.3f}"
    head = num(value) if math.isfinite(value) else "not identified"
    return f"{head} [{num(low)}, {num(high)}]"


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def calibration_html(results: Any) -> str:
    """A section with agreement, the corrected headline, comparisons and disagreements; '' when
    the run has no labels."""
    cal = results.calibration()
    if cal is None:
        return ""
    k = cal.k
    agree = _table(["group", "labelled", "tp", "fn", "fp", "tn", "sensitivity", "specificity",
                    "accuracy", "Cohen's kappa"],
                   [[a.group, a.labelled, a.tp, a.fn, a.fp, a.tn,
                     _iv(a.sensitivity, a.sensitivity_low, a.sensitivity_high),
                     _iv(a.specificity, a.specificity_low, a.specificity_high),
                     _iv(a.accuracy, a.accuracy_low, a.accuracy_high),
                     _iv(a.kappa, a.kappa_low, a.kappa_high)] for a in cal.agreement])
    corrected = _table(["group", "judge rate", "corrected rate", "PPI rate", "judge share",
                        "corrected share", f"corrected pass@{k}", f"corrected pass^{k}", "basis"],
                       [[r.group, f"{r.judge_rate:.3f}", _iv(r.rate, r.rate_low, r.rate_high),
                         _iv(r.ppi_rate, r.ppi_rate_low, r.ppi_rate_high), f"{r.judge_share:.3f}",
                         _iv(r.share, r.share_low, r.share_high),
                         _iv(r.pass_at_k, r.pass_at_k_low, r.pass_at_k_high),
                         _iv(r.pass_pow_k, r.pass_pow_k_low, r.pass_pow_k_high), r.basis]
                        for r in cal.corrected])
    parts = ['<section id="calibration"><h2>Judge vs human labels</h2>',
             f"<p>{cal.matched} labelled interactions"
             + (f" from {_e(cal.labels_source)}" if cal.labels_source else "") + ".</p>", agree]
    if math.isfinite(cal.alpha):
        parts.append(f"<p>Krippendorff's alpha over {_e(', '.join(cal.raters))}: "
                     f"{_iv(cal.alpha, cal.alpha_low, cal.alpha_high)}</p>")
    parts += ["<h3>Judge-corrected headline</h3>",
              "<p>Intervals carry both the suite's and the labelled subset's uncertainty.</p>",
              corrected]
    methods = sorted({f"{r.rate_method}; {r.method}" for r in cal.corrected})
    parts += [f'<p class="method">{_e(m)}</p>' for m in methods]
    notes = list(dict.fromkeys([*cal.notes, *(r.note for r in cal.corrected if r.note)]))
    parts += [f'<p class="note"><b>note:</b> {_e(n)}</p>' for n in notes]
    if cal.comparisons:
        parts += ["<h3>Judge-corrected comparisons (A - B)</h3>",
                  "<p>The summary's comparisons and ranking are these: every conversation's "
                  "true outcome is drawn from its corrected probability per draw of the "
                  "correction, with one sensitivity/specificity for both agents.</p>",
                  _table(["A", "B", "method", "quantity", "scope", "A - B", "P(A > B)",
                          "p-value (adjusted)"],
                         [[c.agent_a, c.agent_b, c.method, c.quantity, c.scope,
                           _iv(c.difference, c.difference_low, c.difference_high),
                           "" if not math.isfinite(c.prob_a_better) else f"{c.prob_a_better:.3f}",
                           "" if not math.isfinite(c.p_value)
                           else f"{c.p_value:.3f} ({c.p_adjusted:.3f})"]
                          for c in cal.comparisons])]
        if cal.ranking:
            parts.append("<p>Ranking on judge-corrected success:</p>")
            parts.append(_table(["agent", "corrected success", "P(best)", "expected rank"],
                                [[r.agent, f"{r.mean:.3f}", f"{r.prob_best:.3f}",
                                  f"{r.expected_rank:.2f} [{r.rank_low:g}, {r.rank_high:g}]"]
                                 for r in sorted(cal.ranking, key=lambda r: r.expected_rank)]))
    parts += [f'<p class="note"><b>note:</b> {_e(n)}</p>' for n in cal.comparison_notes]
    if cal.disagreements:
        shown = cal.disagreements[:MAX_DISAGREEMENTS]
        parts += [f"<details><summary>{len(cal.disagreements)} labelled interactions where the "
                  "judge and the human disagree" + (f" (first {len(shown)})" if len(shown) <
                                                    len(cal.disagreements) else "")
                  + "</summary>",
                  _table(["session_id", "qa_id", "agent", "judge score", "judge", "human"],
                         [[d["session_id"], d["qa_id"], d["assistant_id"], d["score"],
                           d["judge"], d["human"]] for d in shown]), "</details>"]
    parts.append("</section>")
    return "".join(parts)
