"""Figure sizes at the two paper widths: how panels are laid out and how tall a figure is."""

from __future__ import annotations

from typing import Any

from agenteval.plots import figure_width

__all__ = ["panel_size", "legend_height"]

WIDE = 5.0
"""Inches from which a figure counts as double-column (panels side by side)."""


def panel_size(width: Any, default: str, panels: int = 1, *, height: float | None = None
               ) -> tuple[tuple[float, float], dict[str, int]]:
    """Figure size and subplot grid for ``width`` (None: ``default``): at column width panels
    stack, at double width they sit side by side."""
    inches = figure_width(default if width is None else width)
    wide = inches >= WIDE
    if panels == 1:
        return (inches, height or (2.6 if wide else 2.3)), {}
    if wide:
        return (inches, height or 2.6), {"ncols": panels}
    return (inches, height or 1.75 * panels + 0.5), {"nrows": panels}


def legend_height(width: Any, default: str, column: float, double: float = 2.6) -> float:
    """The height of a one-panel figure whose legend sits below: at column width the legend
    takes more rows, so the figure is taller (``column`` inches) and the data keep their room."""
    return column if figure_width(default if width is None else width) < WIDE else double
