"""Numbers as people write them, shared by the tool-use scorer and the offline judge.

One parser, so ``"$1,234.50"``, ``"42%"``, ``"2.5 million"``, ``"1.2e5"`` and ``"\u22123"`` mean the
same thing to every part of agenteval. Values are exact (``Fraction`` built from the written
digits), so a rounding band such as "within half a displayed unit" has no float edge cases:
``0.15 - 0.1`` is exactly ``0.05`` here.

What is recognised (after Unicode NFKC normalisation):

- an optional sign (``-``, ``+``, U+2212) and currency sign (``$ \u20ac \u00a3 \u00a5``) in either order,
  the sign written directly before the digits or the currency sign: ``-3``, ``-$3``, ``$-3``, but
  the ``-`` of ``5 - 3`` or ``5-3`` is an operator, so both are read as 5 and 3;
- digits with optional thousands commas (``1,234``) and decimals (``1,234.5``, ``.5``);
- an optional exponent (``1.2e5``);
- then optionally a percent (``%``, ``percent``, ``per cent``) or a scale word
  (``thousand k million mn billion bn trillion tn``).

A number glued to a letter or a dot on its left (``AF123``, ``v1.2``'s ``2``) is not a number.

Any model output reaches this parser, so it never spends unbounded time or raises on odd input:
a digit run longer than ``MAX_DIGITS`` or an exponent beyond ``MAX_EXPONENT`` (``1e99999999``)
is read as text, not as a number, and the float readings leave out values a float cannot hold
(``1e400``), which are still compared exactly as fractions by the offline judge.
"""

from __future__ import annotations

import functools

import math
import re
import unicodedata
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["MAX_DIGITS", "MAX_EXPONENT", "WrittenNumber", "find_numbers", "fold_text",
           "is_whole_number", "number_readings", "remove_numbers", "to_float"]

MAX_DIGITS = 400
"""Longest digit run (commas and the decimal point not counted) read as a number; longer is text.
Python refuses int(str) beyond 4300 digits, and no answer needs 400 significant digits."""

MAX_EXPONENT = 400
"""Largest ``|e|`` of a written exponent read as a number: ``10**e`` is exact arithmetic, so an
unbounded ``e`` (``1e99999999``) would take unbounded time and memory."""

_SCALES = {"thousand": 10**3, "k": 10**3, "million": 10**6, "mn": 10**6, "billion": 10**9,
           "bn": 10**9, "trillion": 10**12, "tn": 10**12}

_NUMBER_RE = re.compile(
    r"(?<![\w.])(?P<sign>[-\u2212+])?(?:(?P<cur>[$\u20ac\u00a3\u00a5])\s?)?(?P<sign2>[-\u2212])?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:[eE](?P<exp>[-+]?\d+))?"
    r"(?:\s?(?P<pct>%|percent\b|per\s?cent\b)"
    r"|\s?(?P<scale>thousand|million|billion|trillion|mn|bn|tn|k)\b)?",
    re.IGNORECASE,
)


