"""The shared number parser: values and displayed precision against hand-computed fractions."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from agenteval._numbers import (
    find_numbers,
    fold_text,
    is_whole_number,
    number_readings,
    remove_numbers,
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

    import agenteval._numbers as numbers

    result = doctest.testmod(numbers)
    assert result.attempted >= 2 and result.failed == 0
