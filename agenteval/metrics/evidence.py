"""Evidence that an answer used what the tools returned (the tool scorer's utilization).

``find_result_evidence(results, answer, query=..., parameters=...)`` walks each call's result and
looks for its leaves in the answer; the rules (which leaves count, how numbers match, what the
agent was given and is therefore no evidence) are in :mod:`agenteval.metrics.tools`'s docstring.

Cost is linear in the size of the texts, in time and memory: phrases are found by substring
search over normalised text with a word-boundary check at each occurrence (no regular expression
is built from the data), and each text's numbers are parsed once; the query's and the
arguments' (what is no evidence) only when their digits could hold the number asked about. One
call's result is searched in its first ``MAX_RESULT_CHARS`` characters of text; a call cut there
is listed in ``Evidence.truncated`` and the tool score's reasoning says so.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agenteval._util.numbers import fold_text, is_whole_number, parse_text, text_readings, to_float

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
_SENTENCE_END = re.compile(r"[.!?;:] ")
"""Where a folded text (``fold_text``: single spaces, no line break) splits into sentences: a
stop and the space after it. The stop goes with the split, and a segment is stripped of stops
anyway, so this is the split ``(?<=[.!?;:])\\s+|\\n+`` of the raw text, with no look-behind tried
at every position (four times faster)."""


def parse_numbers(text: str) -> list[tuple[float, float]]:
    """Numbers written in ``text`` as ``(value, tolerance)``; tolerance is half a displayed unit.

    ``"$1,234.50"`` -> (1234.5, 0.005); ``"42%"`` -> (42, 0.5) and (0.42, 0.005);
    ``"2.5 million"`` -> (2.5, 0.05) and (2.5e6, 5e4); ``"-3"`` -> (-3, 0.5). The parser is
    :mod:`agenteval._util.numbers`, shared with the offline judge.
    """
    return list(text_readings(text))


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


def _show(x: Any, limit: int) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _show_number(x: float) -> str:
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def _number_in(x: float, numbers: Iterable[tuple[float, float]]) -> bool:
    """``x`` (or ``-x``) lies within a reading's slack (``_with_slack``)."""
    for value, slack in numbers:
        if abs(x - value) <= slack or (x < 0 and abs(-x - value) <= slack):
            return True
    return False


