"""How the Beta prior moves the posterior: the figures behind the prior-sensitivity explorer.

The numbers come from ``BayesianMode.estimate`` (exact conjugate means and equal-tailed
intervals); the densities are the Beta prior and posterior themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from agenteval.plots import (
    MATH,
    PALETTE,
    data_label,
    figure_axes,
    interval_label,
    legend_outside,
    paper_style,
)
from agenteval.plots.layout import legend_height, panel_size

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_prior_sensitivity", "plot_priors"]

_GRID = np.linspace(0.0, 1.0, 1001)


def _density(a: float, b: float) -> np.ndarray:
    from scipy import stats

    d = stats.beta(a, b).pdf(_GRID)
    return np.where(np.isfinite(d), d, np.nan)  # Beta(a < 1) is infinite at the edge


def plot_prior_sensitivity(n: int, c: int, *, a: float = 1.0, b: float = 1.0, k: int = 3,
                           k_max: int = 10, ci_level: float = 0.95, axes: Any = None,
                           colour: str | None = None, width: Any = None,
                           style: Any = None) -> Figure:
    """Left (top at column width): prior Beta(a, b) and posterior Beta(a + c, b + n - c) of p.
    Right (bottom): posterior mean and equal-tailed interval of the pooled pass@j and pass^j
    (E[1-(1-p)^j], E[p^j]) for j = 1 .. k_max, with j = k marked and its values written.
    ``colour``: the posterior's colour (the run's colour of the group, ``results.colours()``).
    ``fig.agenteval_values``: the rate's and each j's mean and interval drawn."""
    from agenteval.statistical.modes import BayesianMode

    mode = BayesianMode(ci_level=ci_level, beta_prior_a=a, beta_prior_b=b)
    k_max = max(int(k_max), int(k))
    js = np.arange(1, k_max + 1)
    est = mode.estimate(np.full(js.shape, n), np.full(js.shape, c), js)
    kind = interval_label(ci_level)
    with paper_style(style):
        own = axes is None
        if own:
            size, grid = panel_size(width, "double", 2, height=None)
            fig, axes = figure_axes(None, size=size, **grid)
            axes = list(np.ravel(axes))
        fig = axes[0].figure
        left, right = axes
        prior, post = _density(a, b), _density(a + c, b + n - c)
        left.plot(_GRID, prior, color=PALETTE[7], ls="--", lw=1, label=f"prior Beta({a:g}, {b:g})")
        colour = colour or PALETTE[0]
        left.plot(_GRID, post, color=colour, lw=1.5,
                  label=f"posterior Beta({a + c:g}, {b + n - c:g})")
        inside = (_GRID >= est.rate_low[0]) & (_GRID <= est.rate_high[0])
        left.fill_between(_GRID, 0, np.nan_to_num(post), where=inside, color=colour,
                          alpha=0.2, lw=0, label=f"shaded: {kind}")
        if n > 0:
            left.axvline(c / n, color=PALETTE[3], lw=0.8, ls=":", label=f"$c/n$ = {c}/{n}")
        top = np.nanmax(post[1:-1]) if n > 0 else np.nanmax(prior[1:-1])
        left.set_ylim(0, 1.1 * max(top, np.nanmax(prior[1:-1])) if np.isfinite(top) else None)
        left.set_xlim(0, 1)
        left.set_xlabel("success rate $p$", **MATH)
        left.set_ylabel("density")
        left.set_yticks([])
        left.set_title(f"{c} of {n} fully correct", loc="left")
        names = {"at": (r"pooled $\mathrm{pass@}j$", PALETTE[2], "o", "-"),
                 "pow": (r"pooled $\mathrm{pass}^{j}$", PALETTE[1], "s", "--")}
        values = {"rate": (float(est.rate[0]), float(est.rate_low[0]), float(est.rate_high[0]))}
        for key, mean, lo, hi in (("at", est.pass_at_k, est.pass_at_k_low, est.pass_at_k_high),
                                  ("pow", est.pass_pow_k, est.pass_pow_k_low, est.pass_pow_k_high)):
            name, color, marker, ls = names[key]
            right.fill_between(js, lo, hi, color=color, alpha=0.2, lw=0)
            right.plot(js, mean, color=color, marker=marker, ms=2.8, lw=1.2, ls=ls, label=name)
            i = k - 1
            # the value beside its point, off its line and off the axis frame: above-left of a
            # rising line, above-right of a falling one, below-right of a rising one near 1
            rising, high = mean[-1] >= mean[0], mean[i] > 0.85
            right.annotate(f"{mean[i]:.2f}", (k, mean[i]), textcoords="offset points",
                           xytext=(4 if high or not rising else -4, -11 if rising and high else 5),
                           ha="right" if rising and not high else "left",
                           fontsize=7, color=color,
                           bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none",
                                 "alpha": 0.8})
            values["pass_at_j" if key == "at" else "pass_pow_j"] = {
                int(j): (float(m), float(l_), float(h)) for j, m, l_, h in zip(js, mean, lo, hi)}
        right.axvline(k, color=PALETTE[7], lw=0.6, ls=":")
        right.set_xlim(1, k_max)
        right.set_ylim(0, 1.02)
        right.set_xlabel(f"number of attempts $j$ (dotted: $k$ = {k})", **MATH)
        right.set_ylabel("posterior mean,\nshaded: interval")
        right.set_title("pooled: one $p$ for every task", loc="left", **MATH)
        math = [names["at"][0], names["pow"][0]] + ([f"$c/n$ = {c}/{n}"] if n > 0 else [])
        legend_outside(fig, [left, right], own_figure=own,
                       ncol=3 if fig.get_size_inches()[0] >= 5 else 2, math=math)
    values["k"] = int(k)
    fig.agenteval_values = values
    fig.agenteval_caption = (
        f"Prior Beta({a:g}, {b:g}) and posterior Beta({a + c:g}, {b + n - c:g}) of the success "
        f"rate p after {c} of {n}; shaded: the {kind}. Right: the pooled pass@j and pass^j "
        f"(one p for every task) with their {kind}s; at j = {k}: pass@{k} = "
        f"{est.pass_at_k[k - 1]:.3f}, pass^{k} = {est.pass_pow_k[k - 1]:.3f}.")
    return fig


def plot_priors(n: int, c: int, priors: Mapping[str, tuple[float, float]], *, k: int = 3,
                ci_level: float = 0.95, ax: Any = None, width: Any = None,
                style: Any = None) -> Figure:
    """Posterior of p under each named prior (a, b), with its mean and equal-tailed interval
    in the legend (and in ``fig.agenteval_values``); the interval is also drawn as a bar."""
    from agenteval.statistical.modes import BayesianMode

    shown: dict[str, tuple[float, float, float]] = {}
    with paper_style(style):
        size, _ = panel_size(width, "column", height=legend_height(width, "column", 3.0))
        fig, axis = figure_axes(ax, size=size)
        densities = {}
        for name, (a, b) in priors.items():
            densities[name] = _density(a + c, b + n - c)
        top = max([np.nanmax(d[1:-1]) for d in densities.values()] + [1e-9])
        estimates = {name: BayesianMode(ci_level=ci_level, beta_prior_a=a,
                                        beta_prior_b=b).estimate(n, c, k)
                     for name, (a, b) in priors.items()}
        colours = [PALETTE[i % (len(PALETTE) - 1)] for i in range(len(priors))]
        for i, (name, (a, b)) in enumerate(priors.items()):   # the curves first, then the bars
            est = estimates[name]
            axis.plot(_GRID, densities[name], color=colours[i], lw=1.3,
                      ls=("-", "--", "-.", ":")[i % 4],
                      label=data_label(f"{name} Beta({a:g}, {b:g}): {est.rate:.3f} "
                                       f"[{est.rate_low:.3f}, {est.rate_high:.3f}]"))
        for i, name in enumerate(priors):
            est, colour = estimates[name], colours[i]
            y = -top * 0.07 * (i + 1)
            axis.plot([est.rate_low, est.rate_high], [y, y], color=colour, lw=2.0,
                      solid_capstyle="butt")
            axis.plot([est.rate], [y], "o", color=colour, ms=3)
            shown[name] = (float(est.rate), float(est.rate_low), float(est.rate_high))
        if n > 0:
            axis.axvline(c / n, color=PALETTE[7], lw=0.6, ls=":", label=f"$c/n$ = {c}/{n}")
        axis.axhline(0, color="0.6", lw=0.5)
        axis.set_xlim(0, 1)
        axis.set_ylim(-top * 0.07 * (len(priors) + 1), top * 1.08)
        axis.set_yticks([])
        axis.set_xlabel("success rate $p$", **MATH)
        axis.set_ylabel("posterior density")
        axis.set_title(f"{c} of {n}: posterior of $p$ under each prior", loc="left", **MATH)
        axis.plot([], [], color="0.4", lw=2.0, solid_capstyle="butt",
                  label=f"bar: posterior mean, {interval_label(ci_level)}")
        legend_outside(fig, axis, own_figure=ax is None,
                       ncol=1 if fig.get_size_inches()[0] < 5.0 else 2,
                       math=[f"$c/n$ = {c}/{n}"] if n > 0 else [])
    fig.agenteval_values = shown
    fig.agenteval_caption = (
        f"Posterior of the success rate p after {c} of {n} under each prior; legend and bars: "
        f"posterior mean and {interval_label(ci_level)}.")
    return fig
