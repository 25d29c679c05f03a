"""Evidence that an answer used what the tools returned (the tool scorer's utilization).

``find_result_evidence(results, answer, query=..., parameters=...)`` walks each call's result and
looks for its leaves in the answer; the rules (which leaves count, how numbers match, what the
agent was given and is therefore no evidence) are in :mod:`agenteval.metrics.tools`'s docstring.

Cost is linear in the size of the texts, in time and memory: phrases are found by substring
search over normalised text with a word-boundary check at each occurrence (no regular expression
is built from the data), and each text's numbers are parsed once. One call's result is searched
in its first ``MAX_RESULT_CHARS`` characters of text; a call cut there is listed in
``Evidence.truncated`` and the tool score's reasoning says so.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agenteval._numbers import _NUMBER_RE, _numbers_in, _parse, fold_text, readings_of

__all__ = ["MAX_RESULT_CHARS", "Evidence", "find_result_evidence", "parse_numbers"]

MAX_RESULT_CHARS = 1_000_000
"""Characters of text searched in one call's result (its string leaves, in order); the rest is
not searched and the call is reported in ``Evidence.truncated``. An answer that uses a tool
result quotes it, and a quote lies near the start of any result a model could read whole."""

_COMMON_WORDS = frozenset({
    "ok", "okay", "true", "false", "none", "null", "nil", "yes", "no", "n/a", "na", "nan",
    "success", "successful", "succeeded", "error", "failed", "failure", "done", "complete",
    "completed", "pending", "unknown", "empty", "result", "results", "status", "data", "value",
    "the", "and", "for", "not", "inf", "infinity",
})
_MIN_TEXT = 3
_MIN_SEGMENT = 20
_MAX_LEAVES = 5000
_REL_TOL = 1e-9  # equal numbers: math.isclose, as for parameters
_ABS_TOL = 1e-12
_SENTENCE_RE = re.compile(r"(?<=[.!?;:])\s+|\n+")


def parse_numbers(text: str) -> list[tuple[float, float]]:
    """Numbers written in ``text`` as ``(value, tolerance)``; tolerance is half a displayed unit.

    ``"$1,234.50"`` -> (1234.5, 0.005); ``"42%"`` -> (42, 0.5) and (0.42, 0.005);
    ``"2.5 million"`` -> (2.5, 0.05) and (2.5e6, 5e4); ``"-3"`` -> (-3, 0.5). The parser is
    :mod:`agenteval._numbers`, shared with the offline judge.
    """
    return readings_of(_numbers_in(text))


def _is_word(ch: str) -> bool:
    """The regex ``\\w`` for one character (Unicode letters and digits, and ``_``)."""
    return ch.isalnum() or ch == "_"


def _text_in(phrase: str, text: str) -> bool:
    """``phrase`` occurs in ``text`` with no word character on either side.

    ``str.find`` from each candidate start: linear in ``len(text)`` for the usual phrases, and
    never more than one scan per occurrence; nothing is compiled from the phrase.
    """
    n = len(phrase)
    if not n or n > len(text):
        return False
    start = text.find(phrase)
    while start >= 0:
        end = start + n
        if (start == 0 or not _is_word(text[start - 1])) and (
                end == len(text) or not _is_word(text[end])):
            return True
        start = text.find(phrase, start + 1)
    return False


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _as_float(x: float) -> float:
    """float(x), with ints too large for a float (JSON allows them) as +-inf, not an error."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _show(x: Any, limit: int) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _show_number(x: float) -> str:
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def _number_in(x: float, numbers: Iterable[tuple[float, float]]) -> bool:
    for value, tol in numbers:
        slack = tol * (1 + 1e-9) + 1e-12
        if abs(x - value) <= slack or (x < 0 and abs(-x - value) <= slack):
            return True
    return False


def _same_number(x: float, values: Iterable[float]) -> bool:
    return any(math.isclose(x, v, rel_tol=_REL_TOL, abs_tol=_ABS_TOL) for v in values)


def _leaves(x: Any, out: list[Any]) -> None:
    if len(out) >= _MAX_LEAVES:
        return
    if isinstance(x, Mapping):
        for v in x.values():
            _leaves(v, out)
    elif isinstance(x, (list, tuple, set, frozenset)):
        for v in x:
            _leaves(v, out)
    else:
        out.append(x)


def _whole_number(text: str) -> float | None:
    """The number a string is, if it is only a number (``"12.50"``, ``"$3"``, ``"42%"``): its
    first reading. The anchored match fails at once on other text, so nothing is parsed then."""
    m = _NUMBER_RE.fullmatch(unicodedata.normalize("NFKC", text).strip())
    if m is None or _parse(m) is None:
        return None
    readings = readings_of(_numbers_in(text))
    return readings[0][0] if readings else None


def _cut(text: str, budget: int) -> str:
    """The first ``budget`` characters of ``text``, ending at whitespace when there is some, so
    no number or word is cut into a different one."""
    head = text[:budget]
    space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    return head[:space] if space > 0 else head


class _Echo:
    """What the agent was given rather than told by the tool: the query and the call's arguments.

    Texts are normalised at once (cheap); numbers are parsed only if a number has to be checked,
    which an answer quoting a result's text never needs.
    """

    def __init__(self, query: _Query, parameters: Any) -> None:
        leaves: list[Any] = []
        _leaves(parameters, leaves)
        self._strings = [str(x) for x in leaves if isinstance(x, str)]
        self._plain = [f for f in (_as_float(x) for x in leaves if _is_number(x)) if math.isfinite(f)]
        self._query = query
        self.texts = (query.norm, *(fold_text(t) for t in self._strings))
        self._numbers: tuple[float, ...] | None = None

    def has_text(self, phrase: str) -> bool:
        return any(_text_in(phrase, t) for t in self.texts)

    def has_number(self, x: float) -> bool:
        if self._numbers is None:
            numbers = [*self._query.numbers(), *(v for t in self._strings for v, _ in parse_numbers(t))]
            self._numbers = (*numbers, *self._plain)
        return _same_number(x, self._numbers)


