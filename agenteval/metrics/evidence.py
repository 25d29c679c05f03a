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
from dataclasses import dataclass, field
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


def _whole_number(text: str, numbers: Sequence[Any]) -> float | None:
    """The number a string is, if it is only a number (``"12.50"``, ``"$3"``, ``"42%"``)."""
    if not numbers:  # a whole number is also found by the search
        return None
    m = _NUMBER_RE.fullmatch(unicodedata.normalize("NFKC", text).strip())
    if m is None or _parse(m) is None:
        return None
    readings = readings_of(numbers)
    return readings[0][0] if readings else None


def _cut(text: str, budget: int) -> str:
    """The first ``budget`` characters of ``text``, ending at whitespace when there is some, so
    no number or word is cut into a different one."""
    head = text[:budget]
    space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    return head[:space] if space > 0 else head


@dataclass
class _Probes:
    texts: list[str] = field(default_factory=list)
    strong_numbers: list[float] = field(default_factory=list)
    weak_numbers: list[float] = field(default_factory=list)
    truncated: bool = False

    def __bool__(self) -> bool:
        return bool(self.texts or self.strong_numbers or self.weak_numbers)


@dataclass(frozen=True)
class _Echo:
    """What the agent was given rather than told by the tool: the query and the call's arguments."""

    texts: tuple[str, ...] = ()  # normalised, one per source
    numbers: tuple[float, ...] = ()  # every reading of every number written there

    def with_parameters(self, parameters: Any) -> _Echo:
        leaves: list[Any] = []
        _leaves(parameters, leaves)
        texts = [str(x) for x in leaves if isinstance(x, str)]
        numbers = [v for t in texts for v, _tol in parse_numbers(t)]
        numbers += [f for f in (_as_float(x) for x in leaves if _is_number(x)) if math.isfinite(f)]
        return _Echo(self.texts + tuple(fold_text(t) for t in texts), self.numbers + tuple(numbers))

    def has_text(self, phrase: str) -> bool:
        return any(_text_in(phrase, t) for t in self.texts)

    def has_number(self, x: float) -> bool:
        return _same_number(x, self.numbers)


def _probes(result: Any, echo: _Echo) -> _Probes:
    """What could show in an answer that used this result, minus what the agent was given."""
    probes = _Probes()
    leaves: list[Any] = []
    _leaves(result, leaves)
    budget = MAX_RESULT_CHARS

    def add_number(x: float) -> None:
        if math.isfinite(x) and not echo.has_number(x):
            weak = x.is_integer() and abs(x) < 10
            (probes.weak_numbers if weak else probes.strong_numbers).append(x)

    for leaf in leaves:
        if isinstance(leaf, bool) or leaf is None:
            continue
        if _is_number(leaf):
            add_number(_as_float(leaf))
            continue
        text = str(leaf)
        if budget <= 0:
            probes.truncated = True
            break
        if len(text) > budget:
            text, probes.truncated = _cut(text, budget), True
        budget = 0 if probes.truncated else budget - len(text)
        numbers = _numbers_in(text)
        whole = _whole_number(text, numbers)
        if whole is not None:
            add_number(whole)
            continue
        norm = fold_text(text)
        if len(norm) >= _MIN_TEXT and norm not in _COMMON_WORDS:
            candidates = [norm]
            if len(norm) > _MIN_SEGMENT:
                for seg in _SENTENCE_RE.split(norm):
                    seg = seg.strip(" .!?;:,")
                    if len(seg) >= _MIN_SEGMENT and seg != norm:
                        candidates.append(seg)
            probes.texts.extend(t for t in candidates if not echo.has_text(t))
        for value, _tol in readings_of(numbers):
            if not (value.is_integer() and abs(value) < 10) and not echo.has_number(value):
                probes.strong_numbers.append(value)
    return probes


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
    answer = answer or ""
    answer_norm = fold_text(answer)
    numbers = parse_numbers(answer)
    query = query or ""
    asked = _Echo((fold_text(query),), tuple(v for v, _tol in parse_numbers(query)))
    searchable: list[int] = []
    truncated: list[int] = []
    found: dict[int, str] = {}
    for idx, result in enumerate(results):
        if result is None:
            continue
        echo = asked.with_parameters(parameters[idx] if parameters is not None else None)
        probes = _probes(result, echo)
        if probes.truncated:
            truncated.append(idx)
        if not probes:
            continue
        searchable.append(idx)
        hit = next((t for t in probes.texts if _text_in(t, answer_norm)), None)
        if hit is not None:
            found[idx] = _show(hit, 40)
            continue
        shown = [(v, tol) for v, tol in numbers if not echo.has_number(v)]
        strong = next((x for x in probes.strong_numbers if _number_in(x, shown)), None)
        if strong is not None:
            found[idx] = _show_number(strong)
            continue
        if not probes.texts and not probes.strong_numbers:
            weak = next((x for x in probes.weak_numbers if _number_in(x, shown)), None)
            if weak is not None:
                found[idx] = _show_number(weak)
    return Evidence(tuple(searchable), found, tuple(truncated))
