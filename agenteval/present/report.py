"""A self-contained HTML report of one run: summary first, then the conversations, drill-down.

One file, no network: CSS and the little JavaScript (a filter box) are inline, figures are
embedded as data URIs, and the drill-down is plain ``<details>`` elements, so the page works from
a mail attachment or an air-gapped machine. Tables are built from the result models' fields and
their descriptions (shown on hover and in a legend), so new summary fields appear without
changes here.

A large run keeps its report usable: the summary tables are always complete, but the
drill-down holds at most ``max_conversations`` conversations (``DEFAULT_MAX_CONVERSATIONS``;
None = all), chosen by ``drill_down_order``: first those not fully correct or with judge errors,
lowest share of correct interactions first, then lowest mean score; the room left goes to a
deterministic sample of the fully correct ones (ordered by a hash of their session id, so the
same run always shows the same ones). They are shown in the run's order, under a note that says
how many are shown and where every conversation is (conversations.csv, interactions.csv,
results.json beside the report, as ``agenteval run --out`` writes them).

    >>> from agenteval.present.report import write_report
    >>> write_report(results, "out/report.html", datasets=datasets)   # doctest: +SKIP
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenteval._util.files import write_atomic
from agenteval._util.sanitize import terminal
from agenteval.graders.summary import drilldown_html, summary_html
from agenteval.present.calibration import calibration_html
from agenteval.present.text import format_probability, is_exact

if TYPE_CHECKING:
    from agenteval.results.agentic import AgenticResults
    from agenteval.schemas.common import Batch, Dataset

__all__ = ["DEFAULT_MAX_CONVERSATIONS", "datasets_from_manifest", "drill_down_order",
           "find_figures", "page_head", "render_report", "write_report"]

DEFAULT_MAX_CONVERSATIONS = 500
"""Conversations drilled down in a report by default: about 1.5-4 MB of HTML, which a browser
opens and filters at once (every conversation at 10,000 is 30-80 MB)."""

_FULL_LISTS = ("conversations.csv", "interactions.csv", "results.json")
"""Files ``agenteval run --out`` writes beside the report with every conversation."""

FIGURE_SUFFIXES = (".png",)

HEADLINE_FIELDS = ("conversations", "complete", "fully_correct", "unknown", "rate", "headline",
                   "pass_at_k", "pass_pow_k", "task_pass_pow_k", "new_task_pass_pow_k", "tasks",
                   "judge_errors")
"""Summary fields shown first (those the rows have); every field follows in a drill-down."""


def write_report(results: AgenticResults, path: str | Path, *,
                 datasets: Sequence[Dataset] | None = None,
                 figures_dir: str | Path | None = None,
                 max_conversations: int | None = DEFAULT_MAX_CONVERSATIONS,
                 lists_dir: str | Path | None = None,
                 figures: Iterable[str | Path] | None = None) -> Path:
    """Write ``render_report`` to ``path``; PNG figures found in ``figures_dir`` are embedded.

    ``datasets`` (the conversations that were evaluated) add the query, answer, reference and
    tool calls to each interaction; without them the report shows the verdicts only.
    ``max_conversations`` caps the drill-down (module docstring); the note links the files in
    ``lists_dir`` (default: beside ``path``) that hold every conversation.
    ``figures``: the PNG files to embed, instead of those found in ``figures_dir``.
    """
    import os

    path = Path(path)
    if figures is None:
        figures = find_figures(figures_dir) if figures_dir is not None else []
    folder = Path(lists_dir) if lists_dir is not None else path.parent
    beside = [Path(os.path.relpath(folder / name, path.parent)).as_posix()
              for name in _FULL_LISTS if (folder / name).is_file()]
    # errors=: a lone surrogate handed in from Python must not lose the run at its last step
    return write_atomic(path, render_report(results, datasets=datasets, figures=figures,
                                            max_conversations=max_conversations,
                                            full_lists=beside), errors="backslashreplace")


def datasets_from_manifest(results: AgenticResults) -> list[Dataset] | None:
    """The conversations a reloaded run evaluated, read again from the data file its manifest
    names, if that file still has the recorded SHA-256 (else None: the report shows verdicts)."""
    from agenteval.results.manifest import describe_source

    data = (getattr(results, "provenance", {}) or {}).get("data") or {}
    path = next((p for p in (data.get("path"), data.get("resolved")) if p and Path(p).is_file()), None)
    if path is None:
        return None
    try:
        if describe_source(path).get("sha256") != data.get("sha256"):
            return None
        from agenteval.core.retriever import load_datasets

        return load_datasets(path)
    except (OSError, ValueError):
        return None


def find_figures(folder: str | Path) -> list[Path]:
    """PNG files in ``folder`` and its ``figures/`` subfolder, sorted by name."""
    folder = Path(folder)
    found = [p for sub in (folder, folder / "figures") if sub.is_dir()
             for p in sorted(sub.iterdir()) if p.suffix.lower() in FIGURE_SUFFIXES and p.is_file()]
    return found


def render_report(results: AgenticResults, *, datasets: Sequence[Dataset] | None = None,
                  figures: Iterable[str | Path] = (),
                  max_conversations: int | None = DEFAULT_MAX_CONVERSATIONS,
                  full_lists: Sequence[str] = ()) -> str:
    """The report as one HTML string; ``full_lists`` names the files (relative to the report)
    that hold every conversation, for the note of a capped drill-down."""
    from agenteval.present.text import interval_kind

    max_conversations = check_max_conversations(max_conversations)
    summary = results.summary()
    by_session = {d.session_id: d for d in datasets} if datasets is not None else {}
    manifest = dict(getattr(results, "provenance", {}))
    parts = [
        page_head(f"agenteval report: {len(results)} conversations, k={results.k}"),
        "<body><main>",
        f"<h1>agenteval report</h1>{_run_line(results, manifest)}",
        _unjudged_banner(results),
        '<section id="summary"><h2>Suite summary</h2>',
        f'<p class="method">{_e(summary.method)}; [low, high] = '
        f'{_e(interval_kind(summary.method))}</p>',
        _transposed_table(summary.rows, key="group", only=HEADLINE_FIELDS),
        '<details class="all-fields"><summary>All summary fields, with what each is</summary>',
        _transposed_table(summary.rows, key="group"),
        "</details>",
        _summary_extras(summary),
        "</section>",
    ]
    parts.append(_judge_section(results, summary.judge))
    parts.append(summary_html(results))  # the run's own graders (agenteval.graders.summary)
    parts.append(calibration_html(results))  # with labels (agenteval.present.calibration)
    figure_html = [_figure(Path(f)) for f in figures]
    if figure_html:
        parts.append('<section id="figures"><h2>Figures</h2>' + "".join(figure_html) + "</section>")
    parts.append(_conversations(results, by_session, max_conversations, full_lists))
    parts.append(_manifest_section(manifest))
    parts.append(f"</main><script>{_SCRIPT}</script></body></html>")
    return "\n".join(parts)


# --------------------------------------------------------------------------- pieces


def _e(value: Any) -> str:
    return html.escape("" if value is None else terminal(value), quote=True)  # _util.sanitize


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _interval(value: Any, low: Any, high: Any) -> str:
    if _fmt(value) == "n/a":
        return "n/a"
    if _fmt(low) == "n/a" or _fmt(high) == "n/a":
        return _fmt(value)
    return f"{_fmt(value)} <span class=ci>[{_fmt(low)}, {_fmt(high)}]</span>"


def page_head(title: str) -> str:
    """The page's doctype, title and inline CSS (shared with the RAG report)."""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}</title><style>{_CSS}</style></head>")


