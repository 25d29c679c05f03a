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
