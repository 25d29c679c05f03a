"""Results per grader and per check: tables for the summary, the CSV files and the report.

Every number here is a count over interactions that have a grader result; errors are counted
apart and never enter the pass rate (its interval is Wilson's, 95%). A grader marked
``outcome`` also decides the interactions' correctness, so its passes are already in n and c
and in pass@k / pass^k; the others are extra named scores.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from agenteval._util.sanitize import terminal

__all__ = ["GraderSummary", "grader_summary", "graders_dataframe", "checks_dataframe",
           "drilldown_html", "summary_html"]


def _results(results: Any) -> list[tuple[Any, int, Any, Any]]:
    """(conversation, index, interaction, grader result) for every grader result."""
    columns = getattr(results, "columns", None)   # AgenticResults know when none has graders
    if columns is not None and columns.held is None and columns.inter.get("graders") is None:
        return []
    return [(m, i, r, g) for m in results for i, r in enumerate(m.interactions)
            for g in (r.graders or ())]


def graders_dataframe(results: Any) -> Any:
    """One row per (interaction, grader): score, pass, reason, error and its code, calls."""
    import pandas as pd

    rows = [{"session_id": m.session_id, "assistant_id": m.assistant_id, "task_id": m.task_id,
             "index": i, "qa_id": r.qa_id, "grader": g.name, "kind": g.kind,
             "outcome": g.outcome, "score": g.score, "passed": g.passed, "reason": g.reason,
             "checks": len(g.checks), "error": g.error, "error_code": g.error_code,
             "calls": g.calls} for m, i, r, g in _results(results)]
    return pd.DataFrame(rows, columns=["session_id", "assistant_id", "task_id", "index", "qa_id",
                                       "grader", "kind", "outcome", "score", "passed", "reason",
                                       "checks", "error", "error_code", "calls"])


def checks_dataframe(results: Any) -> Any:
    """One row per check of every grader result (a rubric criterion, a script's ``checks``)."""
    import pandas as pd

    rows = [{"session_id": m.session_id, "assistant_id": m.assistant_id, "index": i,
             "qa_id": r.qa_id, "grader": g.name, "check": c.text, "passed": c.passed,
             "score": c.score, "reason": c.reason}
            for m, i, r, g in _results(results) for c in g.checks]
    return pd.DataFrame(rows, columns=["session_id", "assistant_id", "index", "qa_id", "grader",
                                       "check", "passed", "score", "reason"])


@dataclass
class GraderRow:
    """One grader over the run."""

    grader: str
    kind: str
    role: str
    """'outcome' (decides correctness) or 'score' (an extra named score)."""
    interactions: int
    scored: int
    passed: int
    errors: int
    pass_rate: float
    pass_rate_low: float
    pass_rate_high: float
    mean_score: float
    calls: int
    error_codes: dict[str, int] = field(default_factory=dict)


@dataclass
class CheckRow:
    """One check text of one grader over the run."""

    grader: str
    check: str
    n: int
    passed: int
    unknown: int


@dataclass
class GraderSummary:
    """Per grader and per check counts (see the module docstring)."""

    graders: list[GraderRow]
    checks: list[CheckRow]

    def to_dataframe(self) -> Any:
        """One row per grader."""
        import pandas as pd

        return pd.DataFrame([{k: v for k, v in vars(r).items() if k != "error_codes"}
                             | {"error_codes": ", ".join(f"{c}={n}" for c, n in
                                                          r.error_codes.items())}
                             for r in self.graders])

    def checks_dataframe(self) -> Any:
        """One row per (grader, check text)."""
        import pandas as pd

        return pd.DataFrame([vars(r) for r in self.checks],
                            columns=["grader", "check", "n", "passed", "unknown"])

    def to_text(self) -> str:
        """The summary's extra section ('' when the run had no graders)."""
        if not self.graders:
            return ""
        lines = ["graders (per interaction; errors are kept out of the pass rate, Wilson 95%):"]
        for r in self.graders:
            rate = ("-" if r.scored == 0 else
                    f"{r.pass_rate:.3f} [{r.pass_rate_low:.3f}, {r.pass_rate_high:.3f}]")
            mean = "-" if r.scored == 0 else f"{r.mean_score:.3f}"
            codes = (" (" + ", ".join(f"{c} x{n}" for c, n in r.error_codes.items()) + ")"
                     if r.error_codes else "")
            lines.append(f"  {r.grader} [{r.kind}, {r.role}]: passed {r.passed}/{r.scored}, "
                         f"pass rate {rate}, mean score {mean}, errors {r.errors}{codes}"
                         + (f", LLM calls {r.calls}" if r.calls else ""))
            for c in (c for c in self.checks if c.grader == r.grader):
                unknown = f", {c.unknown} not judged" if c.unknown else ""
                lines.append(f"      check {_short(c.check)!r}: {c.passed}/{c.n - c.unknown} "
                             f"passed{unknown}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.to_text())}</pre>"


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def grader_summary(results: Any, *, max_checks: int = 20) -> GraderSummary:
    """Per grader: interactions, passed, errors, pass rate (Wilson 95%), mean score, calls;
    per check text (the first ``max_checks`` of each grader, by count): passed of judged."""
    import numpy as np

    from agenteval.statistical.estimators import wilson_interval

    by_grader: dict[str, list[Any]] = {}
    for _, _, _, g in _results(results):
        by_grader.setdefault(g.name, []).append(g)
    rows, checks = [], []
    for name, gs in by_grader.items():
        scored = [g for g in gs if g.error is None]
        passed = sum(bool(g.passed) for g in scored)
        low, high = (wilson_interval(passed, len(scored)) if scored else (np.nan, np.nan))
        codes: dict[str, int] = {}
        for g in gs:
            if g.error is not None:
                codes[g.error_code or "error"] = codes.get(g.error_code or "error", 0) + 1
        rows.append(GraderRow(
            grader=name, kind=gs[0].kind, role="outcome" if gs[0].outcome else "score",
            interactions=len(gs), scored=len(scored), passed=passed, errors=len(gs) - len(scored),
            pass_rate=passed / len(scored) if scored else float("nan"),
            pass_rate_low=float(low), pass_rate_high=float(high),
            mean_score=(float(np.mean([g.score for g in scored])) if scored else float("nan")),
            calls=sum(g.calls for g in gs), error_codes=codes))
        per_check: dict[str, list[Any]] = {}
        for g in gs:
            for c in g.checks:
                per_check.setdefault(c.text, []).append(c)
        ordered = sorted(per_check.items(), key=lambda kv: -len(kv[1]))[:max_checks]
        for text, cs in ordered:
            checks.append(CheckRow(name, text, len(cs), sum(c.passed is True for c in cs),
                                   sum(c.passed is None for c in cs)))
    return GraderSummary(rows, checks)


def drilldown_html(interaction: Any) -> str:
    """The report's drill-down of one interaction's graders: each result and its checks ('' when
    it has none). Every text is escaped, control and bidi characters shown as escapes."""
    graders = getattr(interaction, "graders", None)
    if not graders:
        return ""

    def esc(text: Any) -> str:
        return html.escape(terminal(text))
    parts = ['<div class="graders"><b>graders</b><ul>']
    for g in graders:
        if g.error is not None:
            head = (f"<b>{esc(g.name)}</b> ({esc(g.kind)}): <span class='err'>error "
                    f"[{esc(g.error_code or 'error')}]: {esc(g.error)}</span>")
        else:
            head = (f"<b>{esc(g.name)}</b> ({esc(g.kind)}{', outcome' if g.outcome else ''}): "
                    f"{'pass' if g.passed else 'fail'}, score {g.score:.3f}"
                    + (f" &mdash; {esc(g.reason)}" if g.reason else ""))
        items = "".join(
            f"<li>{'&#10003;' if c.passed else ('?' if c.passed is None else '&#10007;')} "
            f"{esc(c.text)}" + (f" ({c.score:.2f})" if c.score is not None else "")
            + (f": <i>{esc(c.reason)}</i>" if c.reason else "") + "</li>" for c in g.checks)
        parts.append(f"<li>{head}" + (f"<ul>{items}</ul>" if items else "") + "</li>")
    parts.append("</ul></div>")
    return "".join(parts)


def summary_html(results: Any) -> str:
    """The report's section of the run's graders ('' when it had none): one row per grader,
    then its checks. Every text is escaped, control and bidi characters shown as escapes."""
    summary = grader_summary(results)
    if not summary.graders:
        return ""

    def esc(text: Any) -> str:
        return html.escape(terminal(text))

    def num(x: float) -> str:
        return "-" if x != x else f"{x:.3f}"

    rows = []
    for r in summary.graders:
        codes = ", ".join(f"{esc(c)} &times;{n}" for c, n in r.error_codes.items())
        rate = ("-" if r.scored == 0 else f"{num(r.pass_rate)} [{num(r.pass_rate_low)}, "
                f"{num(r.pass_rate_high)}]")
        rows.append(f"<tr><th>{esc(r.grader)}</th><td>{esc(r.kind)}</td><td>{esc(r.role)}</td>"
                    f"<td>{r.passed}/{r.scored}</td><td>{rate}</td><td>{num(r.mean_score)}</td>"
                    f"<td>{r.errors}{' (' + codes + ')' if codes else ''}</td><td>{r.calls}</td>"
                    "</tr>")
        for c in (c for c in summary.checks if c.grader == r.grader):
            rows.append(f'<tr class="check"><td></td><td colspan="2">check</td>'
                        f'<td>{c.passed}/{c.n - c.unknown}</td><td colspan="4" class="text">'
                        f"{esc(c.check)}{f' ({c.unknown} not judged)' if c.unknown else ''}"
                        "</td></tr>")
    return ('<section id="graders"><h2>Your graders</h2><p class="method">Per interaction; '
            "errors are kept out of the pass rate (Wilson 95% interval). An outcome grader "
            "decides correctness, so it is already in n, c and pass@k / pass^k; the others are "
            'extra named scores.</p><table class="grid"><tr><th>grader</th><th>kind</th>'
            "<th>role</th><th>passed</th><th>pass rate</th><th>mean score</th><th>errors</th>"
            f"<th>LLM calls</th></tr>{''.join(rows)}</table></section>")