def _unjudged_banner(results: AgenticResults) -> str:
    """A run with unjudged interactions says so before any number is read."""
    from agenteval.results.failures import judged_share

    judged, total = judged_share(results)
    if judged == total:
        return ""
    return (f'<p class="banner">{total - judged} of {total} interactions could not be judged '
            f"({(total - judged) / total:.1%}): the estimates below rest on the judged ones only "
            '(<a href="#judge">causes</a>).</p>')


def _run_line(results: AgenticResults, manifest: dict[str, Any]) -> str:
    data = manifest.get("data") or {}
    what = manifest.get("command") or manifest.get("call")
    items = [f"{len(results)} conversations", f"k = {results.k}",
             f"threshold = {results.settings.threshold:g}",
             f"tool threshold = {results.settings.tool_threshold:g}"]
    if manifest.get("created"):
        items.append(f"run {manifest['created']}")
    out = '<p class="run">' + " &middot; ".join(_e(i) for i in items) + "</p>"
    if what:
        out += f'<p class="run"><code>{_e(what)}</code></p>'
    if data:
        out += (f'<p class="run">data <code>{_e(data.get("path"))}</code> sha256 '
                f'<code>{_e(str(data.get("sha256", ""))[:16])}</code></p>')
    return out


def _columns(models: Sequence[Any]) -> list[tuple[str, str, list[str]]]:
    """(label, description, field names) per column; X, X_low, X_high become one interval column."""
    fields = type(models[0]).model_fields
    cols, used = [], set()
    for name in fields:
        if name in used:
            continue
        low = next((f for f in (f"{name}_low", f"{name}_ci_low") if f in fields), None)
        high = next((f for f in (f"{name}_high", f"{name}_ci_high") if f in fields), None)
        group = [name, low, high] if low and high else [name]
        used.update(group)
        label = name + (" [interval]" if len(group) == 3 else "")
        cols.append((label, fields[name].description or "", group))
    return cols


