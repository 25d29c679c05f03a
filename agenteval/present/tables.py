"""Tables for papers: the summary, comparisons, ranking and quality as LaTeX (booktabs) or Markdown.

They read the summary's stored values and compute nothing; a number prints with three decimals
(as the text view), an undefined one as ``n/a``. Every table gets a caption saying the method
and what the intervals are. Text from the data (agent ids, task ids) is escaped for the target:
LaTeX's special characters (``\\ & % $ # _ { } ~ ^ < > |``) become commands, control characters
are dropped, and Markdown's punctuation is backslash-escaped, so an id can never become markup.
The LaTeX needs ``\\usepackage{booktabs}``; ids outside ASCII need a UTF-8 font setup (XeLaTeX /
LuaLaTeX, or pdfLaTeX with the matching ``inputenc`` / ``fontenc`` coverage).

    >>> summary = results.summary()                                   # doctest: +SKIP
    >>> print(summary.to_latex())                                     # doctest: +SKIP
    >>> print(summary.to_latex("comparisons", intervals="subsup"))    # doctest: +SKIP
    >>> print(summary.to_markdown("ranking"))                         # doctest: +SKIP
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agenteval.errors import ConfigError
from agenteval.present.text import format_probability, interval_kind, is_exact
from agenteval.results.comparisons import judge_corrected

if TYPE_CHECKING:
    from agenteval.results.agentic import SuiteSummary

__all__ = ["TABLES", "escape_latex", "escape_markdown", "table_latex", "table_markdown"]

TABLES = ("summary", "comparisons", "ranking", "quality")
"""What ``SuiteSummary.to_latex(what)`` / ``to_markdown(what)`` can render."""

_INTERVALS = ("brackets", "subsup")

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
}
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~$&])")


def escape_latex(text: Any) -> str:
    """Data text as LaTeX text: special characters as commands, whitespace runs as one space,
    control and bidi-override characters dropped (they would reorder or hide the cell)."""
    text = _CONTROL.sub("", re.sub(r"\s+", " ", str(text)))
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def escape_markdown(text: Any) -> str:
    """Data text as one Markdown table cell: punctuation backslash-escaped (CommonMark), so no
    emphasis, link, HTML or column break can come from the data."""
    text = _CONTROL.sub("", re.sub(r"\s+", " ", str(text)))
    return _MD_SPECIAL.sub(r"\\\1", text)


# -- cells: what a table holds, rendered per target ------------------------------------------

@dataclass(frozen=True)
class _Text:
    text: str


@dataclass(frozen=True)
class _Head:
    latex: str  # already LaTeX (library text, may hold math)
    markdown: str


@dataclass(frozen=True)
class _Num:
    value: float | None
    low: float | None = None
    high: float | None = None
    kind: str = "number"  # 'number', 'count', 'prob' (draw resolution), 'rank'


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _fmt(x: float, kind: str) -> str:
    if kind == "count":
        return f"{x:.0f}"
    if kind == "rank":
        return f"{x:.2f}"
    return f"{x:.3f}"


def _latex_num(x: float, kind: str) -> str:
    s = _fmt(x, kind)
    return f"$-${s[1:]}" if s.startswith("-") else s


def _render_num(cell: _Num, target: str, intervals: str) -> str:
    if _missing(cell.value):
        return "n/a"
    if cell.kind == "prob_exact":  # quadrature: its magnitude (present.text.format_probability)
        return format_probability(cell.value, exact=True)
    if cell.kind == "prob" and not (0.001 <= cell.value <= 0.999):  # draws resolve ~1e-3
        sign, bound = ("<", 0.001) if cell.value < 0.001 else (">", 0.999)
        return f"${sign}\\,{bound}$" if target == "latex" else f"{escape_markdown(sign)} {bound}"
    num = _latex_num if target == "latex" else _fmt
    value = num(cell.value, cell.kind)
    if _missing(cell.low) or _missing(cell.high):
        return value
    bound = "count" if cell.kind == "rank" else cell.kind  # ranks: whole numbers
    low, high = num(cell.low, bound), num(cell.high, bound)
    if target == "latex" and intervals == "subsup":
        strip = (lambda s: s.replace("$-$", "-"))  # inside math: a plain minus sign
        return f"{value}$_{{{strip(low)}}}^{{{strip(high)}}}$"
    return f"{value} [{low}, {high}]"


def _render(cell: Any, target: str, intervals: str) -> str:
    if isinstance(cell, _Head):
        return cell.latex if target == "latex" else cell.markdown
    if isinstance(cell, _Num):
        return _render_num(cell, target, intervals)
    text = cell.text if isinstance(cell, _Text) else str(cell)
    return escape_latex(text) if target == "latex" else escape_markdown(text)


@dataclass(frozen=True)
class _Table:
    header: list[Any]
    rows: list[list[Any]]
    align: str
    caption: str  # plain text (escaped per target)
    label: str


def _h(latex: str, markdown: str | None = None) -> _Head:
    return _Head(latex, markdown if markdown is not None else latex)


def _pass_heads(k: int) -> tuple[_Head, _Head]:
    return (_h(rf"$\mathrm{{pass}}@{k}$", f"pass@{k}"),
            _h(rf"$\mathrm{{pass}}^{{{k}}}$", f"pass^{k}"))


def _quantity(name: str, k: int) -> Any:
    """A comparison's quantity: pass@k / pass^k in the tables' notation, other names as text."""
    at, pw = _pass_heads(k)
    return {f"pass@{k}": at, f"pass^{k}": pw}.get(name, _Text(name))


_AT, _PW = "@@AT@@", "@@PW@@"  # caption placeholders: survive both escapes, become pass@k / pass^k


_MATH = (  # the library's own method strings written as ASCII, and their LaTeX
    ("(mu, kappa)", "@@MUKAPPA@@", r"$(\mu, \kappa)$"),
    ("p_t^k", "@@PTK@@", r"$p_t^k$"),
    (">= ", "@@GEQ@@", r"$\geq$ "),
)


def _caption(text: str, k: int, target: str) -> str:
    at, pw = _pass_heads(k)
    if target == "latex":  # only the library's phrases; text from the data stays text
        for ascii_text, mark, _latex in _MATH:
            text = text.replace(ascii_text, mark)
    out = escape_latex(text) if target == "latex" else escape_markdown(text)
    pick = (lambda h: h.latex) if target == "latex" else (lambda h: escape_markdown(h.markdown))
    if target == "latex":
        for _ascii, mark, latex in _MATH:
            out = out.replace(mark, latex)
    return out.replace(_AT, pick(at)).replace(_PW, pick(pw))


def _intervals_say(method: str) -> str:
    kind = interval_kind(method)
    return f"Intervals: 95% {kind}." if "95" not in kind else f"Intervals: {kind}."


# -- the four tables -------------------------------------------------------------------------

def _summary_table(s: SuiteSummary) -> _Table:
    at, pw = _pass_heads(s.k)
    header = [_h("Group"), _h("Conv."), _h("Tasks"), _h("$p$", "p"), at, pw, _h("Basis")]
    rows = [[_Text(r.group), _Num(r.conversations, kind="count"), _Num(r.tasks, kind="count"),
             _Num(r.rate, r.rate_low, r.rate_high), _Num(r.pass_at_k, r.pass_at_k_low, r.pass_at_k_high),
             _Num(r.pass_pow_k, r.pass_pow_k_low, r.pass_pow_k_high), _Text(r.headline)]
            for r in s.rows]
    task_methods = sorted({r.task_method for r in s.rows if r.task_method and r.headline == "tasks"})
    caption = (f"Suite summary, k = {s.k}. p: share of fully correct conversations; "
               f"{_AT} and {_PW}: basis 'tasks' = mean over the suite's tasks, 'pooled' = "
               f"plug-in from p. Method: {s.method}"
               + (f"; task level: {'; '.join(task_methods)}" if task_methods else "")
               + f". {_intervals_say(s.method)}")
    return _Table(header, rows, "lrrrrrl", caption, "tab:agenteval-summary")


def _is_frequentist(s: SuiteSummary) -> bool:
    return all(_missing(c.prob_a_better) for c in s.comparisons)


def _comparisons_table(s: SuiteSummary) -> _Table:
    freq = _is_frequentist(s)
    last = ([_h("$p$", "p"), _h(f"$p_{{\\mathrm{{adj}}}}$ ({escape_latex(s.comparison_adjust)})",
                                 f"p adj. ({escape_markdown(s.comparison_adjust)})")]
            if freq else [_h(r"$P(A > B)$", "P(A > B)")])
    header = [_h("A"), _h("B"), _h("Quantity"), _h("Scope"), _h("A"), _h("B"),
              _h("$A - B$", "A - B"), *last]
    rows = []
    for c in s.comparisons:
        tail = ([_Num(c.p_value, kind="prob"), _Num(c.p_adjusted, kind="prob")] if freq
                else [_Num(c.prob_a_better, kind="prob_exact" if is_exact(c) else "prob")])
        rows.append([_Text(c.agent_a), _Text(c.agent_b), _quantity(c.quantity, s.k), _Text(c.scope),
                     _Num(c.rate_a), _Num(c.rate_b),
                     _Num(c.difference, c.difference_low, c.difference_high), *tail])
    methods = "; ".join(m for m in s.comparison_method.split("\n") if m)
    corrected = any(getattr(c, "basis", "") == "judge-corrected" for c in s.comparisons)
    caption = ("Agent comparisons" + (" on judge-corrected outcomes (human labels)" if corrected
                                      else "")
               + f", A - B (paired on shared task_ids, else independent), k = {s.k}. "
               f"Method: {methods or s.method}. {_intervals_say(s.method)}"
               + (f" p-values adjusted over agent pairs: {s.comparison_adjust}." if freq else ""))
    return _Table(header, rows, "llllrrr" + "r" * len(last), caption, "tab:agenteval-comparisons")


def _ranking_table(s: SuiteSummary) -> _Table:
    header = [_h("Agent"), _h("Mean"), _h(r"$P(\mathrm{best})$", "P(best)"),
              _h(r"Expected rank [95\%]", "Expected rank [95%]")]
    rows = [[_Text(r.agent), _Num(r.mean), _Num(r.prob_best, kind="prob"),
             _Num(r.expected_rank, r.rank_low, r.rank_high, kind="rank")]
            for r in sorted(s.ranking, key=lambda r: r.expected_rank)]
    r0 = s.ranking[0] if s.ranking else None
    what = f" by {r0.quantity} ({r0.scope})" if r0 else ""
    methods = [m.removeprefix("ranking: ") for m in s.comparison_method.split("\n")
               if m.startswith("ranking: ")]
    caption = (f"Ranking{what}, k = {s.k}. Method: {'; '.join(methods) or s.method}. "
               "P(best): share of draws in which the agent is best; rank 1 = best; "
               "the rank interval is the 95% interval over draws.")
    return _Table(header, rows, "lrrr", caption, "tab:agenteval-ranking")


def _quality_table(s: SuiteSummary) -> _Table:
    k = s.k
    at, pw = _pass_heads(k)
    header = [_h("Agent"), at, pw, _h("Label"), _h(r"$P(\mathrm{R})$", "P(R)"),
              _h(r"$P(\mathrm{I})$", "P(I)"), _h(r"$P(\mathrm{NI})$", "P(NI)")]
    rows = [[_Text(q.unit), _Num(q.pass_at_k), _Num(q.pass_pow_k), _Text(q.label or "n/a"),
             _Num(q.prob_reliable), _Num(q.prob_inconsistent), _Num(q.prob_needs_improvement)]
            for q in s.quality]
    bases = sorted({q.basis for q in s.quality})
    corrected = " on judge-corrected outcomes (human labels)" if judge_corrected(s.quality) else ""
    caption = (f"Quality labels (Fair Forge){corrected}, k = {k}: "
               f"Reliable (R) {_AT} > 0.95 and "
               f"{_PW} > 0.70; Inconsistent (I) {_AT} > 0.95 and {_PW} < 0.50; Needs "
               f"improvement (NI) {_AT} < 0.70; P: posterior probability of the label (n/a "
               f"outside the Bayesian modes). Basis: {'; '.join(bases) or 'n/a'}. "
               f"Method: {s.method}.")
    return _Table(header, rows, "lrrlrrr", caption, "tab:agenteval-quality")


_BUILD = {"summary": _summary_table, "comparisons": _comparisons_table,
          "ranking": _ranking_table, "quality": _quality_table}


def _build(summary: SuiteSummary, what: str) -> _Table:
    if what not in _BUILD:
        raise ConfigError(f"table: what must be one of {', '.join(TABLES)}; got {what!r}")
    return _BUILD[what](summary)


def table_latex(summary: SuiteSummary, what: str = "summary", *, intervals: str = "brackets",
                caption: str | None = None, label: str | None = None,
                environment: str | None = "auto") -> str:
    """One booktabs table of ``summary`` as LaTeX (see the module docstring).

    ``intervals``: 'brackets' (``0.761 [0.683, 0.838]``) or 'subsup' (``0.761$_{0.683}^{0.838}$``).
    ``caption`` (plain text, escaped) replaces the generated one; ``environment``: 'table',
    'table*' (both columns of a two-column paper), None (the bare tabular, no caption) or
    'auto' (the wide summary and comparisons 'table*', ranking and quality 'table').
    """
    if intervals not in _INTERVALS:
        raise ConfigError(f"to_latex: intervals must be one of {', '.join(_INTERVALS)}; "
                          f"got {intervals!r}")
    if environment not in ("auto", "table", "table*", None):
        raise ConfigError(f"to_latex: environment must be 'auto', 'table', 'table*' or None; "
                          f"got {environment!r}")
    t = _build(summary, what)
    if environment == "auto":
        environment = "table*" if what in ("summary", "comparisons") else "table"

    def line(cells: list[Any]) -> str:
        return " & ".join(_render(c, "latex", intervals) for c in cells) + r" \\"

    body = [rf"\begin{{tabular}}{{{t.align}}}", r"\toprule", line(t.header), r"\midrule",
            *(line(r) for r in t.rows), r"\bottomrule", r"\end{tabular}"]
    if not t.rows:
        body[4:4] = [rf"\multicolumn{{{len(t.header)}}}{{l}}{{no rows}} \\"]
    if environment is None:
        return "\n".join(body) + "\n"
    return "\n".join([rf"\begin{{{environment}}}", r"\centering", r"\small",
                      rf"\caption{{{escape_latex(caption) if caption is not None else _caption(t.caption, summary.k, 'latex')}}}",
                      rf"\label{{{escape_latex(label or t.label)}}}", *body,
                      rf"\end{{{environment}}}"]) + "\n"


def table_markdown(summary: SuiteSummary, what: str = "summary", *,
                   caption: str | None = None) -> str:
    """One table of ``summary`` as a Markdown (GFM) pipe table, the caption as the line above."""
    t = _build(summary, what)

    def line(cells: list[Any]) -> str:
        return "| " + " | ".join(_render(c, "markdown", "brackets") for c in cells) + " |"

    rule = "|" + "|".join(" --- " if a == "l" else " ---: " for a in t.align) + "|"
    text = (escape_markdown(caption) if caption is not None
            else _caption(t.caption, summary.k, "markdown"))
    return "\n".join([f"*{text}*", "", line(t.header), rule, *(line(r) for r in t.rows)]) + "\n"
