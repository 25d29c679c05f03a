"""Comparison figures: both paper widths, legends outside the data, mathtext labels, the interval
kind named, and the values drawn equal the comparison's, ranking's and power curve's numbers
(read from the artists, not only from ``fig.agenteval_values``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agenteval import Agentic, BayesianMode, FrequentistMode
from agenteval.errors import ConfigError
from agenteval.plots import export, plot_difference, plot_pairwise, plot_power_curve
from agenteval.statistical.compare import compare_agents
from agenteval.statistical.plan import power_curve
from tests.conftest import DEMO

MAGIC = {"png": b"\x89PNG", "pdf": b"%PDF", "svg": b"<?xml"}
WIDTHS = [("column", 3.3), ("double", 6.9)]


def _check(paths: list[Path]) -> None:
    for path in paths:
        data = path.read_bytes()
        assert len(data) > 2000 and data.startswith(MAGIC[path.suffix[1:]]), path


def _png_width(path: Path) -> int:
    data = path.read_bytes()
    return int.from_bytes(data[16:20], "big")


def _exported_at(fig, tmp_path: Path, name: str, inches: float) -> None:
    """Written as PNG/PDF; the PNG is the width asked for (tight bbox trims only margins)."""
    paths = export(fig, tmp_path / name, formats=("png", "pdf"), dpi=100)
    _check(paths)
    assert 0.75 * inches * 100 <= _png_width(paths[0]) <= inches * 100 + 2


def _legend_outside(fig) -> list[str]:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert fig.legends and not any(ax.get_legend() for ax in fig.axes)
    box = fig.legends[0].get_window_extent(renderer)
    for ax in fig.axes:
        assert not box.overlaps(ax.get_window_extent(renderer)), "legend on the data"
    return [t.get_text() for t in fig.legends[0].get_texts()]


@pytest.fixture(scope="module")
def comparisons():
    out = {}
    for name, mode in (("bayes", BayesianMode(mc_samples=2000)), ("freq", FrequentistMode())):
        results = Agentic.run(str(DEMO), None, 3, statistical_mode=mode, progress=False)
        (out[name],) = results.comparison_table().comparisons
    return out


@pytest.mark.parametrize("width, inches", WIDTHS)
@pytest.mark.parametrize("mode", ["bayes", "freq"])
def test_difference_draws_the_comparison_s_numbers(comparisons, tmp_path: Path, mode: str,
                                                   width: str, inches: float) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    cmp = comparisons[mode]
    fig = plot_difference(cmp, scope="new task", width=width)
    assert fig.get_size_inches()[0] == pytest.approx(inches)
    ax = fig.axes[0]
    diffs = [d for d in cmp.differences if d.scope == "new task"]
    assert [d.quantity for d in diffs] == ["success", "pass@3", "pass^3"]
    # the shaded bands run exactly from each comparison's low to high
    bands = [c for c in ax.collections if isinstance(c, PolyCollection) and len(c.get_paths())
             and len(c.get_paths()[0].vertices) > 4]
    assert len(bands) == 3
    for band, d in zip(bands, diffs):
        x = band.get_paths()[0].vertices[:, 0]
        assert (x.min(), x.max()) == pytest.approx((d.low, d.high), abs=1e-12)
        # the comparison's interval is that share of its draws (an independent reading)
        inside = np.mean((d.draws >= d.low) & (d.draws <= d.high))
        assert inside == pytest.approx(0.95, abs=0.01)
    # the dashed estimate lines stand at each difference
    marks = [ln for ln in ax.lines if ln.get_linestyle() == "--" and len(ln.get_xdata()) == 2]
    assert sorted(float(ln.get_xdata()[0]) for ln in marks) == pytest.approx(
        sorted(d.difference for d in diffs), abs=1e-12)
    for d in diffs:
        value = fig.agenteval_values[d.quantity]
        assert (value["difference"], value["low"], value["high"]) == (d.difference, d.low, d.high)
    labels = _legend_outside(fig)
    if mode == "bayes":
        assert ax.get_ylabel() == "posterior density"
        assert "shaded: 95% equal-tailed credible interval" in labels
        assert r"$\mathrm{pass}^{3}$: P(A > B) < 0.001" in labels
        for d in diffs:  # P(A > B) is the share of draws above zero (no ties in these draws)
            assert d.prob_a_better == pytest.approx(np.mean(d.draws > 0), abs=1e-12)
    else:
        assert ax.get_ylabel() == "bootstrap density"
        assert "shaded: 95% bootstrap percentile interval" in labels
        assert r"$\mathrm{pass}^{3}$: p = 0.008" in labels
        assert fig.agenteval_values["pass^3"]["p_value"] == diffs[2].p_value
    assert "95%" in fig.agenteval_caption and "interval" in fig.agenteval_caption
    math = {t.get_text(): t._parse_math for t in fig.legends[0].get_texts()}
    assert labels[1].startswith(r"$\mathrm{pass@}3$: ") and math[labels[1]]
    assert ax.get_xlabel() == "difference A \u2212 B (new task)"
    assert "agent-gpt-small" in ax.get_title(loc="left") and not ax._left_title._parse_math
    _exported_at(fig, tmp_path, "difference", inches)
    plt.close(fig)
    with pytest.raises(ConfigError):
        plot_difference(cmp, scope="no such scope")


@pytest.fixture(scope="module")
def rankings():
    rng = np.random.default_rng(0)
    agent, task, success = [], [], []
    for name, p in [("a", 0.3), ("b", 0.5), ("$c$", 0.7)]:
        for t in range(15):
            for _ in range(2):
                agent.append(name)
                task.append(f"t{t}")
                success.append(rng.random() < p)
    return {name: compare_agents(agent, task, success, k=1, mode=mode).ranking
            for name, mode in (("bayes", BayesianMode(mc_samples=1000)),
                               ("freq", FrequentistMode()))}


@pytest.mark.parametrize("width, inches", WIDTHS)
@pytest.mark.parametrize("mode", ["bayes", "freq"])
def test_pairwise_matrix_draws_the_ranking(rankings, tmp_path: Path, mode: str, width: str,
                                           inches: float) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    ranking = rankings[mode]
    colours = {"a": "#0072B2", "b": "#E69F00", "$c$": "#009E73"}
    fig = plot_pairwise(ranking, width=width, colours=colours)
    assert fig.get_size_inches()[0] == pytest.approx(inches)
    ax = fig.axes[0]
    order = [ranking.agents.index(n) for n in fig.agenteval_values["agents"]]
    assert np.all(np.diff(ranking.expected_rank[order]) >= 0)        # best first
    want = ranking.prob_greater[np.ix_(order, order)]
    np.testing.assert_array_equal(ax.images[0].get_array(), want)
    np.testing.assert_array_equal(fig.agenteval_values["prob_greater"], want)
    # ties split: P(i > j) + P(j > i) = 1 off the diagonal
    off = ~np.eye(len(order), dtype=bool)
    np.testing.assert_allclose((want + want.T)[off], 1.0, atol=1e-12)
    texts = [t.get_text() for t in ax.texts]
    assert texts == [f"{want[i, j]:.2f}" for i in range(3) for j in range(3) if i != j]
    names = fig.agenteval_values["agents"]
    assert [t.get_text() for t in ax.get_yticklabels()] == names
    assert not any(t._parse_math for t in ax.get_yticklabels())          # "$c$" as written
    for marks in ax.collections:                                         # one colour per agent
        assert [to_hex(c) for c in marks.get_facecolors()] == [colours[n].lower() for n in names]
    label = fig.axes[1].yaxis.label
    if mode == "bayes":
        assert label.get_text() == "$P(A > B)$, success (new task)" and label._parse_math
    else:
        assert label.get_text().startswith("share of resamples with A > B")
    _exported_at(fig, tmp_path, "pairwise", inches)
    plt.close(fig)


@pytest.mark.parametrize("width, inches", WIDTHS)
def test_power_curve_draws_the_curves(tmp_path: Path, width: str, inches: float) -> None:
    import matplotlib.pyplot as plt

    simulated = power_curve([20, 60, 100], simulate=50, rate_a=0.7, rate_b=0.6, icc=0.3,
                            attempts=4)
    pow_k = power_curve([20, 60, 100], rate_a=0.7, rate_b=0.6, icc=0.3, attempts=4,
                        quantity="pass^k", k=3)
    fig = plot_power_curve([simulated, pow_k], width=width)
    assert fig.get_size_inches()[0] == pytest.approx(inches)
    ax = fig.axes[0]
    curves = [ln for ln in ax.lines if len(ln.get_xdata()) == 3 and ln.get_marker() in ("None", None)]
    np.testing.assert_array_equal(curves[0].get_ydata(), simulated.power)
    np.testing.assert_array_equal(curves[1].get_ydata(), pow_k.power)
    points = [ln for ln in ax.lines if ln.get_marker() == "o" and len(ln.get_xdata()) == 3]
    np.testing.assert_array_equal(points[0].get_ydata(), simulated.simulated)
    assert curves[0].get_linestyle() != curves[1].get_linestyle()
    labels = _legend_outside(fig)
    assert r"paired, 4 attempts/task, $\mathrm{pass}^{3}$" in labels
    assert "simulated analysis, 95% Monte Carlo interval" in labels
    assert "target power 0.8" in labels
    assert any(ln.get_ydata()[0] == 0.8 for ln in ax.lines if len(ln.get_ydata()) == 2)
    assert ax.get_ylabel() == "power"   # two quantities: named in the legend
    values = fig.agenteval_values[r"paired, 4 attempts/task, $\mathrm{pass}^{3}$"]
    np.testing.assert_array_equal(values["power"], pow_k.power)
    one = plot_power_curve(pow_k, width=width)
    assert one.axes[0].get_ylabel() == r"power ($\mathrm{pass}^{3}$ difference)"
    assert one.axes[0].yaxis.label._parse_math
    _exported_at(fig, tmp_path, "power", inches)
    plt.close("all")
    with pytest.raises(ConfigError, match="labels"):
        plot_power_curve([simulated, pow_k], labels=["one"])