def _model_table(models: Sequence[Any]) -> str:
    """A table of pydantic models, one row each; headers carry the field descriptions."""
    cols = _columns(models)
    head = "".join(f'<th title="{_e(desc)}">{_e(label)}</th>' for label, desc, _ in cols)
    rows = []
    for m in models:
        cells = []
        for _, _, group in cols:
            values = [getattr(m, g) for g in group]
            if len(values) == 3:
                cells.append(f"<td class=num>{_interval(*values)}</td>")
            else:
                v = values[0]
                cls = "num" if isinstance(v, (int, float)) and not isinstance(v, bool) else "id"
                text = (format_probability(v, exact=group[0] == "prob_a_better" and is_exact(m))
                        if group[0].startswith(("prob", "p_value", "p_adjusted")) else _fmt(v))
                cells.append(f"<td class='{cls}'>{_e(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class="scroll"><table class="grid"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _transposed_table(models: Sequence[Any], *, key: str,
                      only: Sequence[str] | None = None) -> str:
    """One column per model (group), one row per quantity with what it is: readable however
    many fields the summary rows carry. Text fields with one value for every group are stated
    once below the table. ``only`` keeps the named fields that exist, in the rows' order."""
    cols = [c for c in _columns(models) if c[2][0] != key
            and (only is None or c[2][0] in only)]
    head = "".join(f"<th>{_e(getattr(m, key))}</th>" for m in models)
    rows, shared = [], []
    for label, desc, group in cols:
        values = {getattr(m, group[0]) for m in models} if len(group) == 1 else set()
        if len(values) == 1 and isinstance(next(iter(values)), str):
            value = next(iter(values))
            if value and value not in ("suite", "agent"):
                shared.append(f"<p class=method><b>{_e(label)}</b>: {_e(value)}</p>")
            if value or only is None:
                continue
        cells = []
        for m in models:
            values = [getattr(m, g) for g in group]
            if len(values) == 3:
                cells.append(f"<td class=num>{_interval(*values)}</td>")
            else:
                v = values[0]
                num = isinstance(v, (int, float)) and not isinstance(v, bool)
                cells.append(f"<td class='{'num' if num else 'text'}'>{_e(_fmt(v))}</td>")
        rows.append(f"<tr><th>{_e(label)}</th>{''.join(cells)}<td class=desc>{_e(desc)}</td></tr>")
    return (f'<div class="scroll"><table class="grid summary"><thead><tr><th>{_e(key)}</th>{head}'
            f"<th>what it is</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
            + "".join(shared))


