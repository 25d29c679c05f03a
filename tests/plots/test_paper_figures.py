"""Figures for papers: both widths, mathtext labels, legends outside the data, one colour per
agent, the interval kind named, prior pull vs shrinkage, data text escaped, the style hook; and
the values drawn are the summary's (or, for the forest plot, the stored draws' own quantiles)."""

from __future__ import annotations

import numpy as np
import pytest

from agenteval import Agentic, BayesianMode
from agenteval.errors import ConfigError
from tests.conftest import DEMO

FIGURES = ["plot_pass_posterior", "plot_forest", "plot_shrinkage", "plot_prior_posterior"]


@pytest.fixture(scope="module")
def runs():
    return {"conjugate": Agentic.run(str(DEMO), k=3, progress=False,
                                     statistical_mode=BayesianMode(method="conjugate")),
            "eb": Agentic.run(str(DEMO), k=3, progress=False,
                              statistical_mode=BayesianMode(method="empirical_bayes"))}


def _bbox(artist, fig):
    return artist.get_window_extent(fig.canvas.get_renderer())


@pytest.mark.parametrize("mode", ["conjugate", "eb"])
@pytest.mark.parametrize("name", FIGURES)
@pytest.mark.parametrize("width, inches", [("column", 3.3), ("double", 6.9)])
def test_widths_legend_outside_and_colours(runs, mode: str, name: str, width: str,
                                           inches: float) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from agenteval import plots

    results = runs[mode]
    fig = getattr(plots, name)(results, width=width)
    assert fig.get_size_inches()[0] == pytest.approx(inches)
    fig.canvas.draw()
    axes_boxes = [_bbox(ax, fig) for ax in fig.axes]
    if name != "plot_forest":   # the forest plot labels its rows instead of a legend
        assert fig.legends and not any(ax.get_legend() for ax in fig.axes)
        legend = _bbox(fig.legends[0], fig)
        assert not any(legend.overlaps(box) for box in axes_boxes), "legend on the data"
        assert legend.y1 <= min(box.y0 for box in axes_boxes) + 1
    colours = results.colours()
    seen = {}
    for ax in fig.axes:
        for line in ax.lines:
            if line.get_label() in colours:
                seen.setdefault(line.get_label(), set()).add(to_hex(line.get_color()))
    for agent, found in seen.items():
        assert found == {colours[agent].lower()}, (agent, found)
    if name in ("plot_pass_posterior", "plot_prior_posterior"):
        assert set(seen) == set(results.agents)
    assert "equal-tailed" in fig.agenteval_caption or name in ("plot_shrinkage",
                                                               "plot_prior_posterior")
    plt.close(fig)


def test_mathtext_labels_and_interval_kind(runs) -> None:
    import matplotlib.pyplot as plt

    from agenteval import plots

    fig = plots.plot_pass_posterior(runs["conjugate"])
    assert [ax.get_xlabel() for ax in fig.axes] == [r"$\mathrm{pass@}3$ (suite's tasks)",
                                                    r"$\mathrm{pass}^{3}$ (suite's tasks)"]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "95% equal-tailed interval" in legend and "posterior mean" in legend
    fig2 = plots.plot_prior_posterior(runs["eb"])
    assert r"$\mu$" in fig2.axes[0].get_xlabel() and r"$\log\kappa$" in fig2.axes[1].get_xlabel()
    fig3 = plots.plot_forest(runs["eb"])
    assert fig3.axes[0].get_xlabel() == ("success rate $p_t$:\nposterior mean, 95% equal-tailed "
                                         "interval")
    for f in (fig, fig2, fig3):
        f.canvas.draw()  # mathtext parses
    plt.close("all")


