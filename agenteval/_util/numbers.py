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
  (``thousand k million mn billion bn trillion tn``), in any ASCII case.

A number glued to a letter or a dot on its left (``AF123``, ``v1.2``'s ``2``) is not a number.

Any model output reaches this parser, so it never spends unbounded time or raises on odd input:
a digit run longer than ``MAX_DIGITS`` or an exponent beyond ``MAX_EXPONENT`` (``1e99999999``)
is read as text, not as a number, and the float readings leave out values a float cannot hold
(``1e400``), which are still compared exactly as fractions by the offline judge.

Each text is read once: ``parse_text`` gives its numbers (what the offline judge compares
exactly) and ``text_readings`` its float readings (what the evidence search compares, within a
documented slack); both are cached for short texts in bounded LRU caches. Exact arithmetic is
done only where a comparison is too close for floats to settle, and then in integers scaled to a
common power of ten; a float reading is the correctly rounded value of the written digits, so it
equals the exact value rounded (``tests/test_numbers_reference.py`` checks all of this against
the plain definitions).
"""

from __future__ import annotations

import functools

import math
import re
import unicodedata
from fractions import Fraction

__all__ = ["MAX_DIGITS", "MAX_EXPONENT", "ParsedText", "WrittenNumber", "find_numbers", "fold_text",
           "is_whole_number", "number_readings", "parse_text", "remove_numbers",
           "text_readings", "to_float"]

MAX_DIGITS = 400
"""Longest digit run (commas and the decimal point not counted) read as a number; longer is text.
Python refuses int(str) beyond 4300 digits, and no answer needs 400 significant digits."""

MAX_EXPONENT = 400
"""Largest ``|e|`` of a written exponent read as a number: ``10**e`` is exact arithmetic, so an
unbounded ``e`` (``1e99999999``) would take unbounded time and memory."""

_NUMBER_RE = re.compile(
    # The lookahead names every character a number can start with, so the scan fails at once at
    # any other position. Only the words are matched regardless of case, and of ASCII case only
    # (the signs, currency signs and digits have no case; after NFKC the one other letter that
    # Unicode case-insensitive matching took for an ASCII one is the Turkish dotless or dotted
    # i, whose "mıllion" then failed the scale look-up with a KeyError).
    # The sign, currency sign and second sign are one group (a minus anywhere in it makes the
    # number negative): findall builds a string per group and match, so fewer groups, less work.
    r"(?=[-\u2212+$\u20ac\u00a3\u00a5\d.])"
    r"(?<![\w.])(?P<prefix>[-\u2212+]?(?:[$\u20ac\u00a3\u00a5]\s?)?[-\u2212]?)"
    # Thousands groups only where a comma follows the first one to three digits, and a percent
    # or scale word only where its first letter follows: both lookaheads say what the
    # alternatives behind them need anyway, so the engine does not try those in vain.
    r"(?P<num>(?=\d{1,3},\d{3})\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:[eE](?P<exp>[-+]?\d+))?"
    r"(?:(?=\s?[%pPtTmMbBkK])(?:\s?(?P<pct>%|(?ai:percent)\b|(?ai:per)\s?(?ai:cent)\b)"
    r"|\s?(?P<scale>(?ai:thousand|million|billion|trillion|mn|bn|tn|k))\b))?",
)


def fold_text(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed: the form in which texts are compared."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


_UNSET = object()


class WrittenNumber:
    """One number written in a text, with the precision its writer displayed.

    Parsing keeps the written digits and a power of ten; the exact ``Fraction`` attributes are
    built only when a comparison asks for them, and the float readings come straight from the
    digits (``float("1234.50e3")`` is correctly rounded, as ``float(Fraction)`` is, so both give
    the same float), so reading a text costs no rational arithmetic.
    """

    __slots__ = ("_digits", "_exp10", "_negative", "decimals", "percent", "scale", "written",
                 "_value", "_float", "_key")

    def __init__(self, digits: str, exp10: int, negative: bool, decimals: int, percent: bool,
                 scale: int) -> None:
        self._digits = digits  # mantissa as written, commas removed ("1234.50", ".5")
        self._exp10 = exp10  # written exponent plus the scale word's power of ten
        self._negative = negative
        self.decimals = decimals  # digits written after the decimal point of the mantissa
        self.percent = percent  # written with %, "percent" or "per cent"
        self.scale = scale  # 1, or the multiplier of a scale word ("2.5 million" -> 10**6)
        # the number as written, commas left out: two numbers written alike are equal (equal
        # value_key and percent), which a comparison can see before working out either key
        self.written = (digits, exp10, negative, percent)
        self._value: Fraction | None = None
        self._float: float | None = None  # float_value(0), kept: every comparison asks for it
        self._key: object = _UNSET  # value_key, kept likewise

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

    def scaled_integer(self) -> tuple[int, int]:
        """``(m, e)`` with ``value == m * 10**e`` exactly, for integer arithmetic."""
        m = int(self._digits.replace(".", ""))
        return (-m if self._negative else m), self._exp10 - self.decimals

    def half_exponent(self) -> int:
        """``e`` with ``half_unit == 5 * 10**e``."""
        return self._exp10 - self.decimals - 1

    @property
    def fraction_value(self) -> Fraction:
        """The value as a plain number: a percentage divided by 100 ("42%" -> 0.42)."""
        return self.value / 100 if self.percent else self.value

    def float_value(self, shift: int = 0) -> float:
        """``to_float(value * 10**shift)``, correctly rounded from the digits (+-inf past range)."""
        if shift == 0:
            if self._float is None:
                # float("12.5") is float("12.5e0"): both the correctly rounded decimal
                v = float(self._digits) if self._exp10 == 0 else float(f"{self._digits}e{self._exp10}")
                self._float = -v if self._negative and v else v
            return self._float
        v = float(f"{self._digits}e{self._exp10 + shift}")
        return -v if self._negative and v else v

    def float_half(self, shift: int = 0) -> float:
        """``to_float(half_unit * 10**shift)``."""
        return _five_times_ten_to(self._exp10 - self.decimals - 1 + shift)

    @property
    def is_zero(self) -> bool:
        return self._digits.strip("0.") == ""

    @property
    def value_key(self) -> tuple[bool, str, int] | None:
        """``(negative, significant digits, power of ten)``, one per exact value (None for zero),
        so two values are equal exactly when their keys are, with no rational arithmetic:
        "1.50", "1.5" and "15e-1" all give ``(False, "15", -1)``."""
        if self._key is _UNSET:
            digits = self._digits.replace(".", "").lstrip("0")
            if not digits:
                self._key = None
            else:
                significant = digits.rstrip("0")
                exponent = self._exp10 - self.decimals + len(digits) - len(significant)
                self._key = (self._negative, significant, exponent)
        return self._key  # type: ignore[return-value]

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


def _five_times_ten_to(e: int) -> float:
    """``float(5 * 10**e)`` correctly rounded (0.0 or inf past the float range), kept in
    ``_HALVES``: ``e`` is bounded by the digit and exponent limits, so it holds few values."""
    half = _HALVES.get(e)
    if half is None:
        half = _HALVES[e] = float(f"5e{e}")
    return half


_HALVES: dict[int, float] = {}


class ParsedText:
    """One text read once: its NFKC form, the regex's matches, and (each on first need) its
    numbers and their float readings.

    Every consumer of a text's numbers (the offline judge, the evidence search, the removal of
    numbers before comparing words) takes them from here, so a text is scanned once; a consumer
    that needs only the float readings (the evidence search) builds no ``WrittenNumber``.
    """

    __slots__ = ("nfkc", "_groups", "_numbers", "_every_match_read", "_readings")

    def __init__(self, nfkc: str, groups: list[tuple[str, ...]]) -> None:
        self.nfkc = nfkc  # the text after NFKC normalisation (what the parser reads)
        self._groups = groups  # the regex's groups, one tuple per match
        self._numbers: tuple[WrittenNumber, ...] | None = None
        self._every_match_read = True  # no match was too long to be a number (once numbers read)
        self._readings: tuple[tuple[float, float], ...] | None = None

    @property
    def numbers(self) -> tuple[WrittenNumber, ...]:
        """The numbers written in the text, in order."""
        if self._numbers is None:
            numbers = [_read(groups) for groups in self._groups]
            if not all(numbers):  # a match too long to be a number (not "None in": __eq__)
                self._every_match_read = False
                numbers = [n for n in numbers if n is not None]
            self._numbers = tuple(numbers)  # type: ignore[arg-type]
        return self._numbers

    @property
    def readings(self) -> tuple[tuple[float, float], ...]:
        """``number_readings`` of the text."""
        if self._readings is None:
            self._readings = _group_readings(self._groups) if self._groups else ()
        return self._readings

    def without_numbers(self, placeholder: str = " ") -> str:
        """``remove_numbers``: the NFKC text with each number replaced by ``placeholder``."""
        if not self.numbers and self._every_match_read:
            return self.nfkc
        if self._every_match_read:  # every match is a number: a plain substitution
            return _NUMBER_RE.sub(placeholder.replace("\\", "\\\\"), self.nfkc)
        return _NUMBER_RE.sub(lambda m: placeholder if _read(m.groups("")) is not None
                              else m.group(0), self.nfkc)


def find_numbers(text: str) -> list[WrittenNumber]:
    """Every number written in ``text``, in order.

    >>> [(float(n.value), float(n.half_unit), n.percent) for n in find_numbers("$1,234.50 or 42%")]
    [(1234.5, 0.005, False), (42.0, 0.5, True)]
    >>> float(find_numbers("2.5 million")[0].value)
    2500000.0
    """
    return list(parse_text(text).numbers)


CACHED_TEXT_CHARS = 2048
"""Texts up to this length are parsed once and cached (answers and tool results repeat across
calls); longer ones are parsed each time, so the cache never holds large documents."""


def parse_text(text: str) -> ParsedText:
    """The text's :class:`ParsedText` (cached for texts up to ``CACHED_TEXT_CHARS``)."""
    return _numbers_in_cached(text) if len(text) <= CACHED_TEXT_CHARS else _parse_all(text)