def _summary_extras(summary: Any) -> str:
    """Every other part of the summary (comparisons, diagnostics, ...), whatever its fields."""
    from pydantic import BaseModel

    out = []
    fields = type(summary).model_fields
    methods = {name: getattr(summary, name) for name in fields
               if name.endswith("_method") and isinstance(getattr(summary, name), str)}
    for name in fields:
        if name in ("rows", "judge", "method", "version", "k") or name in methods:
            continue
        value = getattr(summary, name)
        if not value or not isinstance(value, list):
            continue
        title = name.replace("_", " ").capitalize()
        method = methods.get(name.rstrip("s") + "_method") or methods.get(name + "_method") or ""
        out.append(f"<h3>{_e(title)}</h3>" + (f'<p class="method">{_e(method)}</p>' if method else ""))
        if all(isinstance(v, BaseModel) for v in value):
            out.append(_model_table(value) + _legend(value))
        elif all(isinstance(v, dict) for v in value):
            keys = list(dict.fromkeys(k for v in value for k in v))
            head = "".join(f"<th>{_e(k)}</th>" for k in keys)
            body = "".join("<tr>" + "".join(f"<td>{_e(_fmt(v.get(k)))}</td>" for k in keys) + "</tr>"
                           for v in value)
            out.append(f'<div class="scroll"><table class="grid"><thead><tr>{head}</tr></thead>'
                       f"<tbody>{body}</tbody></table></div>")
    return "".join(out)


def _legend(models: Sequence[Any]) -> str:
    items = "".join(f"<dt>{_e(label)}</dt><dd>{_e(desc)}</dd>"
                    for label, desc, _ in _columns(models) if desc)
    return f'<details class="legend"><summary>What the columns mean</summary><dl>{items}</dl></details>'


def _judge_section(results: AgenticResults, judge: dict[str, Any]) -> str:
    from agenteval.results.failures import group_failures, judged_share

    judged, total = judged_share(results)
    share = judged / total if total else 1.0
    pairs = " &middot; ".join(f"<span class=muted>{_e(k)}</span> {_e(_fmt(v))}"
                              for k, v in judge.items() if v is not None)
    out = ['<section id="judge"><h2>Judge</h2>',
           f"<p><b>{judged} of {total} interactions judged ({share:.1%}).</b> {pairs}</p>"]
    groups = group_failures(results)
    if groups:
        out.append("<h3>Judge errors by kind</h3><p>Left out of n and c, never scored 0.</p>"
                   '<table class="grid"><thead><tr><th>count</th><th>kind</th><th>example</th>'
                   "</tr></thead><tbody>")
        for g in groups:
            out.append(f"<tr><td class=num>{g.count}</td><td>{_e(g.kind)}</td>"
                       f"<td><span class=muted>session {_e(g.session_id)}:</span> "
                       f"{_e(g.example)}</td></tr>")
        out.append("</tbody></table>")
    out.append("</section>")
    return "".join(out)


def _figure(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img alt="{_e(path.stem)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_e(path.name)}</figcaption></figure>")


def check_max_conversations(value: Any) -> int | None:
    """None (no cap) or an integer >= 0; anything else is a ConfigError naming the option."""
    from agenteval.errors import ConfigError

    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"max_conversations must be an integer >= 0 or None, got {value!r}")
    return value


def _needs_a_look(m: Any) -> bool:
    return m.is_fully_correct is not True or m.judge_errors > 0


def drill_down_order(results: Sequence[Any]) -> list[int]:
    """Indices of ``results`` (per-conversation metrics), most worth a look first.

    Not fully correct or with judge errors first: lowest share of correct interactions (c/n;
    0 where none was judged), then lowest mean judge score, then more judge errors; then the
    fully correct ones. Ties and the fully correct ones go by a hash of the session id, a
    deterministic sample that does not depend on the order of the input.
    """
    def key(i: int) -> tuple[Any, ...]:
        m = results[i]
        tie = hashlib.blake2b(str(m.session_id).encode("utf-8", "backslashreplace"),
                              digest_size=8).digest()
        if not _needs_a_look(m):
            return (1, 0.0, 0.0, 0, tie)
        rate = m.correct_interactions / m.total_interactions if m.total_interactions else 0.0
        scores = [s for s in m.correctness_scores if s is not None]
        mean = sum(scores) / len(scores) if scores else 0.0
        return (0, rate, mean, -m.judge_errors, tie)

    return sorted(range(len(results)), key=key)


