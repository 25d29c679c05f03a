"""Comparison figures: the density of a difference, the pairwise P(A > B) matrix, a power curve.

Each takes what :mod:`agenteval.statistical.compare` or :mod:`agenteval.statistical.plan`
computed (a :class:`Comparison` with its draws, a :class:`Ranking`, a :class:`PowerCurve`),
accepts ``ax=None``, ``width=`` ('column' 3.3 in, 'double' 6.9 in, or inches) and ``style=``
(a journal's rcParams, :func:`agenteval.plots.paper_style`), and returns the figure with the
numbers it drew in ``fig.agenteval_values`` and a caption sentence in
``fig.agenteval_caption``; export with :func:`agenteval.plots.export`. Legends sit outside the
data; the library's labels are mathtext, agent names are text as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from agenteval.errors import ConfigError
from agenteval.plots import (
    MATH,
    PALETTE,
    agent_colours,
    data_label,
    figure_axes,
    legend_outside,
    paper_style,
)
from agenteval.plots.layout import legend_height, panel_size

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from agenteval.statistical.compare import Comparison, Ranking
    from agenteval.statistical.plan import PowerCurve

__all__ = ["plot_difference", "plot_pairwise", "plot_power_curve"]

# one colour per quantity (not the agents' colours: a difference belongs to a pair)
_QUANTITY_COLOURS = (PALETTE[0], PALETTE[2], PALETTE[4], PALETTE[3], PALETTE[5])


def _density(x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Gaussian kernel density with Scott's bandwidth (a drawing aid over the stored draws)."""
    sd = float(np.std(x))
    bw = max(sd * x.size ** (-1 / 5), 1e-3)
    sample = x if x.size <= 4000 else x[:: max(1, x.size // 4000)]
    z = (grid[:, None] - sample[None, :]) / bw
    return np.exp(-0.5 * z * z).sum(axis=1) / (sample.size * bw * np.sqrt(2 * np.pi))


def _p(x: float) -> str:
    return "< 0.001" if x < 0.001 else "> 0.999" if x > 0.999 else f"= {x:.3f}"


def quantity_math(name: str) -> str:
    """A comparison's or plan's quantity name as mathtext: 'pass@3' -> $\\mathrm{pass@}3$,
    'pass^k' -> $\\mathrm{pass}^{k}$; 'success' stays a word."""
    at = re.fullmatch(r"pass@(\w+)", name)
    if at:
        return rf"$\mathrm{{pass@}}{at.group(1)}$"
    power = re.fullmatch(r"pass\^(\w+)", name)
    if power:
        return rf"$\mathrm{{pass}}^{{{power.group(1)}}}$"
    return name.replace("$", r"\$")


def _interval_kind(comparison: Comparison, bayes: bool) -> str:
    """What the comparison's interval is, from its method text: '95% equal-tailed credible
    interval' (posterior draws) or '95% bootstrap percentile interval'."""
    found = re.search(r"(\d+(?:\.\d+)?)% (equal-tailed|percentile)", comparison.detail)
    level = f"{found.group(1)}% " if found else ""
    return (f"{level}equal-tailed credible interval" if bayes
            else f"{level}bootstrap percentile interval")


def plot_difference(comparison: Comparison, *, scope: str | None = None,
                    quantities: Sequence[str] | None = None, ax: Axes | None = None,
                    width: Any = None, style: Any = None) -> Figure:
    """Density of A - B for each quantity (one scope), its interval shaded and zero marked.

    ``scope``: 'suite tasks', 'new task' or 'conversations' (default: the first one present).
    Bayesian comparisons show the posterior draws with the equal-tailed credible interval and
    P(A > B); frequentist ones the bootstrap distribution with the percentile interval and the
    p-value, labelled as such. The shaded band runs exactly from the comparison's low to high.
    """
    diffs = [d for d in comparison.differences if d.draws is not None and np.isfinite(d.difference)]
    if not diffs:
        raise ConfigError("this comparison holds no draws to draw (closed-form Newcombe interval)")
    scope = scope or diffs[0].scope
    diffs = [d for d in diffs if d.scope == scope and (quantities is None or d.quantity in quantities)]
    if not diffs:
        raise ConfigError(f"no difference with scope {scope!r} in this comparison")
    bayes = not np.isnan(diffs[0].prob_a_better)
    kind = _interval_kind(comparison, bayes)
    shown: dict[str, dict[str, float]] = {}
    with paper_style(style):
        size, _ = panel_size(width, "column", height=legend_height(width, "column", 3.1))
        fig, axis = figure_axes(ax, size=size)
        lo = min(float(np.quantile(d.draws, 0.001)) for d in diffs)
        hi = max(float(np.quantile(d.draws, 0.999)) for d in diffs)
        pad = 0.1 * (hi - lo or 0.1)
        base = np.linspace(min(lo - pad, -pad), max(hi + pad, pad), 400)
        labels = []
        for i, d in enumerate(diffs):
            colour = _QUANTITY_COLOURS[i % len(_QUANTITY_COLOURS)]
            grid = np.union1d(base, [d.low, d.high])   # the band's ends exactly on the grid
            dens = _density(np.asarray(d.draws, dtype=float), grid)
            label = (f"{quantity_math(d.quantity)}: P(A > B) {_p(d.prob_a_better)}" if bayes
                     else f"{quantity_math(d.quantity)}: p {_p(d.p_value)}")
            labels.append(label)
            axis.plot(grid, dens, color=colour, lw=1.2, label=label)
            inside = (grid >= d.low) & (grid <= d.high)
            axis.fill_between(grid[inside], dens[inside], color=colour, alpha=0.18, lw=0)
            mean_y = float(np.interp(d.difference, grid, dens))
            axis.plot([d.difference] * 2, [0, mean_y], color=colour, lw=0.8, ls="--")
            shown[d.quantity] = {"difference": d.difference, "low": d.low, "high": d.high,
                                 ("prob_a_better" if bayes else "p_value"):
                                     d.prob_a_better if bayes else d.p_value}
        axis.axvline(0.0, color="0.3", lw=0.8, ls=":", label="no difference")
        axis.plot([], [], color="0.4", lw=0.8, ls="--", label="estimate")
        axis.fill_between([], [], color="0.4", alpha=0.18, lw=0, label=f"shaded: {kind}")
        axis.set_xlabel(f"difference A \u2212 B ({scope})")
        axis.set_ylabel("posterior density" if bayes else "bootstrap density")
        axis.set_ylim(bottom=0)
        axis.set_yticks([])
        axis.set_title(data_label(f"A = {comparison.agent_a}, B = {comparison.agent_b} "
                                  f"({comparison.method})", 70), loc="left")
        legend_outside(fig, axis, own_figure=ax is None, ncol=2, math=labels)
    fig.agenteval_values = shown
    fig.agenteval_caption = (
        f"{'Posterior' if bayes else 'Bootstrap'} distribution of the difference "
        f"{comparison.agent_a} minus {comparison.agent_b} ({scope}, {comparison.method}); "
        f"shaded: the {kind}; dashed: the estimate; dotted: no difference.")
    return fig


def plot_pairwise(ranking: Ranking, *, ax: Axes | None = None, width: Any = None,
                  style: Any = None, colours: Mapping[str, str] | None = None) -> Figure:
    """Matrix of P(row agent > column agent), agents ordered by expected rank.

    ``colours``: the run's agent-to-colour map (``results.colours()``; by default the same
    map built from the ranking's agents, which keep the run's order); each agent's name is
    marked with its colour. A frequentist ranking's cells are shares of bootstrap resamples,
    not probabilities, and the colour bar says so.
    """
    order = np.argsort(ranking.expected_rank, kind="stable")
    names = [ranking.agents[i] for i in order]
    m = np.asarray(ranking.prob_greater)[np.ix_(order, order)]
    colours = {**agent_colours(ranking.agents), **dict(colours or {})}
    bayes = not ranking.method.startswith("bootstrap")
    what = "$P(A > B)$" if bayes else "share of resamples with A > B"
    height = min(max(2.3, 0.36 * len(names) + 1.5), 7.0)
    with paper_style(style):
        inches = panel_size(width, "column")[0][0]
        fig, axis = figure_axes(ax, size=(inches, height))
        im = axis.imshow(m, cmap="cividis", vmin=0.0, vmax=1.0, aspect="auto")
        font = 7 if len(names) <= 6 else 6
        for i in range(len(names)):
            for j in range(len(names)):
                if i != j:
                    axis.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=font,
                              color="black" if m[i, j] > 0.55 else "white")
        room = 18 if inches < 5 else 30
        axis.set_xticks(range(len(names)), [data_label(n, room) for n in names], rotation=35,
                        ha="right", rotation_mode="anchor")
        axis.set_yticks(range(len(names)), [data_label(n, room) for n in names])
        axis.tick_params(length=0, pad=9)
        # each agent's colour: a square beside its name on both axes (outside the cells)
        from matplotlib.transforms import blended_transform_factory as blend
        from matplotlib.transforms import offset_copy

        cols = [colours.get(n, "0.5") for n in names]
        left = offset_copy(blend(axis.transAxes, axis.transData), fig=fig, x=-4.5, units="points")
        below = offset_copy(blend(axis.transData, axis.transAxes), fig=fig, y=-4.5, units="points")
        axis.scatter(np.zeros(len(names)), range(len(names)), s=12, marker="s", c=cols,
                     transform=left, clip_on=False, lw=0)
        axis.scatter(range(len(names)), np.zeros(len(names)), s=12, marker="s", c=cols,
                     transform=below, clip_on=False, lw=0)
        axis.set_xlabel("agent B")
        axis.set_ylabel("agent A")
        for spine in ("top", "right"):
            axis.spines[spine].set_visible(True)
        cbar = fig.colorbar(im, ax=axis, fraction=0.05, pad=0.03)
        cbar.set_label(f"{what}, {quantity_math(ranking.quantity)} ({ranking.scope})", **MATH)
        cbar.ax.tick_params(labelsize=6)
    fig.agenteval_values = {"agents": names, "prob_greater": m}
    fig.agenteval_caption = (
        f"{'Posterior probability' if bayes else 'Share of bootstrap resamples'} that the row "
        f"agent's {ranking.quantity} ({ranking.scope}) exceeds the column agent's; agents "
        f"ordered by expected rank ({ranking.method}).")
    return fig


def plot_power_curve(curves: PowerCurve | Sequence[PowerCurve], *, labels: Sequence[str] | None = None,
                     ax: Axes | None = None, width: Any = None, style: Any = None) -> Figure:
    """Power against the number of tasks, one line per design; simulated points with their 95%
    Monte Carlo intervals (1.96 standard errors) where the curve was checked by simulation."""
    curves = [curves] if not isinstance(curves, Sequence) else list(curves)
    if not curves:
        raise ConfigError("no power curve to draw")
    if labels is not None and len(labels) != len(curves):
        raise ConfigError(f"labels: {len(labels)} given for {len(curves)} curves")
    markers = ("o", "s", "^", "D", "v", "P")
    styles = ("-", "--", "-.", ":")
    shown: dict[str, dict[str, Any]] = {}
    with paper_style(style):
        default = "double" if len(curves) > 2 else "column"
        size, _ = panel_size(width, default, height=legend_height(width, default, 3.0))
        fig, axis = figure_axes(ax, size=size)
        names = []
        for i, c in enumerate(curves):
            colour = _QUANTITY_COLOURS[i % len(_QUANTITY_COLOURS)]
            label = (data_label(labels[i]) if labels else
                     f"{'paired' if c.paired else 'unpaired'}, {c.attempts} attempts/task, "
                     f"{quantity_math(c.quantity)}")
            names.append(label)
            axis.plot(c.tasks, c.power, color=colour, lw=1.3, ls=styles[i % len(styles)],
                      label=label)
            if c.simulated is not None:
                axis.errorbar(c.tasks, c.simulated, yerr=1.96 * np.asarray(c.simulated_se),
                              fmt=markers[i % len(markers)], ms=2.8, color=colour,
                              elinewidth=0.8, capsize=1.5, mfc="white", mew=0.8)
            shown[label] = {"tasks": np.asarray(c.tasks), "power": np.asarray(c.power),
                            "simulated": c.simulated, "simulated_se": c.simulated_se}
        if any(c.simulated is not None for c in curves):
            axis.errorbar([], [], yerr=[], fmt="o", ms=2.8, color="0.4", elinewidth=0.8,
                          mfc="white", mew=0.8,
                          label="simulated analysis, 95% Monte Carlo interval")
        targets = sorted({c.target for c in curves})
        for target in targets:
            axis.axhline(target, color="0.4", lw=0.8, ls=":")
        axis.plot([], [], color="0.4", lw=0.8, ls=":",
                  label="target power " + ", ".join(f"{t:g}" for t in targets))
        quantity = {c.quantity for c in curves}
        axis.set_xlabel("tasks per agent")
        axis.set_ylabel("power" + (f" ({quantity_math(curves[0].quantity)} difference)"
                                   if len(quantity) == 1 else ""), **MATH)
        axis.set_ylim(0, 1.02)
        legend_outside(fig, axis, own_figure=ax is None, ncol=1 if size[0] < 5 else 2,
                       math=[] if labels else names)
    fig.agenteval_values = shown
    fig.agenteval_caption = (
        "Power to detect the assumed difference against the number of tasks per agent (closed "
        "form)" + ("; points: simulated studies with 95% Monte Carlo intervals"
                   if any(c.simulated is not None for c in curves) else "") + ".")
    return fig
