"""The offline judge's fast paths against the plain definitions (tests/reference_numbers.py)."""

from __future__ import annotations

import random

from agenteval.judge import offline
from tests import reference_numbers as ref

ALPHABET = ["a", "the", "An", " ", "\n", "-", "\u2212", "-5", "x-1", ".5", "%", "50%", "!", ",",
            "\x00", "\ue000", "\u00e9", "\u00b0C", "\ufb01", "\u2460", "\uff05", "\u00a0",
            "\ud800", "\udfff", "\U0001f600", "\u0130", "\u00df", "\u2212.5", "1,234.5", "$"]


def test_non_ascii_normalisation_agrees_with_the_definition():
    """Non-ASCII texts take the UTF-8 bytes path; lone surrogates (JSON can hold them) too."""
    rng = random.Random(21)
    for _ in range(20_000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 12)))
        assert offline.normalize_text(text) == ref.normalize_text(text), repr(text)


def test_token_overlap_agrees_with_counters():
    from collections import Counter

    rng = random.Random(22)
    words = ["a", "b", "c", "dd", "e", "5", "-5"]
    for _ in range(20_000):
        a = [rng.choice(words) for _ in range(rng.randint(0, 8))]
        r = [rng.choice(words) for _ in range(rng.randint(0, 8))]
        assert offline._shared_count(a, r) == sum((Counter(a) & Counter(r)).values()), (a, r)


def test_a_missing_number_is_shown_from_its_rounded_float():
    """The message's number: 1e400 and 1e-400 from the exact value, not as inf and 0."""
    for reference, shown in (("1e400", "1e+400"), ("1e-400", "1e-400"), ("-1e-400", "-1e-400"),
                             ("-0", "0"), ("0.5%", "0.5%"), ("-$1,234.50", "-1234.5")):
        verdict = offline.score_answer("nothing", reference)
        assert f"reference number(s) {shown} not found" in verdict.reasoning, verdict


def test_a_reference_read_once_judges_each_answer_on_its_own():
    """References are kept read (``_reference``); the same one against other answers, before
    and after its words were first needed, gives each answer the verdict the rules give it."""
    reference = "23\u00b0C in Oslo"
    cases = [("It is 23 \u00b0C in Oslo.", 1.0), ("It is 24\u00b0C in Oslo.", None),
             ("23\u00b0C in Oslo", 1.0), ("23\u00b0C", None), ("Oslo: 23\u00b0C, in Oslo", 1.0)]
    offline._reference.cache_clear()
    for _ in range(2):
        for answer, score in cases:
            got = offline.score_answer(answer, reference)
            assert (got.score, got.reasoning) == ref.score_answer(answer, reference), answer
            if score is not None:
                assert got.score == score
    assert offline._reference.cache_info().hits >= len(cases) * 2 - 1
