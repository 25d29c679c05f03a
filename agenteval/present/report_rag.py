"""The RAG report (``METRIC_report.html``): the agentic report's viewer for RAG cases.

The summary first (the mean with its interval and method, how many verdicts came from
labels, the judge, or failed), then a sortable, filterable list of every case (score, its
bounds over failed verdicts, counts, judge errors), then the opened case with permalink
``#case=ID``: the question and the expected answer; for contextual precision each search's
query and every retrieved node with its rank, verdict, where the verdict came from and why; for
contextual recall every statement of the expected answer with its verdict, reason and the
node (search, rank and text) that supports it. Same page machinery as the agentic report
(``agenteval.present.report_viewer``): one offline file, every text escaped, no script but its
own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agenteval.present.report_parts import esc, fmt, long_text
from agenteval.present.report_viewer import (data_block, list_section, script_block,
                                             view_section)

if TYPE_CHECKING:
    from agenteval.results.rag import PrecisionCase, RagResults, RecallCase

__all__ = ["CASE_OUTCOMES", "rag_report_html"]

CASE_OUTCOMES = {"one": ("score 1", "full"), "part": ("0 < score < 1", "part"),
                 "zero": ("score 0", "wrong"), "unk": ("unknown (failed verdicts)", "unknown")}
"""A case's score class -> (label, CSS class), for the list's filter and badges."""

_VERDICT = {True: ("yes", "full"), False: ("no", "wrong"), None: ("failed", "unknown")}


def _case_key(score: float | None) -> str:
    if score is None:
        return "unk"
    return "one" if score >= 1 - 1e-12 else "zero" if score <= 1e-12 else "part"


def rag_report_html(results: RagResults, *, summary_text: str = "") -> str:
    """The whole page of one RAG metric run (module docstring); ``summary_text``: the
    summary as ``agenteval.present.rag.summary_text`` prints it, shown first."""
    from agenteval.present.report import page_head

    precision = results.metric == "contextual_precision"
    title = f"agenteval {results.metric}: {len(results)} cases"
    cols: list[dict[str, Any]] = [
        {"id": "case", "label": "case", "kind": "text"},
        {"id": "outcome", "label": "score class", "kind": "outcome"},
        {"id": "score", "label": "score", "kind": "num", "digits": 3,
         "title": "the case's score; n/a when a verdict failed (see low / high)"},
        {"id": "low", "label": "low", "kind": "num", "digits": 3,
         "title": "lowest score the failed verdicts allow"},
        {"id": "high", "label": "high", "kind": "num", "digits": 3,
         "title": "highest score the failed verdicts allow"},
    ]
    if precision:
        cols += [{"id": "searches", "label": "searches", "kind": "num"},
                 {"id": "nodes", "label": "nodes", "kind": "num"},
                 {"id": "relevant", "label": "relevant", "kind": "num"}]
    else:
        cols += [{"id": "attributable", "label": "attributable", "kind": "num"},
                 {"id": "total", "label": "statements", "kind": "num"}]
    cols.append({"id": "errors", "label": "failed verdicts", "kind": "num"})
    rows, articles = [], []
    for position, case in enumerate(results):
        key = _case_key(case.score)
        values: list[Any] = [case.case_id, key, case.score, case.score_low, case.score_high]
        if precision:
            values += [len(case.searches), sum(len(s.nodes) for s in case.searches),
                       len(case.hits)]
            articles.append(_precision_article(position, case))
        else:
            values += [case.attributable, case.total]
            articles.append(_recall_article(position, case))
        values += [len(case.judge_errors), position, int(key != "one" or bool(case.judge_errors))]
        rows.append(values)
    data = {"key": "case", "noun": "case", "cols": cols, "rows": rows, "grid": None,
            "outcomes": {k: list(v) for k, v in CASE_OUTCOMES.items()}, "capped": "",
            "page": 500}
    script, source = script_block()
    summary = results.summary()
    manifest = dict(getattr(results, "provenance", {}) or {})
    run = ""
    if manifest.get("command"):
        run += f'<p class="run"><code>{esc(manifest["command"])}</code></p>'
    listing = list_section(section_id="cases", title="Cases", noun="case",
                           selects=[(1, "score class")],
                           look_label="only cases with a score below 1 or failed verdicts")
    nav = "".join(f'<a href="#{i}">{t}</a>' for i, t in
                  (("summary", "Summary"), ("cases", "Cases"), ("conversation", "Opened")))
    return (f'{page_head(title, scripts=[source])}<body><nav class="top">{nav}</nav><main>'
            f"<h1>{esc(title)}</h1>{run}"
            f'<section id="summary"><h2>Summary</h2><pre>{esc(summary_text)}</pre>'
            f"{_summary_table(summary)}</section>"
            f"{listing}{view_section('case', ''.join(articles))}</main>"
            f"{data_block(data)}{script}</body></html>\n")


def _summary_table(summary: Any) -> str:
    rows = [("cases", summary.cases), ("scored", summary.scored),
            ("mean", f"{fmt(summary.mean)} [{fmt(summary.ci_low)}, {fmt(summary.ci_high)}]"),
            ("method", summary.method), ("verdicts from labels", summary.labelled),
            ("verdicts judged", summary.judged), ("failed verdicts", summary.judge_errors)]
    body = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
    return f'<table class="grid">{body}</table>'


def _head(position: int, case: Any, extra: str) -> str:
    label, css = CASE_OUTCOMES[_case_key(case.score)]
    bounds = ("" if case.score is not None
              else f" (between {esc(fmt(case.score_low))} and {esc(fmt(case.score_high))})")
    parts = [f'<article class="conv" id="c-{position}" hidden><header class="conv-head"><p>'
             f'<span class="badge {css}">{esc(label)}</span> <b class="sid">{esc(case.case_id)}</b>'
             f" &middot; <span class=muted>score</span> {esc(fmt(case.score))}{bounds}"
             f" &middot; {extra}</p></header>",
             f'<div class="msg user"><div class="who">question</div>{long_text(case.question)}</div>']
    if case.expected_answer is not None:
        parts.append(f'<div class="msg ref"><div class="who">expected answer</div>'
                     f"{long_text(case.expected_answer)}</div>")
    parts += [f'<p class="err">{esc(e)}</p>' for e in case.judge_errors]
    return "".join(parts)


def _badge(value: bool | None) -> str:
    label, css = _VERDICT[value]
    return f'<span class="badge {css}">{label}</span>'


def _precision_article(position: int, case: PrecisionCase) -> str:
    out = [_head(position, case, f"<span class=muted>weighted</span> {esc(fmt(case.score_weighted))}"
                 + (" &middot; searches flattened into one ranking" if case.flattened else ""))]
    for number, search in enumerate(case.searches):
        tool = f" <span class=muted>tool</span> {esc(search.tool)}" if search.tool else ""
        out.append(f'<section class="turn"><div class="turn-head">search {number + 1}{tool} '
                   f"<span class=muted>precision</span> {esc(fmt(search.score))}</div>"
                   f'<div class="msg tool"><div class="who">query</div>{long_text(search.query)}</div>'
                   '<table class="grid"><thead><tr><th>rank</th><th>relevant</th><th>from</th>'
                   "<th>why</th><th>node</th></tr></thead><tbody>")
        for node in search.nodes:
            node_id = f'<span class="muted">id {esc(node.id)}</span>' if node.id else ""
            out.append(f"<tr><td class=num>{node.rank}</td><td>{_badge(node.relevant)}</td>"
                       f"<td>{esc(node.source)}</td><td>{long_text(node.error or node.reason)}</td>"
                       f"<td>{node_id}{long_text(node.text)}</td></tr>")
        out.append("</tbody></table></section>")
    out.append("</article>")
    return "".join(out)


def _recall_article(position: int, case: RecallCase) -> str:
    extra = f"{case.attributable} of {case.total} statements attributable"
    if case.ci_low is not None:
        extra += (f" &middot; <span class=muted>interval</span> [{esc(fmt(case.ci_low))}, "
                  f"{esc(fmt(case.ci_high))}]")
    out = [_head(position, case, extra)]
    if case.searches:
        searches = "".join(
            f"<li>search {i + 1}: <i>{esc(s.get('query'))}</i>"
            + (f" (tool {esc(s.get('tool'))})" if s.get("tool") else "")
            + f", {esc(s.get('nodes'))} node(s), supports {esc(s.get('statements_supported'))} "
            "statement(s)</li>" for i, s in enumerate(case.searches))
        out.append(f"<ul>{searches}</ul>")
    out.append('<table class="grid"><thead><tr><th>#</th><th>statement</th><th>attributable</th>'
               "<th>from</th><th>why</th><th>supporting node</th></tr></thead><tbody>")
    for st in case.statements:
        support = ('<span class="muted">none named</span>' if st.supporting_rank is None else
                   f"<span class=muted>search {st.supporting_search + 1 if st.supporting_search is not None else '?'}"
                   f" rank {st.supporting_rank}</span>" + long_text(st.supporting_text or ""))
        out.append(f"<tr><td class=num>{st.index + 1}</td><td>{long_text(st.text)}</td>"
                   f"<td>{_badge(st.attributable)}</td><td>{esc(st.source)}</td>"
                   f"<td>{long_text(st.error or st.reason)}</td><td>{support}</td></tr>")
    out.append("</tbody></table></article>")
    return "".join(out)
