"""The evidence search's fast paths against the plain definitions they replace."""

from __future__ import annotations

import random
import re

from agenteval._util.numbers import fold_text
from agenteval.metrics import evidence
from agenteval.metrics.evidence import find_result_evidence


def regex_text_candidates(text: str) -> list[str]:
    """The definition: the folded text, and its segments split after a stop and whitespace."""
    norm = fold_text(text)
    if len(norm) < 3 or norm in evidence._COMMON_WORDS:
        return []
    candidates = [norm]
    if len(norm) > 20:
        for seg in re.split(r"(?<=[.!?;:])\s+|\n+", norm):
            seg = seg.strip(" .!?;:,")
            if len(seg) >= 20 and seg != norm:
                candidates.append(seg)
    return candidates


def test_sentence_split_agrees_with_the_look_behind_regex():
    rng = random.Random(11)
    alphabet = ["word", "longer words", " ", "  ", "\n", "\t", ".", "!", "?", ";", ":", ",",
                "\u2003", "\u00a0", "\u2028", "1.5", "e.g.", "...", "x"]
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert evidence._text_candidates(text) == regex_text_candidates(text), text


def test_a_query_shared_by_two_calls_gives_each_its_own_echo():
    """The query's numbers are read once per interaction; each call adds its own arguments."""
    ev = find_result_evidence([125, 125], "It costs 125 euros.", query="Price of item 7?",
                              parameters=[{"x": "125"}, {"x": "9"}])
    assert ev.found == {1: "125"} and ev.searchable == (1,)  # call 0 was told 125
    ev = find_result_evidence([125, 125], "It costs 125 euros.", query="Price of item 125?",
                              parameters=[{"x": "1"}, {"x": "9"}])
    assert ev.found == {} and ev.searchable == ()  # the query said 125: no call is evidence


def _written(rng: random.Random, v: float) -> str:
    """``v`` written as people and tools write numbers (commas, exponents, scale words, %)."""
    kind = rng.randrange(8)
    if kind == 0:
        return f"{v:,.{rng.randint(0, 4)}f}"
    if kind == 1:
        return f"{v:.{rng.randint(1, 12)}e}"
    if kind == 2:
        return f"{v / 1e6:.{rng.randint(1, 6)}f} million"
    if kind == 3:
        return f"{v * 100:.{rng.randint(0, 5)}f}%"
    if kind == 4:
        return f"{v:.{rng.randint(0, 20)}f}"  # long digit runs: a float's rounding counts
    if kind == 5:
        return f"-{abs(v):g}"
    if kind == 6:
        return "0.000" + str(rng.randint(1, 99999))
    return repr(v)


def test_leading_digits_screen_keeps_every_close_number():
    """``_Echo.has_number`` settles most numbers from the texts' digits alone; it must agree
    with the plain definition (any query or argument reading ``math.isclose`` to x) on numbers
    close to a written one, at and around the tolerance, and across a leading digit's step."""
    import math

    from agenteval._util.numbers import text_readings

    rng = random.Random(7)
    bases = [1.0, 9.99999999, 999999.9999999, 1e6, 0.001, 0.00100000001, 126.25, 51643.67,
             1999999.9999995, 123456789012.0, 1e-3 * (1 - 1e-12), 1e299]
    for _ in range(6000):
        base = rng.choice(bases) if rng.random() < 0.4 else 10 ** rng.uniform(-4, 12)
        query = f"Order {rng.randint(0, 99)}-{rng.randint(0, 9)}: is it {_written(rng, base)}?"
        arguments = {"expression": f"{_written(rng, base * rng.choice([1, 2, 0.5]))} * 0.9",
                     "n": rng.choice([base, 7, "x"])}
        readings = [v for t in (query, arguments["expression"]) for v, _ in text_readings(t)]
        if isinstance(arguments["n"], float):
            readings.append(arguments["n"])
        for v in readings[:4] or [base]:
            for delta in (0.0, 1e-10, -1e-10, 9.9e-10, -9.9e-10, 1.01e-9, -1.01e-9, 1e-8, 3e-7):
                x = v * (1 + delta) if rng.random() < 0.9 else -v * (1 + delta)
                if not math.isfinite(x):
                    continue
                expected = any(math.isclose(x, r, rel_tol=1e-9, abs_tol=1e-12) for r in readings)
                echo = evidence._Echo(evidence._Query(query), arguments)
                assert echo.has_number(x) is expected, (query, arguments, x)


def test_the_screen_gives_way_to_parsing_for_non_ascii_texts():
    echo = evidence._Echo(evidence._Query("Is it \u0661\u0662\u0663?"), {})  # Arabic-Indic 123
    assert echo.has_number(123.0)
    echo = evidence._Echo(evidence._Query("Is it 12,3\u00a045?"), {"x": "1.2e3"})
    assert echo.has_number(1200.0) and echo.has_number(3.0) and not echo.has_number(45.5)
    # below 1e-3 the absolute tolerance decides: 3e-13 is close to 5e-13, digits unlike
    assert evidence._Echo(evidence._Query("Is it 3e-13?"), {}).has_number(5e-13)


def test_leading_digits_shortcut_is_the_definition():
    """``_leading_digits`` writes the upper bound only when a carry may reach its sixth digit;
    otherwise both keys must be what writing both bounds gives, also next to a carry."""
    rng = random.Random(8)

    def written(bound: str) -> str:  # "d.ddddddddddde+XX": its first six digits
        return (bound[0] + bound[2:7]).rstrip("0")

    near = [d * 10.0 ** e for d in (1.0, 9.99999, 9.999989, 1.999995, 1.2345697899, 4.99999)
            for e in range(-3, 15)]
    for _ in range(40000):
        x = rng.choice(near) * (1 + rng.uniform(-3e-7, 3e-7)) if rng.random() < 0.5 else (
            10 ** rng.uniform(-3, 300))
        keys = evidence._leading_digits(x if rng.random() < 0.9 else -x)
        m = abs(x)
        if not 1e-3 <= m <= 1e300:
            assert keys is None
            continue
        assert keys == (written(f"{m * (1 - 1e-8):.11e}"), written(f"{m * (1 + 1e-8):.11e}")), x
