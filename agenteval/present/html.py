"""Notebook HTML for results: the suite summary first, then errors, then the per-conversation table.

``AgenticResults._repr_html_`` and ``SuiteSummary._repr_html_`` delegate here. Tables are built
from the result models' own fields, so a field added to a summary row shows up without a change
here: ``x`` with ``x_low`` / ``x_high`` (or ``x_ci_low`` / ``x_ci_high``) becomes one
"value [low, high]" column, ``x`` with ``x_se`` becomes "value ± se", and each header carries the
field's description as a tooltip. In Bayesian modes a small posterior figure is embedded as PNG.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agenteval._util.sanitize import terminal
from agenteval.graders.summary import summary_html as graders_html
from agenteval.present.text import format_probability
from agenteval.results.comparisons import CORRECTED_QUALITY, judge_corrected

__all__ = ["failure_html", "results_html", "summary_html", "posterior_png"]

MAX_ROWS = 200
"""Per-conversation rows rendered in the page; the DataFrame has them all."""
OPEN_ROWS = 20
"""Tables up to this long start expanded; longer ones start collapsed."""
_PROB_WORDS = ("prob", "p_value", "p_adjusted")

_CSS = """<style>
.agenteval {font-variant-numeric: tabular-nums;}
.agenteval table {border-collapse: collapse; margin: 0.3em 0 0.8em 0; font-size: 0.9em;}
.agenteval th, .agenteval td {padding: 0.15em 0.6em; text-align: right; white-space: nowrap;}
.agenteval th {border-bottom: 1px solid #888; font-weight: 600; white-space: normal;
              max-width: 9em; vertical-align: bottom;}
