"""Evidence search: the substring search against the regex it replaced, the size cap, big results."""

from __future__ import annotations

import random
import re
import tracemalloc

import pytest

from agenteval.metrics import evidence
from agenteval.metrics.evidence import MAX_RESULT_CHARS, _text_in, find_result_evidence
from agenteval.metrics.tools import score_tool_use
from tests.helpers import finishes


def regex_text_in(phrase: str, text: str) -> bool:
    """The definition: the phrase with no word character on either side (``\\w``, Unicode)."""
    return re.search(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text) is not None


def test_substring_search_agrees_with_the_word_boundary_regex():
    rng = random.Random(5)
    alphabet = ["a", "b", "ab", " ", ".", "_", "1", "é", "ß", "\u00b2", "-", "中", "\u0663"]
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        if text and rng.random() < 0.7:
            i = rng.randrange(len(text))
            phrase = text[i:i + rng.randint(1, 5)]
        else:
            phrase = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3)))
        assert _text_in(phrase, text) == regex_text_in(phrase, text), (phrase, text)


@pytest.mark.parametrize(("phrase", "text", "found"), [
    ("paris", "in paris.", True),
    ("paris", "parisian", False),
    ("paris", "parisian and paris", True),  # a later occurrence on word boundaries counts
    ("aa", "aaa aa", True),
    ("aa", "aaa", False),
    ("", "anything", False),
    ("longer than the text", "short", False),
])
def test_text_in_cases(phrase, text, found):
    assert _text_in(phrase, text) is found


def test_a_result_past_the_cap_is_cut_and_reported(monkeypatch):
    monkeypatch.setattr(evidence, "MAX_RESULT_CHARS", 40)
    head = "The depot is in Lisbon today."  # 29 characters, within the cap
    tail = " The spare parts ship from the warehouse in Porto."
    ev = find_result_evidence([head + tail], "Yes: the depot is in Lisbon today.")
    assert ev.found == {0: repr("the depot is in lisbon today")} and ev.truncated == (0,)
    # what lies past the cap is not searched, and the cut is at whitespace, not inside a word
    ev = find_result_evidence([head + tail], "It ships from the warehouse in porto.")
    assert ev.found == {} and ev.truncated == (0,)
    assert find_result_evidence(["short result"], "short result").truncated == ()
    # later leaves of the same result are past the cap too
    ev = find_result_evidence([{"a": "x" * 39 + " y", "b": "porto"}], "porto")
    assert ev.found == {} and ev.truncated == (0,)


def test_the_cut_is_named_in_the_tool_score(monkeypatch):
    monkeypatch.setattr(evidence, "MAX_RESULT_CHARS", 40)
    big = "the depot is in lisbon today and the rest of a very long document " * 3
    s = score_tool_use({"tools_used": [{"tool_name": "search", "result": big}]},
                       {"expected_tools": [{"tool_name": "search"}]}, "Nothing to do with it.")
    assert s.utilization_evidence == "ambiguous"
    assert "result of search searched in its first" in s.reasoning
    assert s.result_cut is True
    assert score_tool_use({"tools_used": [{"tool_name": "search", "result": "short"}]},
                          {"expected_tools": [{"tool_name": "search"}]}, "x").result_cut is False


def test_a_large_result_is_searched_in_memory_linear_in_its_size():
    """4 MB of result text (four times the cap): found when quoted, cut and reported, and the
    search holds a small multiple of the text, not the gigabytes a regex built from it took."""
    sentence = "Station {i} reported {t} degrees at noon, humidity {h} percent. "
    rng = random.Random(1)
    result = "".join(sentence.format(i=i, t=rng.randint(-20, 40), h=rng.randint(10, 99))
                     for i in range(60_000))
    assert len(result) > 3 * MAX_RESULT_CHARS
    quoted = result[:200].split(". ")[1]
    tracemalloc.start()
    try:
        ev = finishes(find_result_evidence, [result], f"As the log says: {quoted}.",
                      seconds=60)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert ev.found and ev.truncated == (0,)
    assert peak < 40 * MAX_RESULT_CHARS  # bytes; the cap bounds what is held at once


def test_trusted_results_equal_validated_ones():
    """Results built without re-validation are the objects the validating constructor makes."""
    from agenteval.schemas.results import AgenticMetric, ToolCorrectnessScore, trusted

    tool = score_tool_use({"tools_used": [{"tool_name": "calc", "result": 4}]},
                          {"expected_tools": [{"tool_name": "calc"}]}, "It is 4.")
    values = tool.model_dump()
    again = ToolCorrectnessScore(**values)
    assert tool == again and tool.model_fields_set == again.model_fields_set
    metric = dict(session_id="s", assistant_id="a", task_id=None, total_interactions=1,
                  correct_interactions=1, is_fully_correct=True, threshold=0.7,
                  correctness_scores=[1.0], correct_indices=[0], tool_correctness_scores=[tool],
                  k=3, pass_at_k=0.9, pass_at_k_ci_low=0.5, pass_at_k_ci_high=1.0,
                  pass_pow_k=0.4, pass_pow_k_ci_low=0.1, pass_pow_k_ci_high=0.9,
                  pass_at_k_unbiased=float("nan"), pass_pow_k_unbiased=float("nan"),
                  judge_errors=0, interactions=[])
    built, validated = trusted(AgenticMetric, **metric), AgenticMetric(**metric)
    assert built.model_dump_json() == validated.model_dump_json()
    assert built.model_fields_set == validated.model_fields_set
