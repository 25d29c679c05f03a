"""Notebook HTML and plain text of RAG results: per case, the summary, the table of cases.

They read the result containers (``agenteval.results.rag``) and compute nothing.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from agenteval.present.text import format_interval as _interval
from agenteval.present.text import format_number as _num

if TYPE_CHECKING:
    from agenteval.results.rag import PrecisionCase, RagResults, RagSummary, RecallCase

__all__ = ["precision_case_html", "recall_case_html", "report_html", "results_html",
           "summary_html", "summary_text"]


def precision_case_html(case: PrecisionCase) -> str:
    parts = [_case_head(case.case_id, case.score, case.score_low, case.score_high,
                        f"weighted {_num(case.score_weighted)}")]
    for search in case.searches:
        parts.append(f"<p>query <i>{html.escape(search.query)}</i>: precision "
                     f"{_num(search.score)}</p>")
        parts.append(_rows_html(["rank", "relevant", "source", "reason", "node"],
                                [[n.rank, _flag(n.relevant), n.source, n.error or n.reason,
                                  n.text] for n in search.nodes]))
    return "".join(parts)


def recall_case_html(case: RecallCase) -> str:
    head = _case_head(case.case_id, case.score, case.score_low, case.score_high,
                      f"{case.attributable}/{case.total} statements attributable")
    rows = [[st.index, _flag(st.attributable), st.source, st.error or st.reason,
             st.text, "" if st.supporting_rank is None
             else f"search {st.supporting_search} rank {st.supporting_rank}"]
            for st in case.statements]
    errors = "".join(f"<p>{html.escape(e)}</p>" for e in case.judge_errors
                     if not e.startswith("statement "))
    return head + errors + _rows_html(["#", "attributable", "source", "reason", "statement",
                                       "supported by"], rows)


def summary_text(summary: RagSummary) -> str:
    lines = [f"{summary.metric}: {_interval(summary.mean, summary.ci_low, summary.ci_high)} over "
             f"{summary.scored} of {summary.cases} cases  ({summary.method})"]
    for key, value in summary.extra.items():
        if key == "mean_bounds":
            lines.append(f"  mean over all {summary.cases} cases, whatever the failed verdicts "
                         f"turn out to be: [{_num(value['low'])}, {_num(value['high'])}]")
        elif isinstance(value, dict):
            lines.append(f"  {key}: {_interval(value.get('mean'), value.get('ci_low'), value.get('ci_high'))}"
                         f"  ({value.get('method', '')})")
        elif isinstance(value, float):
            lines.append(f"  {key}: {_num(value)}")
    lines.append(f"  verdicts: {summary.labelled} from labels, {summary.judged} judged, "
                 f"{summary.judge_errors} failed (kept out, never counted as "
                 f"{'irrelevant' if 'precision' in summary.metric else 'unsupported'})")
    if summary.cases > summary.scored:
        lines.append(f"  {summary.cases - summary.scored} case(s) not scored: see judge_errors")
    judge = summary.judge
    if judge:
        lines.append(f"  judge: {judge.get('judge')}  calls={judge.get('calls')}  "
                     f"cache_hits={judge.get('cache_hits')}  errors={judge.get('errors')}  "
                     f"not_judged_budget={judge.get('not_judged_budget')}")
    return "\n".join(lines)


def summary_html(summary: RagSummary) -> str:
    return (f"<p><b>{html.escape(summary.metric)}</b> ({html.escape(summary.method)})</p>"
            + summary.to_dataframe().to_html(float_format=lambda x: f"{x:.3f}"))


def results_html(results: RagResults) -> str:
    df = results.to_dataframe()
    return (summary_html(results.summary())
            + df.to_html(index=False, float_format=lambda x: f"{x:.3f}"))


def _flag(value: bool | None) -> str:
    return "?" if value is None else "yes" if value else "no"


def _case_head(case_id: str, score: Any, low: Any, high: Any, extra: str) -> str:
    bounds = "" if score is not None or low is None else f" (between {_num(low)} and {_num(high)})"
    return (f"<p><b>{html.escape(case_id)}</b>: score {_num(score)}{bounds}; "
            f"{html.escape(extra)}</p>")


def _rows_html(header: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def report_html(results: RagResults) -> str:
    """``METRIC_report.html``: one self-contained page (inline CSS and script, no network):
    the summary, a sortable, filterable list of the cases, and each case opened with its
    nodes' or statements' verdicts (``agenteval.present.report_rag``)."""
    from agenteval.present.report_rag import rag_report_html

    return rag_report_html(results, summary_text=summary_text(results.summary()))
