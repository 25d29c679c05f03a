"""The number parser, the offline judge and the evidence search against their plain definitions.

``tests/reference_numbers.py`` restates each the slow, obvious way (one regex pass, exact
Fractions, the loops over every number, leaf and echo). The fast code parses each text once,
skips NFKC and ``str.translate`` for ASCII text, reads plain decimals straight to floats, decides
number equality from the digits, and asks whether a number is an echo only where the outcome
depends on it. Here both must agree on many seeded random and adversarial inputs: half-unit
boundaries, percentages and scale words in any case, exponents at and past the limit, digit runs
past the limit, non-ASCII digits, full-width text, NFKC-sensitive characters, negative zero.
"""

from __future__ import annotations

import math
import random

import pytest

from agenteval._util import numbers as _numbers
from agenteval.judge import offline
from agenteval.metrics import evidence
from tests import reference_numbers as ref

# Pieces that make numbers and what surrounds them: boundaries at half a displayed unit,
# scale words and percentages in several cases, exponents at and past +-400, long digit runs,
# signs and currency in every order, non-ASCII digits (Arabic-Indic, full-width, circled,
# superscript), ligatures and letters NFKC changes, the Turkish i's, negative zero.
PIECES = [
    "0", "7", "8", "12", "3.14", "3.145", "3.135", "3.15", ".5", "0.15", "0.1", "0.05", "8.5",
    "8.4", "1,234.50", "1,234", "12,345,678", "1,23", "999999999999999999999", "1e3", "2.5e-7",
    "1e308", "1e-320", "4e400", "1e400", "1e401", "1e-400", "1e0400", "0.000", "-0", "-0.0",
    "\u22120.0", "-", "\u2212", "+", "$", "\u20ac", "\u00a3", "\u00a5", "%", " %", " percent",
    " Percent", " PER CENT", " per\u00a0cent", " million", " Million", " MN", "k", "K", " bn",
    " Tn", " thousand", " m\u0131llion", " m\u0130llion", "\u212a", " ", "  ", "\t", "\n", "x",
    "v1.", "AF", "e5", "E-3", ".", ",", "-", "(", ")", "\uff11\uff12", "\u0663\u0664", "\u2460",
    "\u00b2", "\ufb01", "\u00bd", "\u2212\u0031", "1" * 401, "9" * 320, "0." + "0" * 310 + "1",
    "\u00a0", "\u2003", "\x1c", "50%", "0.5", "2.5 million", "2500000", "2450000",
]


def random_text(rng: random.Random, pieces: list[str] = PIECES, most: int = 8) -> str:
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, most)))


def texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [random_text(rng) for _ in range(count)]


def described(n: _numbers.WrittenNumber) -> ref.Num:
    return ref.Num(n.value, n.half_unit, n.decimals, n.percent, n.scale)


# ----------------------------------------------------------------------------- the parser


@pytest.mark.parametrize("seed", range(4))
def test_numbers_readings_and_removal_agree_with_the_definition(seed):
    for text in texts(seed, 3000):
        want = ref.numbers(text)
        assert [described(n) for n in _numbers.find_numbers(text)] == want, text
        assert _numbers.number_readings(text) == ref.readings(text), text
        parsed = _numbers.parse_text(text)
        assert list(parsed.readings) == ref.readings(text), text  # its numbers read before
        fresh = _numbers._parse_all(text)
        assert list(fresh.readings) == ref.readings(text), text  # no WrittenNumber built
        assert [described(n) for n in fresh.numbers] == want, text  # built after the readings
        for placeholder in (" ", "0", "\\1"):
            assert _numbers.remove_numbers(text, placeholder=placeholder) == ref.remove_numbers(
                text, placeholder), (text, placeholder)
        assert _numbers.is_whole_number(text) == ref.is_whole_number(text), text


