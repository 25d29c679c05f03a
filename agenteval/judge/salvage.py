"""Recover the verdict from a JSON reply cut at the token limit.

Verdict schemas put the verdict first and the reasoning last, so a reply cut at ``max_tokens``
usually reads ``{"score": 0.75, "reasoning": "The answer gives the right total but`` : the
verdict is complete and only the reasoning is cut. :func:`salvage_json` closes the open string
and brackets and returns the object, or None. It never guesses a value: a number that was still
being written when the reply stopped (``0.7`` of ``0.75``) is dropped, not kept, and a key
without its value is dropped too, so the caller's schema validation then fails exactly when a
verdict field is incomplete.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

CUT_MARK = "…"
"""Appended to a string value that was cut off, when the schema leaves room for it."""

_MAX_TRIES = 64


def salvage_json(text: str) -> dict[str, Any] | None:
    """The JSON object a truncated ``text`` is, completed at its last safe point, or None.

    ``text`` must start with the object (leading whitespace aside): an object found later in
    prose is never read as the verdict.
    """
    body = text.lstrip()
    if not body.startswith("{"):
        return None
    cuts = _safe_cuts(body)
    for cut, open_string in reversed(cuts):
        candidate = _close(body[:cut], open_string)
        if candidate is None:
            continue
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _safe_cuts(body: str) -> deque[tuple[int, bool]]:
    """The last :data:`_MAX_TRIES` positions where the text can be cut and closed: (end index,
    inside a string value); only those are kept, so memory is bounded whatever the length.

    Safe points: just after a complete value (string, true/false/null, closed bracket, or a
    number followed by a delimiter), and inside a string value (to keep a cut reasoning).
    """
    cuts: deque[tuple[int, bool]] = deque(maxlen=_MAX_TRIES)
    stack: list[str] = []
    in_string = escaped = False
    expect_key: list[bool] = []  # per open object: is the next string a key?
    string_is_key = False
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
                if not string_is_key:
                    cuts.append((i + 1, False))
            elif not string_is_key:
                cuts.append((i + 1, True))
            i += 1
            continue
        if ch == '"':
            in_string = True
            string_is_key = bool(stack) and stack[-1] == "{" and expect_key[-1]
        elif ch == "{":
            stack.append("{")
            expect_key.append(True)
        elif ch == "[":
            stack.append("[")
        elif ch in "}]":
            if stack:
                stack.pop()
                if ch == "}":
                    expect_key.pop()
            cuts.append((i + 1, False))
            if not stack:
                break
        elif ch == ":":
            if expect_key:
                expect_key[-1] = False
        elif ch == ",":
            if stack and stack[-1] == "{":
                expect_key[-1] = True
        elif body.startswith(("true", "false", "null"), i):
            word = 4 if body[i] in "tn" else 5
            i += word
            cuts.append((i, False))
            continue
        elif ch in "-0123456789":
            j = i
            while j < n and body[j] in "-+.eE0123456789":
                j += 1
            if j < n:  # a delimiter follows: the number is complete
                cuts.append((j, False))
            i = j
            continue
        i += 1
    return cuts


def _close(prefix: str, open_string: bool) -> str | None:
    """``prefix`` with its open string and brackets closed (None when it cannot be)."""
    text = prefix
    if open_string:
        if text.endswith("\\"):
            text = text[:-1]
        text += CUT_MARK + '"'
    stack: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]":
            if not stack:
                return None
            stack.pop()
    if in_string:
        return None
    text = text.rstrip().rstrip(",")
    return text + "".join("}" if b == "{" else "]" for b in reversed(stack))
