"""The small posterior figure shown with results in a notebook: one density per group.

It draws the posterior of the fully-correct rate p that the run's summary already reports
(conjugate Beta(a + c, b + n - c) in ``BayesianMode``; a histogram of ``posterior_samples`` for
other modes that offer them) and shades the interval the summary row holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from agenteval._util.sanitize import terminal
from agenteval.plots import (
    MATH,
    agent_colours,
    figure_axes,
    figure_width,
    interval_label,
    paper_style,
    pass_label,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_rate_posteriors"]


def plot_rate_posteriors(results: Any, *, ax: Axes | None = None, width: Any = 4.6,
                         style: Any = None) -> Figure | None:
    """Posterior of each group's fully-correct rate; None in a frequentist mode.

    Where the summary's rate is the conjugate posterior (complete cases, Beta(a + c, b + n - c)),
    the exact densities; otherwise (hierarchical or empirical-Bayes fits, post-stratified
    rates) the posterior means and intervals of p, pass@k and pass^k that the rows report.
    """
    mode = results.settings.mode
    if mode.get_result_type() != "distribution":
        return None
    rows = [r for r in results.summary().rows if r.complete > 0]
    if not rows:
        return None
    prior = (getattr(mode, "beta_prior_a", None), getattr(mode, "beta_prior_b", None))
    params = [(prior[0] + r.fully_correct, prior[1] + r.complete - r.fully_correct)
              if None not in prior else None for r in rows]
    exact = all(p is not None and abs(r.rate - p[0] / (p[0] + p[1])) < 1e-9
                and getattr(r, "rate_method", "complete cases") == "complete cases"
                and getattr(mode, "method", "conjugate") == "conjugate"
                for r, p in zip(rows, params))
    agents = (list(results.agents) if hasattr(results, "agents")
              else [r.group for r in results.summary().rows if r.level == "agent"] or ["all"])
    colours = results.colours() if callable(getattr(results, "colours", None)) else {}
    colours = {**agent_colours(agents), **colours}
    with paper_style(style):
        fig, ax = figure_axes(ax, size=(figure_width(width), 1.7))
        if exact:
            _densities(ax, rows, params, colours)
        else:
            _intervals(ax, rows, results.k, colours)
        level = getattr(mode, "ci_level", 0.95)
        ax.set_title(f"posterior of $p$ (shaded: {interval_label(level)})" if exact
                     else f"posterior means and {level:.0%} equal-tailed intervals", **MATH)
        ax.legend(frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5), handlelength=1.2)
    fig.agenteval_values = {r.group: {f: (getattr(r, f), getattr(r, f"{f}_low"),
                                          getattr(r, f"{f}_high"))
                                      for f in ("rate", "pass_at_k", "pass_pow_k")} for r in rows}
    return fig


def _densities(ax: Any, rows: list[Any], params: list[Any], colours: dict[str, str]) -> None:
    from agenteval.plots.bayes import beta_pdf as _beta_pdf

    grid = np.linspace(0.0, 1.0, 801)
    for row, (a, b) in zip(rows, params):
        color = colours.get(row.group, "0.3")
        density = _beta_pdf(grid, a, b)
        ax.plot(grid, density, color=color, lw=1.2,
                label=terminal(f"{row.group} ({row.fully_correct}/{row.complete})"))
        inside = (grid >= row.rate_low) & (grid <= row.rate_high)
        ax.fill_between(grid, 0, density, where=inside, color=color, alpha=0.18, lw=0)
    ax.set_xlim(0, 1)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("share of fully correct conversations, $p$", **MATH)
    ax.set_ylabel("posterior density")
    ax.set_yticks([])


def _intervals(ax: Any, rows: list[Any], k: int, colours: dict[str, str]) -> None:
    names = [("rate", "$p$"), ("pass_at_k", pass_label("pass_at_k", k)),
             ("pass_pow_k", pass_label("pass_pow_k", k))]
    for i, row in enumerate(rows):
        color = colours.get(row.group, "0.3")
        y = np.arange(len(names)) + (i - (len(rows) - 1) / 2) * 0.8 / max(len(rows), 1)
        mean = np.array([getattr(row, f) for f, _ in names])
        low = np.array([getattr(row, f + "_low") for f, _ in names])
        high = np.array([getattr(row, f + "_high") for f, _ in names])
        ax.errorbar(mean, y, xerr=[mean - low, high - mean], fmt="o", ms=3, lw=1, capsize=2,
                    color=color, label=terminal(row.group))
    ax.set_yticks(np.arange(len(names)), [label for _, label in names], **MATH)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("posterior mean and interval")