ASCII_PIECES = ["Paris", "USD", "ok", " ", "  ", "\t", "\n", "\x1c", "\x1f", "\x0b", "x", "e",
                "E", "k", "-", "+", "$", ".", ",", "%", "(", "#", "_", "a-b", "v1", "7", "0",
                "3.5", "1,234", "1e3", ".5", "-2", "+4", "$9", " percent", " million"]


@pytest.mark.parametrize("seed", range(2))
def test_ascii_shortcuts_agree_with_the_definition(seed):
    """``is_whole_number`` and ``text_readings`` answer an ASCII text that cannot start a number
    (or has no digit) without the regex or the cache: mostly words, spaces and the ASCII
    separators ``str.strip`` also removes (``\x1c``-``\x1f``), a few numbers among them."""
    rng = random.Random(70 + seed)
    for _ in range(4000):
        text = random_text(rng, ASCII_PIECES, 5)
        assert _numbers.is_whole_number(text) == ref.is_whole_number(text), repr(text)
        assert list(_numbers.text_readings(text)) == ref.readings(text), repr(text)


def test_long_and_uncached_texts_read_the_same():
    rng = random.Random(9)
    for _ in range(20):
        text = " ".join(random_text(rng) for _ in range(400))  # past CACHED_TEXT_CHARS
        assert len(text) > _numbers.CACHED_TEXT_CHARS
        assert _numbers.number_readings(text) == ref.readings(text)
        assert [described(n) for n in _numbers.find_numbers(text)] == ref.numbers(text)


def test_value_key_is_equal_exactly_when_the_values_are():
    found = [n for t in texts(5, 400) + ["-0", "0.000", "1.50", "15e-1", "1.5", "150e-2"]
             for n in _numbers.find_numbers(t)]
    rng = random.Random(6)
    for _ in range(20_000):
        a, b = rng.choice(found), rng.choice(found)
        assert (a.value_key == b.value_key) == (a.value == b.value), (a, b)


def test_float_value_is_the_exact_value_rounded():
    for text in texts(7, 2000):
        for n in _numbers.find_numbers(text):
            for shift in (0, -2, -6):
                assert n.float_value(shift) == ref.to_float(n.value * ref.F(10) ** shift)
                assert n.float_half(shift) == ref.to_float(n.half_unit * ref.F(10) ** shift)


def test_turkish_i_in_a_scale_word_is_text_not_a_crash():
    # Unicode case-insensitive matching took "m\u0131llion" for "million", and its look-up then
    # raised KeyError; the words are matched in ASCII case only.
    assert [n.value for n in _numbers.find_numbers("5 m\u0131llion and 2 M\u0130LLION")] == [5, 2]
    assert [n.scale for n in _numbers.find_numbers("5 MiLLion")] == [10**6]


# ----------------------------------------------------------------------------- the judge

NORMALISE = [
    "The", "the", "THE", "a", "an", "A", "An", "ana", "theme", " ", "  ", "\t", "\n", "-", "--",
    "\u2212", "-5", "x-1", "5-3", ".5", "-.5", "%", "50%", "!", "?", "'", '"', "_", "\x00",
    "\ue000", "\x01", "\x7f", "\u00e9", "\u00c9", "\ufb01", "\u2460", "\uff21", "\u0130", "\u00df",
    "\u00ab", "\u00bb", "\u2019", "\u00b0C", "\u00a0", "\x1c", "cat", "Paris", "1,234.5", "$",
]


@pytest.mark.parametrize("seed", range(3))
def test_normalize_text_agrees_with_the_definition(seed):
    rng = random.Random(100 + seed)
    for _ in range(5000):
        text = random_text(rng, NORMALISE, 10)
        assert offline.normalize_text(text) == ref.normalize_text(text), repr(text)