def _numbers_in(text: str) -> tuple[WrittenNumber, ...]:
    return parse_text(text).numbers


_DIGIT = re.compile(r"\d").search


def _parse_all(text: str) -> ParsedText:
    text = unicodedata.normalize("NFKC", text)
    if _DIGIT(text) is None:  # every number has a digit; the scan for one is cheap
        return ParsedText(text, [])
    # findall, not finditer: the groups as tuples, with no match object per number
    return ParsedText(text, _NUMBER_RE.findall(text))


_numbers_in_cached = functools.lru_cache(maxsize=8192)(_parse_all)

_SCALE_POWERS = {"thousand": 3, "k": 3, "million": 6, "mn": 6, "billion": 9, "bn": 9,
                 "trillion": 12, "tn": 12}


def _read(groups: tuple[str, ...]) -> WrittenNumber | None:
    """The number one regex match wrote (its groups, "" where a group took no part), or None
    when it is too long or its exponent too large.

    Both checks come before any conversion, so each match costs time bounded by its length.
    """
    prefix, num, exp, pct, scale_word = groups
    digits = num.replace(",", "") if "," in num else num
    point = digits.find(".")
    if len(digits) - (point >= 0) > MAX_DIGITS:
        return None
    e = 0
    if exp:
        # checked as text first: int() of a huge run is slow, or refused past 4300 digits
        magnitude = exp.lstrip("+-").lstrip("0") or "0"
        if len(magnitude) > 4 or int(magnitude) > MAX_EXPONENT:
            return None
        e = -int(magnitude) if exp[0] == "-" else int(magnitude)
    scale = 1
    if scale_word:
        power = _SCALE_POWERS[scale_word.lower()]
        scale, e = 10**power, e + power
    negative = "-" in prefix or "\u2212" in prefix if prefix else False
    return WrittenNumber(digits, e, negative, len(digits) - point - 1 if point >= 0 else 0,
                         pct != "", scale)