def _drill_down_note(results: Sequence[Any], shown: Sequence[int], full_lists: Sequence[str]) -> str:
    total = len(results)
    look = sum(_needs_a_look(m) for m in results)
    look_shown = sum(_needs_a_look(results[i]) for i in shown)
    ok_shown = len(shown) - look_shown
    where = (", ".join(f'<a href="{_e(name)}">{_e(name)}</a>' for name in full_lists)
             ) if full_lists else (
        "the run's results (<code>results.to_dataframe()</code>, or conversations.csv / "
        "interactions.csv / results.json as <code>agenteval run --out</code> writes them)")
    picked = (f"all {look:,} not fully correct or with judge errors" if look_shown == look else
              f"the {look_shown:,} of {look:,} not fully correct or with judge errors that score "
              "lowest (share of correct interactions, then mean score)")
    if ok_shown:
        picked += (f", and a fixed sample of {ok_shown:,} of the {total - look:,} fully correct "
                   "ones")
    return (f'<p class="banner" id="drill-down-note"><b>Drill-down for {len(shown):,} of '
            f"{total:,} conversations</b>: {picked}, in the run's order. The summary above "
            f"covers all {total:,}. Every conversation and interaction is in {where}.</p>")


def _conversations(results: AgenticResults, by_session: dict[str, Dataset],
                   max_conversations: int | None = None, full_lists: Sequence[str] = ()) -> str:
    k = results.k
    metrics = list(results)
    if max_conversations is None or max_conversations >= len(metrics):
        shown, note = range(len(metrics)), ""
    else:
        shown = sorted(drill_down_order(metrics)[:max_conversations])
        note = _drill_down_note(metrics, shown, full_lists)
    out = ['<section id="conversations"><h2>Conversations</h2>', *([note] if note else []),
           '<div class="tools"><input id="filter" type="search" '
           'placeholder="filter by session, agent, task, text..." aria-label="filter">'
           '<label><input id="only-failed" type="checkbox"> only not fully correct or with '
           'judge errors</label> <button type="button" id="expand">expand all</button>'
           '<button type="button" id="collapse">collapse all</button>'
           '<span id="shown"></span></div>',
           f'<p class="muted">pass@{k} / pass^{k}: {_e(results.method)}. Click a conversation '
           "to see its interactions.</p>"]
    for m in (metrics[i] for i in shown):
        status = {True: "full", False: "wrong", None: "unknown"}[m.is_fully_correct]
        flag = {True: "fully correct", False: "not fully correct",
                None: "unknown (judge errors)"}[m.is_fully_correct]
        bad = _needs_a_look(m)
        ds = by_session.get(m.session_id)
        head = (f'<span class="badge {status}">{_e(flag)}</span> <b>{_e(m.session_id)}</b> '
                f'<span class=muted>agent</span> {_e(m.assistant_id)}'
                + (f' <span class=muted>task</span> {_e(m.task_id)}' if m.task_id else "")
                + f' <span class=muted>c/n</span> {m.correct_interactions}/{m.total_interactions}'
                f' <span class=muted>pass@{k}</span> '
                f'{_interval(m.pass_at_k, m.pass_at_k_ci_low, m.pass_at_k_ci_high)}'
                f' <span class=muted>pass^{k}</span> '
                f'{_interval(m.pass_pow_k, m.pass_pow_k_ci_low, m.pass_pow_k_ci_high)}'
                + (f' <span class="badge unknown">{m.judge_errors} judge error(s)</span>'
                   if m.judge_errors else ""))
        body = []
        if ds is not None and ds.context:
            body.append(f'<p class="context"><span class=muted>context</span> {_e(ds.context)}</p>')
        for index, r in enumerate(m.interactions):
            batch = ds.conversation[index] if ds is not None and index < len(ds.conversation) else None
            body.append(_interaction(index, r, batch))
        out.append(f'<details class="conv" data-bad="{int(bad)}"><summary>{head}</summary>'
                   f'<div class="conv-body">{"".join(body)}</div></details>')
    out.append("</section>")
    return "\n".join(out)