def _answer_reference(rng: random.Random) -> tuple[str, str]:
    """A reference with numbers and words, and an answer that repeats, rounds, moves or
    changes them, so every rule is reached, near and at its boundaries."""
    words = ["the", "total", "is", "euros", "dollars", "\u00b0C", "about", "Paris", "of", "a",
             "-", "(", ")", ",", ".", "%", "percent", "million", "k", "\u00e9t\u00e9", "\ufb01"]
    numbers = ["8", "8.0", "8.4", "8.5", "7.95", "3.14159", "3.14", "3.145", "3.1416", "0.15",
               "0.1", "50%", "0.5", "50", "2.5 million", "2500000", "2,500,000", "-5", "5",
               "-0", "0", "$126.25", "126.25", "126.3", "113.62", "1e400", "1e-400", "1,234.5",
               "12.5 percent", "0.125", "\uff18", "\u2212" + "5", "1.5\u00b0C", "23\u00b0C"]
    pool = words + numbers
    reference = " ".join(rng.choice(pool) for _ in range(rng.randint(0, 5)))
    kind = rng.randrange(4)
    if kind == 0:  # the reference itself, with changes of case, space and punctuation
        answer = reference.upper() if rng.random() < 0.3 else reference + rng.choice(["", ".", "!"])
    elif kind == 1:  # the reference inside a longer answer
        answer = f"{rng.choice(pool)} {reference} {rng.choice(pool)}"
    elif kind == 2:  # its tokens shuffled, one changed
        tokens = reference.split()
        rng.shuffle(tokens)
        if tokens:
            tokens[rng.randrange(len(tokens))] = rng.choice(pool)
        answer = " ".join(tokens)
    else:
        answer = " ".join(rng.choice(pool) for _ in range(rng.randint(0, 6)))
    return answer, reference


@pytest.mark.parametrize("seed", range(4))
def test_score_answer_agrees_with_the_rules_written_out(seed):
    rng = random.Random(200 + seed)
    seen = set()
    for _ in range(3000):
        answer, reference = _answer_reference(rng)
        got = offline.score_answer(answer, reference)
        want = ref.score_answer(answer, reference)
        assert (got.score, got.reasoning) == want, (answer, reference)
        assert offline.numbers_match(reference, answer) == ref.numbers_match(reference, answer)
        seen.add(want[1].split(" ")[0])
    assert seen >= {"reference", "exact", "every", "the", "token"}  # every rule was reached


def test_score_answer_on_random_texts():
    rng = random.Random(300)
    for _ in range(4000):
        answer, reference = random_text(rng), random_text(rng, most=4)
        got = offline.score_answer(answer, reference)
        assert (got.score, got.reasoning) == ref.score_answer(answer, reference), (answer, reference)


def test_synthetic_benchmark_answers_score_as_written_out():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import synth

    for conversation in synth.conversations(300, seed=4):
        for it in conversation["conversation"]:
            a, r = it["assistant"], it["ground_truth_assistant"]
            got = offline.score_answer(a, r)
            assert (got.score, got.reasoning) == ref.score_answer(a, r), (a, r)
            used = it["agentic"]["tools_used"]
            ev = evidence.find_result_evidence(
                [c["result"] for c in used], a, query=it["query"],
                parameters=[c["parameters"] for c in used])
            want = [ref.search_call(c["result"], a, it["query"], c["parameters"]) for c in used]
            assert ev.searchable == tuple(i for i, (s, _) in enumerate(want) if s)
            assert ev.found == {i: hit for i, (_, hit) in enumerate(want) if hit is not None}


# ----------------------------------------------------------------------------- the evidence search

VALUES = [0, 1, 3, 7, 8, 9, 10, 12, 42, -5, 2.5, 3.14159, 0.42, 12.5, 113.62, 126.25, 1e-13,
          10**400, -0.0, 1e15, 2**53 + 1, float("nan"), float("inf"), True, None]
TEXTS = ["Paris", "paris", "Lisbon", "ok", "USD", "the depot is in lisbon today",
         "The capital of France is Paris. It has 2 million people.", "station 4578-0-1",
         "Temperature: 21.5 C", "8", "12.50", "$3", "42%", "-5", "3.14", "1,234.5", "2.5 million",
         "SKU-636110-0-0", "Lamp model 902", "computed for invoice 0-2", "\uff18", "\ufb01sh",
         "Observed at station 12 in Porto: 1.5 degrees, humidity 46%.", "", "x", "1e400", "50%"]