class _Query:
    """A text normalised now and parsed for numbers on first need (the query, the answer)."""

    def __init__(self, text: str) -> None:
        self.text, self.norm = text, fold_text(text)
        self._readings: list[tuple[float, float]] | None = None

    def readings(self) -> list[tuple[float, float]]:
        if self._readings is None:
            self._readings = parse_numbers(self.text)
        return self._readings

    def numbers(self) -> list[float]:
        return [v for v, _tol in self.readings()]


def _capped_leaves(result: Any) -> tuple[list[Any], bool]:
    """The result's searchable leaves in order (numbers as they are, anything else as text),
    text cut at ``MAX_RESULT_CHARS`` in all; and whether it was cut."""
    leaves: list[Any] = []
    _leaves(result, leaves)
    out: list[Any] = []
    budget, cut = MAX_RESULT_CHARS, False
    for leaf in leaves:
        if isinstance(leaf, bool) or leaf is None:
            continue
        if _is_number(leaf):
            out.append(leaf)
            continue
        if budget <= 0:
            cut = True
            break
        text = str(leaf)
        if len(text) > budget:
            text, cut = _cut(text, budget), True
        budget = 0 if cut else budget - len(text)
        out.append(text)
    return out, cut


def _text_candidates(text: str) -> list[str]:
    """What of a text leaf is looked for: the whole (normalised), and its long sentences."""
    norm = fold_text(text)
    if len(norm) < _MIN_TEXT or norm in _COMMON_WORDS:
        return []
    candidates = [norm]
    if len(norm) > _MIN_SEGMENT:
        for seg in _SENTENCE_RE.split(norm):
            seg = seg.strip(" .!?;:,")
            if len(seg) >= _MIN_SEGMENT and seg != norm:
                candidates.append(seg)
    return candidates


def _search_call(leaves: list[Any], echo: _Echo, answer: _Query) -> tuple[bool, str | None]:
    """(searchable, what was found) for one call's result.

    Texts first, in leaf order: the first one in the answer is the evidence, and nothing needs
    parsing. Then numbers, in leaf order: the first strong one the answer shows; weak ones
    (integers below 10) only when the result has no text and no strong number to look for.
    """
    texts = False
    wholes = [_whole_number(leaf) if isinstance(leaf, str) else None for leaf in leaves]
    for leaf, whole in zip(leaves, wholes):
        if isinstance(leaf, str) and whole is None:
            for t in _text_candidates(leaf):
                if not echo.has_text(t):
                    texts = True
                    if _text_in(t, answer.norm):
                        return True, _show(t, 40)
    shown: list[tuple[float, float]] | None = None
    strong, weak = False, []
    for leaf, whole in zip(leaves, wholes):
        if isinstance(leaf, str):
            if whole is None:
                values = [v for v, _tol in readings_of(_numbers_in(leaf))
                          if not (v.is_integer() and abs(v) < 10)]
            else:
                values = [whole]
        else:
            values = [_as_float(leaf)]
        for x in values:
            if not math.isfinite(x) or echo.has_number(x):
                continue
            if isinstance(leaf, str) and whole is None or not (x.is_integer() and abs(x) < 10):
                strong = True
                if shown is None:
                    shown = [(v, tol) for v, tol in answer.readings() if not echo.has_number(v)]
                if _number_in(x, shown):
                    return True, _show_number(x)
            else:
                weak.append(x)
    if texts or strong:
        return True, None
    if not weak:
        return False, None
    shown = [(v, tol) for v, tol in answer.readings() if not echo.has_number(v)]
    hit = next((x for x in weak if _number_in(x, shown)), None)
    return True, None if hit is None else _show_number(hit)


@dataclass(frozen=True)
class Evidence:
    """Which calls' results were found in the answer."""

    searchable: tuple[int, ...]  # indices of calls whose result had something to look for
    found: dict[int, str]  # call index -> what was found (e.g. "'paris'" or "3.14159")
    truncated: tuple[int, ...] = ()  # calls whose result was searched only to MAX_RESULT_CHARS

    @property
    def any_found(self) -> bool:
        return bool(self.found)


def find_result_evidence(results: Sequence[Any], answer: str, *, query: str = "",
                         parameters: Sequence[Any] | None = None) -> Evidence:
    """Look for each result (one per call, None = not logged) in the answer text.

    What the agent already had is no evidence of using the tool: result leaves that also appear
    in ``query`` or in that call's ``parameters`` (one per call, parallel to ``results``) are
    not searched, and answer numbers equal to a number there are ignored for that call.
    """
    said, asked = _Query(answer or ""), _Query(query or "")
    searchable: list[int] = []
    truncated: list[int] = []
    found: dict[int, str] = {}
    for idx, result in enumerate(results):
        if result is None:
            continue
        leaves, cut = _capped_leaves(result)
        if cut:
            truncated.append(idx)
        echo = _Echo(asked, parameters[idx] if parameters is not None else None)
        has_probes, hit = _search_call(leaves, echo, said)
        if has_probes:
            searchable.append(idx)
        if hit is not None:
            found[idx] = hit
    return Evidence(tuple(searchable), found, tuple(truncated))
