"""Small pieces every part of the HTML report writes with: escaping, numbers, long text.

Everything from the data passes through :func:`esc` (``html.escape`` after
``agenteval._util.sanitize.terminal``, so a NUL, an ANSI escape or a right-to-left override
shows as a visible ``\\uXXXX`` and never reorders or hides the text around it); nothing from
the data is ever written as markup, an attribute other than a quoted escaped value, or a URL.
"""

from __future__ import annotations

import html
import json
import math
from typing import Any

from agenteval._util.sanitize import terminal

__all__ = ["LONG_CHARS", "LONG_LINES", "esc", "fmt", "long_text", "value_text"]

LONG_CHARS = 600
"""Texts longer than this (characters) start collapsed in the report, behind a preview."""
LONG_LINES = 12
"""Texts of more lines than this start collapsed too."""


def esc(value: Any) -> str:
    """``value`` as HTML text: sanitised (module docstring) and escaped, quotes too."""
    return html.escape("" if value is None else terminal(value), quote=True)


def fmt(value: Any) -> str:
    """A number as the report shows it (3 decimals), ``n/a`` for None or NaN, yes/no for bools."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def value_text(value: Any) -> str:
    """A tool's argument or output as text: strings as they are, anything else as indented JSON."""
    if isinstance(value, str):
        return value
    text = json.dumps(value, ensure_ascii=False, default=str)  # the C encoder: fast
    return text if len(text) <= 100 else json.dumps(value, indent=2, ensure_ascii=False, default=str)


def long_text(text: Any, *, cls: str = "text") -> str:
    """``text`` in a ``<pre>`` (escaped); a long one collapsed behind its first line or 160
    characters, with its length, and opened by a click (no script needed)."""
    raw = "" if text is None else str(text)
    body = f'<pre class="{cls}">{esc(raw)}</pre>'
    lines = raw.rstrip("\n").count("\n") + 1
    if len(raw) <= LONG_CHARS and lines <= LONG_LINES:
        return body
    preview = raw.split("\n", 1)[0][:160]
    return (f'<details class="long"><summary><span class="preview">{esc(preview)}</span> '
            f'<span class="muted">&hellip; {len(raw):,} characters, {lines:,} lines: '
            f"show all</span></summary>{body}</details>")
