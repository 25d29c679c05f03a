"""Straightforward restatements of how numbers are read and compared, for the fast paths' tests.

Each function here is the definition written the slow, obvious way: one regular expression run
with ``finditer`` over the NFKC text (words matched in either ASCII case by explicit character
classes), exact ``Fraction`` values, readings as the exact values rounded to floats, the judge's
rules and the evidence search as the plain loops over every number and every leaf, with
``math.isclose`` against every echoed number. Nothing here imports agenteval's parser, the
judge's normalisation or the evidence search: the tests compare those against these.
"""

from __future__ import annotations

import math
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Context, Decimal
from fractions import Fraction as F
from typing import Any


def _either_case(word: str) -> str:
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)


SCALES = {"thousand": 3, "k": 3, "million": 6, "mn": 6, "billion": 9, "bn": 9,
          "trillion": 12, "tn": 12}
NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-\u2212+])?(?:(?P<cur>[$\u20ac\u00a3\u00a5])\s?)?(?P<sign2>[-\u2212])?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:[eE](?P<exp>[-+]?\d+))?"
    rf"(?:\s?(?P<pct>%|{_either_case('percent')}\b|{_either_case('per')}\s?{_either_case('cent')}\b)"
    r"|\s?(?P<scale>" + "|".join(_either_case(w) for w in
                                 ("thousand", "million", "billion", "trillion", "mn", "bn", "tn", "k"))
    + r")\b)?"
)


@dataclass(frozen=True)
class Num:
    value: F  # sign, exponent and scale applied, percent not
    half: F  # half a unit of the last written digit
    decimals: int
    percent: bool
    scale: int


def matches(text: str) -> list[tuple[re.Match[str], Num | None]]:
    """Every match in the NFKC text, with its number (None: too many digits or too large an
    exponent, so it is text)."""
    out = []
    for m in NUMBER.finditer(unicodedata.normalize("NFKC", text)):
        digits = m["num"].replace(",", "")
        decimals = len(digits) - digits.index(".") - 1 if "." in digits else 0
        if len(digits.replace(".", "")) > 400:
            out.append((m, None))
            continue
        e = 0
        if m["exp"] is not None:
            magnitude = m["exp"].lstrip("+-").lstrip("0") or "0"
            if len(magnitude) > 3 or int(magnitude) > 400:  # 4+ digits: at least 1000
                out.append((m, None))
                continue
            e = -int(magnitude) if m["exp"].startswith("-") else int(magnitude)
        power = SCALES[m["scale"].lower()] if m["scale"] else 0
        ten = F(10) ** (e + power)
        value = F(int(digits.replace(".", "")), 10**decimals) * ten
        if m["sign"] in ("-", "\u2212") or m["sign2"]:
            value = -value
        out.append((m, Num(value, F(1, 2) * ten / 10**decimals, decimals, bool(m["pct"]), 10**power)))
    return out


def numbers(text: str) -> list[Num]:
    return [n for _m, n in matches(text) if n is not None]


def to_float(v: F) -> float:
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def readings(text: str) -> list[tuple[float, float]]:
    """Exact value and half unit rounded to floats: the bare mantissa of a scaled number first,
    the hundredth of a percentage last; none that a float cannot hold (inf, or 0.0 for a
    non-zero value)."""
    out = []
    for n in numbers(text):
        exact = [(n.value, n.half)]
        if n.scale != 1:
            exact.insert(0, (n.value / n.scale, n.half / n.scale))
        if n.percent:
            exact.append((n.value / 100, n.half / 100))
        for v, h in exact:
            f = to_float(v)
            if math.isfinite(f) and (f != 0 or v == 0):
                out.append((f, to_float(h)))
    return out


def remove_numbers(text: str, placeholder: str = " ") -> str:
    nfkc = unicodedata.normalize("NFKC", text)
    pieces, pos = [], 0
    for m, n in matches(text):
        if n is not None:
            pieces += [nfkc[pos:m.start()], placeholder]
            pos = m.end()
    return "".join(pieces) + nfkc[pos:]


def is_whole_number(text: str) -> bool:
    stripped = unicodedata.normalize("NFKC", text).strip()
    found = matches(stripped)
    return len(found) == 1 and found[0][0].span() == (0, len(stripped)) and found[0][1] is not None