.agenteval td.text, .agenteval th.text {text-align: left;}
.agenteval .headline {font-size: 1.05em; margin: 0.2em 0 0.4em 0;}
.agenteval .note {color: #666; font-size: 0.85em; margin: 0.1em 0;}
.agenteval .summary-box {display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start;}
.agenteval details > summary {cursor: pointer; font-weight: 600; margin: 0.4em 0;}
.agenteval .bad {color: #D55E00; font-weight: 600;}
.agenteval .failed {border: 2px solid #D55E00; border-radius: 4px; padding: 0.2em 0.8em;
                   margin: 0.4em 0; background: #FDF0E9;}
</style>"""


# --------------------------------------------------------------------------- formatting


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _num(x: Any, name: str = "", *, exact: bool = False) -> str:
    if _missing(x):
        return "n/a"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if any(w in name for w in _PROB_WORDS):  # the CLI's format (present.text)
            return format_probability(x, exact=exact)
        return f"{x:.3f}"
    if isinstance(x, (list, tuple, dict)):
        text = json.dumps(x, default=str)
        return text if len(text) <= 80 else text[:77] + "..."
    return str(x)


def _interval(value: Any, low: Any, high: Any) -> str:
    if _missing(value):
        return "n/a"
    if _missing(low) or _missing(high):
        return _num(value)
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _label(name: str, k: int | None) -> str:
    if k is not None:
        name = name.replace("pass_at_k", f"pass@{k}").replace("pass_pow_k", f"pass^{k}")
    return name.replace("_", " ")


def _esc(x: Any) -> str:
    return html.escape(terminal(x))  # control characters escaped too (_util.sanitize)


# --------------------------------------------------------------------------- generic tables


def _columns(keys: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(name, source keys): interval triples and standard errors folded into their value."""
    present = set(keys)
    used: set[str] = set()
    out = []
    for key in keys:
        if key in used:
            continue
        for low, high in ((f"{key}_low", f"{key}_high"), (f"{key}_ci_low", f"{key}_ci_high")):
            if low in present and high in present:
                out.append((key, (key, low, high)))
                used.update((key, low, high))
                break
        else:
            if f"{key}_se" in present:
                out.append((key, (key, f"{key}_se")))
                used.update((key, f"{key}_se"))
            else:
                out.append((key, (key,)))
                used.add(key)
    return out


def _cell(name: str, sources: tuple[str, ...], record: Mapping[str, Any]) -> tuple[str, bool]:
    """(text, is_text_column) for one cell."""
    values = [record.get(s) for s in sources]
    if len(sources) == 3:
        return _interval(*values), False
    if len(sources) == 2:
        value, se = values
        return (_num(value) if _missing(se) else f"{_num(value)} ± {_num(se)}"), False
    value = values[0]
    exact = (name == "prob_a_better" and record.get("scope") == "conversations"  # is_exact
             and record.get("basis", "") != "judge-corrected")
    return (_num(value, name, exact=exact),
            isinstance(value, str) or value is None and name.endswith("id"))


def records_table(records: Sequence[Mapping[str, Any]], *, k: int | None = None,
                  descriptions: Mapping[str, str] | None = None,
                  skip: Iterable[str] = ()) -> str:
    """An HTML table of ``records`` (dicts with the same keys), columns folded as described above."""
    if not records:
        return ""
    skip = set(skip)
    keys = [key for key in records[0] if key not in skip]
    columns = _columns(keys)
    descriptions = descriptions or {}
    cells = [[_cell(name, sources, r) for name, sources in columns] for r in records]
    text_cols = [any(is_text for _, is_text in (row[i] for row in cells)) for i in range(len(columns))]
    head = "".join(
        f'<th class="{"text" if text_cols[i] else "num"}" title="{_esc(descriptions.get(name, ""))}">'
        f"{_esc(_label(name, k))}{' [interval]' if len(sources) == 3 else ''}</th>"
        for i, (name, sources) in enumerate(columns)
    )
    body = "".join(
        "<tr>" + "".join(f'<td class="{"text" if text_cols[i] else "num"}">{_esc(text)}</td>'
                         for i, (text, _) in enumerate(row)) + "</tr>"
        for row in cells
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _descriptions(model_type: Any) -> dict[str, str]:
    fields = getattr(model_type, "model_fields", {})
    return {name: (f.description or "") for name, f in fields.items()}


def _dump(model: Any) -> dict[str, Any]:
    return model.model_dump() if hasattr(model, "model_dump") else dict(model)


# --------------------------------------------------------------------------- summary

_SUMMARY_KNOWN = {"version", "k", "method", "rows", "comparisons", "comparison_method", "judge"}
_FALLBACK_HEADLINE = ("conversations", "complete", "fully_correct", "rate", "rate_low",
                      "rate_high", "pass_at_k", "pass_at_k_low", "pass_at_k_high", "pass_pow_k",
                      "pass_pow_k_low", "pass_pow_k_high", "judge_errors")


def _headline(row: Mapping[str, Any], k: int) -> str:
    """One sentence for the 'all' row: what a reader wants before any table."""
    parts = []
    if "fully_correct" in row and "conversations" in row:
        complete = row.get("complete")
        judged = (f" ({complete} with every interaction judged)"
                  if complete is not None and complete != row["conversations"] else "")
        parts.append(f"<b>{row['fully_correct']}</b> of {row['conversations']} conversations "
                     f"fully correct{judged}")
    basis = {"tasks": f" (mean over {row.get('tasks')} tasks)", "pooled": " (pooled)"}.get(
        row.get("headline"), "")
    for key, label in (("rate", "share p"), ("pass_at_k", f"pass@{k}{basis}"),
                       ("pass_pow_k", f"pass^{k}{basis}")):
        if key in row:
            value = _interval(row[key], row.get(key + "_low"), row.get(key + "_high"))
            parts.append(f"{_esc(label)} <b>{_esc(value)}</b>")
    return '<p class="headline">' + "; ".join(parts) + "</p>" if parts else ""


def _judge_line(judge: Mapping[str, Any]) -> str:
    if not judge:
        return ""
    items = []
    for key, value in judge.items():
        if value is None or value == {} or value == []:
            continue
        text = _esc(_judge_value(key, value))
        if key == "judge":
            items.append(text)
            continue
        if key in ("errors", "not_judged_budget") and isinstance(value, int) and value > 0:
            text = f'<span class="bad">{text}</span>'
        items.append(f"{_esc(key.replace('_', ' '))}: {text}")
    return '<p class="note">judge: ' + "; ".join(items) + "</p>"


def _judge_value(key: str, value: Any) -> str:
    """One entry of the judge line as the CLI words it (a nested count as words, not JSON)."""
    if key == "interactions" and isinstance(value, Mapping) and "total" in value:
        return (f"{value.get('judged', 0)} of {value['total']} judged, "
                f"{value.get('not_judged', 0)} not judged")
    if isinstance(value, Mapping):
        return ", ".join(f"{str(k).replace('_', ' ')} {_judge_value(str(k), v)}"
                         for k, v in value.items())
    return _num(value)


def _notes(texts: Iterable[str]) -> str:
    seen: list[str] = []
    for text in texts:
        for part in str(text).split("\n"):
            if part and part not in seen:
                seen.append(part)
    return "".join(f'<p class="note">{_esc(t)}</p>' for t in seen)


def _table_of(models: Sequence[Any], k: int, *, keys: Sequence[str] | None = None) -> tuple[str, list[str]]:
    """A table of the models' non-text fields (``keys`` in that order, else all) and the texts
    of their string fields that hold one value for every row (shown once, as notes)."""
    records = [_dump(m) for m in models]
    if not records:
        return "", []
    names = list(keys) if keys is not None else list(records[0])
    notes = []
    shown = []
    for name in names:
        values = [r.get(name) for r in records]
        if all(_missing(v) for v in values) and name != "group":
            continue  # a column of n/a says nothing (e.g. p-values in a Bayesian run)
        if all(isinstance(v, str) for v in values) and name not in ("group", "agent", "agent_a",
                                                                      "agent_b", "unit", "level"):
            if len(set(values)) == 1:
                if values[0] and name != "headline":  # the headline sentence says it
                    notes.append(f"{name.replace('_', ' ')}: {values[0]}")
                continue
        shown.append(name)
    table = records_table([{n: r.get(n) for n in shown} for r in records], k=k,
                          descriptions=_descriptions(type(models[0])))
    return table, notes


_LABELS = {"quality": "Quality assessment (Fair Forge's table)", "comparison_adjust":
           "p-values adjusted over agent pairs", "diagnostics": "Diagnostics of the hierarchical fits",
           "judge_only_quality": "Judge-only quality assessment (the judge's verdicts taken as the "
           "truth; for reference)"}


def _extra_fields(summary: Any) -> str:
    """Summary fields this module does not know by name (ranking, quality, diagnostics, new
    ones), rendered generically."""
    out = []
    for name, value in _dump(summary).items():
        if name in _SUMMARY_KNOWN or value is None or value == [] or value == {} or value == "none":
            continue
        label = _LABELS.get(name, name.replace("_", " ").capitalize())
        if name == "quality" and judge_corrected(summary.quality):
            label += f"; judge-corrected: {CORRECTED_QUALITY}"
        label = _esc(label)
        if isinstance(value, list) and all(isinstance(v, Mapping) for v in value):
            table, notes = _table_of(getattr(summary, name), summary.k)
            out.append(f"<p><b>{label}</b></p>" + table + _notes(notes))
        elif isinstance(value, Mapping):
            out.append(f'<p class="note"><b>{label}</b>: '
                       + "; ".join(f"{_esc(k)}: {_esc(_num(v, str(k)))}" for k, v in value.items())
                       + "</p>")
        elif isinstance(value, list):
            out.append(f'<p class="note"><b>{label}</b>:</p><ul>'
                       + "".join(f"<li>{_esc(_num(v))}</li>" for v in value) + "</ul>")
        else:
            out.append(f'<p class="note"><b>{label}</b>: {_esc(_num(value, name))}</p>')
    return "".join(out)


def _summary_body(summary: Any, figure: str = "") -> str:
    """Headline first (the columns the summary itself calls its headline), then every other
    per-group field in a second, collapsed table, then comparisons and the rest."""
    k = summary.k
    rows = summary.rows
    from agenteval.present.text import interval_kind as _interval_kind

    parts = [f'<p class="note">method of p (pass@k / pass^k by task: the tasks fit '
             f'below): {_esc(summary.method)}; [low, high] = '
             f'{_esc(_interval_kind(summary.method))}</p>']
    details = ""
    if rows:
        fields = list(_dump(rows[0]))
        try:
            head = ["group", *summary.headline_dataframe().columns]
        except AttributeError:
            head = ["group", *[f for f in _FALLBACK_HEADLINE if f in fields]]
        head = [f for f in head if f in fields]
        for f in list(head):  # keep an interval's bounds next to its value
            head += [b for b in (f"{f}_low", f"{f}_high") if b in fields and b not in head]
        table, notes = _table_of(rows, k, keys=head)
        parts += [_headline(_dump(rows[0]), k), table]
        rest = ["group", *[f for f in fields if f not in head]]
        rest_table, rest_notes = _table_of(rows, k, keys=rest)
        row_notes = [t for r in rows for t in (getattr(r, "note", ""),) if t]
        parts.append(_notes(notes + row_notes))
        if len(rest) > 1:
            details = ('<details class="estimates"><summary>Task level, pooled plug-in and other '
                       "estimates</summary>"
                       f"{rest_table}{_notes(rest_notes)}</details>")
    body = f'<div class="summary-box"><div>{"".join(parts)}</div>{figure}</div>{details}'
    if summary.comparisons:
        table, notes = _table_of(summary.comparisons, k)
        corrected = getattr(summary.comparisons[0], "basis", "") == "judge-corrected"
        body += ("<p><b>Agent comparisons</b> (A - B"
                 + ("; judge-corrected: on outcomes corrected for the judge's errors with the "
                    "human labels" if corrected else "") + ")</p>" + table
                 + _notes([*notes, getattr(summary, "comparison_method", "")]))
    return body + _extra_fields(summary) + _judge_line(summary.judge)


def summary_html(summary: Any) -> str:
    """The suite summary: headline, one row per group, comparisons, judge counts."""
    return (f'{_CSS}<div class="agenteval"><p><b>agenteval suite summary</b> (k={summary.k})</p>'
            f"{_summary_body(summary)}</div>")


# --------------------------------------------------------------------------- results


def _error_causes(results: Any, check: Any = None) -> str:
    """The unjudged interactions grouped by kind, as the CLI prints them
    (:class:`agenteval.results.failures.JudgedCheck`; without ``check``, the counts of the
    results' summary, ``summary.judge['interactions']``); with a failed ``check``, a red panel
    that says why the run is not to be trusted."""
    from agenteval.results.failures import JudgedCheck, group_failures

    if check is None:
        judged, total = results.summary().judged_share()
        check = JudgedCheck(judged=judged, total=total, min_judged=0.0,
                            groups=tuple(group_failures(results)))
    if not check.groups and not check.failed:
        return '<p class="note">judge errors: none (every interaction was judged)</p>'
    failed = check.total - check.judged
    items = "".join(
        f"<li>{g.count} &times; {_esc(g.kind[:300])}"
        + (f'<br><span class="note">e.g. (session {_esc(g.session_id)}) {_esc(g.example[:300])}'
           "</span>" if g.example != g.kind else "") + "</li>"
        for g in check.groups)
    text = "" if not failed else (
        f'<p><span class="bad">{failed} interaction(s) could not be judged</span> (of '
        f"{check.total}, {failed / max(check.total, 1):.1%}): kept out of n and c, never scored "
        f"0. Causes by kind:</p><ul>{items}</ul>")
    if not check.failed:
        return text
    return (f'<div class="failed"><p><b>agenteval: error:</b> {_esc(check.error)}</p>'
            f"{text}</div>")


def failure_html(check: Any) -> str:
    """The red panel of a run that failed ``check`` (a ``JudgedCheck``), on its own."""
    return f'{_CSS}<div class="agenteval">{_error_causes(None, check)}</div>'


def _conversations(results: Any) -> str:
    records = results.to_dataframe().to_dict("records")
    shown = records[:MAX_ROWS]
    note = (f'<p class="note">first {MAX_ROWS} of {len(records)}; '
            "<code>results.to_dataframe()</code> has them all</p>" if len(records) > MAX_ROWS else "")
    from agenteval.schemas.results import AgenticMetric

    table = records_table(shown, k=results.k, skip=("k", "threshold"),
                          descriptions=_descriptions(AgenticMetric))
    opened = " open" if len(records) <= OPEN_ROWS else ""
    return (f'<details class="conversations"{opened}><summary>Per-conversation results '
            f"({len(records)})</summary>{table}{note}</details>")


def posterior_png(results: Any) -> bytes | None:
    """The inline posterior figure as PNG bytes; None when the run's mode has no posterior."""
    from agenteval.plots.summary import plot_rate_posteriors

    fig = plot_rate_posteriors(results)
    if fig is None:
        return None
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=150)
    plt.close(fig)
    return buffer.getvalue()


def _figure_html(results: Any) -> str:
    png = posterior_png(results)
    if png is None:
        return ""
    data = base64.b64encode(png).decode("ascii")
    return (f'<div><img class="agenteval-posterior" alt="posterior of the fully-correct rate" '
            f'width="460" src="data:image/png;base64,{data}"/></div>')


def results_html(results: Any) -> str:
    """Everything a notebook cell shows for an ``AgenticResults``."""
    from agenteval.present.calibration import calibration_html

    settings = results.settings
    head = (f"<p><b>agenteval</b>: {len(results)} conversations, k={results.k}, "
            f"threshold={settings.threshold:g}, tool threshold={settings.tool_threshold:g}</p>")
    return (f'{_CSS}<div class="agenteval">{head}'
            f"{_summary_body(results.summary(), _figure_html(results))}"
            f"{graders_html(results)}"  # the run's own graders (agenteval.graders.summary)
            f"{calibration_html(results)}"   # with labels (agenteval.present.calibration)
            f"{_error_causes(results)}{_conversations(results)}</div>")
