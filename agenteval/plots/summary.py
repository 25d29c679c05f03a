"""The small posterior figure shown with results in a notebook: one density per group.

It draws the posterior of the fully-correct rate p that the run's summary already reports
(conjugate Beta(a + c, b + n - c) in ``BayesianMode``; a histogram of ``posterior_samples`` for
other modes that offer them) and shades the interval the summary row holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from agenteval.plots import PALETTE, figure_axes, paper_style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_rate_posteriors"]


def plot_rate_posteriors(results: Any, *, ax: Axes | None = None) -> Figure | None:
    """Posterior density of each group's fully-correct rate; None in a frequentist mode."""
    from agenteval.statistical.modes import BayesianMode

    mode = results.settings.mode
    if mode.get_result_type() != "distribution":
        return None
    rows = [r for r in results.summary().rows if r.complete > 0]
    if not rows:
        return None
    grid = np.linspace(0.0, 1.0, 801)
    with paper_style():
        fig, ax = figure_axes(ax, size=(4.6, 1.7))
        for i, row in enumerate(rows):
            color = PALETTE[i % len(PALETTE)]
            if isinstance(mode, BayesianMode):
                from scipy import stats

                a = mode.beta_prior_a + row.fully_correct
                b = mode.beta_prior_b + row.complete - row.fully_correct
                density = stats.beta(a, b).pdf(grid)
            elif hasattr(mode, "posterior_samples"):
                draws = np.asarray(mode.posterior_samples(row.complete, row.fully_correct)).ravel()
                density, edges = np.histogram(draws, bins=80, range=(0, 1), density=True)
                density = np.interp(grid, (edges[:-1] + edges[1:]) / 2, density)
            else:
                return None
            label = f"{row.group} ({row.fully_correct}/{row.complete})"
            ax.plot(grid, density, color=color, lw=1.2, label=label)
            inside = (grid >= row.rate_low) & (grid <= row.rate_high)
            ax.fill_between(grid, 0, density, where=inside, color=color, alpha=0.18, lw=0)
        ax.set_xlim(0, 1)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("share of fully correct conversations, p")
        ax.set_ylabel("posterior density")
        ax.set_yticks([])
        level = getattr(mode, "ci_level", 0.95)
        ax.set_title(f"posterior of p (shaded: {level:.0%} interval)")
        ax.legend(frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5), handlelength=1.2)
    return fig