def fold_text(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


# ---------------------------------------------------------------------------- the offline judge

_KEPT = "\ue000"
_PUNCT = str.maketrans({ch: " " for ch in string.punctuation + "\u2212" if ch != "%"}
                       | {"%": " percent "})


def normalize_text(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower().replace(_KEPT, " ")
    text = re.sub(r"(?<![\w.])[-\u2212](?=\.?\d)", _KEPT, text)
    text = text.translate(_PUNCT).replace(_KEPT, "-")
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def same_number(r: Num, a: Num, rel_tol: float = 1e-9) -> bool:
    if r.percent == a.percent:
        rv, av, half = r.value, a.value, a.half
    else:
        rv = r.value / 100 if r.percent else r.value
        av = a.value / 100 if a.percent else a.value
        half = a.half / 100 if a.percent else a.half
    diff = abs(rv - av)
    return diff == 0 or diff <= F(rel_tol) * max(abs(rv), abs(av)) or (a.decimals > 0 and diff < half)


def numbers_match(reference: str, answer: str) -> bool:
    refs, answers = numbers(reference), numbers(answer)
    return bool(refs) and all(any(same_number(r, a) for a in answers) for r in refs)


def token_f1(norm_answer: str, norm_reference: str) -> float:
    a, r = norm_answer.split(), norm_reference.split()
    if not a or not r:
        return float(a == r)
    overlap = sum((Counter(a) & Counter(r)).values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(a), overlap / len(r)
    return 2 * precision * recall / (precision + recall)


def _show(n: Num) -> str:
    x = to_float(n.value)
    if math.isfinite(x) and (x != 0 or n.value == 0):
        text = f"{x:g}"
    else:
        ctx = Context(prec=6)
        exact = ctx.divide(Decimal(n.value.numerator), Decimal(n.value.denominator))
        text = f"{exact.normalize(ctx):g}"
    return text + ("%" if n.percent else "")


def score_answer(answer: str, reference: str) -> tuple[float, str]:
    """(score, reasoning) by the judge's rules, in the order its docstring gives them."""
    na, nr = normalize_text(answer), normalize_text(reference)
    refs = numbers(reference)
    if refs and not numbers_match(reference, answer):
        f1 = token_f1(na, nr)
        wrong = ", ".join(_show(n) for n in refs)
        return min(f1, 0.5), (f"reference number(s) {wrong} not found in the answer; "
                              f"token F1 {f1:.2f}, capped at 0.5")
    if na == nr:
        return 1.0, "exact match after normalisation"
    if refs:
        words = set(na.split()) | set(normalize_text(remove_numbers(answer)).split())
        ref_words = [w for w in normalize_text(remove_numbers(reference, "0")).split()
                     if not numbers(w)]
        if all(w in words for w in ref_words):
            return 1.0, "every number and word of the reference appears in the answer"
    if nr and re.search(rf"(?<!\S){re.escape(nr)}(?!\S)", na):
        return 1.0, "the answer contains the reference"
    f1 = token_f1(na, nr)
    return f1, f"token F1 {f1:.2f}"


# ---------------------------------------------------------------------------- the evidence search

_COMMON = frozenset({
    "ok", "okay", "true", "false", "none", "null", "nil", "yes", "no", "n/a", "na", "nan",
    "success", "successful", "succeeded", "error", "failed", "failure", "done", "complete",
    "completed", "pending", "unknown", "empty", "result", "results", "status", "data", "value",
    "the", "and", "for", "not", "inf", "infinity",
})


def _leaves(x: Any) -> list[Any]:
    if isinstance(x, Mapping):
        return [leaf for v in x.values() for leaf in _leaves(v)]
    if isinstance(x, (list, tuple, set, frozenset)):
        return [leaf for v in x for leaf in _leaves(v)]
    return [x]


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _as_float(x: float) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def _text_in(phrase: str, text: str) -> bool:
    return bool(phrase) and re.search(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text) is not None


def _candidates(text: str) -> list[str]:
    norm = fold_text(text)
    if len(norm) < 3 or norm in _COMMON:
        return []
    out = [norm]
    if len(norm) > 20:
        for seg in re.split(r"(?<=[.!?;:])\s+|\n+", norm):
            seg = seg.strip(" .!?;:,")
            if len(seg) >= 20 and seg != norm:
                out.append(seg)
    return out


def _shown(x: float, said: list[tuple[float, float]]) -> bool:
    for v, tol in said:
        slack = tol * (1 + 1e-9) + 1e-12
        if abs(x - v) <= slack or (x < 0 and abs(-x - v) <= slack):
            return True
    return False


def _weak(x: float) -> bool:
    return x.is_integer() and abs(x) < 10


def _show_number(x: float) -> str:
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def search_call(result: Any, answer: str, query: str, parameters: Any) -> tuple[bool, str | None]:
    """(searchable, what was found) for one call: the plain loops (no result is cut here)."""
    leaves = [x if _is_number(x) else str(x) for x in _leaves(result)
              if not (isinstance(x, bool) or x is None)]
    given = [x for x in _leaves(parameters)]
    echo_texts = [fold_text(query)] + [fold_text(str(x)) for x in given if isinstance(x, str)]
    echo_numbers = [v for v, _ in readings(query)]
    echo_numbers += [v for x in given if isinstance(x, str) for v, _ in readings(str(x))]
    echo_numbers += [f for f in (_as_float(x) for x in given if _is_number(x)) if math.isfinite(f)]

    def echo_number(x: float) -> bool:
        return any(math.isclose(x, v, rel_tol=1e-9, abs_tol=1e-12) for v in echo_numbers)

    def whole(leaf: Any) -> float | None:
        if isinstance(leaf, str) and is_whole_number(leaf):
            rs = readings(leaf)
            return rs[0][0] if rs else None
        return None

    said = fold_text(answer)
    texts = False
    for leaf in leaves:
        if isinstance(leaf, str) and whole(leaf) is None:
            for t in _candidates(leaf):
                if not any(_text_in(t, e) for e in echo_texts):
                    texts = True
                    if _text_in(t, said):
                        return True, repr(t) if len(repr(t)) <= 40 else repr(t)[:37] + "..."
    shown = [(v, tol) for v, tol in readings(answer) if not echo_number(v)]
    strong, weak = False, []
    for leaf in leaves:
        w = whole(leaf)
        if isinstance(leaf, str) and w is None:
            values, kind_strong = [v for v, _ in readings(leaf) if not _weak(v)], True
        else:
            x = w if isinstance(leaf, str) else _as_float(leaf)
            values, kind_strong = [x], not _weak(x)
        for x in values:
            if not math.isfinite(x) or echo_number(x):
                continue
            if kind_strong:
                strong = True
                if _shown(x, shown):
                    return True, _show_number(x)
            else:
                weak.append(x)
    if texts or strong:
        return True, None
    if not weak:
        return False, None
    hit = next((x for x in weak if _shown(x, shown)), None)
    return True, None if hit is None else _show_number(hit)
