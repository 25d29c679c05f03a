"""Notebook HTML of results: the numbers shown are checked against scipy and closed forms."""

from __future__ import annotations

import base64
import html
import io
import math
import re
from typing import Any

import numpy as np
import pytest
from scipy import integrate, stats

from agenteval import Agentic, BayesianMode, FrequentistMode
from agenteval.display import records_table, results_html, summary_html
from agenteval.results import SuiteRow, SuiteSummary
from tests.conftest import DEMO


@pytest.fixture(scope="module")
def bayes() -> Any:
    return Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode())


@pytest.fixture(scope="module")
def freq() -> Any:
    return Agentic.run(str(DEMO), k=3, statistical_mode=FrequentistMode())


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_bayesian_summary_numbers_match_scipy(bayes: Any) -> None:
    row = bayes.summary().rows[0]
    n, c = row.complete, row.fully_correct
    assert (n, c) == (73, 37)  # data/README.md: 37 of 73 fully correct
    post = stats.beta(1 + c, 1 + n - c)
    lo, hi = post.ppf([0.025, 0.975])
    at3, _ = integrate.quad(lambda p: (1 - (1 - p) ** 3) * post.pdf(p), 0, 1)
    page = _text(results_html(bayes))
    assert f"{post.mean():.3f} [{lo:.3f}, {hi:.3f}]" in page
    assert f"{at3:.3f} [{1 - (1 - lo) ** 3:.3f}, {1 - (1 - hi) ** 3:.3f}]" in page
    assert "37 of 73 conversations fully correct" in page


def test_frequentist_summary_shows_the_wilson_interval(freq: Any) -> None:
    n, c, z = 40, 13, stats.norm.ppf(0.975)
    p = c / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    page = _text(summary_html(freq.summary()))
    assert f"{p:.3f} [{centre - half:.3f}, {centre + half:.3f}]" in page
    assert "agent-gpt-small" in page and "agent-planner-v2" in page
    assert "Agent comparisons" in page and "p adjusted" in page


def test_headers_say_pass_at_k_and_carry_field_descriptions(bayes: Any) -> None:
    page = summary_html(bayes.summary())
    assert "pass@3 [interval]" in page and "pass^3 [interval]" in page
    assert f'title="{html.escape(SuiteRow.model_fields["rate"].description)}"' in page


def test_posterior_figure_only_in_bayesian_modes(bayes: Any, freq: Any) -> None:
    from PIL import Image

    png = re.findall(r'src="data:image/png;base64,([^"]+)"', results_html(bayes))
    assert len(png) == 1
    image = Image.open(io.BytesIO(base64.b64decode(png[0])))
    assert image.format == "PNG" and image.width > 300
    assert "data:image/png" not in results_html(freq)


def test_posterior_figure_draws_each_groups_beta_density() -> None:
    """The flat prior by name: every row's numbers are Beta posteriors, drawn as densities (the
    pooled default's task-level rows are not, and get intervals: the test below)."""
    import matplotlib.pyplot as plt

    from agenteval.plots import plot_rate_posteriors

    flat = Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode(method="conjugate"))
    fig = plot_rate_posteriors(flat)
    lines = fig.axes[0].get_lines()
    assert [line.get_label() for line in lines] == [
        "all (37/73)", "agent-gpt-small (13/40)", "agent-planner-v2 (24/33)"]
    for line, (n, c) in zip(lines, [(73, 37), (40, 13), (33, 24)]):
        x, y = line.get_xdata(), line.get_ydata()
        assert abs(np.trapezoid(y, x) - 1) < 1e-3          # a density
        assert abs(x[np.argmax(y)] - c / n) < 2e-3          # mode of Beta(1+c, 1+n-c) is c/n
    plt.close(fig)


