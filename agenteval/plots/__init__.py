"""Figures for papers: plot helpers take computed results and draw; they compute nothing new.

Every helper accepts ``ax=None`` (a new figure at column width) and returns the figure, imports
matplotlib only when called, and uses the colour-blind-safe Okabe-Ito palette. ``export`` writes
the files a paper needs. Topic modules live beside this one (one module per family of figures);
their public names are re-exported here lazily.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenteval._util.lazy import lazy_exports

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Okabe & Ito (2008), "Color universal design": distinguishable under the common colour-vision
#: deficiencies and in greyscale print by lightness.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")

#: One column of a two-column paper (inches): width, height.
COLUMN = (3.4, 2.4)
#: Full text width of a two-column paper (inches).
FULL_WIDTH = (7.0, 2.8)

_RC = {
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "figure.dpi": 150,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.02,
    "pdf.fonttype": 42,  # embed TrueType, so text stays text in the PDF
    "ps.fonttype": 42,
    "svg.fonttype": "none",
    "text.parse_math": False,  # labels are data (agent and task ids): "$5 or $10" is not math
}

# name -> module, for topic modules that add figures (e.g. "plot_posterior": "agenteval.plots.bayes").
_EXPORTS: dict[str, str] = {
    "plot_coverage": "agenteval.plots.coverage",
    "plot_pass_posterior": "agenteval.plots.bayes",
    "plot_forest": "agenteval.plots.bayes",
    "plot_shrinkage": "agenteval.plots.bayes",
    "plot_prior_posterior": "agenteval.plots.bayes",
    "plot_difference": "agenteval.plots.compare",
    "plot_pairwise": "agenteval.plots.compare",
    "plot_power_curve": "agenteval.plots.compare",
    "plot_prior_sensitivity": "agenteval.plots.sensitivity",
    "plot_priors": "agenteval.plots.sensitivity",
    "plot_rate_posteriors": "agenteval.plots.summary",
}

__all__ = ["COLUMN", "FULL_WIDTH", "PALETTE", "agent_colours", "export", "figure_axes",
           "no_data", "paper_style",
           *sorted(_EXPORTS)]


def agent_colours(agents: Iterable[str]) -> dict[str, str]:
    """The run's one agent-to-colour map: agents in the run's order take the palette in turn;
    the group 'all' is black when there are several agents, else the one agent's colour. Every
    figure and widget of a run colours agents through this, so an agent keeps its colour."""
    names = [str(a) for a in agents]
    out = {name: PALETTE[i % (len(PALETTE) - 1)] for i, name in enumerate(names)}
    out.setdefault("all", out[names[0]] if len(names) == 1 else PALETTE[-1])
    return out


def no_data(ax: Axes, text: str) -> None:
    """Say on the axes that there is nothing to show (instead of a prior drawn as a result)."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="0.3",
            fontsize=8)


def _pyplot() -> Any:
    try:
        import matplotlib

        if "ipykernel" not in sys.modules and not os.environ.get("MPLBACKEND"):
            matplotlib.use("Agg", force=False)  # scripts and tests; notebooks keep inline figures
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - matplotlib is part of the default install
        raise ImportError("agenteval.plots needs matplotlib: pip install 'agenteval[bayes]'") from exc
    return plt


@contextmanager
def paper_style() -> Iterator[None]:
    """Matplotlib settings for figures at column width: 7-8 pt fonts, no top/right spines."""
    plt = _pyplot()
    from cycler import cycler

    import matplotlib

    interactive = matplotlib.is_interactive()
    try:
        with plt.rc_context({**_RC, "axes.prop_cycle": cycler(color=PALETTE)}):
            try:
                yield
            finally:
                interactive = matplotlib.is_interactive()
    finally:
        # a backend first activated inside (Jupyter's inline one turns interactive mode on) must
        # stay active: rc_context would restore the old value and stop figures from showing
        matplotlib.interactive(interactive)


def figure_axes(ax: Axes | None = None, *, size: tuple[float, float] = COLUMN,
                **subplots: Any) -> tuple[Figure, Any]:
    """``(figure, ax)``: the figure of ``ax`` when given, else a new figure of ``size`` inches.

    Call it inside ``paper_style()`` so a new figure picks up the paper settings.
    """
    if ax is not None:
        return ax.figure, ax
    plt = _pyplot()
    fig, axes = plt.subplots(figsize=size, layout="constrained", **subplots)
    return fig, axes


def export(fig: Figure, stem: str | Path, formats: Iterable[str] = ("pdf", "svg", "png"), *,
           dpi: int = 300, png_compress_level: int | None = None) -> list[Path]:
    """Write ``fig`` as ``stem.<format>`` for each format; return the paths written.

    Vector formats keep text as text (TrueType in PDF, ``<text>`` in SVG); ``dpi`` applies to
    raster formats; ``png_compress_level`` (0-9, default PIL's 6) trades PNG size for time.
    Parent directories are created.
    """
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        fmt = fmt.lower().lstrip(".")
        path = stem.with_name(f"{stem.name}.{fmt}")
        extra = ({"pil_kwargs": {"compress_level": int(png_compress_level)}}
                 if fmt == "png" and png_compress_level is not None else {})
        with _pyplot().rc_context(_RC):
            fig.savefig(path, format=fmt, dpi=dpi, **extra)
        written.append(path)
    return written


__getattr__, __dir__ = lazy_exports("agenteval.plots", _EXPORTS, globals())
