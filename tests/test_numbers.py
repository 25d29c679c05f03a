"""The shared number parser: values and displayed precision against hand-computed fractions."""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import pytest

from tests.helpers import finishes
from agenteval._util.numbers import (
    MAX_DIGITS,
    MAX_EXPONENT,
    find_numbers,
    fold_text,
    is_whole_number,
    number_readings,
    remove_numbers,
    to_float,
)


@pytest.mark.parametrize(
    ("text", "value", "half_unit", "decimals", "percent", "scale"),
    [
        ("8", F(8), F(1, 2), 0, False, 1),
        ("3.14", F(314, 100), F(1, 200), 2, False, 1),
        ("$1,234.50", F(123450, 100), F(1, 200), 2, False, 1),
        (".5", F(1, 2), F(1, 20), 1, False, 1),
        ("-7.25", F(-725, 100), F(1, 200), 2, False, 1),
        ("\u22127.25", F(-725, 100), F(1, 200), 2, False, 1),
        ("-$3", F(-3), F(1, 2), 0, False, 1),
        ("$-3", F(-3), F(1, 2), 0, False, 1),
        ("42%", F(42), F(1, 2), 0, True, 1),
        ("12.5 percent", F(125, 10), F(1, 20), 1, True, 1),
        ("3 per cent", F(3), F(1, 2), 0, True, 1),
        ("2.5 million", F(2_500_000), F(50_000), 1, False, 10**6),
        ("3k", F(3000), F(500), 0, False, 1000),
        ("1.2e5", F(120_000), F(5000), 1, False, 1),
        ("1e-3", F(1, 1000), F(1, 2000), 0, False, 1),
        ("\uff14\uff12", F(42), F(1, 2), 0, False, 1),  # full-width digits, NFKC
    ],
)
def test_find_numbers(text, value, half_unit, decimals, percent, scale):
    (n,) = find_numbers(text)
    assert (n.value, n.half_unit, n.decimals, n.percent, n.scale) == (
        value, half_unit, decimals, percent, scale)


def test_exact_arithmetic_has_no_float_edge():
    a, b = find_numbers("0.1 0.15")
    assert b.value - a.value == a.half_unit  # exactly 1/20, where floats give 0.04999...


def test_percent_fraction_value():
    (n,) = find_numbers("42%")
    assert n.fraction_value == F(42, 100)
    (m,) = find_numbers("0.42")
    assert m.fraction_value == F(42, 100)


def test_not_numbers():
    assert find_numbers("flight AF123, version v2") == []
    assert [n.value for n in find_numbers("2019-2020")] == [2019, 2020]
    assert [n.value for n in find_numbers("1,2,3")] == [1, 2, 3]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("5 - 3", [5, 3]),  # an operator between numbers, not a sign
        ("5-3", [5, 3]),
        ("5 \u2212 3 = 2", [5, 3, 2]),
        ("x - 3", [3]),
        ("it was -3 then +4", [-3, 4]),
        ("(-2)", [-2]),
        ("-$3 or $-3 or -\u20ac 3", [-3, -3, -3]),
        ("$ -3", [-3]),
    ],
)
def test_a_sign_is_written_against_its_number(text, values):
    assert [n.value for n in find_numbers(text)] == values


def test_number_readings():
    assert number_readings("8") == [(8.0, 0.5)]
    assert number_readings("42%") == [(42.0, 0.5), (0.42, 0.005)]
    assert number_readings("2.5 million") == [(2.5, 0.05), (2_500_000.0, 50_000.0)]


def test_whole_number_and_removal():
    assert is_whole_number(" $12.50 ") and is_whole_number("42%")
    assert not is_whole_number("12 apples")
    assert remove_numbers("It costs $12.50, about 2.5 million or 3%.").split() == [
        "It", "costs", ",", "about", "or", "."]
    assert remove_numbers("23°C", placeholder="0") == "0°C"