def test_long_tables_start_collapsed(bayes: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert '<details class="conversations"><summary>Per-conversation results (73)</summary>' in results_html(bayes)
    few = Agentic.run([{"session_id": f"s{i}", "assistant_id": "a", "conversation": [
        {"qa_id": "q", "query": "1+1?", "assistant": "2", "ground_truth_assistant": "2"}]}
        for i in range(3)], k=1)
    assert '<details class="conversations" open><summary>Per-conversation results (3)</summary>' in results_html(few)
    import agenteval.display as display

    monkeypatch.setattr(display, "MAX_ROWS", 10)
    page = results_html(bayes)
    assert "first 10 of 73" in page
    table = page[page.index("Per-conversation results (73)"):]
    assert table.count("<tr>") == 1 + 10  # head + rows


def test_judge_errors_and_their_causes_are_shown() -> None:
    data = [{"session_id": "s1", "assistant_id": "a", "conversation": [
        {"qa_id": "q1", "query": "1+1?", "assistant": "2", "ground_truth_assistant": "2"},
        {"qa_id": "q2", "query": "2+2?", "assistant": "4"}]}]
    page = _text(results_html(Agentic.run(data, k=1)))
    assert "1 interaction(s) could not be judged" in page
    assert "1 × no_reference: no ground_truth_assistant to compare with" in page


def test_text_is_escaped() -> None:
    data = [{"session_id": "<script>alert(1)</script>", "assistant_id": "a&b", "conversation": [
        {"qa_id": "q1", "query": "1+1?", "assistant": "2", "ground_truth_assistant": "2"}]}]
    page = results_html(Agentic.run(data, k=1))
    assert "<script>" not in page and "&lt;script&gt;" in page and "a&amp;b" in page


def test_new_summary_fields_show_up_without_a_change_here(bayes: Any) -> None:
    """Fields another module adds to the rows or the summary are rendered generically."""

    class Row(SuiteRow):
        calibration: float
        calibration_low: float
        calibration_high: float
        spread: float
        spread_se: float

    class Summary(SuiteSummary):
        calibration_check: dict[str, Any]
        caveats: list[str]

    base = bayes.summary()
    rows = [Row(**r.model_dump(), calibration=0.25, calibration_low=0.125, calibration_high=0.5,
                spread=0.3, spread_se=0.01) for r in base.rows]
    summary = Summary(**{**base.model_dump(), "rows": rows}, calibration_check={"r_hat": 1.004},
                      caveats=["pass^k for k > 1 is not identified"])
    page = _text(summary_html(summary))
    assert "calibration [interval]" in page and "0.250 [0.125, 0.500]" in page
    assert "0.300 ± 0.010" in page
    assert "r_hat: 1.004" in page and "pass^k for k > 1 is not identified" in page


def test_records_table_folds_intervals_and_standard_errors() -> None:
    html = records_table([{"group": "g", "x": 0.5, "x_low": 0.25, "x_high": 0.75, "y": 1.0,
                           "y_se": float("nan"), "prob_a_better": 0.99995, "missing": None}])
    cells = re.findall(r"<td[^>]*>(.*?)</td>", html)
    # a probability from draws prints as the CLI prints it (present.text.format_probability)
    assert cells == ["g", "0.500 [0.250, 0.750]", "1.000", "&gt; 0.999", "n/a"]
    exact = records_table([{"scope": "conversations", "prob_a_better": 0.99995}])
    assert re.findall(r"<td[^>]*>(.*?)</td>", exact) == ["conversations", "1 - 5.0e-05"]


def test_plain_text_stays_readable(bayes: Any) -> None:
    summary = bayes.summary()
    assert str(summary) == summary.to_text() and "pass@3" in str(summary)
    assert repr(bayes).startswith("AgenticResults(73 conversations, k=3")


def test_other_bayesian_fits_get_the_reported_intervals_not_a_conjugate_density() -> None:
    """Empirical Bayes (and hierarchical) posteriors are not Beta(a + c, b + n - c): the figure
    then shows the means and intervals the rows report."""
    import matplotlib.pyplot as plt

    from agenteval.plots import plot_rate_posteriors

    results = Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode(method="empirical_bayes"))
    fig = plot_rate_posteriors(results)
    ax = fig.axes[0]
    assert ax.get_title().startswith("posterior means and 95% equal-tailed intervals")
    for container, row in zip(ax.containers, results.summary().rows):
        means = container.lines[0].get_xdata()
        assert np.allclose(means, [row.rate, row.pass_at_k, row.pass_pow_k])
    plt.close(fig)


def test_the_judge_line_words_the_interaction_counts_as_the_cli_does(bayes: Any) -> None:
    """The summary's interaction counts read "138 of 138 judged, 0 not judged", as the CLI's
    accounting line, not as a JSON object."""
    counts = bayes.summary().judge["interactions"]
    page = _text(results_html(bayes))
    want = (f"interactions: {counts['judged']} of {counts['total']} judged, "
            f"{counts['not_judged']} not judged")
    assert want in page and '"total"' not in page
