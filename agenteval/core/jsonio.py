"""JSON parsing for untrusted files: huge integers and deep nesting never escape as tracebacks.

``json`` raises ``ValueError`` for an integer of more than 4300 digits (Python's int limit) and
``RecursionError`` for very deep nesting; both are data problems, so callers turn ``TooDeep``
into a ``DataError`` and huge integers become ``inf``, as ``json`` already reads ``1e5000``.
"""

from __future__ import annotations

import json
from typing import Any


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
        return json.loads(text, parse_int=parse_int)
    except RecursionError:
        raise TooDeep() from None


def raw_decode(text: str, pos: int) -> tuple[Any, int]:
    """``JSONDecoder.raw_decode`` with :func:`parse_int`; raises JSONDecodeError or TooDeep."""
    try:
        return _DECODER.raw_decode(text, pos)
    except RecursionError:
        raise TooDeep() from None


_DECODER = json.JSONDecoder(parse_int=parse_int)