def _parse(m: re.Match[str]) -> WrittenNumber | None:
    """``_read`` of a match object."""
    return _read(m.groups(""))


def to_float(value: Fraction | int | float) -> float:
    """``float(value)``, but ``inf``/``-inf`` where a float cannot hold it (instead of raising):
    an exact value, or a JSON integer too large for a float."""
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
    return list(text_readings(text))


def text_readings(text: str) -> tuple[tuple[float, float], ...]:
    """``number_readings`` as a tuple, cached like ``parse_text`` (what the evidence search reads).

    An ASCII text is its own NFKC form, so one without a digit has no number: answered before
    the cache, which then holds only texts worth keeping (a tool result's "USD", "Paris")."""
    if text.isascii() and _DIGIT(text) is None:
        return ()
    return _readings_cached(text) if len(text) <= CACHED_TEXT_CHARS else _readings_all(text)


_PLAIN_DIGITS = 300
"""A number with no exponent or scale word and at most this many digits is read straight to a
float: it lies between 1e-300 and 1e300, so it neither overflows nor underflows (nor does its
hundredth, for a percentage)."""


def _readings_all(text: str) -> tuple[tuple[float, float], ...]:
    """The readings of a text, with no ``ParsedText`` kept (``_group_readings``)."""
    text = unicodedata.normalize("NFKC", text)
    if _DIGIT(text) is None:
        return ()
    return _group_readings(_NUMBER_RE.findall(text))