def fold_text(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed: the form in which texts are compared."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@dataclass(frozen=True)
class WrittenNumber:
    """One number written in a text, with the precision its writer displayed."""

    value: Fraction  # exact; sign, exponent and scale word applied; percent NOT applied ("42%" -> 42)
    half_unit: Fraction  # half a unit of the last displayed digit, in the same units as value
    decimals: int  # digits written after the decimal point of the mantissa
    percent: bool  # written with %, "percent" or "per cent"
    scale: int  # 1, or the multiplier of a scale word ("2.5 million" -> 10**6)

    @property
    def fraction_value(self) -> Fraction:
        """The value as a plain number: a percentage divided by 100 ("42%" -> 0.42)."""
        return self.value / 100 if self.percent else self.value


def find_numbers(text: str) -> list[WrittenNumber]:
    """Every number written in ``text``, in order.

    >>> [(float(n.value), float(n.half_unit), n.percent) for n in find_numbers("$1,234.50 or 42%")]
    [(1234.5, 0.005, False), (42.0, 0.5, True)]
    >>> float(find_numbers("2.5 million")[0].value)
    2500000.0
    """
    return list(_numbers_in(text))


CACHED_TEXT_CHARS = 2048
"""Texts up to this length are parsed once and cached (answers and tool results repeat across
calls); longer ones are parsed each time, so the cache never holds large documents."""


def _numbers_in(text: str) -> tuple[WrittenNumber, ...]:
    return _numbers_in_cached(text) if len(text) <= CACHED_TEXT_CHARS else _parse_all(text)


def _parse_all(text: str) -> tuple[WrittenNumber, ...]:
    parsed = (_parse(m) for m in _NUMBER_RE.finditer(unicodedata.normalize("NFKC", text)))
    return tuple(n for n in parsed if n is not None)


_numbers_in_cached = functools.lru_cache(maxsize=8192)(_parse_all)


def _parse(m: re.Match[str]) -> WrittenNumber | None:
    """The number one regex match wrote, or None when it is too long or its exponent too large.

    Both checks come before any arithmetic, so each match costs time bounded by its length.
    """
    digits = m.group("num").replace(",", "")
    if len(digits) - ("." in digits) > MAX_DIGITS:
        return None
    exp = m.group("exp")
    if exp is not None:
        # checked as text first: int() of a huge run is slow, or refused past 4300 digits
        magnitude = exp.lstrip("+-").lstrip("0") or "0"
        if len(magnitude) > 4 or int(magnitude) > MAX_EXPONENT:
            return None
        exp = f"-{magnitude}" if exp.startswith("-") else magnitude
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    value = Fraction(digits)
    half = Fraction(1, 2 * 10**decimals)
    if exp is not None:
        factor = Fraction(10) ** int(exp)
        value, half = value * factor, half * factor
    if m.group("sign") in ("-", "\u2212") or m.group("sign2"):
        value = -value
    scale = _SCALES[m.group("scale").lower()] if m.group("scale") else 1
    return WrittenNumber(value * scale, half * scale, decimals, bool(m.group("pct")), scale)


def to_float(value: Fraction) -> float:
    """``float(value)``, but ``inf``/``-inf`` where a float cannot hold it (instead of raising)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _reading(value: Fraction, half: Fraction) -> tuple[float, float] | None:
    """A ``(value, tolerance)`` float pair, or None when the value does not fit a float: an
    overflow would be inf, an underflow 0.0, either of which would match the wrong numbers."""
    v = to_float(value)
    if not math.isfinite(v) or (v == 0 and value != 0):
        return None
    return v, to_float(half)


def number_readings(text: str) -> list[tuple[float, float]]:
    """Every way a number in ``text`` may be read, as ``(value, tolerance)`` floats.

    Each number gives its value with half a displayed unit as tolerance; a scaled number also
    gives its bare mantissa (a result may be in millions), a percentage also its fraction:
    ``"42%"`` -> (42, 0.5), (0.42, 0.005); ``"2.5 million"`` -> (2.5, 0.05), (2.5e6, 5e4).
    """
    return list(_readings_in(text) if len(text) > CACHED_TEXT_CHARS else _readings_in_cached(text))


def _readings_in(text: str) -> tuple[tuple[float, float], ...]:
    out: list[tuple[float, float]] = []
    for n in _numbers_in(text):
        readings = [(n.value, n.half_unit)]
        if n.scale != 1:
            readings.insert(0, (n.value / n.scale, n.half_unit / n.scale))
        if n.percent:
            readings.append((n.value / 100, n.half_unit / 100))
        out.extend(r for r in (_reading(v, h) for v, h in readings) if r is not None)
    return tuple(out)


_readings_in_cached = functools.lru_cache(maxsize=8192)(_readings_in)


def is_whole_number(text: str) -> bool:
    """True when ``text`` is a single written number and nothing else (``" $12.50 "``)."""
    m = _NUMBER_RE.fullmatch(unicodedata.normalize("NFKC", text).strip())
    return m is not None and _parse(m) is not None


def remove_numbers(text: str, *, placeholder: str = " ") -> str:
    """``text`` (NFKC) with every written number, with its sign, currency, % or scale word,
    replaced by ``placeholder``. What ``find_numbers`` reads as text (too long) stays."""
    return _NUMBER_RE.sub(lambda m: placeholder if _parse(m) is not None else m.group(0),
                          unicodedata.normalize("NFKC", text))
