"""A self-contained HTML report of one run, a viewer to triage failures with.

In order: the suite summary (every summary field, with what each is), the judge and its
errors, the run's graders and calibration, a task x attempt grid per agent (cells coloured by
each conversation's own outcome), a sortable, filterable list of every conversation, and the
opened conversation: its transcript in order (user, tool calls with arguments and outputs,
assistant), the verdict and reason per interaction, the expected against the called tools, and
the harness's own grade where the data came from one (``agenteval.present.report_transcript``).
``report.html#session=ID`` opens conversation ID when the page loads: a permalink for a paper's
appendix or an issue tracker.

One file, no network: CSS, the one script and figures (data URIs) are inline, and a
Content-Security-Policy forbids every fetch and every other script
(``agenteval.present.report_viewer``), so the page works from a mail attachment or an
air-gapped machine and no text from the data can run. Tables are built from the result models'
fields and their descriptions, so new summary fields appear without changes here.

A large run keeps its report usable: the summary, the grid and the list always cover every
conversation, but the drill-down (the transcripts) holds at most ``max_conversations``
conversations (``DEFAULT_MAX_CONVERSATIONS``; None = all), chosen by ``drill_down_order``:
first those not fully correct or with judge errors, lowest share of correct interactions first,
then lowest mean score; the room left goes to a deterministic sample of the fully correct ones
(ordered by a hash of their session id, so the same run always shows the same ones). A note
says how many are drilled down and where every conversation is (conversations.csv,
interactions.csv, results.json beside the report, as ``agenteval run --out`` writes them).

    >>> from agenteval.present.report import write_report
    >>> write_report(results, "out/report.html", datasets=datasets)   # doctest: +SKIP
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenteval._util.files import write_atomic
from agenteval.graders.summary import summary_html
from agenteval.present.calibration import calibration_html
from agenteval.present.report_index import conversation_index
from agenteval.present.report_parts import esc, fmt
from agenteval.present.report_transcript import OUTCOMES, conversation_html
from agenteval.present.report_viewer import (VIEWER_CSS, csp_meta, data_block, list_section,
                                             script_block, view_section)
from agenteval.present.text import format_probability, is_exact
from agenteval.results.comparisons import CORRECTED_QUALITY, judge_corrected

if TYPE_CHECKING:
    from agenteval.results.agentic import AgenticResults, SuiteSummary
    from agenteval.schemas.common import Dataset

__all__ = ["DEFAULT_MAX_CONVERSATIONS", "datasets_from_manifest", "drill_down_order",
           "find_figures", "page_head", "render_report", "write_report"]

DEFAULT_MAX_CONVERSATIONS = 500
"""Conversations drilled down (transcripts) in a report by default; the grid and the list hold
every conversation whatever the cap (about 70 bytes each: 0.7 MB at 10,000)."""

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
    grid, listing, view, data = _conversations(results, by_session, max_conversations, full_lists)
    script, source = script_block()
    figure_html = [_figure(Path(f)) for f in figures]
    nav = [("summary", "Summary"), ("tasks", "Tasks × attempts"), ("conversations", "Conversations"),
           ("conversation", "Opened"), *([("figures", "Figures")] if figure_html else []),
           *([("manifest", "Manifest")] if manifest else [])]
    parts = [
        page_head(f"agenteval report: {len(results)} conversations, k={results.k}",
                  scripts=[source]),
        '<body><nav class="top">' + "".join(f'<a href="#{i}">{_e(t)}</a>' for i, t in nav)
        + "</nav><main>",
        f"<h1>agenteval report</h1>{_run_line(results, manifest)}",
        _unjudged_banner(summary),
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
    parts.append(_judge_section(results, summary))
    parts.append(summary_html(results))  # the run's own graders (agenteval.graders.summary)
    parts.append(calibration_html(results))  # with labels (agenteval.present.calibration)
    parts += [grid, listing, view]
    if figure_html:
        parts.append('<section id="figures"><h2>Figures</h2>' + "".join(figure_html) + "</section>")
    parts.append(_manifest_section(manifest))
    parts.append(f"</main>{data}{script}</body></html>")
    return "\n".join(parts)


# --------------------------------------------------------------------------- pieces


_e = esc  # report_parts: sanitised and escaped
_fmt = fmt


def _interval(value: Any, low: Any, high: Any) -> str:
    if _fmt(value) == "n/a":
        return "n/a"
    if _fmt(low) == "n/a" or _fmt(high) == "n/a":
        return _fmt(value)
    return f"{_fmt(value)} <span class=ci>[{_fmt(low)}, {_fmt(high)}]</span>"


def page_head(title: str, *, scripts: Sequence[str] = ()) -> str:
    """The page's doctype, Content-Security-Policy (only the ``scripts``, CSP hash sources,
    may run; nothing may be fetched), title and inline CSS (shared with the RAG report)."""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">{csp_meta(*scripts)}'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}</title><style>{VIEWER_CSS}</style></head>")


def _unjudged_banner(summary: SuiteSummary) -> str:
    """A run with unjudged interactions says so before any number is read."""
    judged, total = summary.judged_share()
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
        if name == "quality" and judge_corrected(value):   # as the text and notebook views say
            method = f"judge-corrected: {CORRECTED_QUALITY}"
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


def _judge_section(results: AgenticResults, summary: SuiteSummary) -> str:
    from agenteval.results.failures import group_failures

    judge = summary.judge
    judged, total = summary.judged_share()
    share = judged / total if total else 1.0
    pairs = " &middot; ".join(f"<span class=muted>{_e(k)}</span> {_e(_fmt(v))}"
                              for k, v in judge.items()
                              if v is not None and k != "interactions")  # the sentence's counts
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
    if callable(getattr(results, "drill_down_keys", None)):   # AgenticResults: from columns
        return sorted(range(len(results)), key=results.drill_down_keys().__getitem__)

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
    look = (sum(k[0] == 0 for k in results.drill_down_keys())
            if callable(getattr(results, "drill_down_keys", None))
            else sum(_needs_a_look(m) for m in results))
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
                   max_conversations: int | None = None,
                   full_lists: Sequence[str] = ()) -> tuple[str, str, str, str]:
    """(grid section, list section, opened-conversation section, the JSON data block)."""
    metrics = results   # a sequence: AgenticResults build each conversation when it is read
    if max_conversations is None or max_conversations >= len(metrics):
        shown, note = list(range(len(metrics))), ""
    else:
        shown = sorted(drill_down_order(metrics)[:max_conversations])
        note = _drill_down_note(metrics, shown, full_lists)
    drilled = {i: position for position, i in enumerate(shown)}
    where = ", ".join(full_lists) if full_lists else "the run's results (interactions.csv, results.json)"
    capped = (f"Not in this report's drill-down ({len(shown):,} of {len(metrics):,} conversations "
              f"are): its interactions are in {where}.")
    index = conversation_index(results.overview() if hasattr(results, "overview") else metrics,
                               drilled, capped_note=capped)   # AgenticResults: from columns
    articles = "\n".join(_article(position, metric, by_session, results.settings.threshold)
                          for position, metric in enumerate(metrics[i] for i in shown))
    legend = "".join(f'<span class="cell {css}"></span>{esc(label)}'
                     for label, css in OUTCOMES.values())
    grid = ('<section id="tasks"><h2>Tasks &times; attempts</h2>'
            '<p class="muted">Per agent, one line per task and one cell per attempt (a '
            "conversation), by attempt number; the colour is the conversation's own outcome, and "
            "the count is how many attempts were fully correct. Click a cell to open its "
            "conversation.</p>"
            f'<p class="legend-row">{legend}'
            + ('<span class="cell full nd"></span>faded: not in the drill-down (capped)'
               if note else "") + '</p><div id="grid"></div></section>')
    intro = (note + '<p class="muted">Every conversation, one row each, with its own outcome '
             "(per-conversation pass@k is not shown: over one graded conversation it does not "
             "describe it).</p>")
    ids = [c["id"] for c in index["cols"]]
    listing = list_section(section_id="conversations", title="Conversations", noun="conversation",
                           selects=[(ids.index(i), label) for i, label in
                                    (("agent", "agent"), ("outcome", "outcome"),
                                     ("source", "graded by"))],
                           look_label="only not fully correct or with judge errors", intro=intro)
    return grid, listing, view_section("conversation", articles), data_block(index)


def _article(position: int, metric: Any, by_session: dict[str, Dataset], threshold: float) -> str:
    """One drilled-down conversation (its result object read once)."""
    return conversation_html(position, metric, by_session.get(metric.session_id),
                             threshold=threshold)


def _manifest_section(manifest: dict[str, Any]) -> str:
    if not manifest:
        return ""
    text = json.dumps(manifest, indent=2, default=str)
    return (f'<section id="manifest"><details><summary>Manifest (what produced this run)'
            f"</summary><pre>{_e(text)}</pre></details></section>")