def _value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth < 2 and roll < 0.25:
        return {f"k{i}": _value(rng, depth + 1) for i in range(rng.randint(0, 3))}
    if depth < 2 and roll < 0.4:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if roll < 0.7:
        return rng.choice(TEXTS)
    return rng.choice(VALUES)


def _sentence(rng: random.Random) -> str:
    parts = TEXTS + [str(v) for v in VALUES[:16]] + ["about", "is", "it", "and", "3.1", "3.142",
                                                      "8.0", "12.5", "-5%", "0.5", "113.6"]
    return " ".join(rng.choice(parts) for _ in range(rng.randint(0, 7)))


@pytest.mark.parametrize("seed", range(4))
def test_find_result_evidence_agrees_with_the_plain_search(seed):
    rng = random.Random(400 + seed)
    outcomes = set()
    for _ in range(2500):
        calls = rng.randint(1, 3)
        results = [_value(rng) for _ in range(calls)]
        parameters = [rng.choice([None, {}, {"q": _sentence(rng)}, {"x": rng.choice(VALUES[:16])},
                                  {"a": _value(rng), "b": _value(rng)}]) for _ in range(calls)]
        answer, query = _sentence(rng), rng.choice(["", _sentence(rng)])
        ev = evidence.find_result_evidence(results, answer, query=query, parameters=parameters)
        want = [None if r is None else ref.search_call(r, answer, query, p)
                for r, p in zip(results, parameters)]
        assert ev.searchable == tuple(i for i, w in enumerate(want) if w and w[0]), (results, answer)
        assert ev.found == {i: w[1] for i, w in enumerate(want) if w and w[1] is not None}, (
            results, answer, query, parameters)
        outcomes.update(("found" if w[1] else "searchable" if w[0] else "nothing") for w in want if w)
    assert outcomes == {"found", "searchable", "nothing"}


def test_echo_window_finds_every_close_number():
    """``_Echo.has_number`` looks only inside a window around x (bisect); every number that
    ``math.isclose`` calls equal must lie inside it, at any magnitude and at the tolerances' edge."""
    rng = random.Random(500)
    for _ in range(20_000):
        x = rng.choice([0.0, 1e-12, -3e-13, 1.0, -1.0, 1e9, 1.7e308, -1.7e308, 5e-324]) * rng.choice(
            [1, 1 + 1e-9, 1 - 1e-9, 1 + 2e-9, 0.5, 2]) if rng.random() < 0.5 else rng.uniform(-1e6, 1e6)
        if not math.isfinite(x):
            continue
        deltas = [0.0, 1e-12, -1e-12, 1.0000001e-12, abs(x) * 1e-9, -abs(x) * 1e-9,
                  abs(x) * 1.0000000001e-9, abs(x) * 0.9999999999e-9, abs(x) * 3e-9]
        near = [x + d for d in deltas if math.isfinite(x + d)] + [rng.uniform(-2, 2)]
        echo = evidence._Echo(evidence._Query(""), {"n": near})
        want = any(math.isclose(x, v, rel_tol=1e-9, abs_tol=1e-12) for v in near)
        assert echo.has_number(x) == want, (x, near)


def test_exactly_equal_is_the_exact_comparison():
    """The judge's digit-level equality against Fractions, percentages against plain numbers
    included (a percentage is a hundredth of its written value there)."""
    found = [n for t in texts(8, 400) + ["50%", "0.5", "5000", "0.005", "-0", "0%", "1.50"]
             for n in _numbers.find_numbers(t)]
    rng = random.Random(10)
    for _ in range(20_000):
        r, a = rng.choice(found), rng.choice(found)
        if r.percent == a.percent:
            want = r.value == a.value
        else:
            want = r.fraction_value == a.fraction_value
        assert offline._exactly_equal(r, a) == want, (r, a)