def _interaction(index: int, r: Any, batch: Batch | None) -> str:
    verdict = {True: ("correct", "full"), False: ("wrong", "wrong"),
               None: ("not judged", "unknown")}[r.is_correct]
    rows = []
    if batch is not None:
        rows += [("query", batch.query), ("answer", batch.assistant),
                 ("reference", batch.ground_truth_assistant)]
    rows.append(("score", _fmt(r.score)))
    if r.judge_error:
        rows.append(("judge error", r.judge_error))
    elif r.reasoning:
        rows.append(("judge's reason", r.reasoning))
    table = "".join(f'<tr><th>{_e(k)}</th><td class="text">{_e(v) if v is not None else "<span class=muted>none</span>"}</td></tr>'
                    for k, v in rows)
    tools = _tool_section(r.tool_correctness, batch) + drilldown_html(r)  # graders' checks
    return (f'<details class="inter" open><summary><span class="badge {verdict[1]}">'
            f"{verdict[0]}</span> interaction {index + 1} <span class=muted>qa_id</span> "
            f'{_e(r.qa_id)}</summary><table class="kv">{table}</table>{tools}</details>')


def _tool_section(tool: Any, batch: Batch | None) -> str:
    if tool is None and (batch is None or (batch.agentic is None
                                           and batch.ground_truth_agentic is None)):
        return ""
    out = ['<div class="tool"><h4>Tool use</h4>']
    if tool is not None:
        parts = [("selection", tool.tool_selection_correct), ("parameters", tool.parameter_accuracy),
                 ("sequence", tool.sequence_correct), ("utilization", tool.result_utilization),
                 ("overall", tool.overall_correctness)]
        out.append("<p>" + " &middot; ".join(f"{n} {_fmt(v)}" for n, v in parts)
                   + f' &middot; <span class="badge {"full" if tool.is_correct else "wrong"}">'
                   f'{"correct" if tool.is_correct else "not correct"}</span></p>')
    if batch is not None:
        out.append(_tool_diff(batch))
    if tool is not None and tool.reasoning:
        out.append(f'<pre class="reason">{_e(tool.reasoning)}</pre>')
    out.append("</div>")
    return "".join(out)


def _tool_diff(batch: Batch) -> str:
    """Expected calls beside the calls made, paired by tool name in order; extras last."""
    expected = list(batch.ground_truth_agentic.expected_tools) if batch.ground_truth_agentic else []
    used = list(batch.agentic.tools_used) if batch.agentic else []
    free = list(range(len(used)))
    rows = []
    for exp in expected:
        match = next((i for i in free if used[i].tool_name == exp.tool_name), None)
        if match is None:
            rows.append(("missing", _call(exp.tool_name, exp.parameters), "", ""))
            continue
        free.remove(match)
        got = used[match]
        diff = _param_diff(exp.parameters, got.parameters)
        rows.append(("params differ" if diff else "match", _call(exp.tool_name, exp.parameters),
                     _call(got.tool_name, got.parameters), diff))
    for i in free:
        rows.append(("extra", "", _call(used[i].tool_name, used[i].parameters), ""))
    if not rows:
        return '<p class="muted">no tool calls expected or made</p>'
    css = {"match": "full", "params differ": "wrong", "missing": "wrong", "extra": "unknown"}
    body = "".join(f'<tr><td><span class="badge {css[s]}">{s}</span></td><td><code>{_e(e)}</code></td>'
                   f"<td><code>{_e(u)}</code></td><td>{_e(d)}</td></tr>" for s, e, u, d in rows)
    return ('<table class="grid diff"><thead><tr><th></th><th>expected</th><th>called</th>'
            f"<th>differences</th></tr></thead><tbody>{body}</tbody></table>")


def _call(name: str, params: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in params.items())
    return f"{name}({args})"


def _param_diff(expected: dict[str, Any], got: dict[str, Any]) -> str:
    out = []
    for key in expected:
        if key not in got:
            out.append(f"{key}: missing")
        elif got[key] != expected[key]:
            out.append(f"{key}: {json.dumps(got[key], default=str)} vs expected "
                       f"{json.dumps(expected[key], default=str)}")
    out += [f"{key}: not expected" for key in got if key not in expected]
    return "; ".join(out)


