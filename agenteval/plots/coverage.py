"""Coverage of binomial intervals against n: the small-n failure of the CLT interval, drawn.

Takes the coverage arrays that :func:`agenteval.statistical.coverage.coverage` computed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from agenteval.plots import FULL_WIDTH, PALETTE, figure_axes, paper_style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_coverage"]

_STYLES = ("-", "--", "-.", ":")


def plot_coverage(n: Any, p: Any, coverage: Mapping[str, Any], *, level: float = 0.95,
                  at: float = 0.9, axes: Any = None) -> Figure:
    """Left: coverage at the true rate nearest ``at``, against n. Right: coverage averaged over
    the grid ``p`` (a uniform true rate), against n. ``coverage[name]`` has shape (len(n), len(p))."""
    n, p = np.asarray(n), np.asarray(p)
    j = int(np.argmin(np.abs(p - at)))
    with paper_style():
        if axes is None:
            fig, axes = figure_axes(None, size=FULL_WIDTH, ncols=2, sharey=True)
        fig = axes[0].figure
        for i, (name, cov) in enumerate(coverage.items()):
            cov = np.asarray(cov)
            style = dict(color=PALETTE[i % len(PALETTE)], lw=1.1, label=name,
                         ls=_STYLES[i % len(_STYLES)])  # coinciding curves stay visible
            axes[0].plot(n, cov[:, j], **style)
            axes[1].plot(n, cov.mean(axis=1), **style)
        for ax, title in ((axes[0], f"true rate p = {p[j]:.2f}"),
                          (axes[1], "averaged over a uniform true rate")):
            ax.axhline(level, color=PALETTE[7], lw=0.7, ls="--")
            ax.set_xlabel("n (attempts)")
            ax.set_title(title)
            ax.set_xlim(n.min(), n.max())
        axes[0].set_ylabel(f"coverage of the nominal {level:.0%} interval")
        axes[0].set_ylim(max(0.0, min(np.asarray(c)[:, j].min() for c in coverage.values()) - 0.02), 1.0)
        axes[1].legend(frameon=False, loc="lower right")
    return fig