def _with_slack(readings: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """``(value, tolerance)`` readings as ``(value, slack)``: the tolerance widened by a relative
    1e-9 and an absolute 1e-12, so a float rounding of the tolerance never decides a match."""
    return [(value, tol * (1 + 1e-9) + 1e-12) for value, tol in readings]


def _leaves(x: Any, out: list[Any]) -> None:
    if len(out) >= _MAX_LEAVES:
        return
    if type(x) in _SCALARS:  # a leaf: no abstract-class check (Mapping's is slow)
        out.append(x)
    elif type(x) is dict or isinstance(x, Mapping):
        for v in x.values():
            _leaves(v, out)
    elif isinstance(x, (list, tuple, set, frozenset)):
        for v in x:
            _leaves(v, out)
    else:
        out.append(x)


def _all_leaves(x: Any) -> list[Any]:
    """``_leaves`` of ``x``; a scalar (most results and arguments) without the walk, and a dict
    or list of scalars in one loop."""
    kind = type(x)
    if kind is str or kind is int or kind is float or x is None:
        return [x]
    if (kind is dict or kind is list) and len(x) < _MAX_LEAVES:
        values = list(x.values()) if kind is dict else x
        if all(type(v) in _SCALARS for v in values):
            return list(values)
    out: list[Any] = []
    _leaves(x, out)
    return out


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _whole_number(text: str) -> float | None:
    """The number a string is, if it is only a number (``"12.50"``, ``"$3"``, ``"42%"``): its
    first reading. The anchored match fails at once on other text, so nothing is parsed then."""
    if not is_whole_number(text):
        return None
    readings = text_readings(text)
    return readings[0][0] if readings else None


def _cut(text: str, budget: int) -> str:
    """The first ``budget`` characters of ``text``, ending at whitespace when there is some, so
    no number or word is cut into a different one."""
    head = text[:budget]
    space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    return head[:space] if space > 0 else head


class _Echo:
    """What the agent was given rather than told by the tool: the query and the call's arguments.

    Texts are normalised and numbers parsed on first need: an answer quoting a result's text
    needs no number, and most numbers are settled without asking whether they are echoes.
    """

    def __init__(self, query: _Query, parameters: Any) -> None:
        self._leaves = _all_leaves(parameters)
        self._query = query
        self._texts: tuple[str, ...] | None = None
        self._numbers: tuple[float, ...] | None = None
        self._exact: frozenset[float] = frozenset()
        self._screen: tuple[str | None, list[float]] | None = None

    def has_text(self, phrase: str) -> bool:
        if self._texts is None:
            self._texts = (self._query.norm,
                           *(fold_text(str(x)) for x in self._leaves if isinstance(x, str)))
        return any(_text_in(phrase, t) for t in self._texts)

    def has_number(self, x: float) -> bool:
        """``x`` is ``math.isclose`` (rel 1e-9, abs 1e-12) to a number of the query or the
        arguments. All are finite, and ``isclose(x, x)`` holds, so an equal one settles it."""
        numbers = self._numbers
        if numbers is None:
            if not self._may_hold(x):  # settled without reading the query and arguments
                return False
            numbers = self._numbers = tuple(sorted(self._echo_numbers()))
            self._exact = frozenset(numbers)
        if x in self._exact:
            return True
        # A number close to x lies within about 1e-9 |x| (isclose's relative bound, taken of
        # the larger magnitude, is at most 1.0000001e-9 |x|) or about 1e-12 of it; the window is
        # twice that, so the float rounding of its ends cannot leave one out. The numbers are
        # sorted, so bisect finds the few inside (test_echo_window_finds_every_close_number).
        window = 2e-9 * abs(x) + 2e-12
        lo = bisect_left(numbers, x - window)
        hi = bisect_right(numbers, x + window, lo)
        return lo < hi and any(math.isclose(x, v, rel_tol=_REL_TOL, abs_tol=_ABS_TOL)
                               for v in numbers[lo:hi])

    def _may_hold(self, x: float) -> bool:
        """False only when no number of the query or the arguments can be close to ``x``: no
        argument number is, and the texts show none of the leading digits such a number would
        be written with (``_leading_digits``). The texts are then never parsed, which is most
        of the cost of asking: a result's number is seldom in the query."""
        if self._screen is None:
            self._screen = self._digit_screen()
        digits, plain = self._screen
        keys = _leading_digits(x)
        if digits is None or keys is None or keys[0] in digits or keys[1] in digits:
            return True
        return bool(plain) and any(math.isclose(x, v, rel_tol=_REL_TOL, abs_tol=_ABS_TOL)
                                   for v in plain)

    def _digit_screen(self) -> tuple[str | None, list[float]]:
        """(the query's and the string arguments' digits, each text without its commas and
        points and the texts apart, or None when one is not ASCII; the argument numbers)."""
        texts = [self._query.text]
        plain: list[float] = []
        for x in self._leaves:
            if isinstance(x, str):
                texts.append(str(x))
            elif _is_number(x):
                f = to_float(x)
                if math.isfinite(f):
                    plain.append(f)
        joined = "\0".join(texts)
        if not joined.isascii():  # the parser reads other digits too (\d)
            return None, plain
        return joined.replace(",", "").replace(".", ""), plain

    def _echo_numbers(self) -> list[float]:
        """The query's numbers, then each argument's (a string's readings, a number's value),
        in one pass over the arguments; their order does not matter (they are sorted)."""
        out = list(self._query.numbers())
        for x in self._leaves:
            if isinstance(x, str):
                out.extend([v for v, _tol in text_readings(str(x))])
            elif _is_number(x):
                f = to_float(x)
                if math.isfinite(f):
                    out.append(f)
        return out


_SCREEN_DIGITS = 6


def _leading_digits(x: float) -> tuple[str, str] | None:
    """Digit strings one of which begins the written digits of any number ``isclose`` to ``x``
    (rel 1e-9, abs 1e-12), commas, point and leading zeros left out; None when ``|x|`` is
    below 1e-3 (the absolute tolerance counts there) or above 1e300.

    Such a number v is written as digits M times a power of ten (exponent, scale word,
    percentage and a float's correct rounding change the power or v by 1e-16 at most), within a
    relative 1.1e-9 of ``|x|``: strictly between ``a`` and ``b``, ``|x| (1 -+ 1e-8)`` written to 12
    significant digits. That range is narrower than the step of the first six digits, so M's
    first six, zeros added if M is shorter, are those of ``a`` or of ``b``; either less its
    trailing zeros begins M (test_leading_digits_screen_keeps_every_close_number).

    ``b``'s digits lie less than 2.1e-7 above ``a``'s (units of its first digit: 2e-8 of at
    most 10, plus the roundings), so when ``a``'s digits 7 to 12 are below 979000 (in units of
    1e-11) no carry reaches the sixth digit and ``b`` begins like ``a``: it is not written
    (test_leading_digits_shortcut_is_the_definition).
    """
    m = abs(x)
    if not 1e-3 <= m <= 1e300:
        return None
    a = f"{m * (1 - 1e-8):.11e}"  # "d.ddddddddddde+XX"
    low = (a[0] + a[2:_SCREEN_DIGITS + 1]).rstrip("0")
    if a[_SCREEN_DIGITS + 1:13] < "979000":
        return low, low
    b = f"{m * (1 + 1e-8):.11e}"
    return low, (b[0] + b[2:_SCREEN_DIGITS + 1]).rstrip("0")


class _Query:
    """A text normalised and parsed for numbers on first need (the query, the answer)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._norm: str | None = None
        self._readings: tuple[tuple[float, float], ...] | None = None
        self._slack: list[tuple[float, float]] | None = None
        self._numbers: tuple[float, ...] | None = None

    @property
    def norm(self) -> str:
        if self._norm is None:
            self._norm = fold_text(self.text)
        return self._norm

    def readings(self) -> tuple[tuple[float, float], ...]:
        if self._readings is None:
            self._readings = text_readings(self.text)
        return self._readings

    def with_slack(self) -> list[tuple[float, float]]:
        """``_with_slack`` of the readings (the answer's, which result numbers are matched to)."""
        if self._slack is None:
            self._slack = _with_slack(self.readings())
        return self._slack

    def numbers(self) -> tuple[float, ...]:
        """The readings' values (the query's, asked once per call's echo)."""
        if self._numbers is None:
            self._numbers = tuple([v for v, _tol in self.readings()])
        return self._numbers


class _Answer(_Query):
    """The answer: its readings from ``parse_text``, which holds what the offline judge read of
    it (``Agentic.run`` judges and scores a chunk of interactions at a time), so it is not
    scanned again; read anew, it builds only the readings."""

    def readings(self) -> tuple[tuple[float, float], ...]:
        if self._readings is None:
            self._readings = parse_text(self.text).readings
        return self._readings


def _capped_leaves(result: Any) -> tuple[list[Any], bool]:
    """The result's searchable leaves in order (numbers as they are, anything else as text),
    text cut at ``MAX_RESULT_CHARS`` in all; and whether it was cut."""
    kind = type(result)
    if kind is int or kind is float:  # most results: one number, nothing to walk or cut
        return [result], False
    out: list[Any] = []
    budget, cut = MAX_RESULT_CHARS, False
    for leaf in _all_leaves(result):
        kind = type(leaf)
        if kind is str:
            text = leaf
        elif kind is int or kind is float:
            out.append(leaf)
            continue
        elif kind is bool or leaf is None:
            continue
        elif _is_number(leaf):
            out.append(leaf)
            continue
        else:
            text = str(leaf)
        if budget <= 0:
            cut = True
            break
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
        for seg in _SENTENCE_END.split(norm):
            seg = seg.strip(" .!?;:,")
            if len(seg) >= _MIN_SEGMENT and seg != norm:
                candidates.append(seg)
    return candidates


def _search_call(leaves: list[Any], echo: _Echo, answer: _Query) -> tuple[bool, str | None]:
    """(searchable, what was found) for one call's result.

    Texts first, in leaf order: the first one in the answer is the evidence, and nothing needs
    parsing. Then numbers, in leaf order: the first strong one the answer shows; weak ones
    (integers below 10) only when the result has no text and no strong number to look for.

    Texts and numbers that are echoes (``_Echo``) are not looked for, and whether one is an echo
    is asked only where the outcome depends on it: for a text in the answer at once; for the
    others, which only make the result searchable, at the end and only if nothing was found. A
    number is "shown" when it lies within the slack of an answer reading that is not an echo,
    so a number near none of the answer's readings is no evidence whatever the echo holds, and
    of the answer's readings only those near the number are asked whether they are echoes.
    """
    wholes = [_whole_number(leaf) if type(leaf) is str else None for leaf in leaves]
    unfound: list[str] = []  # texts not in the answer: searchable, unless every one is an echo
    for leaf, whole in zip(leaves, wholes):
        if whole is None and type(leaf) is str:
            for t in _text_candidates(leaf):
                if not _text_in(t, answer.norm):  # the answer normalised only if a text is sought
                    unfound.append(t)
                elif not echo.has_text(t):
                    return True, _show(t, 40)
    said = answer.with_slack()
    strong, unsettled, weak = False, [], []
    for leaf, whole in zip(leaves, wholes):
        if type(leaf) is str:
            if whole is None:
                values = [v for v, _tol in text_readings(leaf) if not (v.is_integer() and abs(v) < 10)]
                is_strong = True
            else:
                values, is_strong = [whole], not (whole.is_integer() and abs(whole) < 10)
        else:
            x = to_float(leaf)
            values, is_strong = [x], not (x.is_integer() and abs(x) < 10)
        for x in values:
            if not math.isfinite(x):
                continue
            if not is_strong:
                weak.append(x)  # its echo is asked below, if weak numbers are looked for
            elif not _number_in(x, said):  # within no answer reading: not shown
                if not strong:
                    unsettled.append(x)  # makes the result searchable unless it is an echo
            elif not echo.has_number(x):
                strong = True
                if _shown(x, said, echo):
                    return True, _show_number(x)
    if strong or any(not echo.has_text(t) for t in unfound) or any(
            not echo.has_number(x) for x in unsettled):
        return True, None
    weak = [x for x in weak if not echo.has_number(x)]
    if not weak:
        return False, None
    hit = next((x for x in weak if _shown(x, said, echo)), None)
    return True, None if hit is None else _show_number(hit)


def _shown(x: float, said: list[tuple[float, float]], echo: _Echo) -> bool:
    """``x``, which is no echo, lies within the slack of an answer reading (``_number_in``) that
    is not an echo; the echo is asked only about the readings near ``x`` (an answer has several,
    and most numbers are near one of them at most) and other than ``x`` (most often, the answer
    wrote the number as the tool gave it)."""
    for value, slack in said:
        if (abs(x - value) <= slack or (x < 0 and abs(-x - value) <= slack)) and (
                value == x or not echo.has_number(value)):
            return True
    return False


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
    said, asked = _Answer(answer or ""), _Query(query or "")
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
