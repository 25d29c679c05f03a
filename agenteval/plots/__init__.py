"""Figures for papers: plot helpers take computed results and draw; they compute nothing new.

Every helper accepts ``ax=None`` (a new figure at column width) and returns the figure, imports
matplotlib only when called, and uses the colour-blind-safe Okabe-Ito palette. ``export`` writes
the files a paper needs. Topic modules live beside this one (one module per family of figures);
their public names are re-exported here lazily.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
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

#: One column of a two-column paper (inches): width, height (``width="column"``).
COLUMN = (3.3, 2.4)
#: Full text width of a two-column paper (inches) (``width="double"``).
FULL_WIDTH = (6.9, 2.8)

WIDTHS = {"column": COLUMN[0], "double": FULL_WIDTH[0]}
"""The ``width=`` names of the figure helpers, in inches (a number is taken as inches)."""

_SAVE_KEYS = ("savefig.bbox", "savefig.pad_inches", "pdf.fonttype", "ps.fonttype", "svg.fonttype")

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
MATH = {"parse_math": True}
"""Text properties of the library's own labels: they (and only they) are mathtext."""

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

__all__ = ["COLUMN", "FULL_WIDTH", "MATH", "PALETTE", "WIDTHS", "agent_colours", "data_label", "export",
           "figure_axes", "figure_width", "interval_label", "legend_outside", "no_data",
           "paper_style", "pass_label", *sorted(_EXPORTS)]


def agent_colours(agents: Iterable[str]) -> dict[str, str]:
    """The run's one agent-to-colour map: agents in the run's order take the palette in turn;
    the group 'all' is black when there are several agents, else the one agent's colour. Every
    figure and widget of a run colours agents through this, so an agent keeps its colour."""
    names = [str(a) for a in agents]
    out = {name: PALETTE[i % (len(PALETTE) - 1)] for i, name in enumerate(names)}
    out.setdefault("all", out[names[0]] if len(names) == 1 else PALETTE[-1])
    return out


def data_label(text: object, max_chars: int | None = None) -> str:
    """Text from the data (agent, task ids) as a matplotlib label that shows as written: control
    and bidi characters as visible escapes (``_util.sanitize.terminal``), a leading ``_`` kept
    visible (matplotlib hides such legend entries); cut to ``max_chars`` with an ellipsis when
    given. Mathtext is off for every text but the library's own labels (``MATH``), so
    ``$5 or $10`` stays text."""
    from agenteval._util.sanitize import terminal

    out = terminal(text)
    if max_chars is not None and len(out) > max_chars:  # a tick label that fits the paper
        out = out[:max(max_chars - 1, 1)] + "\u2026"
    return "\u200b" + out if out.startswith("_") else out


def pass_label(quantity: str, k: int) -> str:
    """The library's mathtext name of a quantity: ``$\\mathrm{pass@}3$``, ``$\\mathrm{pass}^{3}$``."""
    return {"pass_at_k": rf"$\mathrm{{pass@}}{k}$", "pass_pow_k": rf"$\mathrm{{pass}}^{{{k}}}$"}[quantity]


def interval_label(level: float) -> str:
    """What an interval drawn from the summary or the draws is: every interval here is
    equal-tailed (ArviZ's default is an HDI: a figure says which it shows)."""
    return f"{level * 100:g}% equal-tailed interval"


def figure_width(width: str | float) -> float:
    """Inches for ``width``: 'column' (3.3 in), 'double' (6.9 in) or a number of inches."""
    from agenteval.errors import ConfigError

    if isinstance(width, str):
        if width not in WIDTHS:
            raise ConfigError(f"width must be one of {', '.join(WIDTHS)} or inches; got {width!r}")
        return WIDTHS[width]
    try:
        inches = float(width)
    except (TypeError, ValueError):
        raise ConfigError(f"width must be one of {', '.join(WIDTHS)} or inches; got {width!r}") from None
    if not 1.0 <= inches <= 20.0:
        raise ConfigError(f"width in inches must be between 1 and 20; got {inches:g}")
    return inches