def _manifest_section(manifest: dict[str, Any]) -> str:
    if not manifest:
        return ""
    text = json.dumps(manifest, indent=2, default=str)
    return (f'<section id="manifest"><details><summary>Manifest (what produced this run)'
            f"</summary><pre>{_e(text)}</pre></details></section>")


_CSS = """
:root { --fg: #1b1f24; --muted: #5f6b7a; --line: #d8dee4; --bg2: #f6f8fa;
        --ok: #1a7f37; --bad: #b3261e; --unk: #8a5a00; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 0; background: #fff; }
main { max-width: 1200px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px;
  border-bottom: 1px solid var(--line); padding-bottom: 4px; } h3 { font-size: 15px; } h4 { margin: 6px 0; }
.run, .method, .muted, .ci { color: var(--muted); } .run { margin: 2px 0; }
.scroll { overflow-x: auto; }
table.grid { border-collapse: collapse; margin: 6px 0; }
table.grid th, table.grid td { border: 1px solid var(--line); padding: 3px 7px; vertical-align: top; }
table.grid th { background: var(--bg2); text-align: left; white-space: nowrap; cursor: help; }
td.id { white-space: nowrap; }
table.summary td.desc { color: var(--muted); font-size: 12px; max-width: 420px; }
table.summary tbody th { cursor: default; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
table.kv th { text-align: left; color: var(--muted); font-weight: 500; padding: 2px 12px 2px 0;
              vertical-align: top; white-space: nowrap; }
table.kv td.text { white-space: pre-wrap; word-break: break-word; }
details.legend { margin: 4px 0 8px; color: var(--muted); } details.legend dt { font-weight: 600; }
details.legend dd { margin: 0 0 4px 16px; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; color: #fff; }
.badge.full { background: var(--ok); } .badge.wrong { background: var(--bad); }
.badge.unknown { background: var(--unk); }
details.conv { border: 1px solid var(--line); border-radius: 6px; margin: 4px 0; }
details.conv > summary { padding: 5px 8px; cursor: pointer; }
details.conv[open] > summary { background: var(--bg2); border-bottom: 1px solid var(--line); }
.conv-body { padding: 6px 12px; }
details.inter { margin: 6px 0 10px; padding-left: 8px; border-left: 3px solid var(--line); }
details.inter > summary { cursor: pointer; }
.tool { margin: 4px 0 0; } pre { background: var(--bg2); padding: 6px 8px; overflow-x: auto;
  white-space: pre-wrap; font-size: 12px; }
figure { display: inline-block; margin: 8px 12px 8px 0; vertical-align: top; } figure img { max-width: 560px; width: 100%;
  border: 1px solid var(--line); } figcaption { color: var(--muted); font-size: 12px; }
.tools { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin: 6px 0; }
.tools input[type=search] { width: 320px; padding: 4px 6px; }
#shown { color: var(--muted); }
.banner { background: #fff4e0; border: 1px solid #e5b567; padding: 6px 10px; border-radius: 6px; }
"""

_SCRIPT = """
(function () {
  var convs = Array.prototype.slice.call(document.querySelectorAll('details.conv'));
  var box = document.getElementById('filter'), failed = document.getElementById('only-failed');
  var shown = document.getElementById('shown');
  function apply() {
    var q = (box.value || '').toLowerCase(), n = 0;
    convs.forEach(function (d) {
      var ok = (!q || d.textContent.toLowerCase().indexOf(q) >= 0) &&
               (!failed.checked || d.getAttribute('data-bad') === '1');
      d.style.display = ok ? '' : 'none'; if (ok) n++;
    });
    shown.textContent = n + ' of ' + convs.length + ' shown';
  }
  box.addEventListener('input', apply); failed.addEventListener('change', apply);
  document.getElementById('expand').addEventListener('click', function () {
    convs.forEach(function (d) { if (d.style.display !== 'none') d.open = true; }); });
  document.getElementById('collapse').addEventListener('click', function () {
    convs.forEach(function (d) { d.open = false; }); });
  apply();
})();
"""