def test_fold_text():
    assert fold_text("  New\tYORK  ") == "new york"
    assert fold_text("Stra\u00dfe") == "strasse"  # casefold, not lower
    assert fold_text("\uff21\uff22") == "ab"


def test_docstring_examples():
    import doctest

    import agenteval._util.numbers as numbers

    result = doctest.testmod(numbers)
    assert result.attempted >= 2 and result.failed == 0


# ----------------------------------------------------------------------------- hostile input
# Any model output reaches the parser: it must neither raise nor spend unbounded time.



def test_exponent_bound_is_exact_at_the_edge():
    assert MAX_EXPONENT == 400
    (big,) = find_numbers("1e400")
    assert big.value == F(10**400) and big.half_unit == F(10**400, 2)
    (small,) = find_numbers("-2.5e-400")
    assert small.value == F(-25, 10**401)
    assert find_numbers("1e401") == [] and find_numbers("1e-401") == []
    assert find_numbers("1e0000400")[0].value == F(10**400)  # leading zeros are not magnitude


def test_huge_exponents_are_text_and_return_promptly():
    for text in ("the answer is 1e99999999", "1E-99999999", "1e" + "9" * 200_000):
        assert finishes(find_numbers, text) == []
        assert finishes(number_readings, text) == []
        assert not finishes(is_whole_number, text)
        assert finishes(remove_numbers, text) == text  # text, so left as written
    assert [n.value for n in finishes(find_numbers, "1e99999999 or 7")] == [7]


def test_digit_runs_beyond_the_limit_are_text():
    assert MAX_DIGITS == 400
    assert find_numbers("1" * 400)[0].value == F(int("1" * 400))
    assert find_numbers("1" * 200 + "." + "1" * 200)[0].decimals == 200  # '.' is not a digit
    assert find_numbers("1,000" * 1)[0].value == 1000
    assert find_numbers("1" * 401) == []
    # past Python's 4300-digit int() limit: no ValueError, and other numbers still found
    text = "id " + "9" * 5000 + " costs $3.50"
    assert [n.value for n in finishes(find_numbers, text)] == [F(7, 2)]
    assert finishes(number_readings, text) == [(3.5, 0.005)]
    assert remove_numbers(text).split() == ["id", "9" * 5000, "costs"]
    assert not is_whole_number("9" * 5000)


def test_float_readings_leave_out_what_a_float_cannot_hold():
    # 1e400 overflows a float, 1e-400 underflows to 0.0 (which would "match" a 0): left out
    assert number_readings("1e400 and 1e-400 and 12") == [(12.0, 0.5)]
    assert number_readings("-1e300") == [(-1e300, 5e299)]
    # 2e303 million = 2e309 overflows; its bare mantissa (a result may be in millions) does not
    assert number_readings("2e303 million") == [(2e303, 5e302)]
    assert to_float(F(10**400)) == math.inf and to_float(F(-(10**400))) == -math.inf
    assert to_float(F(1, 3)) == 1 / 3


def test_tool_scorer_with_hostile_tool_results():
    from agenteval.metrics.tools import find_result_evidence, score_tool_use

    hostile = ["about 1e400", "1" * 5000, "the value is 1e99999999", "1e" + "9" * 100_000]
    for result in hostile:
        evidence = finishes(find_result_evidence, [result], "The answer is 42.")
        assert evidence.found == {}  # nothing of the result is in that answer
    # the other numbers of such a result are still evidence
    result = {"note": "1e99999999 is not a number here", "id": "9" * 5000, "total": "37.5 million"}
    evidence = finishes(find_result_evidence, [result], "It is 37.5 million.")
    assert evidence.found == {0: "37.5"}  # 37.5 million read as 37.5 (millions) first
    score = finishes(score_tool_use,
                     {"tools_used": [{"tool_name": "calc", "parameters": {}, "result": result}]},
                     {"expected_tools": [{"tool_name": "calc"}]}, "It is 37.5 million.")
    assert score.utilization_evidence == "found" and score.overall_correctness == 1.0
    # and a hostile answer against a plain result
    score = finishes(score_tool_use,
                     {"tools_used": [{"tool_name": "calc", "parameters": {}, "result": 37.5}]},
                     {"expected_tools": [{"tool_name": "calc"}]}, "1e99999999 or " + "9" * 5000)
    assert score.utilization_evidence != "found"