def test_values_drawn_are_the_summary_s_and_the_draws(runs) -> None:
    import matplotlib.pyplot as plt

    from agenteval import plots

    results = runs["eb"]
    rows = {r.group: r for r in results.summary().rows}
    fig = plots.plot_pass_posterior(results, width="column")
    for q in ("pass_at_k", "pass_pow_k"):
        for agent, (mean, lo, hi) in fig.agenteval_values[q].items():
            r = rows[agent]
            assert (mean, lo, hi) == (getattr(r, f"task_{q}"), getattr(r, f"task_{q}_low"),
                                      getattr(r, f"task_{q}_high"))
    # the bar drawn is that interval
    bars = [ln for ln in fig.axes[1].lines if len(ln.get_xdata()) == 2 and ln.get_linewidth() == 2.0]
    drawn = sorted(tuple(np.round(ln.get_xdata(), 12)) for ln in bars if ln.get_label().startswith("_"))
    want = sorted((round(getattr(rows[a], "task_pass_pow_k_low"), 12),
                   round(getattr(rows[a], "task_pass_pow_k_high"), 12)) for a in results.agents)
    assert drawn == want
    draws = results.posterior_draws()
    p_task = np.asarray(draws.posterior["p_task"]).reshape(-1, len(draws.coords["task"]))
    fig2 = plots.plot_forest(results, width="double")
    last = draws.coords["task"][-1]  # rows are keyed by label: the last agent's task wins
    mean, lo, hi = fig2.agenteval_values["rows"][last.split("/", 1)[1]]
    assert mean == pytest.approx(p_task[:, -1].mean())
    assert (lo, hi) == pytest.approx(tuple(np.quantile(p_task[:, -1], [0.025, 0.975])))
    plt.close("all")


def test_prior_pull_is_named_where_nothing_is_pooled(runs) -> None:
    import matplotlib.pyplot as plt

    from agenteval import plots

    flat = plots.plot_shrinkage(runs["conjugate"])
    assert flat.agenteval_values["pooled"] is False
    assert "prior pull" in flat.axes[0].get_title() and "nothing is pooled" in flat.agenteval_caption
    assert "prior mean of Beta(1, 1)" in [t.get_text() for t in flat.legends[0].get_texts()]
    pooled = plots.plot_shrinkage(runs["eb"])
    assert pooled.agenteval_values["pooled"] is True and "shrinkage" in pooled.axes[0].get_title()
    plt.close("all")


def test_data_text_is_escaped_and_style_hook_applies() -> None:
    import matplotlib.pyplot as plt

    from agenteval import plots

    data = [{"session_id": f"s{a}{t}{i}", "assistant_id": name, "task_id": f"t{t}$x$",
             "outcome": float((i + t + a) % 3 != 0),
             "conversation": [{"qa_id": "q", "query": "q", "assistant": "a"}]}
            for a, name in enumerate(["$\\alpha$ agent", "_hidden"]) for t in range(4)
            for i in range(3)]
    results = Agentic.run(data, k=2, statistical_mode=BayesianMode(), progress=False)
    style = {"font.family": "serif", "font.size": 11, "axes.labelsize": 11}
    fig = plots.plot_pass_posterior(results, quantity="pass_pow_k", style=style, width=4.0)
    fig.canvas.draw()
    legend = {t.get_text(): t for t in fig.legends[0].get_texts()}
    assert "$\\alpha$ agent" in legend and "\u200b_hidden" in legend  # shown as written
    assert not legend["$\\alpha$ agent"]._parse_math  # data text is never mathtext
    assert fig.axes[0].xaxis.label._parse_math  # the library's own label is
    label = fig.axes[0].xaxis.label
    assert label.get_fontfamily() == ["serif"] and label.get_fontsize() == 11
    forest = plots.plot_forest(results)
    ticks = {t.get_text(): t for t in forest.axes[0].get_yticklabels()}
    assert "t0$x$" in ticks and not ticks["t0$x$"]._parse_math
    forest.canvas.draw()
    assert plots.data_label("a\x00b\u202ec") == "a\\u0000b\\u202ec"  # visible, not acted on
    with pytest.raises(ConfigError, match="width"):
        plots.plot_forest(results, width="triple")
    with pytest.raises(ConfigError, match="between 1 and 20"):
        plots.figure_width(40)
    plt.close("all")
