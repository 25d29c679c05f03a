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
from fractions import Fraction

__all__ = ["MAX_DIGITS", "MAX_EXPONENT", "WrittenNumber", "find_numbers", "fold_text",
           "is_whole_number", "number_readings", "remove_numbers", "to_float"]

MAX_DIGITS = 400
"""Longest digit run (commas and the decimal point not counted) read as a number; longer is text.
Python refuses int(str) beyond 4300 digits, and no answer needs 400 significant digits."""

MAX_EXPONENT = 400
"""Largest ``|e|`` of a written exponent read as a number: ``10**e`` is exact arithmetic, so an
unbounded ``e`` (``1e99999999``) would take unbounded time and memory."""

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


class WrittenNumber:
    """One number written in a text, with the precision its writer displayed.

    Parsing keeps the written digits and a power of ten; the exact ``Fraction`` attributes are
    built only when a comparison asks for them, and the float readings come straight from the
    digits (``float("1234.50e3")`` is correctly rounded, as ``float(Fraction)`` is, so both give
    the same float), so reading a text costs no rational arithmetic.
    """

    __slots__ = ("_digits", "_exp10", "_negative", "decimals", "percent", "scale", "_value",
                 "_nonzero")

    def __init__(self, digits: str, exp10: int, negative: bool, decimals: int, percent: bool,
                 scale: int) -> None:
        self._digits = digits  # mantissa as written, commas removed ("1234.50", ".5")
        self._exp10 = exp10  # written exponent plus the scale word's power of ten
        self._negative = negative
        self.decimals = decimals  # digits written after the decimal point of the mantissa
        self.percent = percent  # written with %, "percent" or "per cent"
        self.scale = scale  # 1, or the multiplier of a scale word ("2.5 million" -> 10**6)
        self._value: Fraction | None = None
        self._nonzero = digits.strip("0.") != ""

    @property
    def value(self) -> Fraction:
        """Exact value; sign, exponent and scale word applied; percent NOT applied ("42%" -> 42)."""
        if self._value is None:
            e = self._exp10 - self.decimals
            m = int(self._digits.replace(".", ""))
            v = Fraction(m * 10**e) if e >= 0 else Fraction(m, 10**-e)
            self._value = -v if self._negative else v
        return self._value

    @property
    def half_unit(self) -> Fraction:
        """Half a unit of the last displayed digit, in the same units as ``value``."""
        e = self._exp10 - self.decimals - 1
        return Fraction(5 * 10**e) if e >= 0 else Fraction(5, 10**-e)

    @property
    def fraction_value(self) -> Fraction:
        """The value as a plain number: a percentage divided by 100 ("42%" -> 0.42)."""
        return self.value / 100 if self.percent else self.value

    def float_value(self, shift: int = 0) -> float:
        """``to_float(value * 10**shift)``, correctly rounded from the digits (+-inf past range)."""
        v = float(f"{self._digits}e{self._exp10 + shift}")
        return -v if self._negative and v else v

    def float_half(self, shift: int = 0) -> float:
        """``to_float(half_unit * 10**shift)``."""
        return float(f"5e{self._exp10 - self.decimals - 1 + shift}")

    @property
    def is_zero(self) -> bool:
        return not self._nonzero

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WrittenNumber):
            return NotImplemented
        return (self.value, self.half_unit, self.decimals, self.percent, self.scale) == (
            other.value, other.half_unit, other.decimals, other.percent, other.scale)

    def __hash__(self) -> int:
        return hash((self.value, self.decimals, self.percent, self.scale))

    def __repr__(self) -> str:
        return (f"WrittenNumber(value={self.value!r}, half_unit={self.half_unit!r}, "
                f"decimals={self.decimals}, percent={self.percent}, scale={self.scale})")


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
    text = unicodedata.normalize("NFKC", text)
    if _DIGIT(text) is None:  # every number has a digit; the scan for one is cheap
        return ()
    parsed = (_parse(m) for m in _NUMBER_RE.finditer(text))
    return tuple(n for n in parsed if n is not None)


_DIGIT = re.compile(r"\d").search


_numbers_in_cached = functools.lru_cache(maxsize=8192)(_parse_all)

_SCALE_POWERS = {"thousand": 3, "k": 3, "million": 6, "mn": 6, "billion": 9, "bn": 9,
                 "trillion": 12, "tn": 12}


def _parse(m: re.Match[str]) -> WrittenNumber | None:
    """The number one regex match wrote, or None when it is too long or its exponent too large.

    Both checks come before any conversion, so each match costs time bounded by its length.
    """
    sign, _cur, sign2, num, exp, pct, scale_word = m.groups()
    digits = num.replace(",", "") if "," in num else num
    point = "." in digits
    if len(digits) - point > MAX_DIGITS:
        return None
    e = 0
    if exp is not None:
        # checked as text first: int() of a huge run is slow, or refused past 4300 digits
        magnitude = exp.lstrip("+-").lstrip("0") or "0"
        if len(magnitude) > 4 or int(magnitude) > MAX_EXPONENT:
            return None
        e = -int(magnitude) if exp.startswith("-") else int(magnitude)
    decimals = len(digits) - digits.index(".") - 1 if point else 0
    scale = 1
    if scale_word:
        power = _SCALE_POWERS[scale_word.lower()]
        scale, e = 10**power, e + power
    negative = sign in ("-", "\u2212") or bool(sign2)
    return WrittenNumber(digits, e, negative, decimals, bool(pct), scale)


def to_float(value: Fraction) -> float:
    """``float(value)``, but ``inf``/``-inf`` where a float cannot hold it (instead of raising)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def number_readings(text: str) -> list[tuple[float, float]]:
    """Every way a number in ``text`` may be read, as ``(value, tolerance)`` floats.

    Each number gives its value with half a displayed unit as tolerance; a scaled number also
    gives its bare mantissa (a result may be in millions), a percentage also its fraction:
    ``"42%"`` -> (42, 0.5), (0.42, 0.005); ``"2.5 million"`` -> (2.5, 0.05), (2.5e6, 5e4).
    A value a float cannot hold (an overflow would be inf, an underflow 0.0, either of which
    would match the wrong numbers) gives no reading.
    """
    return list(_readings_in(text) if len(text) > CACHED_TEXT_CHARS else _readings_in_cached(text))


def readings_of(numbers: tuple[WrittenNumber, ...] | list[WrittenNumber]) -> list[tuple[float, float]]:
    """``number_readings`` of already parsed numbers."""
    out: list[tuple[float, float]] = []
    for n in numbers:
        shifts = (0,) if n.scale == 1 else (-len(str(n.scale)) + 1, 0)
        if n.percent:
            shifts = (*shifts, -2)
        for shift in shifts:
            v = n.float_value(shift)
            if v != v or v in (math.inf, -math.inf) or (v == 0 and not n.is_zero):
                continue
            out.append((v, n.float_half(shift)))
    return out


def _readings_in(text: str) -> tuple[tuple[float, float], ...]:
    return tuple(readings_of(_numbers_in(text)))


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
