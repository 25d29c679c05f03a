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
