"""Argument matching: every mode, the issue's examples, precedence, and the ways to set rules."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval import Agentic
from agenteval.cli import main
from agenteval.core import load_datasets
from agenteval.errors import ConfigError, DataError
from agenteval.metrics.arguments import (
    ArgumentRules,
    check_argument_matching,
    compare_parameters,
    parse_rule,
    values_equal,
)
from agenteval.metrics.tools import score_tool_use


def test_issue_examples_strings_are_exact_by_default():
    assert not values_equal("aB3xQ", "Ab3Xq")
    assert not values_equal("/Home/File.txt", "/home/file.txt")
    assert values_equal("aB3xQ", "Ab3Xq", rule="normalized")
    assert values_equal(" New  York", "new york", rule="normalized")
    assert not values_equal(" New  York", "New York")


def test_issue_examples_numbers_follow_one_rule():
    # exact: equal in value, compared exactly (no tolerance at all)
    assert values_equal(1e9, 1000000000) and values_equal(5, 5.0) and values_equal(-0.0, 0)
    assert not values_equal(1000000001, 1e9) and not values_equal(1000000001, 1000000000)
    assert not values_equal(1e-13, 0)
    # numeric: |a - b| <= 1e-9 max(|a|, |b|), for ints and floats alike, no absolute part
    for a, b in [(1000000001, 1e9), (1e9, 1000000000), (1000000001, 1000000000)]:
        assert values_equal(a, b, rule="numeric")
    assert not values_equal(1e-13, 0, rule="numeric") and values_equal(0, 0.0, rule="numeric")
    assert not values_equal(1000000002, 1000000000, rule="numeric")
    assert values_equal(19.99, 20, rule="numeric:0.001") and not values_equal(19.9, 20, rule="numeric:0.001")
    # numbers written as text count in numeric mode only
    assert values_equal("42", 42, rule="numeric") and not values_equal("42", 42)
    assert values_equal("1e3", "1000.0", rule="numeric") and not values_equal("1e3", "1000.0")
    assert not values_equal("1_000", 1000, rule="numeric")


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(-10**12, 10**12), st.floats(-1e12, 1e12, allow_nan=False)),
       st.one_of(st.integers(-10**12, 10**12), st.floats(-1e12, 1e12, allow_nan=False)),
       st.sampled_from([0.0, 1e-9, 1e-3, 0.5]))
def test_numeric_rule_against_exact_rational_arithmetic(a, b, tol):
    exact = abs(Fraction(a) - Fraction(b)) <= Fraction(tol) * max(abs(Fraction(a)), abs(Fraction(b)))
    assert values_equal(a, b, rule=f"numeric:{tol!r}") is exact
    assert values_equal(a, b, rule=f"numeric:{tol!r}") is values_equal(b, a, rule=f"numeric:{tol!r}")
    assert values_equal(a, b) is (Fraction(a) == Fraction(b))


def test_special_values_in_every_mode():
    for rule in ("exact", "normalized", "numeric", "numeric:0.5"):
        assert values_equal(math.nan, math.nan, rule=rule)
        assert values_equal(math.inf, math.inf, rule=rule)
        assert not values_equal(math.inf, -math.inf, rule=rule)
        assert not values_equal(math.inf, 1e308, rule=rule)
        assert not values_equal(True, 1, rule=rule) and not values_equal(None, 0, rule=rule)


def test_subset_superset_and_ignore_on_keys_and_lists():
    exp = {"origin": "MAD", "dest": "BER", "date": "2025-06-01"}
    extra = dict(exp, cabin="economy")
    fewer = {"origin": "MAD", "dest": "BER"}
    assert compare_parameters(exp, extra).score == pytest.approx(3 / 4)
    assert compare_parameters(exp, extra, rules=ArgumentRules({"*": "subset"}), tool="x").score == 1
    assert compare_parameters(exp, fewer, rules=ArgumentRules({"*": "subset"}), tool="x").score == \
        pytest.approx(2 / 3)
    assert compare_parameters(exp, fewer, rules=ArgumentRules({"*": "superset"}), tool="x").score == 1
    assert compare_parameters(exp, extra, rules=ArgumentRules({"*": "superset"}), tool="x").score == \
        pytest.approx(3 / 4)
    ignored = compare_parameters(exp, dict(exp, date="2031-01-01"),
                                 rules=ArgumentRules({"x.date": "ignore"}), tool="x")
    assert (ignored.score, ignored.total_keys) == (1.0, 2)
    assert compare_parameters(exp, {}, rules=ArgumentRules({"x": "ignore"}), tool="x").score == 1
    assert values_equal(["a", "b"], ["b", "a", "c"], rule="subset")
    assert not values_equal(["a", "d"], ["b", "a", "c"], rule="subset")
    assert values_equal(["a", "b", "c"], ["c", "a"], rule="superset")
    assert not values_equal(["a", "b"], ["b", "a"])  # default: same items in order
    assert values_equal({"f": {"a": 1}}, {"f": {"a": 1, "b": 2}}, rule="subset")


def test_most_specific_rule_wins_and_data_over_run():
    rules = ArgumentRules({"*": "normalized", "book": "exact", "*.city": "normalized",
                           "book.filter.code": "exact"},
                          {"book.filter": "normalized"})
    cmp = lambda exp, got, tool="book": compare_parameters(exp, got, rules=rules, tool=tool)  # noqa: E731
    assert cmp({"name": "Ann"}, {"name": "ann"}, tool="search").score == 1  # '*'
    assert cmp({"name": "Ann"}, {"name": "ann"}).score == 0  # tool over '*'
    assert cmp({"city": "Paris"}, {"city": "PARIS"}).score == 1  # '*.city' over the tool
    assert cmp({"filter": {"x": "A"}}, {"filter": {"x": "a"}}).score == 1  # data layer
    assert cmp({"filter": {"code": "A"}}, {"filter": {"code": "a"}}).score == 0  # deeper path
    later = ArgumentRules({"*.id": "normalized"}, {"*.id": "exact"})
    assert compare_parameters({"id": "A"}, {"id": "a"}, rules=later, tool="t").score == 0
    combined = ArgumentRules({"*": "subset+normalized"})
    assert compare_parameters({"q": "A b"}, {"q": "a  B", "page": 2}, rules=combined, tool="t").score == 1


@pytest.mark.parametrize("spec, message", [
    ({"*": "fuzzy"}, "cannot read 'fuzzy'"),
    ({"*": "numeric:-1"}, "tolerance must be a number >= 0"),
    ({"*": "numeric:abc"}, "tolerance"),
    ({"*": "ignore+exact"}, "cannot be combined"),
    ({"*": "exact+normalized"}, "cannot read"),
    ({"book.": "exact"}, "a key is"),
    ({"*": 3}, "expected a rule"),
    ("normalized", "expected a mapping"),
])
def test_bad_rules_are_config_errors(spec, message):
    with pytest.raises(ConfigError, match=message):
        check_argument_matching(spec)


def test_rule_text_round_trips():
    for text in ("exact", "normalized", "numeric", "numeric:0.01", "subset", "superset+numeric",
                 "ignore", "subset+normalized"):
        assert parse_rule(parse_rule(text).text()) == parse_rule(text)
    assert check_argument_matching({"*": "Normalized + Subset"}) == {"*": "subset+normalized"}


def _dataset(argument_matching=None):
    truth = {"expected_tools": [{"tool_name": "read_file", "parameters": {"path": "/Home/File.txt"}}]}
    if argument_matching is not None:
        truth["argument_matching"] = argument_matching
    return {"session_id": "s", "assistant_id": "a", "conversation": [{
        "qa_id": "q", "query": "open it", "assistant": "It says hello.",
        "ground_truth_assistant": "hello",
        "agentic": {"tools_used": [{"tool_name": "read_file", "parameters": {"path": "/home/file.txt"},
                                    "result": "hello"}]},
        "ground_truth_agentic": truth}]}


def test_rules_from_the_data_and_from_the_run():
    wrong = Agentic.run([_dataset()], k=1)[0].interactions[0].tool_correctness
    assert wrong.parameter_accuracy == 0 and "expected '/Home/File.txt'" in wrong.reasoning
    in_data = Agentic.run([_dataset({"read_file.path": "normalized"})], k=1)[0]
    assert in_data.interactions[0].tool_correctness.parameter_accuracy == 1 and in_data.is_fully_correct
    run = Agentic.run([_dataset()], k=1, argument_matching={"*.path": "normalized"})
    assert run[0].interactions[0].tool_correctness.parameter_accuracy == 1
    assert run.to_json()["settings"]["argument_matching"] == {"*.path": "normalized"}
    data_wins = Agentic.run([_dataset({"*.path": "exact"})], k=1, argument_matching={"*.path": "normalized"})
    assert data_wins[0].interactions[0].tool_correctness.parameter_accuracy == 0
    with pytest.raises(ConfigError, match="cannot read 'fuzzy'"):
        Agentic.run([_dataset()], k=1, argument_matching={"*": "fuzzy"})


def test_bad_rule_in_a_file_names_line_and_field(tmp_path):
    path = tmp_path / "d.jsonl"
    good, bad = _dataset(), _dataset({"*.path": "fuzzy"})
    bad["session_id"] = "s2"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(DataError, match="cannot read 'fuzzy'") as err:
        load_datasets(path)
    assert err.value.line == 2
    assert err.value.field == "conversation[0].ground_truth_agentic.argument_matching"


def test_cli_flag(tmp_path, capsys):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(_dataset()) + "\n")
    assert main(["run", str(path), "--k", "1", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["conversations"][0]["is_fully_correct"] is False
    assert main(["run", str(path), "--k", "1", "--format", "json",
                 "--argument-matching", "read_file.path=normalized"]) == 0
    assert json.loads(capsys.readouterr().out)["conversations"][0]["is_fully_correct"] is True
    assert main(["run", str(path), "--k", "1", "--argument-matching", "path"]) == 2
    assert "expected KEY=RULE" in capsys.readouterr().err


def test_score_tool_use_takes_rules_directly():
    s = score_tool_use({"tools_used": [{"tool_name": "t", "parameters": {"n": "7"}}]},
                       {"expected_tools": [{"tool_name": "t", "parameters": {"n": 7}}],
                        "argument_matching": {"t.n": "numeric"}}, "")
    assert s.parameter_accuracy == 1


# ----------------------------------------------------------------------------- hostile depth


def _nest(leaf, depth, *, key="a"):
    value = leaf
    for _ in range(depth):
        value = {key: value}
    return value


@pytest.mark.parametrize("depth", [500, 984, 5000])
def test_deeply_nested_arguments_compare_without_recursion(depth):
    """Issue 18.12: parameters nested 500-984 deep (what the JSON reader lets through) and deeper
    (the Python API) are compared at full depth, never a RecursionError."""
    path = "p" + ".a" * depth
    same = compare_parameters({"p": _nest(1, depth)}, {"p": _nest(1.0, depth)})  # 1 == 1.0
    assert (same.matched_keys, same.total_keys, same.mismatches) == (1, 1, ())
    diff = compare_parameters({"p": _nest(1, depth)}, {"p": _nest(2, depth)})
    assert diff.score == 0.0 and diff.mismatches == (f"{path}: expected 1, got 2",)
    # with rules (a looked-up rule at every level) and a key missing at the bottom
    rules = ArgumentRules({"*": "normalized", "t.other.a": "exact"})
    got = _nest({"x": "A"}, depth)
    want = _nest({"x": "a", "y": [1, 2]}, depth)
    out = compare_parameters({"p": want}, {"p": got}, rules=rules, tool="t")
    assert out.mismatches == (f"{path}.y: missing (expected [1, 2])",)
    # a deep value shown in a line is cut short, not walked whole
    big = compare_parameters({"p": _nest(1, depth)}, {})
    assert big.mismatches[0].startswith("p: missing (expected {'a': {'a':")
    assert len(big.mismatches[0]) < 100


def test_deep_nesting_of_unordered_lists_is_capped_with_a_clear_error():
    from agenteval.metrics.arguments import MAX_UNORDERED_NESTING

    value = 1
    for _ in range(MAX_UNORDERED_NESTING + 5):
        value = [value]
    rules = ArgumentRules({"*": "subset"})
    with pytest.raises(DataError, match=r"tool 't'.*nests more than 100 lists compared as subset"):
        compare_parameters({"p": value}, {"p": value}, rules=rules, tool="t")
    shallow = value
    for _ in range(6):
        shallow = shallow[0]
    assert compare_parameters({"p": shallow}, {"p": shallow}, rules=rules, tool="t").score == 1.0


def test_cli_scores_a_tool_call_nested_900_deep(tmp_path, capsys):
    """Before: RecursionError traceback, exit 1 (depth 500 and 900). After: scored, exit 0."""
    import sys

    def record(leaf, **more):
        return {"tool_name": "t", "parameters": {"p": _nest(leaf, 900)}, "step": 1, **more}

    rec = {"session_id": "s1", "assistant_id": "A", "conversation": [
        {"qa_id": "q1", "query": "q", "assistant": "It is 7.", "ground_truth_assistant": "7",
         "agentic": {"tools_used": [record(1, result=7)], "final_answer_uses_tools": True},
         "ground_truth_agentic": {"expected_tools": [record(2)]}}]}
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(5000)
    try:
        text = json.dumps(rec)
    finally:
        sys.setrecursionlimit(limit)
    path = tmp_path / "deep.jsonl"
    path.write_text(text + "\n")
    assert main(["run", str(path), "--k", "1", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [conv] = data["conversations"] if "conversations" in data else [None]
    assert conv is None or conv["session_id"] == "s1"
    results = Agentic.run(str(path), k=1)
    tool = results[0].interactions[0].tool_correctness
    assert tool.parameter_accuracy == 0.0 and tool.tool_selection_correct == 1.0