def test_exponent_with_thousands_of_leading_zeros_is_read_without_error():
    text = "1e" + "0" * 5000 + "5"
    assert [float(n.value) for n in finishes(find_numbers, text)] == [1e5]


def test_long_texts_are_not_cached():
    from agenteval._util import numbers as _numbers

    _numbers._numbers_in_cached.cache_clear()
    long_text = "12 " * _numbers.CACHED_TEXT_CHARS
    assert len(find_numbers(long_text)) == _numbers.CACHED_TEXT_CHARS
    assert _numbers._numbers_in_cached.cache_info().currsize == 0
    find_numbers("7 days")
    assert _numbers._numbers_in_cached.cache_info().currsize == 1


# ----------------------------------------------------------------------------- exact vs float
# The parser keeps digits and a power of ten; floats come from the digits and Fractions only on
# demand. Both must say what the exact written value says.


def _random_texts(seed: int, count: int):
    rng = random.Random(seed)
    pieces = ["0", "7", "12", "3.14159", ".5", "1,234.50", "999999999999999999999", "1e3",
              "2.5e-7", "1e308", "1e-320", "4e400", "0.000", "-", "\u2212", "+", "$", "\u20ac",
              "%", " percent", " million", "k", " bn", " ", "x", "v1.", "AF", "e5"]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 7))) for _ in range(count)]


def test_float_readings_are_the_exact_values_rounded():
    for text in _random_texts(11, 5000):
        expected = []
        for n in find_numbers(text):
            readings = [(n.value, n.half_unit)]
            if n.scale != 1:
                readings.insert(0, (n.value / n.scale, n.half_unit / n.scale))
            if n.percent:
                readings.append((n.value / 100, n.half_unit / 100))
            for v, h in readings:  # exact Fraction -> float, as documented
                f = to_float(v)
                if math.isfinite(f) and (f != 0 or v == 0):
                    expected.append((f, to_float(h)))
        assert number_readings(text) == expected, text


def test_the_judge_float_screen_never_changes_a_comparison():
    """``_same_number`` screens with floats; the rule itself is exact (numbers_match's docstring)."""
    from agenteval.judge.offline import _same_number

    def exact_rule(ref, ans, rel_tol):
        if ref.percent == ans.percent:
            r, a, half = ref.value, ans.value, ans.half_unit
        else:
            r, a = ref.fraction_value, ans.fraction_value
            half = ans.half_unit / 100 if ans.percent else ans.half_unit
        diff = abs(r - a)
        return diff == 0 or diff <= F(rel_tol) * max(abs(r), abs(a)) or (
            ans.decimals > 0 and diff < half)

    rng = random.Random(2)
    near = ["3.14", "3.14159", "3.145", "3.135", "0.15", "0.1", "0.05", "8", "8.0", "8.4",
            "8.5", "1000000001", "1e9", "1000000000", "50%", "0.5", "0.505", "50.5%", "2.5 million",
            "2500000", "2450000", "1e-13", "0", "-0.0", "1e400", "1e-400", "-5", "5"]
    numbers = [n for t in near + _random_texts(3, 300) for n in find_numbers(t)]
    for _ in range(40_000):
        ref, ans = rng.choice(numbers), rng.choice(numbers)
        tol = rng.choice([1e-9, 0.0, 1e-3, 0.5])
        assert _same_number(ref, ans, tol) == exact_rule(ref, ans, tol), (ref, ans, tol)
