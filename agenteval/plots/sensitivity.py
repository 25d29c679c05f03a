"""How the Beta prior moves the posterior: the figures behind the prior-sensitivity explorer.

The numbers come from ``BayesianMode.estimate`` (exact conjugate means and equal-tailed
intervals); the densities are the Beta prior and posterior themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from agenteval.plots import FULL_WIDTH, PALETTE, figure_axes, paper_style

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
                           colour: str | None = None) -> Figure:
    """Left: prior Beta(a, b) and posterior Beta(a + c, b + n - c) of p. Right: posterior mean
    and interval of the pooled pass@j and pass^j (E[1-(1-p)^j], E[p^j]) for j = 1 .. k_max,
    with j = k marked. ``colour``: the posterior's colour (the run's colour of the group)."""
    from agenteval.statistical.modes import BayesianMode

    mode = BayesianMode(ci_level=ci_level, beta_prior_a=a, beta_prior_b=b)
    k_max = max(int(k_max), int(k))
    js = np.arange(1, k_max + 1)
    est = mode.estimate(np.full(js.shape, n), np.full(js.shape, c), js)
    with paper_style():
        if axes is None:
            fig, axes = figure_axes(None, size=FULL_WIDTH, ncols=2)
        fig = axes[0].figure
        left, right = axes
        prior, post = _density(a, b), _density(a + c, b + n - c)
        left.plot(_GRID, prior, color=PALETTE[7], ls="--", lw=1, label=f"prior Beta({a:g}, {b:g})")
        colour = colour or PALETTE[0]
        left.plot(_GRID, post, color=colour, lw=1.5,
                  label=f"posterior Beta({a + c:g}, {b + n - c:g})")
        inside = (_GRID >= est.rate_low[0]) & (_GRID <= est.rate_high[0])
        left.fill_between(_GRID, 0, np.nan_to_num(post), where=inside, color=colour,
                          alpha=0.2, lw=0, label=f"{ci_level:.0%} interval")
        if n > 0:
            left.axvline(c / n, color=PALETTE[3], lw=0.8, ls=":", label=f"c/n = {c}/{n}")
        top = np.nanmax(post[1:-1]) if n > 0 else np.nanmax(prior[1:-1])
        left.set_ylim(0, 1.15 * max(top, np.nanmax(prior[1:-1])) if np.isfinite(top) else None)
        left.set_xlim(0, 1)
        left.set_xlabel("success rate p")
        left.set_ylabel("density")
        left.set_yticks([])
        left.legend(frameon=False, loc="upper left")
        for name, mean, lo, hi, color in (
                ("pooled pass@j", est.pass_at_k, est.pass_at_k_low, est.pass_at_k_high, PALETTE[2]),
                ("pooled pass^j", est.pass_pow_k, est.pass_pow_k_low, est.pass_pow_k_high, PALETTE[1])):
            right.fill_between(js, lo, hi, color=color, alpha=0.2, lw=0)
            right.plot(js, mean, color=color, marker="o", ms=2.5, lw=1.2, label=name)
            i = k - 1
            right.annotate(f"{mean[i]:.2f}", (k, mean[i]), textcoords="offset points",
                           xytext=(4, 4), fontsize=7, color=color)
        right.axvline(k, color=PALETTE[7], lw=0.6, ls=":")
        right.set_xlim(1, k_max)
        right.set_ylim(0, 1.02)
        right.set_xlabel("number of attempts j")
        right.set_ylabel("posterior mean and equal-tailed interval")
        right.set_title(f"pooled (one p for all): pass@{k} = {est.pass_at_k[k - 1]:.3f}, "
                        f"pass^{k} = {est.pass_pow_k[k - 1]:.3f}")
        right.legend(frameon=False, loc="center right")
    return fig


def plot_priors(n: int, c: int, priors: Mapping[str, tuple[float, float]], *, k: int = 3,
                ci_level: float = 0.95, ax: Any = None) -> Figure:
    """Posterior of p under each named prior (a, b), with its mean and interval in the legend."""
    from agenteval.statistical.modes import BayesianMode

    with paper_style():
        fig, ax = figure_axes(ax)
        for i, (name, (a, b)) in enumerate(priors.items()):
            est = BayesianMode(ci_level=ci_level, beta_prior_a=a, beta_prior_b=b).estimate(n, c, k)
            ax.plot(_GRID, _density(a + c, b + n - c), color=PALETTE[i % len(PALETTE)], lw=1.3,
                    label=f"{name} Beta({a:g}, {b:g}): {est.rate:.3f} "
                          f"[{est.rate_low:.3f}, {est.rate_high:.3f}]")
        if n > 0:
            ax.axvline(c / n, color=PALETTE[7], lw=0.6, ls=":")
        ax.set_xlim(0, 1)
        ax.set_ylim(bottom=0)
        ax.set_yticks([])
        ax.set_xlabel("success rate p")
        ax.set_ylabel("posterior density")
        ax.set_title(f"{c} of {n}: posterior of p under each prior")
        ax.legend(frameon=False, loc="upper left", fontsize=6)
    return fig
