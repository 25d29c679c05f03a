"""Coverage of binomial intervals against n: the small-n failure of the CLT interval, drawn.

Takes the coverage arrays that :func:`agenteval.statistical.coverage.coverage` computed. The
y axis sits around the nominal level (where the differences between good intervals are), so
every line is readable; a line that leaves the axis below says so under the panel, with its
lowest value. Methods differ by colour, line style and marker (markers staggered along n),
so lines that coincide (Wilson and the uniform-prior posterior, averaged) stay visible.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from agenteval.plots import MATH, PALETTE, data_label, figure_axes, legend_outside, paper_style
from agenteval.plots.layout import panel_size

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_coverage"]

_STYLES = ("-", "--", "-.", ":", (0, (5, 1.5, 1, 1.5, 1, 1.5)))
_MARKERS = ("o", "s", "^", "D", "v", "P")
_COLOURS = (PALETTE[0], PALETTE[1], PALETTE[2], PALETTE[4], PALETTE[5], PALETTE[3])


def plot_coverage(n: Any, p: Any, coverage: Mapping[str, Any], *, level: float = 0.95,
                  at: float = 0.9, axes: Any = None, width: Any = None, style: Any = None,
                  ylim: tuple[float, float] | None = None) -> Figure:
    """Left (top at column width): coverage at the true rate nearest ``at``, against n. Right
    (bottom): coverage averaged over the grid ``p`` (a uniform true rate), against n.

    ``coverage[name]`` has shape (len(n), len(p)). ``ylim``: the coverage axis (default from
    ``level - 3 (1 - level)`` to 1, e.g. 0.80 to 1 at 95%); values below it are named under
    the panel with their minimum. ``axes``: two axes of the caller's figure.
    """
    n, p = np.asarray(n), np.asarray(p)
    j = int(np.argmin(np.abs(p - at)))
    low, high = ylim if ylim is not None else (max(0.0, level - 3 * (1 - level)), 1.0)
    panels = {"at": {name: np.asarray(cov)[:, j] for name, cov in coverage.items()},
              "mean": {name: np.asarray(cov).mean(axis=1) for name, cov in coverage.items()}}
    every = max(1, len(n) // 8)   # about eight markers a line, staggered between methods
    with paper_style(style):
        own = axes is None
        if own:
            size, grid = panel_size(width, "double", 2, height=None)
            fig, axes = figure_axes(None, size=size, sharey=True, **grid)
            axes = list(np.ravel(axes))
        fig = axes[0].figure
        for i, name in enumerate(coverage):
            style_ = dict(color=_COLOURS[i % len(_COLOURS)], lw=1.0, label=data_label(name),
                          ls=_STYLES[i % len(_STYLES)], marker=_MARKERS[i % len(_MARKERS)],
                          ms=3.0, mfc="white", mew=0.8, zorder=3 + i,
                          markevery=(int(i * every / max(len(coverage), 1)) % every, every))
            for ax, key in zip(axes, ("at", "mean")):
                ax.plot(n, panels[key][name], **style_)
        titles = (f"true rate $p$ = {p[j]:.2f}", "averaged over a uniform true rate $p$")
        for ax, key, title in zip(axes, ("at", "mean"), titles):
            ax.axhline(level, color="black", lw=0.8, ls=(0, (4, 2)), zorder=2)
            ax.set_title(title, **MATH)
            ax.set_xlim(n.min(), n.max())
            ax.set_ylim(low, high + 0.01 * (high - low))  # a line at 1 is not on the frame
            below = [(name, values) for name, values in panels[key].items()
                     if np.nanmin(values) < low]
            note = "; ".join(f"{_escaped(name)}: {_ranges(n[values < low])}, "
                             f"min {np.nanmin(values):.2f}" for name, values in below)
            note = f"below the axis: {note}" if note else ""
            ax.set_xlabel("$n$ (attempts)" + (f"\n{note}" if note else ""), **MATH)
            ax.grid(axis="y", color="0.92", lw=0.5)
            ax.set_axisbelow(True)
        axes[0].plot([], [], color="black", lw=0.8, ls=(0, (4, 2)),
                     label=f"nominal level {level:.0%}")
        stacked = own and fig.get_size_inches()[0] < 5.0
        for ax in axes[:2 if stacked else 1]:
            ax.set_ylabel(f"coverage of the nominal\n{level:.0%} interval")
        legend_outside(fig, axes[0], own_figure=own, ncol=5 if fig.get_size_inches()[0] >= 5 else 2)
    fig.agenteval_values = {"n": n, "p_at": float(p[j]), "level": level, "ylim": (low, high),
                            **panels}
    fig.agenteval_caption = (
        f"Exact coverage (enumerating every count) of nominal {level:.0%} intervals for a "
        f"binomial rate against the number of attempts n: at the true rate p = {p[j]:.2f} and "
        f"averaged over a uniform true rate; dashed: the nominal level.")
    return fig


def _escaped(name: str) -> str:
    """A method's name (the caller's text) inside a mathtext label: shown as written."""
    return data_label(name).replace("$", r"\$")


def _ranges(ns: np.ndarray) -> str:
    """'n = 3-17' or 'n = 3-17, 30' (the n where a line is below the axis)."""
    ns = np.asarray(ns, dtype=int)
    parts, start = [], 0
    for i in range(1, len(ns) + 1):
        if i == len(ns) or ns[i] != ns[i - 1] + 1:
            parts.append(f"{ns[start]}" if i - 1 == start else f"{ns[start]}\u2013{ns[i - 1]}")
            start = i
    if len(parts) > 3:
        parts = [parts[0], parts[1], "\u2026"]
    return "$n$ = " + ", ".join(parts)
