"""The coverage figure and the prior figures at both paper widths: the axis around the nominal
level with every line distinguishable, the nominal level drawn, lines below the axis named;
the values drawn equal exact enumeration and the closed-form Beta posterior (scipy)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from scipy.special import betaln

from agenteval.plots import export, plot_coverage, plot_prior_sensitivity, plot_priors
from agenteval.statistical.coverage import coverage

WIDTHS = [("column", 3.3), ("double", 6.9)]


def _legend_outside(fig) -> list[str]:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert len(fig.legends) == 1 and not any(ax.get_legend() for ax in fig.axes)
    box = fig.legends[0].get_window_extent(renderer)
    for ax in fig.axes:
        assert not box.overlaps(ax.get_window_extent(renderer)), "legend on the data"
    return [t.get_text() for t in fig.legends[0].get_texts()]


def _exported(fig, tmp_path: Path, inches: float) -> None:
    png, pdf = export(fig, tmp_path / "figure", formats=("png", "pdf"), dpi=100)
    assert pdf.read_bytes().startswith(b"%PDF")
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG")
    assert 0.75 * inches * 100 <= int.from_bytes(data[16:20], "big") <= inches * 100 + 2


def _wald_coverage_by_enumeration(n: int, p: float) -> float:
    z = stats.norm.ppf(0.975)
    total = 0.0
    for c in range(n + 1):
        ph = c / n
        half = z * math.sqrt(ph * (1 - ph) / n)
        if max(ph - half, 0) <= p <= min(ph + half, 1):
            total += math.comb(n, c) * p ** c * (1 - p) ** (n - c)
    return total


@pytest.fixture(scope="module")
def notebook_coverage():
    """What notebook 04 draws: n = 3..100 over a grid of p, four methods."""
    n = np.arange(3, 101)
    p = np.linspace(0.005, 0.995, 199)
    methods = {"Wald (CLT)": "wald", "Wilson": "wilson", "Clopper-Pearson": "clopper-pearson",
               "Bayes, uniform prior": "bayes"}
    return n, p, {label: coverage(n, p, method=m) for label, m in methods.items()}


@pytest.mark.parametrize("width, inches", WIDTHS)
def test_coverage_axis_around_the_nominal_level_and_no_line_hidden(
        notebook_coverage, tmp_path: Path, width: str, inches: float) -> None:
    import matplotlib.pyplot as plt

    n, p, cov = notebook_coverage
    fig = plot_coverage(n, p, cov, at=0.9, width=width)
    assert fig.get_size_inches()[0] == pytest.approx(inches)
    top, bottom = fig.axes
    fig.canvas.draw()
    a, b = top.get_position(), bottom.get_position()
    if width == "column":
        assert b.y1 < a.y0             # stacked: each panel gets the full column width
    else:
        assert a.x1 < b.x0             # side by side
    j = int(np.argmin(np.abs(p - 0.9)))
    for ax, key in ((top, "at"), (bottom, "mean")):
        low, high = ax.get_ylim()
        assert low == pytest.approx(0.80) and 1.0 <= high <= 1.01   # around 95%, not 0.2..1
        lines = ax.get_lines()[:4]
        for line, (name, c) in zip(lines, cov.items()):
            assert line.get_label() == name
            want = c[:, j] if key == "at" else c.mean(axis=1)
            np.testing.assert_array_equal(line.get_ydata(), want)
            np.testing.assert_array_equal(fig.agenteval_values[key][name], want)
        # distinguishable: each line its own colour, dash pattern and marker, and the
        # markers of lines that coincide sit at different n
        assert len({ln.get_color() for ln in lines}) == 4
        assert len({str(ln.get_linestyle()) for ln in lines}) == 4
        assert len({ln.get_marker() for ln in lines}) == 4
        offsets = {ln.get_markevery()[0] for ln in lines}
        assert len(offsets) == 4
        nominal = [ln for ln in ax.get_lines() if list(ln.get_ydata()) == [0.95, 0.95]]
        assert nominal, "nominal level not drawn"
        # the Wald line leaves the axis at small n: named under the panel with its minimum
        wald = cov["Wald (CLT)"][:, j] if key == "at" else cov["Wald (CLT)"].mean(axis=1)
        assert ax.get_xlabel().endswith(f", min {wald.min():.2f}")
        assert "\nbelow the axis: Wald (CLT): $n$ = 3\u2013" in ax.get_xlabel()
        assert ax.xaxis.label._parse_math
    # the drawn Wald value at n = 3, p = p[j] is the enumerated coverage
    assert top.get_lines()[0].get_ydata()[0] == pytest.approx(
        _wald_coverage_by_enumeration(3, p[j]), abs=1e-12)
    labels = _legend_outside(fig)
    assert labels == [*cov, "nominal level 95%"]
    assert "true rate $p$ = 0.90" == top.get_title() and top.title._parse_math
    _exported(fig, tmp_path, inches)
    plt.close(fig)


def test_coverage_keeps_the_notebook_call_and_takes_a_level_or_axes(notebook_coverage) -> None:
    import matplotlib.pyplot as plt

    n, p, cov = notebook_coverage
    fig = plot_coverage(n, p, cov, at=0.9)           # notebook 04's call, unchanged
    assert fig.get_size_inches()[0] == pytest.approx(6.9)
    at90 = {"Wilson": coverage(n, p, method="wilson", level=0.9)}
    fig2 = plot_coverage(n, p, at90, level=0.9, width="column")
    assert fig2.axes[0].get_ylim()[0] == pytest.approx(0.6)
    assert "below the axis" not in fig2.axes[0].get_xlabel()      # nothing leaves the axis
    assert [t.get_text() for t in fig2.legends[0].get_texts()][-1] == "nominal level 90%"
    own, axes = plt.subplots(1, 2)
    assert plot_coverage(n, p, cov, axes=axes, ylim=(0.5, 1.0)) is own
    assert axes[0].get_ylim()[0] == 0.5
    plt.close("all")


def _beta_moment(a: float, b: float, j: int) -> float:
    """E[p^j] under Beta(a, b), in closed form."""
    return math.exp(betaln(a + j, b) - betaln(a, b))


@pytest.mark.parametrize("width, inches", WIDTHS)
def test_prior_sensitivity_draws_the_closed_form_posterior(tmp_path: Path, width: str,
                                                            inches: float) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    n, c, a, b, k = 40, 13, 1.0, 1.0, 3
    fig = plot_prior_sensitivity(n, c, a=a, b=b, k=k, width=width)
    assert fig.get_size_inches()[0] == pytest.approx(inches)
    left, right = fig.axes
    post = stats.beta(a + c, b + n - c)
    mean, lo, hi = fig.agenteval_values["rate"]
    assert mean == pytest.approx(post.mean(), rel=1e-12)
    assert (lo, hi) == pytest.approx(tuple(post.ppf([0.025, 0.975])), rel=1e-9)
    x = left.get_lines()[1].get_xdata()
    np.testing.assert_allclose(left.get_lines()[1].get_ydata(), post.pdf(x), rtol=1e-9)
    band = [col for col in left.collections if isinstance(col, PolyCollection)][0]
    xs = band.get_paths()[0].vertices[:, 0]
    assert lo - 1e-3 <= xs.min() <= lo + 1e-3 and hi - 1e-3 <= xs.max() <= hi + 1e-3
    at, pw = right.get_lines()[:2]
    for j in range(1, 11):
        want_pow = _beta_moment(a + c, b + n - c, j)
        want_at = 1 - _beta_moment(b + n - c, a + c, j)      # E[1 - (1 - p)^j]
        assert pw.get_ydata()[j - 1] == pytest.approx(want_pow, rel=1e-9)
        assert at.get_ydata()[j - 1] == pytest.approx(want_at, rel=1e-9)
        assert fig.agenteval_values["pass_pow_j"][j][0] == pytest.approx(want_pow, rel=1e-9)
    written = {t.get_text() for t in right.texts}
    assert written == {f"{_beta_moment(a + c, b + n - c, 3):.2f}",
                       f"{1 - _beta_moment(b + n - c, a + c, 3):.2f}"}
    labels = _legend_outside(fig)
    assert "shaded: 95% equal-tailed interval" in labels
    assert r"pooled $\mathrm{pass}^{j}$" in labels and "$c/n$ = 13/40" in labels
    texts = {t.get_text(): t for t in fig.legends[0].get_texts()}
    assert texts[r"pooled $\mathrm{pass}^{j}$"]._parse_math
    assert not texts["prior Beta(1, 1)"]._parse_math
    assert left.get_xlabel() == "success rate $p$" and left.xaxis.label._parse_math
    _exported(fig, tmp_path, inches)
    plt.close(fig)


@pytest.mark.parametrize("width, inches", WIDTHS)
def test_priors_figure_draws_each_posterior_and_its_interval(tmp_path: Path, width: str,
                                                             inches: float) -> None:
    import matplotlib.pyplot as plt

    priors = {"uniform": (1, 1), "Jeffreys": (0.5, 0.5), "$5 prior": (8, 2)}
    fig = plot_priors(5, 4, priors, width=width)
    assert fig.get_size_inches()[0] == pytest.approx(inches)
    ax = fig.axes[0]
    bars = [ln for ln in ax.get_lines() if ln.get_linewidth() == 2.0 and len(ln.get_xdata()) == 2
            and ln.get_label().startswith("_")]
    assert len(bars) == 3
    for (name, (a, b)), curve, bar in zip(priors.items(), ax.get_lines()[:3], bars):
        post = stats.beta(a + 4, b + 1)
        lo, hi = post.ppf([0.025, 0.975])
        assert fig.agenteval_values[name] == pytest.approx((post.mean(), lo, hi), rel=1e-9)
        np.testing.assert_allclose(bar.get_xdata(), [lo, hi], rtol=1e-9)
        assert curve.get_label() == f"{name} Beta({a:g}, {b:g}): {post.mean():.3f} [{lo:.3f}, {hi:.3f}]"
        x = curve.get_xdata()[1:-1]
        np.testing.assert_allclose(curve.get_ydata()[1:-1], post.pdf(x), rtol=1e-9)
    labels = _legend_outside(fig)
    assert "bar: posterior mean, 95% equal-tailed interval" in labels
    texts = {t.get_text(): t for t in fig.legends[0].get_texts()}
    assert not texts[labels[2]]._parse_math and labels[2].startswith("$5 prior")  # data: text
    assert ax.get_xlabel() == "success rate $p$" and ax.xaxis.label._parse_math
    _exported(fig, tmp_path, inches)
    plt.close(fig)


def test_every_figure_takes_a_journal_style_and_rejects_a_bad_width() -> None:
    """``style=`` (a journal's rcParams) reaches the labels of every figure here."""
    import matplotlib.pyplot as plt

    from agenteval import BayesianMode
    from agenteval.errors import ConfigError
    from agenteval.plots import plot_difference, plot_pairwise, plot_power_curve
    from agenteval.statistical.compare import compare_agents
    from agenteval.statistical.plan import power_curve

    rng = np.random.default_rng(5)
    agent = [a for a in ("x", "y") for _ in range(24)]
    task = [f"t{i % 12}" for i in range(48)]
    success = list(rng.random(48) < np.repeat([0.4, 0.7], 24))
    table = compare_agents(agent, task, success, k=1, mode=BayesianMode(mc_samples=500))
    n = np.arange(3, 20)
    p = np.linspace(0.05, 0.95, 10)
    makers = {
        "difference": lambda **kw: plot_difference(table.comparisons[0], **kw),
        "pairwise": lambda **kw: plot_pairwise(table.ranking, **kw),
        "power": lambda **kw: plot_power_curve(
            power_curve([20, 40], rate_a=0.7, rate_b=0.6, icc=0.3, attempts=2), **kw),
        "coverage": lambda **kw: plot_coverage(n, p, {"Wilson": coverage(n, p, method="wilson")},
                                               **kw),
        "sensitivity": lambda **kw: plot_prior_sensitivity(10, 8, **kw),
        "priors": lambda **kw: plot_priors(10, 8, {"uniform": (1, 1)}, **kw),
    }
    style = {"font.family": "serif", "font.size": 10, "axes.labelsize": 10}
    for name, make in makers.items():
        fig = make(style=style, width="column")
        fig.canvas.draw()
        label = fig.axes[0].xaxis.label
        assert label.get_fontfamily() == ["serif"] and label.get_fontsize() == 10, name
        plt.close(fig)
        with pytest.raises(ConfigError, match="width"):
            make(width="triple")
    plt.close("all")


def test_a_method_name_is_text_even_inside_the_below_the_axis_note() -> None:
    import matplotlib.pyplot as plt

    n, p = np.arange(3, 15), np.linspace(0.05, 0.95, 10)
    fig = plot_coverage(n, p, {"$5 Wald": coverage(n, p, method="wald")}, width="column")
    fig.canvas.draw()   # the escaped "$" parses as a dollar sign inside the mathtext label
    label = fig.axes[0].get_xlabel()
    assert "below the axis: \\$5 Wald: $n$ = 3" in label
    legend = {t.get_text(): t for t in fig.legends[0].get_texts()}
    assert "$5 Wald" in legend and not legend["$5 Wald"]._parse_math
    plt.close(fig)
