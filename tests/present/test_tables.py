"""Paper tables: the numbers printed equal the summary's (parsed back), data text is escaped, and
the LaTeX compiles with pdflatex + booktabs where a TeX is installed (``.ci/run`` installs one)."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from agenteval.errors import ConfigError
from agenteval.present.tables import escape_latex, escape_markdown

DATA = Path(__file__).resolve().parents[2] / "data" / "agentic_demo.jsonl"
NUM = re.compile(r"-?\d+\.\d+|n/a")


@pytest.fixture(scope="module", params=["bayesian", "frequentist"])
def summary(request: pytest.FixtureRequest):
    from agenteval import Agentic, BayesianMode, FrequentistMode

    mode = BayesianMode() if request.param == "bayesian" else FrequentistMode()
    return Agentic.run(str(DATA), k=3, statistical_mode=mode).summary()


def _rows(text: str, target: str) -> list[list[str]]:
    """The body rows of a rendered table, as cells."""
    if target == "latex":
        body = text.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
        return [[c.strip() for c in line.removesuffix("\\\\").split(" & ")]
                for line in body.strip().splitlines()]
    lines = [ln for ln in text.splitlines() if ln.startswith("| ")][2:]  # header, rule
    return [[c.strip() for c in ln.strip("|").split(" | ")] for ln in lines]


def _numbers(cell: str) -> list[float]:
    """'0.761 [0.683, 0.838]', '0.761$_{0.683}^{0.838}$', '$-$0.279 [...]' -> floats."""
    cell = cell.replace("$-$", "-")
    return [math.nan if m == "n/a" else float(m) for m in NUM.findall(cell)]


def _same(printed: list[float], *values: float) -> None:
    assert len(printed) == len(values), (printed, values)
    for p, v in zip(printed, values, strict=True):
        if math.isnan(v):
            assert math.isnan(p)
        else:
            assert p == pytest.approx(round(v, 3), abs=1e-9), (printed, values)


@pytest.mark.parametrize("target", ["latex", "markdown"])
@pytest.mark.parametrize("intervals", ["brackets", "subsup"])
def test_summary_numbers_are_the_summary_s(summary, target: str, intervals: str) -> None:
    text = (summary.to_latex(intervals=intervals) if target == "latex"
            else summary.to_markdown())
    rows = _rows(text, target)
    assert [r[0] for r in rows] == [escape_latex(r.group) if target == "latex"
                                    else escape_markdown(r.group) for r in summary.rows]
    for cells, r in zip(rows, summary.rows, strict=True):
        assert cells[1] == str(r.conversations) and cells[2] == str(r.tasks)
        _same(_numbers(cells[3]), r.rate, r.rate_low, r.rate_high)
        _same(_numbers(cells[4]), r.pass_at_k, r.pass_at_k_low, r.pass_at_k_high)
        _same(_numbers(cells[5]), r.pass_pow_k, r.pass_pow_k_low, r.pass_pow_k_high)
        assert cells[6] == r.headline
    if target == "latex" and intervals == "subsup":
        assert re.search(r"\d\$_\{-?\d\.\d{3}\}\^\{-?\d\.\d{3}\}\$", text)


@pytest.mark.parametrize("target", ["latex", "markdown"])
def test_comparison_ranking_quality_numbers(summary, target: str) -> None:
    render = summary.to_latex if target == "latex" else summary.to_markdown
    frequentist = summary.method.startswith("plug-in")
    rows = _rows(render("comparisons"), target)
    assert len(rows) == len(summary.comparisons) > 0
    for cells, c in zip(rows, summary.comparisons, strict=True):
        _same(_numbers(cells[4]), c.rate_a)
        _same(_numbers(cells[5]), c.rate_b)
        _same(_numbers(cells[6]), c.difference, c.difference_low, c.difference_high)
        probs = [c.p_value, c.p_adjusted] if frequentist else [c.prob_a_better]
        for cell, p in zip(cells[7:], probs, strict=True):
            if 0.001 <= p <= 0.999:
                _same(_numbers(cell), p)
            else:  # draws resolve no better than 1e-3: printed as a bound, on the right side
                assert ("<" in cell) == (p < 0.001) and ("0.001" in cell or "0.999" in cell)
    ranked = sorted(summary.ranking, key=lambda r: r.expected_rank)
    rows = _rows(render("ranking"), target)
    assert [r[0] for r in rows] == [escape_latex(r.agent) if target == "latex"
                                    else escape_markdown(r.agent) for r in ranked]
    for cells, r in zip(rows, ranked, strict=True):
        _same(_numbers(cells[1]), r.mean)
        got = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", cells[3])]
        assert got == [round(r.expected_rank, 2), r.rank_low, r.rank_high]
    rows = _rows(render("quality"), target)
    for cells, q in zip(rows, summary.quality, strict=True):
        _same(_numbers(cells[1]) + _numbers(cells[2]), q.pass_at_k, q.pass_pow_k)
        assert cells[3] == q.label
        _same([x for c in cells[4:] for x in _numbers(c)], q.prob_reliable,
              q.prob_inconsistent, q.prob_needs_improvement)


def test_caption_says_method_and_interval_kind(summary) -> None:
    text = summary.to_latex()
    caption = re.search(r"\\caption\{(.*)\}\n", text).group(1)
    assert escape_latex(summary.method) in caption
    kind = "confidence interval" if summary.method.startswith("plug-in") else "equal-tailed credible"
    assert kind in caption
    assert "booktabs" not in text and "\\toprule" in text and "\\bottomrule" in text


def test_quality_and_comparison_captions_say_when_they_rest_on_labels(summary) -> None:
    from agenteval import Agentic, BayesianMode

    labelled = Agentic.run(str(DATA), k=3, statistical_mode=BayesianMode(), progress=False,
                           labels=str(DATA.with_name("agentic_demo_labels.jsonl"))).summary()
    for which in ("quality", "comparisons"):
        assert "judge-corrected outcomes" in labelled.to_latex(which)
        assert "judge-corrected" not in summary.to_latex(which)
    rows = _rows(labelled.to_latex("quality"), "latex")
    for row, q in zip(rows, labelled.quality, strict=True):   # the corrected rows, as shown
        _same(_numbers(row[1]) + _numbers(row[2]), q.pass_at_k, q.pass_pow_k)


def test_escaping_hostile_ids() -> None:
    hostile = "a_b&c%d$e#f{g}h~i^j\\k<l>m|n\x00o\u202ep\nq"
    latex = escape_latex(hostile)
    assert latex == (r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j"
                     r"\textbackslash{}k\textless{}l\textgreater{}m\textbar{}nop q")
    md = escape_markdown("x|y*z_[l](javascript:alert(1))<script>`c`")
    assert "|" not in md.replace("\\|", "") and "<" not in md.replace("\\<", "")
    assert md == r"x\|y\*z\_\[l\](javascript:alert(1))\<script\>\`c\`"


def test_bad_options_raise() -> None:
    from agenteval.present.tables import table_latex

    with pytest.raises(ConfigError, match="intervals"):
        table_latex(None, intervals="parens")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="what must be one of"):
        table_latex(None, "nonsense")  # type: ignore[arg-type]


def _hostile_summary(summary):
    """The same values with agent ids full of LaTeX specials (what the data may hold)."""
    rename = {r.group: f"{r.group}_#1 & 50% {{x}}~^" for r in summary.rows if r.group != "all"}
    rows = [r.model_copy(update={"group": rename.get(r.group, r.group)}) for r in summary.rows]
    comps = [c.model_copy(update={"agent_a": rename[c.agent_a], "agent_b": rename[c.agent_b]})
             for c in summary.comparisons]
    return summary.model_copy(update={"rows": rows, "comparisons": comps})


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex (.ci/run installs it)")
def test_latex_compiles(summary, tmp_path: Path) -> None:
    s = _hostile_summary(summary)
    tables = "\n".join([s.to_latex(w) for w in ("summary", "comparisons", "ranking", "quality")]
                       + [s.to_latex(intervals="subsup", environment="table")])
    doc = ("\\documentclass[twocolumn]{article}\n\\usepackage[T1]{fontenc}\n"
           "\\usepackage{booktabs}\n\\begin{document}\n"
           f"{tables}\n\\end{{document}}\n")
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-3000:]
    assert (tmp_path / "t.pdf").stat().st_size > 1000
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", "t.pdf", "-"], cwd=tmp_path, capture_output=True,
                              text=True).stdout
        assert "_#1 & 50% {x}~^" in text  # the id prints as itself, not as markup
        assert f"{summary.rows[0].pass_at_k:.3f}" in text
