"""Comparison figures: the density of a difference, the pairwise P(A > B) matrix, a power curve.

Each takes what :mod:`agenteval.statistical.compare` or :mod:`agenteval.statistical.plan`
computed (a :class:`Comparison` with its draws, a :class:`Ranking`, a :class:`PowerCurve`),
accepts ``ax=None`` and returns the figure; export with :func:`agenteval.plots.export`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from agenteval.errors import ConfigError
from agenteval.plots import FULL_WIDTH, PALETTE, figure_axes, paper_style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from agenteval.statistical.compare import Comparison, Ranking
    from agenteval.statistical.plan import PowerCurve

__all__ = ["plot_difference", "plot_pairwise", "plot_power_curve"]


def _density(x: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Gaussian kernel density with Scott's bandwidth (a drawing aid over the stored draws)."""
    sd = float(np.std(x))
    bw = max(sd * x.size ** (-1 / 5), 1e-3)
    sample = x if x.size <= 4000 else x[:: max(1, x.size // 4000)]
    z = (grid[:, None] - sample[None, :]) / bw
    return np.exp(-0.5 * z * z).sum(axis=1) / (sample.size * bw * np.sqrt(2 * np.pi))


def _p(x: float) -> str:
    return "< 0.001" if x < 0.001 else "> 0.999" if x > 0.999 else f"{x:.3f}"


def plot_difference(comparison: Comparison, *, scope: str | None = None,
                    quantities: Sequence[str] | None = None, ax: Axes | None = None) -> Figure:
    """Density of A - B for each quantity (one scope), with its interval and zero marked.

    ``scope``: 'suite tasks', 'new task' or 'conversations' (default: the first one present).
    Frequentist comparisons show the bootstrap distribution, labelled as such.
    """
    diffs = [d for d in comparison.differences if d.draws is not None and np.isfinite(d.difference)]
    if not diffs:
        raise ConfigError("this comparison holds no draws to draw (closed-form Newcombe interval)")
    scope = scope or diffs[0].scope
    diffs = [d for d in diffs if d.scope == scope and (quantities is None or d.quantity in quantities)]
    if not diffs:
        raise ConfigError(f"no difference with scope {scope!r} in this comparison")
    bayes = not np.isnan(diffs[0].prob_a_better)
    with paper_style():
        fig, ax = figure_axes(ax)
        lo = min(float(np.quantile(d.draws, 0.001)) for d in diffs)
        hi = max(float(np.quantile(d.draws, 0.999)) for d in diffs)
        pad = 0.1 * (hi - lo or 0.1)
        grid = np.linspace(min(lo - pad, -pad), max(hi + pad, pad), 400)
        for i, d in enumerate(diffs):
            colour = PALETTE[i % len(PALETTE)]
            dens = _density(np.asarray(d.draws, dtype=float), grid)
            label = (f"{d.quantity}: P(A > B) {_p(d.prob_a_better)}" if bayes
                     else f"{d.quantity}: p {_p(d.p_value)}")
            ax.plot(grid, dens, color=colour, lw=1.2, label=label)
            inside = (grid >= d.low) & (grid <= d.high)
            ax.fill_between(grid[inside], dens[inside], color=colour, alpha=0.18, lw=0)
        ax.axvline(0.0, color="0.3", lw=0.8, ls="--")
        ax.set_xlabel(f"{comparison.agent_a} minus {comparison.agent_b} ({scope})")
        ax.set_ylabel("posterior density" if bayes else "bootstrap density")
        ax.set_ylim(0, 1.45 * ax.get_ylim()[1])
        ax.legend(frameon=False, loc="upper left")
        ax.set_title(f"{comparison.method}; shaded: {'credible' if bayes else 'bootstrap'} "
                     "interval", loc="left")
    return fig


def plot_pairwise(ranking: Ranking, *, ax: Axes | None = None) -> Figure:
    """Matrix of P(row agent > column agent), agents ordered by expected rank."""
    order = np.argsort(ranking.expected_rank, kind="stable")
    names = [ranking.agents[i] for i in order]
    m = ranking.prob_greater[np.ix_(order, order)]
    size = max(2.4, 0.55 * len(names) + 1.4)
    with paper_style():
        fig, ax = figure_axes(ax, size=(size + 0.6, size))
        im = ax.imshow(m, cmap="cividis", vmin=0.0, vmax=1.0)
        for i in range(len(names)):
            for j in range(len(names)):
                if i != j:
                    ax.text(j, i, f"{m[i, j]:.2f}", ha="center", va="center", fontsize=7,
                            color="black" if m[i, j] > 0.55 else "white")
        ax.set_xticks(range(len(names)), names, rotation=35, ha="right")
        ax.set_yticks(range(len(names)), names)
        ax.set_xlabel("agent B")
        ax.set_ylabel("agent A")
        for side in ("top", "right"):
            ax.spines[side].set_visible(True)
        cbar = fig.colorbar(im, ax=ax, fraction=0.05, pad=0.03)
        cbar.set_label(f"P(A > B), {ranking.quantity} ({ranking.scope})")
    return fig


def plot_power_curve(curves: PowerCurve | Sequence[PowerCurve], *, labels: Sequence[str] | None = None,
                     ax: Axes | None = None) -> Figure:
    """Power against the number of tasks, one line per design; simulated points with 95% MC bars."""
    curves = [curves] if not isinstance(curves, Sequence) else list(curves)
    if not curves:
        raise ConfigError("no power curve to draw")
    with paper_style():
        fig, ax = figure_axes(ax, size=FULL_WIDTH if len(curves) > 2 else (3.4, 2.4))
        for i, c in enumerate(curves):
            colour = PALETTE[i % len(PALETTE)]
            label = (labels[i] if labels else
                     f"{'paired' if c.paired else 'unpaired'}, {c.attempts} attempts/task")
            ax.plot(c.tasks, c.power, color=colour, lw=1.3, label=label)
            if c.simulated is not None:
                ax.errorbar(c.tasks, c.simulated, yerr=1.96 * np.asarray(c.simulated_se), fmt="o",
                            ms=2.5, color=colour, elinewidth=0.8, capsize=1.5,
                            label="simulated analysis" if i == 0 else None)
        ax.axhline(curves[0].target, color="0.4", lw=0.8, ls=":")
        ax.set_xlabel("tasks per agent")
        ax.set_ylabel(f"power ({curves[0].quantity} difference)")
        ax.set_ylim(0, 1.02)
        ax.legend(frameon=False, loc="lower right")
    return fig