def legend_outside(fig: Figure, ax: Axes | Sequence[Axes], *, own_figure: bool,
                   ncol: int | None = None, math: Iterable[str] = ()) -> Any:
    """One legend outside the data: below the panels of a figure the helper made (constrained
    layout makes room), right of ``ax`` (the last of several) in a figure the caller gave.
    ``ax`` may be several panels: their entries are joined, each label once. ``math``: the
    entries that are the library's mathtext labels (the others, data, stay text). None without
    entries."""
    axes = list(ax) if isinstance(ax, (list, tuple)) else [ax]
    handles, labels = [], []
    for one in axes:  # every panel's entries, each label once
        for handle, label in zip(*one.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    if not handles:
        return None
    ax = axes[-1]
    if own_figure:
        # as many columns as fit the figure's width (about 0.55 em per character)
        size = float(_rc_points("legend.fontsize"))
        line = int(fig.get_size_inches()[0] * 72 / (0.55 * size)) - 6  # characters in one row
        math = set(math)   # mathtext is never cut (a cut "$" would not parse)
        labels = [lb if len(lb) <= line or lb in math else lb[:line - 1] + "\u2026"
                  for lb in labels]
        fits = int((line + 6) // (max(_shown_length(lb, lb in math) for lb in labels) + 5))
        legend = fig.legend(handles, labels, loc="outside lower center", frameon=False,
                            ncol=max(1, min(ncol or 3, len(labels), fits)), handlelength=1.5,
                            columnspacing=1.2)
    else:
        legend = ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                           frameon=False, borderaxespad=0.0)
    math = set(math)
    for text in legend.get_texts():
        if text.get_text() in math:
            text.set_parse_math(True)
    return legend


def _shown_length(label: str, math: bool) -> int:
    """About how many characters a label takes when drawn (mathtext without its markup)."""
    if not math:
        return len(label)
    import re

    return len(re.sub(r"\\mathrm|[${}^_]|\\", "", label))


def _rc_points(key: str) -> Any:
    """An rcParam's value in points where matplotlib keeps a name ('small') for a size."""
    import matplotlib
    from matplotlib.font_manager import FontProperties

    value = matplotlib.rcParams[key]
    return FontProperties(size=value).get_size_in_points() if isinstance(value, str) else value


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
def paper_style(style: Any = None) -> Iterator[None]:
    """Matplotlib settings for figures at column width: 7-8 pt fonts, no top/right spines.

    ``style``, applied on top (a journal's fonts): a dict of rcParams, a matplotlib style name
    or file, or a list of these; e.g. ``{"font.family": "serif", "font.serif": ["Times"],
    "mathtext.fontset": "stix"}``. Every figure helper takes it as ``style=``.
    """
    plt = _pyplot()
    from cycler import cycler

    import matplotlib

    interactive = matplotlib.is_interactive()
    layers: list[Any] = ([] if style is None else
                         list(style) if isinstance(style, (list, tuple)) else [style])
    try:
        with plt.rc_context({**_RC, "axes.prop_cycle": cycler(color=PALETTE)}), \
                plt.style.context(layers) if layers else _nothing(), \
                plt.rc_context({"text.parse_math": False}):  # a style never makes data math
            try:
                yield
            finally:
                interactive = matplotlib.is_interactive()
    finally:
        # a backend first activated inside (Jupyter's inline one turns interactive mode on) must
        # stay active: rc_context would restore the old value and stop figures from showing
        matplotlib.interactive(interactive)


@contextmanager
def _nothing() -> Iterator[None]:
    yield


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
    A figure the helpers made (constrained layout) is written at its own size, so a column-wide
    figure is 3.3 in wide in the paper and its 7-8 pt text stays 7-8 pt; any other figure is
    trimmed to what it draws (``bbox_inches="tight"``).
    Parent directories are created. Each file is written to a temporary file beside it and
    renamed into place, never through a symbolic link; a failure to write is one OutputError
    naming the file (``agenteval._util.files``).
    """
    import os

    from agenteval._util.files import check_no_link, output_error, temporary_path

    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    # a figure laid out by constrained layout fits its own size (a paper's column: fonts stay
    # at their size in the PDF); any other is trimmed to what it draws
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    laid_out = isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    bbox = {"savefig.bbox": "standard"} if laid_out else {}
    written = []
    for fmt in formats:
        fmt = fmt.lower().lstrip(".")
        path = stem.with_name(f"{stem.name}.{fmt}")
        extra = ({"pil_kwargs": {"compress_level": int(png_compress_level)}}
                 if fmt == "png" and png_compress_level is not None else {})
        check_no_link(path)
        try:
            with temporary_path(path) as tmp, _pyplot().rc_context(
                    {**{key: _RC[key] for key in _SAVE_KEYS}, **bbox}):  # fonts: as drawn
                fig.savefig(tmp, format=fmt, dpi=dpi, **extra)
                os.replace(tmp, path)
        except OSError as exc:
            raise output_error(path, exc) from None
        written.append(path)
    return written


__getattr__, __dir__ = lazy_exports("agenteval.plots", _EXPORTS, globals())
