"""JSON parsing for untrusted files: huge integers and deep nesting never escape as tracebacks.

``json`` raises ``ValueError`` for an integer of more than 4300 digits (Python's int limit) and
``RecursionError`` for very deep nesting; both are data problems, so callers turn ``TooDeep``
into a ``DataError`` and huge integers become ``inf``, as ``json`` already reads ``1e5000``.

A ``\\ud800``-style escape with no partner decodes to a lone surrogate, which no UTF-8 writer
(report, CSV, request) can encode: such characters become U+FFFD with a warning, so one odd
record never loses a run. Only texts with an escape in the surrogate range (``\\ud800`` to
``\\udfff``, hex digits in either case) are walked: other escapes (``\\u00b0``) cannot make
one, and real files have those in most records.
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # after an escaped \\ too: harmless


def may_hold_surrogates(text: str) -> bool:
    """Whether ``text`` has an escape that may decode to a lone surrogate (then it is walked)."""
    return "\\u" in text and _SURROGATE_ESCAPE.search(text) is not None


def parse_int(digits: str) -> int | float:
    """A JSON integer; one too long for ``int()`` becomes a float (``inf``)."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)


class TooDeep(ValueError):
    """The JSON is nested deeper than Python's recursion limit allows."""

    def __init__(self) -> None:
        super().__init__("JSON nested too deeply to read")


def loads(text: str) -> Any:
    """``json.loads`` with :func:`parse_int`; raises JSONDecodeError or TooDeep."""
    try:
        value = json.loads(text, parse_int=parse_int)
    except RecursionError:
        raise TooDeep() from None
    return _without_lone_surrogates(value) if may_hold_surrogates(text) else value


def raw_decode(text: str, pos: int) -> tuple[Any, int]:
    """``JSONDecoder.raw_decode`` with :func:`parse_int`; raises JSONDecodeError or TooDeep."""
    try:
        value, end = _DECODER.raw_decode(text, pos)
    except RecursionError:
        raise TooDeep() from None
    return (_without_lone_surrogates(value) if may_hold_surrogates(text[pos:end]) else value), end


def _without_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys too) replaced by U+FFFD."""
    found = 0

    def clean(x: Any) -> Any:
        nonlocal found
        if isinstance(x, str):
            fixed, n = _LONE_SURROGATE.subn("\ufffd", x)
            found += n
            return fixed
        if isinstance(x, dict):
            return {clean(k): clean(v) for k, v in x.items()}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x

    value = clean(value)
    if found:
        warnings.warn(f"{found} lone surrogate escape(s) (e.g. \\ud800, half of a UTF-16 pair) "
                      "replaced by U+FFFD", UserWarning, stacklevel=3)
    return value


_DECODER = json.JSONDecoder(parse_int=parse_int)
