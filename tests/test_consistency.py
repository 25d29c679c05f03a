"""Every view shows the summary's numbers: text, notebook HTML, report, CSV / JSON, NetCDF, figures.

One CLI run with ``--out`` per case (the demo; the demo with judge errors, in the Bayesian and
the frequentist mode; the demo with its human labels, in both modes, whose comparisons, ranking
and quality table are then judge-corrected) writes every view; the summary those views must agree with is the one in
``results.json`` (the run's ``SuiteSummary``), and the Python API's summary of the same data
and settings is checked to be that very summary. Then, per view:

* forward: each group's share, headline pass@k / pass^k (and task-level / new-task values where
  the view shows them) appear, formatted, in that group's line or table;
* backward: every decimal number printed in the view's summary part is one of the summary's
  values in one of the formats the views use (or a documented constant such as Fair Forge's
  quality thresholds): a view that computes a number of its own fails here;
* NetCDF: the posterior means of the quantities the summary also reports lie within Monte Carlo
  error of the summary's exact means; the stored counts are the summary's;
* figures: the values each figure drew (``fig.agenteval_values``) are the summary's.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import random
import re
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

from agenteval.cli import main
from tests.conftest import DEMO, demo_with_judge_errors

NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e[-+]?\d+)?")
CONSTANTS = {"0.95", "0.70", "0.50", "0.001", "0.999"}
"""Fair Forge's quality thresholds (printed in the quality header) and the probability floor
/ ceiling ('< 0.001', '> 0.999') of draw-based probabilities."""
PASS = ("pass_at_k", "pass_pow_k")


LABELS = DEMO.parent / "agentic_demo_labels.jsonl"
CASES = {"demo-bayesian": ("demo", "bayesian", False), "errors-bayesian": ("errors", "bayesian", False),
         "errors-frequentist": ("errors", "frequentist", False),
         "labels-bayesian": ("demo", "bayesian", True),
         "labels-frequentist": ("demo", "frequentist", True)}


@pytest.fixture(scope="module", params=list(CASES))
def run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    data_kind, mode, labelled = CASES[request.param]
    folder = tmp_path_factory.mktemp(request.param)
    data = DEMO if data_kind == "demo" else demo_with_judge_errors(folder)
    out = folder / "out"
    args = ["run", str(data), "--k", "3", "--mode", mode, "--out", str(out), "--min-judged", "0",
            "--quiet", *(["--labels", str(LABELS)] if labelled else [])]
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        assert main(args) == 0
    stored = json.loads((out / "results.json").read_text(encoding="utf-8"))
    from agenteval import Agentic, BayesianMode, FrequentistMode

    results = Agentic.run(str(data), k=3, statistical_mode=BayesianMode() if mode == "bayesian"
                          else FrequentistMode(), labels=str(LABELS) if labelled else None)
    return {"text": buffer.getvalue(), "out": out, "summary": stored["summary"],
            "calibration": stored.get("calibration"), "results": results, "mode": mode,
            "data": data_kind, "labelled": labelled}


# --------------------------------------------------------------------------- helpers


def _fmt3(x: float | None) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"


def _interval(row: dict, field: str) -> str:
    value, low, high = row[field], row.get(f"{field}_low"), row.get(f"{field}_high")
    if value is None:
        return "n/a"
    if low is None or high is None:
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _floats(obj: object) -> list[float]:
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in _floats(v)]
    if isinstance(obj, list):
        return [x for v in obj for x in _floats(v)]
    if isinstance(obj, float) and math.isfinite(obj):
        return [obj]
    return []


def _allowed(summary: dict, calibration: dict | None = None) -> set[str]:
    """Every way a view may print one of the summary's numbers (and, where the view shows the
    judge's calibration against human labels, the calibration's)."""
    out = set(CONSTANTS)
    parts = [summary["rows"], summary.get("comparisons", []), summary.get("ranking", []),
             summary.get("quality", []), summary.get("diagnostics", []),
             summary.get("judge_only_comparisons", []), summary.get("judge_only_ranking", []),
             summary.get("judge_only_quality", []), calibration or {}]
    for x in _floats(parts):
        out |= {f"{x:.3f}", f"{x:.4f}", f"{x:.2f}", f"{x:g}", f"{x:.1e}", f"{1 - x:.1e}",
                f"{x:.1f}"}
    return out


def _numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def _strip(markup: str) -> str:
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", markup, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def _check_numbers(view: str, text: str, summary: dict, also: set[str] = frozenset(),
                   calibration: dict | None = None) -> None:
    allowed = _allowed(summary, calibration) | set(also)
    foreign = sorted({n for n in _numbers(text) if n not in allowed})
    assert not foreign, f"{view} shows numbers that are not the summary's: {foreign[:12]}"


def _check_rows_shown(view: str, text: str, summary: dict, fields: tuple[str, ...]) -> None:
    flat = re.sub(r"\s+", " ", text)
    for row in summary["rows"]:
        for field in fields:
            if field in row and row[field] is not None:
                want = _interval(row, field)
                assert want in flat, f"{view}: {row['group']} {field} {want!r} not shown"


def _check_interval_label(view: str, text: str, mode: str) -> None:
    """Every view says what its intervals are (equal-tailed credible vs confidence)."""
    want = "equal-tailed credible interval" if mode == "bayesian" else "confidence interval"
    assert want in text, f"{view} does not say its intervals are {want}s"


# --------------------------------------------------------------------------- the views


def test_python_summary_is_the_stored_one(run: dict) -> None:
    mine = json.loads(json.dumps(run["results"].to_json()["summary"]))
    stored = run["summary"]
    for key in ("rows", "comparisons", "ranking", "quality", "method", "judge_only_comparisons",
                "judge_only_ranking", "judge_only_quality"):
        assert mine[key] == stored[key], key


def test_text_summary(run: dict) -> None:
    text = run["text"]
    summary = run["summary"]
    part = text[text.index("suite summary:"):text.index("\njudge:")]
    _check_rows_shown("text", part, summary, ("rate", "pass_at_k", "pass_pow_k"))
    _check_numbers("text", part, summary)
    _check_interval_label("text", part, run["mode"])
    lines = part.splitlines()
    for row in summary["rows"]:   # each group's headline on its own line
        line = next(x for x in lines if x.startswith(row["group"][:21] + " "))
        for field in ("rate", *PASS):
            assert _interval(row, field) in line
    if run["mode"] == "frequentist" and any(r["rate_method"] != "complete cases"
                                            for r in summary["rows"]):
        assert "post-stratified" in part.splitlines()[2]   # the header says what p is


def test_notebook_html(run: dict) -> None:
    page = run["results"]._repr_html_()
    body = _strip(page.split('<details class="conversations"')[0])
    _check_rows_shown("html", body, run["summary"], ("rate", "pass_at_k", "pass_pow_k"))
    # the judge-error panel (as the CLI prints it) gives the unjudged share in per cent, of the
    # summary's interactions
    inter = run["summary"]["judge"]["interactions"]
    assert inter["not_judged"] == inter["total"] - inter["judged"]
    assert inter["total"] == sum(len(c.interactions) for c in run["results"])
    share = f"{100 * inter['not_judged'] / inter['total']:.1f}"
    if inter["not_judged"]:
        assert f"{inter['not_judged']} interaction(s) could not be judged</span> (of " \
            f"{inter['total']}, {share}%)" in page
    else:
        assert "judge errors: none" in body
    _check_numbers("html", body, run["summary"], {share}, calibration=run["calibration"])
    _check_interval_label("html", body, run["mode"])


def test_report(run: dict) -> None:
    page = (run["out"] / "report.html").read_text(encoding="utf-8")
    start = page.index('<section id="summary">')
    part = _strip(page[start:page.index("</section>", start)])
    summary = run["summary"]
    flat = re.sub(r"\s+", " ", part)
    for row in summary["rows"]:
        for field in ("rate", *PASS, "task_pass_pow_k", "new_task_pass_pow_k"):
            if row.get(field) is not None:
                assert _interval(row, field) in flat, (row["group"], field)
    _check_numbers("report", part, summary)
    _check_interval_label("report", part, run["mode"])


def test_csv_files(run: dict) -> None:
    out, summary = run["out"], run["summary"]
    with open(out / "summary.csv", encoding="utf-8") as fh:
        rows = {r["group"]: r for r in csv.DictReader(fh)}
    for row in summary["rows"]:
        got = rows[row["group"]]
        for field, value in row.items():
            if isinstance(value, float):
                assert float(got[field]) == pytest.approx(value, rel=1e-12, abs=1e-15), field
            elif value is None:
                assert got[field] in ("", "nan"), field
            elif isinstance(value, (int, bool)) and not isinstance(value, bool):
                assert int(got[field]) == value, field
    with open(out / "quality.csv", encoding="utf-8") as fh:
        quality = list(csv.DictReader(fh))
    assert [q["unit"] for q in quality] == [q["unit"] for q in summary["quality"]]
    for got, want in zip(quality, summary["quality"]):
        for field in PASS:
            assert float(got[field]) == pytest.approx(want[field], rel=1e-12)
    if summary["comparisons"]:
        with open(out / "comparisons.csv", encoding="utf-8") as fh:
            cmp = list(csv.DictReader(fh))
        assert len(cmp) == len(summary["comparisons"])
        for got, want in zip(cmp, summary["comparisons"]):
            assert float(got["difference"]) == pytest.approx(want["difference"], rel=1e-12)


def test_quality_rests_on_the_headline(run: dict) -> None:
    """The quality table's values are the headline's: with human labels the judge-corrected
    headline's (as the comparisons), the judge-only table kept beside on the judge's."""
    summary = run["summary"]
    rows = {r["group"]: r for r in summary["rows"]}
    corrected = {r["group"]: r for r in (run["calibration"] or {}).get("corrected", [])}
    assert bool(summary["judge_only_quality"]) == run["labelled"]
    for q in summary["quality"]:
        row = (corrected if run["labelled"] else rows).get(q["unit"], summary["rows"][0])
        assert (q["pass_at_k"], q["pass_pow_k"]) == (row["pass_at_k"], row["pass_pow_k"])
        assert q["basis"].startswith("judge-corrected headline: ") == run["labelled"]
    for q in summary["judge_only_quality"]:
        row = rows[q["unit"]]
        assert (q["pass_at_k"], q["pass_pow_k"]) == (row["pass_at_k"], row["pass_pow_k"])
        assert q["basis"].startswith("headline: ")


def _quality_cells(q: dict) -> list[str]:
    """A quality row as the tables print it: unit, values, label, the probabilities shown."""
    cells = [q["unit"], f"{q['pass_at_k']:.3f}", f"{q['pass_pow_k']:.3f}", q["label"] or "n/a"]
    for key in ("prob_reliable", "prob_inconsistent", "prob_needs_improvement"):
        p = q[key]
        if p is not None:
            cells.append("< 0.001" if p < 0.001 else "> 0.999" if p > 0.999 else f"{p:.3f}")
    return cells


def _check_quality_table(view: str, part: str, rows: list[dict]) -> None:
    """Each row's cells, in order, in the view's part for that table (one table row each)."""
    flat = re.sub(r"\s+", " ", part)
    for q in rows:
        pattern = r"\s+(?:\S+\s+)*?".join(re.escape(c) for c in _quality_cells(q))
        assert re.search(pattern, flat), f"{view}: quality row {q['unit']} {_quality_cells(q)}"
    for basis in {q["basis"] for q in rows}:
        assert basis in flat, f"{view}: basis {basis!r} not shown"


def test_the_quality_table_is_the_same_in_every_view(run: dict) -> None:
    """The quality table (judge-corrected with labels, and the judge-only one kept beside) shows
    the summary's numbers in the text, the notebook HTML, the report, JSON and quality.csv."""
    summary, labelled = run["summary"], run["labelled"]
    quality, judge_only = summary["quality"], summary["judge_only_quality"]
    assert quality
    # text: the corrected table, then the judge-only one for reference
    text = run["text"]
    block = text[text.index("\nquality (Fair Forge"):text.index("\nunbiased per-task")]
    header = block.strip().splitlines()[0]
    assert ("JUDGE-CORRECTED" in header) == labelled
    corrected_part, _, judge_part = block.partition("judge-only quality (")
    assert bool(judge_part) == labelled
    _check_quality_table("text", corrected_part, quality)
    if labelled:
        _check_quality_table("text judge-only", judge_part, judge_only)
    for q in quality:   # one line per agent, all of it
        line = next(x for x in corrected_part.splitlines() if x.startswith(f"  {q['unit']} "))
        assert line.endswith(f"({q['basis']})")
    # the notebook HTML
    page = _strip(run["results"]._repr_html_())
    start = page.index("Quality assessment (Fair Forge's table)")
    end = page.index("Judge-only quality assessment") if labelled else page.index("judge:", start)
    assert ("judge-corrected" in page[start:start + 200]) == labelled
    _check_quality_table("html", page[start:end], quality)
    if labelled:
        _check_quality_table("html judge-only", page[end:page.index("judge:", end)], judge_only)
    # the report
    report = (run["out"] / "report.html").read_text(encoding="utf-8")
    start = report.index("<h3>Quality</h3>")
    section = report[start:report.index("</section>", start)]
    heads = section.split("<h3>")
    assert ("judge-corrected" in heads[1][:200]) == labelled   # as the text and HTML say
    _check_quality_table("report", _strip(heads[1]), quality)
    if labelled:
        other = next(h for h in heads if h.startswith("Judge only quality"))
        _check_quality_table("report judge-only", _strip(other), judge_only)
    # JSON: the Python API's summary is the stored one (also judge_only_quality); quality.csv
    mine = json.loads(json.dumps(run["results"].to_json()["summary"]))
    assert mine["quality"] == quality and mine["judge_only_quality"] == judge_only
    with open(run["out"] / "quality.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["unit"] for r in rows] == [q["unit"] for q in quality]
    for got, want in zip(rows, quality):
        assert got["basis"] == want["basis"] and got["label"] == (want["label"] or "")
        for key, value in want.items():
            if key in ("unit", "label", "basis"):
                continue
            if value is None:
                assert got[key] in ("", "nan"), key
            else:
                assert float(got[key]) == pytest.approx(value, rel=1e-12), key


def test_independent_comparisons_use_the_rows_shares(run: dict) -> None:
    summary = run["summary"]
    rows = {r["group"]: r for r in summary["rows"]}
    for c in summary["comparisons"]:
        if c["method"] == "independent" and c["scope"] == "conversations":
            assert c["rate_a"] == rows[c["agent_a"]]["rate"]
            assert c["rate_b"] == rows[c["agent_b"]]["rate"]


def test_netcdf(run: dict) -> None:
    if run["mode"] != "bayesian":
        pytest.skip("frequentist results have no posterior")
    from agenteval._util import arviz as _arviz

    data = _arviz.from_netcdf(str(run["out"] / "posterior.nc"))
    post = _arviz.group(data, "posterior")
    obs = _arviz.group(data, "observed_data")
    summary = run["summary"]
    rows = {r["group"]: r for r in summary["rows"]}
    results = run["results"]
    conv = _arviz.from_netcdf(str(run["out"] / "posterior_conversation.nc"))
    judged = [m for m in results if m.total_interactions]   # n = 0 carries no data
    assert (_arviz.group(conv, "constant_data")["n_conversation"].values.tolist()
            == [m.total_interactions for m in judged])
    assert (_arviz.group(conv, "observed_data")["c_conversation"].values.tolist()
            == [m.correct_interactions for m in judged])
    assert obs["c_task"].size == int((results.counts.tasks.n > 0).sum())
    for agent in post["agent"].values:
        row = rows[str(agent)]
        share = post["share"].sel(agent=agent).values.ravel()
        se = share.std() / math.sqrt(share.size)
        assert abs(share.mean() - row["rate"]) < 5 * se + 1e-12
        for q in PASS:
            var = f"task_{q}"
            if var in post and row["tasks"]:
                draws = post[var].sel(agent=agent).values.ravel()
                assert abs(draws.mean() - row[var]) < 5 * draws.std() / math.sqrt(draws.size) + 1e-12
    if "n_task" in obs:
        assert int(obs["n_task"].values.sum()) == sum(
            r["complete"] for r in summary["rows"][1:]) - sum(
            1 for m in results if m.task_id is None and m.judge_errors == 0)


def test_figures_draw_the_summarys_values(run: dict) -> None:
    if run["mode"] != "bayesian":
        pytest.skip("frequentist results have no posterior figures")
    import matplotlib.pyplot as plt

    from agenteval import plots

    results = run["results"]
    rows = {r.group: r for r in results.summary().rows}
    fig = plots.plot_pass_posterior(results)
    for q, per_agent in fig.agenteval_values.items():
        for agent, (mean, low, high) in per_agent.items():
            row = rows[agent]
            field = f"task_{q}" if row.tasks else f"pooled_{q}"
            assert (mean, low, high) == (getattr(row, field), getattr(row, f"{field}_low"),
                                         getattr(row, f"{field}_high"))
    small = plots.plot_rate_posteriors(results)
    for group, values in small.agenteval_values.items():
        assert values["rate"] == (rows[group].rate, rows[group].rate_low, rows[group].rate_high)
    plt.close("all")
    assert results.to_inference_data() is results.to_inference_data()   # held, not rebuilt
    assert (run["out"] / "figures" / "pass_posterior.png").stat().st_size > 2000


def test_one_colour_per_agent_everywhere(run: dict) -> None:
    if run["mode"] != "bayesian":
        pytest.skip("no posterior figures")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from agenteval import plots

    results = run["results"]
    colours = {a: c.lower() for a, c in results.colours().items()}
    seen: dict[str, set[str]] = {}
    for draw in (plots.plot_pass_posterior, plots.plot_prior_posterior, plots.plot_rate_posteriors):
        fig = draw(results)
        for ax in fig.axes:
            for line in ax.get_lines():
                label = line.get_label()
                if label in colours:
                    seen.setdefault(label, set()).add(to_hex(line.get_color()))
    plt.close("all")
    assert seen and all(s == {colours[a]} for a, s in seen.items()), seen


def test_nothing_judged_draws_no_posterior(tmp_path: Path) -> None:
    rows = [json.loads(x) for x in DEMO.read_text(encoding="utf-8").splitlines()]
    for r in rows:
        for turn in r["conversation"]:
            turn.pop("ground_truth_assistant", None)
    data = tmp_path / "unjudged.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    with redirect_stdout(io.StringIO()):   # first a judged run into the folder, then none
        main(["run", str(DEMO), "--k", "3", "--out", str(out), "--quiet"])
        assert (out / "figures" / "forest.png").exists()
        main(["run", str(data), "--k", "3", "--out", str(out), "--min-judged", "0", "--quiet"])
    assert not list((out / "figures").glob("*"))      # no figure of the prior, none left over
    assert "forest" not in (out / "report.html").read_text(encoding="utf-8")
    from agenteval import Agentic, BayesianMode, plots

    results = Agentic.run(str(data), k=3, statistical_mode=BayesianMode())
    fig = plots.plot_pass_posterior(results)
    assert all(not v for v in fig.agenteval_values.values())
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert any("nothing was judged" in t for t in texts)
    assert plots.plot_rate_posteriors(results) is None
    assert np.isnan(results.summary().rows[0].rate)


def test_prior_explorer_labels_its_pooled_values_and_shows_the_headline(run: dict) -> None:
    if run["mode"] != "bayesian":
        pytest.skip("the explorer is a Bayesian what-if")
    pytest.importorskip("ipywidgets")
    from agenteval.widgets import prior_explorer

    explorer = prior_explorer(run["results"])
    text = explorer.numbers.value
    row = run["summary"]["rows"][0]
    assert "pooled pass@3 = " in text and "pooled pass^3 = " in text
    assert f"pass@3 {_interval(row, 'pass_at_k')}" in text      # the headline, as the summary
    assert f"pass^3 {_interval(row, 'pass_pow_k')}" in text
    assert ("mean over" in text) == (row["headline"] == "tasks")