def _group_readings(matches: list[tuple[str, ...]]) -> tuple[tuple[float, float], ...]:
    """The readings of a text straight from the regex groups: no ``WrittenNumber`` is built for a
    number without exponent or scale word (most numbers), whose readings are ``float(digits)``
    with half a unit, and for a percentage also its hundredth (``float(digits + "e-2")``)."""
    out: list[tuple[float, float]] = []
    halves = _HALVES
    for prefix, num, exp, pct, scale_word in matches:
        if exp or scale_word or len(num) > _PLAIN_DIGITS:
            n = _read((prefix, num, exp, pct, scale_word))
            if n is not None:
                out.extend(readings_of((n,)))
            continue
        digits = num.replace(",", "") if "," in num else num
        v = float(digits)
        if v and prefix and ("-" in prefix or "\u2212" in prefix):
            v = -v
        point = digits.find(".")
        e = point - len(digits) if point >= 0 else -1  # -decimals - 1: the half unit's power
        out.append((v, halves[e] if e in halves else _five_times_ten_to(e)))
        if pct:
            v = float(digits + "e-2")
            if v and prefix and ("-" in prefix or "\u2212" in prefix):
                v = -v
            out.append((v, _five_times_ten_to(e - 2)))
    return tuple(out)


_readings_cached = functools.lru_cache(maxsize=8192)(_readings_all)

_INF = math.inf


def readings_of(numbers: tuple[WrittenNumber, ...] | list[WrittenNumber]) -> list[tuple[float, float]]:
    """``number_readings`` of already parsed numbers."""
    out: list[tuple[float, float]] = []
    for n in numbers:
        if n.scale == 1 and not n.percent:  # the common case: one reading
            v = n.float_value()
            if v == 0 and not n.is_zero or v == _INF or v == -_INF:
                continue
            out.append((v, n.float_half()))
            continue
        shifts: tuple[int, ...] = (0,) if n.scale == 1 else (-len(str(n.scale)) + 1, 0)
        if n.percent:
            shifts = (*shifts, -2)
        for shift in shifts:
            v = n.float_value(shift)
            if v == 0 and not n.is_zero or v == _INF or v == -_INF:
                continue
            out.append((v, n.float_half(shift)))
    return out


_ASCII_STARTS = frozenset("-+$.0123456789")
"""The ASCII characters a number can start with (``_NUMBER_RE``'s first lookahead)."""


def is_whole_number(text: str) -> bool:
    """True when ``text`` is a single written number and nothing else (``" $12.50 "``).

    An ASCII text (its own NFKC form) that starts with no character a number can start with
    is answered without the regex: most strings asked about are words ("Paris", "USD")."""
    if text.isascii():
        text = text.strip()
        if not text or text[0] not in _ASCII_STARTS:
            return False
    else:
        text = unicodedata.normalize("NFKC", text).strip()
    m = _NUMBER_RE.fullmatch(text)
    return m is not None and _parse(m) is not None


def remove_numbers(text: str, *, placeholder: str = " ") -> str:
    """``text`` (NFKC) with every written number, with its sign, currency, % or scale word,
    replaced by ``placeholder``. What ``find_numbers`` reads as text (too long) stays."""
    return parse_text(text).without_numbers(placeholder)
