"""Tool-call correctness: hand-computed cases, order invariance, optimal matching, validation."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction as F

import pytest

from agenteval.errors import ConfigError, DataError
from agenteval.metrics.tools import (
    DEFAULT_TOOL_WEIGHTS,
    compare_parameters,
    find_result_evidence,
    longest_increasing_subsequence,
    match_calls,
    normalize_tool_weights,
    parse_numbers,
    score_tool_use,
    values_equal,
)
from agenteval.schemas.common import AgenticTrace, ExpectedTool, GroundTruthAgentic, ToolCall


def call(name, step=None, result=None, **params):
    d = {"tool_name": name, "parameters": params}
    if step is not None:
        d["step"] = step
    if result is not None:
        d["result"] = result
    return d


def exp(name, step=None, **params):
    d = {"tool_name": name, "parameters": params}
    if step is not None:
        d["step"] = step
    return d


def used(*calls, flag=None):
    return {"tools_used": list(calls), "final_answer_uses_tools": flag}


def expected(*calls, ordered=True):
    return {"expected_tools": list(calls), "tool_sequence_matters": ordered}


def overall(sel, par, seq, util, w=(1, 1, 1, 1)):
    """Independent weighted mean in exact fractions."""
    w = [F(x) for x in w]
    return float(sum(a * F(b) for a, b in zip(w, (sel, par, seq, util))) / sum(w))


# name, used, expected, answer, (selection, parameters, sequence, utilization), evidence
CASES = [
    ("perfect",
     used(call("calculator", result=4, expression="2+2")),
     expected(exp("calculator", expression="2+2")),
     "The result is 4.", (1, 1, 1, 1), "found"),
    ("missing call",
     used(call("search", result="Paris is the capital of France", q="capital of France")),
     expected(exp("search", q="capital of France"), exp("weather", city="Paris")),
     "Paris is the capital of France.", (F(1, 2), F(1, 2), 1, 1), "found"),
    ("extra call",
     used(call("search", result="Paris", q="capital"), call("weather", result={"temp_c": 21.5}, city="Paris")),
     expected(exp("search", q="capital")),
     "It is Paris, 21.5 degrees.", (F(1, 2), 1, 1, 1), "found"),
    ("duplicate call",
     used(call("search", q="capital"), call("search", q="capital")),
     expected(exp("search", q="capital")),
     "Paris.", (F(1, 2), 1, 1, F(1, 2)), "ambiguous"),
    ("wrong tool",
     used(call("search", result="Lyon weather report", q="2+2")),
     expected(exp("calculator", expression="2+2")),
     "It is 4.", (0, 0, 0, 0), "ambiguous"),
    ("wrong params, one of two keys",
     used(call("calculator", result=5, expression="2+3", precision=2)),
     expected(exp("calculator", expression="2+2", precision=2)),
     "It is 5.", (1, F(1, 2), 1, 1), "found"),
    ("missing and unexpected keys",
     used(call("search", q="x", lang="en")),
     expected(exp("search", q="x", limit=3)),
     "", (1, F(1, 3), 1, F(1, 2)), "ambiguous"),
    # Changed deliberately (issue 9 item 5): numbers are compared by exact value by default, so
    # float rounding (0.1 + 0.2 vs 0.3) is a mismatch unless the rule is 'numeric'; strings are
    # exact by default ('normalized' restores the old case/whitespace folding).
    ("5 vs 5.0 equal, 0.1+0.2 vs 0.3 not (exact by default)",
     used(call("calc", a=5.0, b=0.1 + 0.2, c=-0.0)),
     expected(exp("calc", a=5, b=0.3, c=0)),
     "", (1, F(2, 3), 1, F(1, 2)), "ambiguous"),
    ("strings: exact by default, case and whitespace count",
     used(call("search", q="  New   York ")),
     expected(exp("search", q="new york")),
     "", (1, 0, 1, F(1, 2)), "ambiguous"),
    ("True is not 1",
     used(call("fetch", verbose=1, cache=True)),
     expected(exp("fetch", verbose=True, cache=True)),
     "", (1, F(1, 2), 1, F(1, 2)), "ambiguous"),
    ("string '5' is not 5",
     used(call("fetch", n="5")),
     expected(exp("fetch", n=5)),
     "", (1, 0, 1, F(1, 2)), "ambiguous"),
    ("nested params, one nested leaf wrong",
     used(call("search", filters={"date": {"from": "2024-01-01", "to": "2024-03-01"}, "tags": ["a", "b"]},
               limit=10.0)),
     expected(exp("search", filters={"date": {"from": "2024-01-01", "to": "2024-02-01"}, "tags": ["a", "b"]},
              limit=10)),
     "", (1, F(1, 2), 1, F(1, 2)), "ambiguous"),
    ("nested list order matters",
     used(call("search", tags=["b", "a"], limit=3)),
     expected(exp("search", tags=["a", "b"], limit=3)),
     "", (1, F(1, 2), 1, F(1, 2)), "ambiguous"),
    ("misordered, sequence matters: C A B vs A B C",
     used(call("c"), call("a"), call("b")),
     expected(exp("a"), exp("b"), exp("c"), ordered=True),
     "", (1, 1, F(2, 3), F(1, 2)), "ambiguous"),
    ("misordered, sequence does not matter",
     used(call("c"), call("a"), call("b")),
     expected(exp("a"), exp("b"), exp("c"), ordered=False),
     "", (1, 1, 1, F(1, 2)), "ambiguous"),
    ("reversed, sequence matters: LIS 1 of 3",
     used(call("c"), call("b"), call("a")),
     expected(exp("a"), exp("b"), exp("c")),
     "", (1, 1, F(1, 3), F(1, 2)), "ambiguous"),
    ("steps decide the used order, not the list",
     used(call("b", step=2), call("a", step=1)),
     expected(exp("a"), exp("b")),
     "", (1, 1, 1, F(1, 2)), "ambiguous"),
    ("steps decide the expected order too",
     used(call("b"), call("a")),
     expected(exp("a", step=9), exp("b", step=3)),
     "", (1, 1, 1, F(1, 2)), "ambiguous"),
    ("steps only partly given: list order",
     used(call("b", step=2), call("a")),
     expected(exp("a"), exp("b")),
     "", (1, 1, F(1, 2), F(1, 2)), "ambiguous"),
    ("order scored on matched pairs only (extra call in between)",
     used(call("a"), call("x"), call("b")),
     expected(exp("a"), exp("b")),
     "", (F(2, 3), 1, 1, F(1, 2)), "ambiguous"),
    ("expected tools, none used",
     used(flag=True),
     expected(exp("search", q="x"), exp("calc", e="1")),
     "Some answer 42.", (0, 0, 0, 0), "absent"),
    ("expected tools, trace missing",
     None,
     expected(exp("search", q="x")),
     "", (0, 0, 0, 0), "absent"),
    ("no tools expected but some used",
     used(call("search", result="Paris", q="x")),
     expected(),
     "Paris.", (0, 0, 0, 1), "found"),
    ("no ground truth at all but some used",
     used(call("search", q="x"), flag=False),
     None,
     "Paris.", (0, 0, 0, 0), "no_results"),
    # utilization
    ("utilization: number at displayed precision",
     used(call("calc", result={"value": 3.14159}, e="pi")),
     expected(exp("calc", e="pi")),
     "Pi is about 3.14.", (1, 1, 1, 1), "found"),
    ("utilization: flag False but evidence found",
     used(call("calc", result=1234.5, e="x"), flag=False),
     expected(exp("calc", e="x")),
     "That totals 1,234.5 units.", (1, 1, 1, 1), "found"),
    ("utilization: absent, flag False",
     used(call("weather", result={"temp_c": 21.5, "sky": "cloudy"}, city="Paris"), flag=False),
     expected(exp("weather", city="Paris")),
     "I could not check; it is probably 30 and sunny.", (1, 1, 1, 0), "absent"),
    ("utilization: not found, flag None: 0 but ambiguous (a judge may look)",
     used(call("weather", result={"temp_c": 21.5, "sky": "cloudy"}, city="Paris")),
     expected(exp("weather", city="Paris")),
     "It is probably 30 and sunny.", (1, 1, 1, 0), "ambiguous"),
    ("utilization: ambiguous, flag True trusted offline",
     used(call("weather", result={"temp_c": 21.5, "sky": "cloudy"}, city="Paris"), flag=True),
     expected(exp("weather", city="Paris")),
     "Mild weather today.", (1, 1, 1, 1), "ambiguous"),
    ("utilization: no results logged, flag True",
     used(call("weather", city="Paris"), flag=True),
     expected(exp("weather", city="Paris")),
     "Mild weather today.", (1, 1, 1, 1), "no_results"),
    ("utilization: no results logged, flag False",
     used(call("weather", city="Paris"), flag=False),
     expected(exp("weather", city="Paris")),
     "Mild weather today.", (1, 1, 1, 0), "no_results"),
    ("utilization: only trivial results ('ok', True), flag None",
     used(call("save", result={"status": "ok", "saved": True}, doc="a")),
     expected(exp("save", doc="a")),
     "Saved: ok, true.", (1, 1, 1, F(1, 2)), "ambiguous"),
    ("utilization: small integer is weak next to a distinctive string",
     used(call("lookup", result={"page": 1, "title": "Quantum Computing Basics"}, q="qc")),
     expected(exp("lookup", q="qc")),
     "There is 1 page about it.", (1, 1, 1, 0), "ambiguous"),
    ("utilization: a lone small integer counts",
     used(call("count", result=8, q="x")),
     expected(exp("count", q="x")),
     "There are 8.0 of them.", (1, 1, 1, 1), "found"),
]


@pytest.mark.parametrize("name,u,e,answer,want,evidence", CASES, ids=[c[0] for c in CASES])
def test_hand_computed_cases(name, u, e, answer, want, evidence):
    s = score_tool_use(u, e, answer)
    assert s is not None
    got = (s.tool_selection_correct, s.parameter_accuracy, s.sequence_correct, s.result_utilization)
    assert got == pytest.approx([float(x) for x in want], abs=1e-12)
    assert s.utilization_evidence == evidence
    assert s.overall_correctness == pytest.approx(overall(*want), abs=1e-12)
    assert s.is_correct == (overall(*want) >= 1.0 - 1e-12)


@pytest.mark.parametrize("u,e", [
    (None, None),
    (used(), None),
    (None, expected()),
    (used(flag=True), expected()),
    (AgenticTrace(), GroundTruthAgentic()),
])
def test_nothing_expected_nothing_used_is_none(u, e):
    assert score_tool_use(u, e, "anything") is None


def test_typed_models_and_dicts_agree():
    u = used(call("a", result="Paris", x=1), call("b", x=2), flag=True)
    e = expected(exp("b", x=2), exp("a", x=1))
    s1 = score_tool_use(u, e, "Paris")
    s2 = score_tool_use(AgenticTrace.model_validate(u), GroundTruthAgentic.model_validate(e), "Paris")
    assert s1 == s2
    assert s1.sequence_correct == pytest.approx(0.5)


def test_per_key_reasoning():
    s = score_tool_use(
        used(call("calculator", expression="2+3", precision=2, mode="exact")),
        expected(exp("calculator", expression="2+2", precision=2, angle="deg")),
        "",
    )
    assert "calculator.expression: expected '2+2', got '2+3'" in s.reasoning
    assert "calculator.angle: missing (expected 'deg')" in s.reasoning
    assert "calculator.mode: unexpected (got 'exact')" in s.reasoning
    assert "precision" not in s.reasoning
    assert s.parameter_accuracy == pytest.approx(1 / 4)


def test_nested_reasoning_and_repeated_tool_labels():
    s = score_tool_use(
        used(call("search", q="a", f={"d": {"to": "2024-03"}}), call("search", q="b", f={"d": {"to": "x"}})),
        expected(exp("search", q="a", f={"d": {"to": "2024-02"}}), exp("search", q="b", f={"d": {"to": "x"}})),
        "",
    )
    assert "search#1.f.d.to: expected '2024-02', got '2024-03'" in s.reasoning
    assert "search#2" not in s.reasoning
    assert s.parameter_accuracy == pytest.approx((1 / 2 + 1) / 2)


def test_selection_reasoning_names_missing_and_extra():
    s = score_tool_use(used(call("x"), call("a")), expected(exp("a"), exp("b")), "")
    assert "missing: b" in s.reasoning and "extra: x" in s.reasoning


def test_values_equal_rules():
    assert values_equal(5, 5.0)
    assert not values_equal(0.3, 0.1 + 0.2)  # exact by default (changed deliberately, issue 9)
    assert values_equal(0.3, 0.1 + 0.2, rule="numeric")
    assert values_equal(float("nan"), float("nan"))
    assert not values_equal(True, 1)
    assert not values_equal(0, False)
    assert not values_equal(None, 0)
    assert not values_equal(5, 5.001)
    assert not values_equal({"a": [1, {"b": "X  y"}]}, {"a": [1.0, {"b": "x y"}]})
    assert values_equal({"a": [1, {"b": "X  y"}]}, {"a": [1.0, {"b": "x y"}]}, rule="normalized")
    assert not values_equal({"a": [1, 2]}, {"a": [1, 2, 3]})
    assert not values_equal({"a": 1}, {"a": 1, "b": None})
    assert values_equal(10**20, 10**20) and not values_equal(10**20, 10**20 + 1)


def test_compare_parameters_empty_is_one():
    c = compare_parameters({}, {})
    assert c.score == 1.0 and c.total_keys == 0
    assert compare_parameters({"a": 1}, {}).score == 0.0


# ----------------------------------------------------------------------------- matching


def test_optimal_matching_beats_greedy():
    # Greedy first-match would pair used[0] with expected[0] (same tool) and score 1/2 + 1/2.
    u = used(call("search", q="b", n=1), call("search", q="a", n=1))
    e = expected(exp("search", q="a", n=1), exp("search", q="b", n=1), ordered=False)
    s = score_tool_use(u, e, "")
    assert s.parameter_accuracy == 1.0
    pairs = {(m.used_index, m.expected_index) for m in
             match_calls(AgenticTrace.model_validate(u).tools_used,
                         GroundTruthAgentic.model_validate(e).expected_tools)}
    assert pairs == {(0, 1), (1, 0)}


def test_optimal_matching_is_global_not_per_call():
    # Best partner of expected[0] alone is used[0] (2/3), but taking it costs expected[1] more.
    e = expected(exp("t", a=1, b=1, c=1), exp("t", a=1, b=1, c=2), ordered=False)
    u = used(call("t", a=1, b=1, c=9), call("t", a=1, b=9, c=1))
    # pairing (u0,e1),(u1,e0): 2/3 + 2/3; pairing (u0,e0),(u1,e1): 2/3 + 1/3
    s = score_tool_use(u, e, "")
    assert s.parameter_accuracy == pytest.approx((F(2, 3) + F(2, 3)) / 2)


def test_identical_calls_pair_in_order():
    # Ties in agreement are broken toward same-position pairs, so repeated calls stay in order.
    u = used(call("s", q="x"), call("t"), call("s", q="x"))
    e = expected(exp("s", q="x"), exp("t"), exp("s", q="x"))
    assert score_tool_use(u, e, "").sequence_correct == 1.0


def _pair_score(e_params, u_params):
    """Independent per-call agreement for flat int params."""
    keys = set(e_params) | set(u_params)
    if not keys:
        return F(1)
    same = sum(1 for k in keys if k in e_params and k in u_params and e_params[k] == u_params[k])
    return F(same, len(keys))


def _random_calls(rng, n, with_result=False):
    out = []
    for _ in range(n):
        params = {k: rng.randint(0, 1) for k in ("x", "y") if rng.random() < 0.7}
        d = {"tool_name": rng.choice("ab"), "parameters": params}
        if with_result and rng.random() < 0.5:
            d["result"] = rng.choice(["Paris", 123.25, {"v": "Lyon"}, 7])
        out.append(d)
    return out


def _random_cases(seed, count):
    """(used, expected) call lists of up to 4 calls each, not both empty."""
    rng = random.Random(seed)
    for _ in range(count):
        u_calls = _random_calls(rng, rng.randint(0, 4))
        e_calls = _random_calls(rng, rng.randint(0, 4))
        if u_calls or e_calls:
            yield rng, u_calls, e_calls


def test_matching_equals_brute_force_optimum():
    for _rng, u_calls, e_calls in _random_cases(20240601, 150):
        s = score_tool_use(used(*u_calls), expected(*e_calls, ordered=False), "")
        count, agree, _chain = _brute_force_lexicographic(u_calls, e_calls)
        assert s.tool_selection_correct == pytest.approx(float(F(count, max(len(u_calls), len(e_calls)))))
        want_par = float(agree / len(e_calls)) if e_calls else 0.0
        assert s.parameter_accuracy == pytest.approx(want_par, abs=1e-12)


def _components(s):
    return (s.tool_selection_correct, s.parameter_accuracy, s.sequence_correct, s.result_utilization)


def test_permutation_invariance_unordered():
    rng = random.Random(7)
    answer = "Paris at 123.25"
    for _ in range(40):
        u_calls = _random_calls(rng, rng.randint(1, 4), with_result=True)
        e_calls = _random_calls(rng, rng.randint(1, 4))
        base = _components(score_tool_use(used(*u_calls), expected(*e_calls, ordered=False), answer))
        for up in itertools.permutations(u_calls):
            for ep in itertools.permutations(e_calls):
                got = _components(score_tool_use(used(*up), expected(*ep, ordered=False), answer))
                assert got == pytest.approx(base, abs=1e-12)


def test_permutation_invariance_ordered_with_steps():
    rng = random.Random(11)
    for _ in range(40):
        u_calls = _random_calls(rng, rng.randint(1, 4), with_result=True)
        e_calls = _random_calls(rng, rng.randint(1, 4))
        for c, st in zip(u_calls, rng.sample(range(10), len(u_calls))):
            c["step"] = st
        for c, st in zip(e_calls, rng.sample(range(10), len(e_calls))):
            c["step"] = st
        base = _components(score_tool_use(used(*u_calls), expected(*e_calls), "Lyon"))
        for up in itertools.permutations(u_calls):
            for ep in itertools.permutations(e_calls):
                got = _components(score_tool_use(used(*up), expected(*ep), "Lyon"))
                assert got == pytest.approx(base, abs=1e-12)


def test_permutation_invariance_ordered_with_tied_steps():
    # Identical calls sharing a step are interchangeable; the score cannot depend on the list.
    u_calls = [call("a", step=1, x=1), call("a", step=1, x=1), call("b", step=0)]
    e_calls = [exp("b"), exp("a", x=1)]
    scores = {_components(score_tool_use(used(*p), expected(*e_calls), "")) for p in
              itertools.permutations(u_calls)}
    assert len(scores) == 1


def test_lis_against_brute_force():
    rng = random.Random(3)
    for _ in range(200):
        seq = rng.sample(range(8), rng.randint(0, 7))
        best = max((r for r in range(len(seq) + 1) for sub in itertools.combinations(seq, r)
                    if all(a < b for a, b in zip(sub, sub[1:]))), default=0)
        assert longest_increasing_subsequence(seq) == best


def test_sequence_matches_lis_definition_random():
    # Distinct single calls per tool: sequence = LIS(used positions by expected order) / n.
    rng = random.Random(5)
    names = list("abcdef")
    for _ in range(60):
        chosen = rng.sample(names, rng.randint(1, 6))
        order = chosen[:]
        rng.shuffle(order)
        s = score_tool_use(used(*[call(n) for n in order]), expected(*[exp(n) for n in chosen]), "")
        pos = [order.index(n) for n in chosen]
        best = max(r for r in range(len(pos) + 1) for sub in itertools.combinations(pos, r)
                   if all(a < b for a, b in zip(sub, sub[1:])))
        assert s.sequence_correct == pytest.approx(best / len(chosen))


# ----------------------------------------------------------------------------- evidence


@pytest.mark.parametrize("text,value", [
    ("total 1,234.5 units", 1234.5),
    ("growth of 42%", 42.0),
    ("growth of 42%", 0.42),
    ("costs $12.50", 12.5),
    ("fell to -7.25 today", -7.25),
    ("fell to \u22127.25 today", -7.25),
    ("about 2.5 million people", 2.5e6),
    ("about 1.2e5 items", 1.2e5),
])
def test_parse_numbers(text, value):
    assert any(math.isclose(v, value, rel_tol=1e-12) for v, _ in parse_numbers(text))


def test_parse_numbers_tolerance_is_half_a_displayed_unit():
    assert parse_numbers("3.14") == [(3.14, pytest.approx(0.005))]
    assert parse_numbers("8") == [(8.0, 0.5)]
    assert parse_numbers("2019-2020") == [(2019.0, 0.5), (2020.0, 0.5)]


@pytest.mark.parametrize("result,answer,found", [
    (3.14159, "about 3.14", True),
    (3.14159, "about 3.15", False),
    (3.14159, "about 3.1416", True),
    (3.14159, "about 3.142", True),
    (3.14159, "about 3.143", False),
    (8, "it is 8", True),
    (8, "it is 8.0", True),
    (8, "it is 9", False),
    (0.42, "a 42% share", True),
    (12.5, "costs $12.50", True),
    (-5, "it changed by -5", True),
    (-5, "it fell 5%", True),
    (1234.5, "total 1,234.5", True),
    ("12.50", "costs $12.50", True),
    ("Paris", "the capital is PARIS.", True),
    ("Paris", "in Parisian style", False),
    ("ok", "ok", False),
    (True, "true", False),
    ({"items": [{"name": "Blue  Whale"}]}, "the blue whale is big", True),
    ("Temperature: 21.5 C", "It is 21.5 degrees", True),
    ("The capital of France is Paris. It has 2 million people.",
     "Sources say: the capital of france is paris", True),
])
def test_find_result_evidence(result, answer, found):
    ev = find_result_evidence([result], answer)
    assert ev.any_found is found


def test_evidence_ignores_unlogged_results():
    ev = find_result_evidence([None, "Paris", None], "Paris")
    assert ev.searchable == (1,) and set(ev.found) == {1}


def test_utilization_override():
    u = used(call("weather", result={"temp_c": 21.5}, city="Paris"), flag=True)
    e = expected(exp("weather", city="Paris"))
    s = score_tool_use(u, e, "Mild today.", utilization_override=0.25)
    assert s.result_utilization == 0.25 and s.utilization_evidence == "judge"
    assert s.overall_correctness == pytest.approx(overall(1, 1, 1, F(1, 4)))
    assert not s.is_correct
    with pytest.raises(ConfigError, match="utilization_override"):
        score_tool_use(u, e, "", utilization_override=1.5)


def test_no_results_flag_none_is_ambiguous_half():
    s = score_tool_use(used(call("w", city="P")), expected(exp("w", city="P")), "x")
    assert s.utilization_evidence == "ambiguous" and s.result_utilization == 0.5


# ----------------------------------------------------------------------------- weights & options


def test_default_weights():
    assert normalize_tool_weights(None) == DEFAULT_TOOL_WEIGHTS
    assert math.isclose(sum(DEFAULT_TOOL_WEIGHTS.values()), 1.0)


def test_weights_normalised_and_missing_keys_zero():
    w = normalize_tool_weights({"selection": 2, "parameters": 6})
    assert w == {"selection": 0.25, "parameters": 0.75, "sequence": 0.0, "utilization": 0.0}


@pytest.mark.parametrize("weights,match", [
    ({"selection": 1, "speed": 1}, "speed"),
    ({"selection": -1, "parameters": 2}, "selection"),
    ({"selection": float("nan")}, "selection"),
    ({"selection": float("inf")}, "selection"),
    ({"selection": "heavy"}, "selection"),
    ({"selection": True}, "selection"),
    ({"selection": 0, "parameters": 0}, "positive sum"),
    ({}, "positive sum"),
    ([("selection", 1)], "mapping"),
])
def test_weights_validation(weights, match):
    with pytest.raises(ConfigError, match=match):
        normalize_tool_weights(weights)


def test_weights_change_overall():
    u = used(call("calc", result=5, expression="2+3", precision=2))
    e = expected(exp("calc", expression="2+2", precision=2))
    # components: selection 1, parameters 1/2, sequence 1, utilization 1
    s = score_tool_use(u, e, "It is 5", weights={"parameters": 3, "utilization": 1})
    assert s.overall_correctness == pytest.approx(overall(1, F(1, 2), 1, 1, w=(0, 3, 0, 1)))
    assert s.overall_correctness == pytest.approx(5 / 8)


def test_threshold():
    u = used(call("calc", result=5, expression="2+3", precision=2))
    e = expected(exp("calc", expression="2+2", precision=2))
    # overall = (1 + 1/2 + 1 + 1) / 4 = 7/8
    assert score_tool_use(u, e, "5", threshold=0.875).is_correct
    assert not score_tool_use(u, e, "5", threshold=0.876).is_correct
    with pytest.raises(ConfigError, match="threshold"):
        score_tool_use(u, e, "5", threshold=1.2)
    with pytest.raises(ConfigError, match="threshold"):
        score_tool_use(u, e, "5", threshold="high")


@pytest.mark.parametrize("u,e,field", [
    ({"tools_used": [{"parameters": {}}]}, None, "agentic"),
    ({"tools_used": [], "surprise": 1}, None, "agentic"),
    (None, {"expected_tools": [{"tool_name": ""}]}, "ground_truth_agentic"),
    ("not a trace", None, "agentic"),
])
def test_bad_dicts_raise_data_error(u, e, field):
    with pytest.raises(DataError) as info:
        score_tool_use(u, e, "")
    assert info.value.field == field


def test_accepts_model_instances_of_calls():
    u = AgenticTrace(tools_used=[ToolCall(tool_name="a", parameters={"x": 1}, result="Lyon")])
    e = GroundTruthAgentic(expected_tools=[ExpectedTool(tool_name="a", parameters={"x": 1.0})])
    s = score_tool_use(u, e, "lyon")
    assert (s.overall_correctness, s.is_correct, s.utilization_evidence) == (1.0, True, "found")


def test_import_does_not_pull_scipy():
    import subprocess
    import sys

    code = "import sys, agenteval.metrics.tools; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("u_names,e_names,want", [
    # which repeated s is paired decides the order: the later one keeps all in order
    ("sabs", "abs", F(1)),
    ("BAB", "AB", F(1)),
    # swaps between two matched calls of one tool
    ("sxsy", "ysxs", F(3, 4)),
])
def test_repeated_calls_paired_for_best_order(u_names, e_names, want):
    u = used(*[call(n) for n in u_names])
    e = expected(*[exp(n) for n in e_names])
    s = score_tool_use(u, e, "")
    # independent: best LIS over every same-name matching of maximum size
    best = F(0)
    u_l, e_l = list(u_names), list(e_names)
    k = sum(min(u_l.count(n), e_l.count(n)) for n in set(e_l))
    for us in itertools.permutations(range(len(u_l)), k):
        for es in itertools.combinations(range(len(e_l)), k):
            if any(u_l[i] != e_l[j] for i, j in zip(us, es)):
                continue
            pos = [i for i, _ in sorted(zip(us, es), key=lambda p: p[1])]
            lis = max(r for r in range(k + 1) for sub in itertools.combinations(pos, r)
                      if all(a < b for a, b in zip(sub, sub[1:])))
            best = max(best, F(lis, k))
    assert best == want
    assert s.sequence_correct == pytest.approx(float(want))


def test_docstring_examples():
    import doctest

    import agenteval.metrics.tools as tools

    result = doctest.testmod(tools)
    assert result.attempted >= 2 and result.failed == 0


# ----------------------------------------------------------------------------- order with ties


@pytest.mark.parametrize("cities", [("Oslo", "Rome"), ("Rome", "Oslo")])
def test_expected_calls_sharing_a_step_are_unordered(cities):
    e = expected(exp("get_weather", step=1, city="Rome"), exp("get_weather", step=1, city="Oslo"),
                 exp("compare", step=2))
    u = used(call("get_weather", city=cities[0]), call("get_weather", city=cities[1]), call("compare"))
    s = score_tool_use(u, e, "")
    assert (s.tool_selection_correct, s.parameter_accuracy, s.sequence_correct) == (1.0, 1.0, 1.0)


def test_parallel_used_calls_show_no_wrong_order():
    # The agent made a and b at once (one step, e.g. parallel tool calls in one message): that is
    # no evidence of a wrong order, whether b was expected after a or together with it.
    u = used(call("a", step=1), call("b", step=1))
    assert score_tool_use(u, expected(exp("a", step=1), exp("b", step=2)), "").sequence_correct == 1.0
    assert score_tool_use(u, expected(exp("a"), exp("b")), "").sequence_correct == 1.0
    assert score_tool_use(u, expected(exp("a", step=1), exp("b", step=1)), "").sequence_correct == 1.0
    # used a before b, expected together: fine
    u2 = used(call("a", step=1), call("b", step=2))
    assert score_tool_use(u2, expected(exp("a", step=1), exp("b", step=1)), "").sequence_correct == 1.0


def test_reviewer_case_best_order_among_equal_matchings():
    # used b(x1), a(x3), a(x3); expected a(x1), b(x2), a(x2), a(x1). Every a pairing agrees 0,
    # so pairing the two used a's with the last two expected a's keeps all 3 in order.
    u = used(call("b", x=1), call("a", x=3), call("a", x=3))
    e = expected(exp("a", x=1), exp("b", x=2), exp("a", x=2), exp("a", x=1))
    s = score_tool_use(u, e, "")
    assert s.tool_selection_correct == pytest.approx(3 / 4)
    assert s.parameter_accuracy == 0.0
    assert s.sequence_correct == 1.0


def _ranks(calls):
    """Independent ordering key: the step when every call has one, else the list position."""
    if calls and all("step" in c for c in calls):
        return [c["step"] for c in calls]
    return list(range(len(calls)))


def _brute_force_lexicographic(u_calls, e_calls):
    """Best (count, agreement, in-order count) over every same-name one-to-one matching."""
    ur, er = _ranks(u_calls), _ranks(e_calls)
    best = (0, F(0), 0)
    n_u, n_e = len(u_calls), len(e_calls)
    for k in range(min(n_u, n_e) + 1):
        for us in itertools.permutations(range(n_u), k):
            for es in itertools.combinations(range(n_e), k):
                if any(u_calls[i]["tool_name"] != e_calls[j]["tool_name"] for i, j in zip(us, es)):
                    continue
                tot = sum((_pair_score(e_calls[j]["parameters"], u_calls[i]["parameters"])
                           for i, j in zip(us, es)), F(0))
                pairs = list(zip(us, es))
                chain = max(r for r in range(k + 1) for sub in itertools.combinations(pairs, r)
                            if all(ur[i1] <= ur[i2] for (i1, j1), (i2, j2) in itertools.permutations(sub, 2)
                                   if er[j1] < er[j2]))
                best = max(best, (k, tot, chain))
    return best


def test_matching_reaches_brute_force_optimum_with_order():
    for rng, u_calls, e_calls in _random_cases(4000, 2000):
        for calls in (u_calls, e_calls):
            if rng.random() < 0.6:  # steps, often tied; sometimes only some calls have one
                for c in calls:
                    if rng.random() < 0.9:
                        c["step"] = rng.randint(1, 3)
        s = score_tool_use(used(*u_calls), expected(*e_calls), "")
        count, agree, chain = _brute_force_lexicographic(u_calls, e_calls)
        n = max(len(u_calls), len(e_calls))
        assert s.tool_selection_correct == pytest.approx(count / n)
        assert s.parameter_accuracy == pytest.approx(float(agree / len(e_calls)) if e_calls else 0.0)
        assert s.sequence_correct == pytest.approx(chain / count if count else 0.0), (u_calls, e_calls)


def test_many_identical_calls_stay_fast_and_in_order():
    # 8! equally good pairings: past the exact-search cap, the rank-ordered start is in order.
    u = used(*[call("s", q="x") for _ in range(8)], call("t"))
    e = expected(exp("t"), *[exp("s", q="x") for _ in range(8)])
    s = score_tool_use(u, e, "")
    assert s.tool_selection_correct == 1.0
    assert s.sequence_correct == pytest.approx(8 / 9)  # t first was expected, last was used


def test_in_order_count_definition():
    from agenteval.metrics.tools import in_order_count

    assert in_order_count([]) == 0
    assert in_order_count([(0, 1), (0, 0), (1, 2)]) == 3  # expected tie: any used order
    assert in_order_count([(0, 0), (1, 0)]) == 2  # used tie (parallel): no wrong order shown
    assert in_order_count([(0, 0), (0, 0)]) == 2  # both parallel
    assert in_order_count([(0, 2), (1, 1), (2, 0)]) == 1


# ----------------------------------------------------------------------------- echoes


TOUR = "Jonas Vingegaard won the 2023 Tour de France, 7:29 ahead of Tadej Pogacar."


def test_number_echoed_from_the_query_is_not_evidence():
    # data/traces_demo.jsonl trace-search-1: the answer ignores the result; "2023" is the query's.
    u = used(call("web_search", result=TOUR, query="Tour de France winner"))
    e = expected(exp("web_search", query="Tour de France winner"))
    answer = "Tadej Pogacar won the 2023 Tour de France."
    assert score_tool_use(u, e, answer).utilization_evidence == "found"  # without the query
    s = score_tool_use(u, e, answer, query="Who won the 2023 Tour de France?")
    assert (s.result_utilization, s.utilization_evidence) == (0.0, "ambiguous")
    s = score_tool_use(u, e, "Vingegaard, by 7:29.", query="Who won the 2023 Tour de France?")
    assert s.utilization_evidence == "found" and "result 29" in s.reasoning


def test_text_echoed_from_query_or_parameters_is_not_evidence():
    # trace-weather-1: "Lisbon" and the date are in the query and the arguments.
    result = {"city": "Lisbon", "date": "2025-06-12", "temp_c": 23, "condition": "sunny"}
    u = used(call("get_weather", result=result, city="Lisbon", date="2025-06-12"), flag=False)
    e = expected(exp("get_weather", city="Lisbon", date="2025-06-12"))
    q = "What will the weather be like in Lisbon on 2025-06-12?"
    for answer in ("Lisbon is lovely.", "On 2025-06-12 in Lisbon: who knows.", "Expect 12 or so."):
        s = score_tool_use(u, e, answer, query=q)
        assert (s.result_utilization, s.utilization_evidence) == (0.0, "absent"), answer
    s = score_tool_use(u, e, "Sunny in Lisbon, 23 C.", query=q)
    assert s.utilization_evidence == "found" and "lisbon" not in s.reasoning


def test_parameter_echo_is_per_call():
    # "Oslo" is get_weather#2's argument, but it is also what call #1 returned: evidence of #1.
    ev = find_result_evidence([{"nearest": "Oslo"}, {"city": "Oslo"}], "Oslo it is",
                              parameters=[{"city": "Bergen"}, {"city": "Oslo"}])
    assert set(ev.found) == {0}


def test_answer_number_equal_to_a_query_number_is_ignored():
    ev = find_result_evidence([3.14159], "Yes, 3.14.", query="Is pi 3.14?")
    assert not ev.any_found
    ev = find_result_evidence([3.14159], "Closer to 3.1416.", query="Is pi 3.14?")
    assert ev.any_found
    # a number in a call's arguments is an echo for that call only
    ev = find_result_evidence([{"n": 240, "v": 36}], "240 and 36", parameters=[{"n": 240}])
    assert ev.found == {0: "36"}


def test_everything_echoed_leaves_nothing_searchable():
    u = used(call("lookup", result={"city": "Paris"}, city="Paris"), flag=True)
    e = expected(exp("lookup", city="Paris"))
    s = score_tool_use(u, e, "Paris.")
    assert (s.result_utilization, s.utilization_evidence) == (1.0, "no_results")


@pytest.mark.parametrize("flag,answer,want", [
    # (self-report, answer) -> (utilization, evidence); results are logged in every row
    (True, "It is 21.5.", (1.0, "found")),
    (False, "It is 21.5.", (1.0, "found")),
    (None, "It is 21.5.", (1.0, "found")),
    (True, "No idea.", (1.0, "ambiguous")),
    (False, "No idea.", (0.0, "absent")),
    (None, "No idea.", (0.0, "ambiguous")),
])
def test_utilization_outcome_table(flag, answer, want):
    u = used(call("w", result={"temp_c": 21.5}, city="P"), flag=flag)
    s = score_tool_use(u, expected(exp("w", city="P")), answer)
    assert (s.result_utilization, s.utilization_evidence) == want


def test_integers_too_large_for_a_float_do_not_crash():
    # JSON allows integers of any size; they must be compared exactly and never raise
    from agenteval.metrics.tools import find_result_evidence, values_equal

    assert find_result_evidence([10**400], "1").found == {}
    assert values_equal(10**400, 10**400) and not values_equal(10**400, 1e308)
    s = score_tool_use({"tools_used": [{"tool_name": "a", "parameters": {"x": 10**400}, "result": 10**500}]},
                       {"expected_tools": [{"tool_name": "a", "parameters": {"x": 10**400}}]}, "ok", query="q")
    assert s.parameter_accuracy == 1.0
