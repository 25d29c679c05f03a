"""The fast paths of tool scoring, each against an independent reference written out here.

- the matching when no tool name repeats (``tools._match``) and the general search, against a
  brute-force enumeration of every same-name one-to-one matching (random and adversarial calls:
  repeated names, names equal only after stripping, extra and missing calls, order that matters
  or not, steps with ties, calls made after the answer, every argument rule);
- the whole score (every field, the reasoning text included) with every fast path on, against
  the same inputs with them off (general matching, rule-by-rule argument comparison);
- identical arguments decided without rule lookups, against a comparison written from the
  documented default rule (exact fractions for numbers);
- ``ParameterComparison.score`` against ``float(Fraction)``, labels and call ranks against
  their definitions; one ``ToolScorer`` for a run against ``score_tool_use`` per interaction;
- ``trusted`` against pydantic's own ``model_construct``.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction as F
from typing import Any

import pytest
from pydantic import BaseModel, Field

import agenteval.metrics.arguments as arguments
import agenteval.metrics.tools as tools
from agenteval.errors import ConfigError
from agenteval.metrics.arguments import (
    ArgumentRules,
    ParameterComparison,
    check_argument_matching,
    compare_parameters,
)
from agenteval.metrics.tools import call_order, match_calls, normalize_tool_weights, score_tool_use
from agenteval.schemas.common import AgenticTrace, GroundTruthAgentic
from agenteval.schemas.results import (
    AgenticMetric,
    InteractionResult,
    ToolCorrectnessScore,
    trusted,
)

RULES = [None, {"*": "normalized"}, {"*": "numeric:0.1"}, {"*": "subset"}, {"*": "superset"},
         {"a.x": "ignore"}, {"b": "ignore"}, {"*.y": "subset+normalized"}, {"a": "numeric"}]

# ----------------------------------------------------------------------------- random inputs


def _value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth < 2 and r < 0.12:
        return {k: _value(rng, depth + 1) for k in rng.sample("pq", rng.randint(0, 2))}
    if depth < 2 and r < 0.22:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 2))]
    return rng.choice([1, 1.0, True, False, 0, 0.0, -0.0, "x", "X ", "1", None, 2.5, "Paris",
                       float("nan"), float("inf"), 10**20, 1e20, 1e-13])


def _calls(rng: random.Random, n: int, *, used: bool, distinct: bool) -> list[dict]:
    pool = rng.choice([["a", "b", "c", "d", "e"], ["a", " a", "b"], ["a", "b"], ["a"]])
    names = rng.sample(pool, min(n, len(pool))) if distinct else [rng.choice(pool) for _ in range(n)]
    out = []
    for name in names:
        params = {k: _value(rng) for k in rng.sample("xyz", rng.randint(0, 3))}
        d: dict[str, Any] = {"tool_name": name, "parameters": params}
        if used:
            d["result"] = rng.choice([None, "Paris", 42, {"v": 3.25}])
            d["after_answer"] = rng.random() < 0.2
        out.append(d)
    steps = rng.random()
    for i, d in enumerate(out):
        if steps < 0.3:
            d["step"] = rng.randint(0, 3)  # often tied
        elif steps < 0.5:
            d["step"] = i
        elif steps < 0.6 and rng.random() < 0.5:
            d["step"] = rng.randint(0, 3)  # only some calls have one: list order counts
    return out


def _cases(seed: int, count: int, *, distinct: bool | None = None):
    rng = random.Random(seed)
    for _ in range(count):
        d = rng.random() < 0.5 if distinct is None else distinct
        u = _calls(rng, rng.randint(0, 5), used=True, distinct=d)
        e = _calls(rng, rng.randint(0, 5), used=False, distinct=d)
        if u or e:
            truth = {"expected_tools": e, "tool_sequence_matters": rng.random() < 0.6}
            rules = rng.choice(RULES)
            if rng.random() < 0.5:
                truth["argument_matching"] = rules
                rules = rng.choice(RULES)
            yield rng, {"tools_used": u, "final_answer_uses_tools": rng.choice([True, False, None])}, truth, rules


# ----------------------------------------------------------------------------- references


def _ranks(calls: list[dict]) -> list[Any]:
    """The documented ordering key: the step when every call has one, else the list position."""
    if calls and all(c.get("step") is not None for c in calls):
        return [c["step"] for c in calls]
    return list(range(len(calls)))


def _agreeing(pairs, ur, er) -> int:
    """Largest set of pairs in which no expected "before" was used "after" (by definition)."""
    return max(r for r in range(len(pairs) + 1) for sub in itertools.combinations(pairs, r)
               if all(ur[i1] <= ur[i2] for (i1, j1), (i2, j2) in itertools.permutations(sub, 2)
                      if er[j1] < er[j2]))


def _brute_force(u_calls, e_calls, agreement, ordered):
    """Every same-name one-to-one matching; the best by (pairs, exact agreement, in order)."""
    ur, er = _ranks(u_calls), _ranks(e_calls)
    name = [c["tool_name"].strip() for c in u_calls], [c["tool_name"].strip() for c in e_calls]
    best, winners = None, []
    for k in range(min(len(u_calls), len(e_calls)) + 1):
        for us in itertools.permutations(range(len(u_calls)), k):
            for es in itertools.combinations(range(len(e_calls)), k):
                if any(name[0][i] != name[1][j] for i, j in zip(us, es)):
                    continue
                pairs = tuple(zip(us, es))
                key = (k, sum((agreement(i, j) for i, j in pairs), F(0)),
                       _agreeing(pairs, ur, er) if ordered else 0)
                if best is None or key > best:
                    best, winners = key, [pairs]
                elif key == best:
                    winners.append(pairs)
    return best, winners


def _same(a: Any, b: Any) -> bool:
    """The default ``exact`` rule written out from the arguments module's docstring."""
    def number(x):
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if number(a) and number(b):
        if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
            return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
        if isinstance(a, float) and math.isinf(a) or isinstance(b, float) and math.isinf(b):
            return a == b
        return F(a) == F(b)
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a is None and b is None


def _reference_counts(expected: dict, got: dict) -> tuple[int, int]:
    """(keys equal, keys compared) under the default rule, from the definition."""
    keys = set(expected) | set(got)
    return sum(k in expected and k in got and _same(expected[k], got[k]) for k in keys), len(keys)


@pytest.fixture
def slow_paths(monkeypatch):
    """Every fast path off: the general matching search and rule-by-rule argument comparison."""
    def general(used, expected, used_names, exp_names, used_rank, exp_rank, *, ordered, rules):
        return tools._search_matching(used, expected, used_names, exp_names, used_rank,
                                      exp_rank, ordered=ordered, rules=rules)

    def labels(names, order):
        counts = {n: names.count(n) for n in names}
        seen: dict[str, int] = {}
        out = [""] * len(names)
        for i in sorted(range(len(names)), key=order.__getitem__):
            seen[names[i]] = seen.get(names[i], 0) + 1
            out[i] = names[i] if counts[names[i]] == 1 else f"{names[i]}#{seen[names[i]]}"
        return out

    def construct(model, **values):
        return model.model_construct(set(values), **values)

    monkeypatch.setattr(tools, "_match", general)
    monkeypatch.setattr(tools, "_labels", labels)
    monkeypatch.setattr(tools, "trusted", construct)
    monkeypatch.setattr(arguments, "_identical", lambda a, b: False)


# ----------------------------------------------------------------------------- matching


def _typed(u, e):
    return AgenticTrace.model_validate(u).tools_used, GroundTruthAgentic.model_validate(e)


@pytest.mark.parametrize("distinct", [True, False])
def test_matching_against_brute_force(distinct):
    """The chosen pairs are an optimum of the enumeration; with no repeated name, the only one."""
    for _rng, u, e, run_rules in _cases(31 + distinct, 700, distinct=distinct):
        used_calls, truth = _typed(u, e)
        exp_calls = truth.expected_tools
        rules = ArgumentRules(check_argument_matching(run_rules), truth.argument_matching)
        names_u = [c.tool_name.strip() for c in used_calls]
        names_e = [c.tool_name.strip() for c in exp_calls]
        fast = len(set(names_u)) == len(names_u) and len(set(names_e)) == len(names_e)
        if distinct:
            assert fast or " a" in {c.tool_name for c in used_calls + exp_calls}
        ordered = truth.tool_sequence_matters
        got = match_calls(used_calls, exp_calls, ordered=ordered, rules=rules)

        def agreement(i, j):  # rule-by-rule comparison, the fast path off
            return compare_parameters(exp_calls[j].parameters, used_calls[i].parameters,
                                      rules=rules, tool=names_e[j]).fraction

        (count, agree, chain), winners = _brute_force(u["tools_used"], e["expected_tools"],
                                                      agreement, ordered)
        pairs = tuple((m.used_index, m.expected_index) for m in got)
        assert len(pairs) == count
        assert sum((m.parameters.fraction for m in got), F(0)) == agree
        if ordered:
            assert tools.in_order_count((call_order(exp_calls)[j], call_order(used_calls)[i])
                                        for i, j in pairs) == chain
        if fast:
            assert len(winners) == 1 and set(pairs) == set(winners[0])
        assert [m.expected_index for m in got] == sorted(m.expected_index for m in got)


def test_scores_against_brute_force_without_repeated_names():
    """Selection, parameters and sequence, exactly, from the enumeration and the definition."""
    for _rng, u, e, _rules in _cases(77, 600, distinct=True):
        s = score_tool_use(u, {**e, "argument_matching": None}, "")
        u_calls, e_calls = u["tools_used"], e["expected_tools"]

        def agreement(i, j):
            same, total = _reference_counts(e_calls[j]["parameters"], u_calls[i]["parameters"])
            return F(same, total) if total else F(1)

        ordered = e["tool_sequence_matters"]
        (count, _agree, chain), winners = _brute_force(u_calls, e_calls, agreement, ordered)
        n = max(len(u_calls), len(e_calls))
        assert s.tool_selection_correct == count / n
        by_expected = sorted(winners[0], key=lambda p: p[1])
        want = (math.fsum([float(agreement(i, j)) for i, j in by_expected]) / len(e_calls)
                if e_calls else 0.0)
        assert s.parameter_accuracy == want
        assert s.sequence_correct == (0.0 if not count else chain / count if ordered else 1.0)


def test_whole_score_equals_the_slow_paths(slow_paths, monkeypatch):
    """Every field, reasoning included, on random and adversarial inputs, with weights."""
    cases = list(_cases(2024, 1500))
    answers = ["", "Paris, 42.", "It is 3.25 in Paris", "nothing"]
    weights = [None, {"selection": 2, "parameters": 6}, {"selection": 0.1, "parameters": 0.2,
               "sequence": 0.3, "utilization": 0.4}, {"utilization": 1.0, "sequence": -0.0}]
    inputs = [(u, e, answer, dict(weights=w, threshold=rng.choice([1.0, 0.75, 0.5]),
                                  argument_matching=r, query=rng.choice(["", "Paris?"])))
              for (rng, u, e, r), answer, w in zip(cases, itertools.cycle(answers),
                                                    itertools.cycle(weights))]
    slow = [score_tool_use(u, e, a, **kw) for u, e, a, kw in inputs]
    monkeypatch.undo()
    fast = [score_tool_use(u, e, a, **kw) for u, e, a, kw in inputs]
    for f, s, case in zip(fast, slow, inputs):
        assert (f is None) == (s is None), case
        if f is not None:
            assert list(f.__dict__.items()) == list(s.__dict__.items()), case
            assert f.model_fields_set == s.model_fields_set


# ----------------------------------------------------------------------------- arguments


def test_identical_arguments_against_the_default_rule(slow_paths):
    rng = random.Random(8)
    fast_hits = 0
    for _ in range(4000):
        e = {k: _value(rng) for k in rng.sample("xyz", rng.randint(0, 3))}
        g = dict(e) if rng.random() < 0.5 else {k: _value(rng) for k in rng.sample("xyz", rng.randint(0, 3))}
        if rng.random() < 0.3 and g:  # same values, another type or container (5 vs 5.0, tuple)
            k = rng.choice(list(g))
            g[k] = {1: 1.0, 1.0: 1, True: 1, 0: False}.get(g[k], g[k]) if not isinstance(
                g[k], (list, dict)) else (tuple(g[k]) if isinstance(g[k], list) else g[k])
        identical = tools_identical(e, g)
        slow = compare_parameters(e, g)
        same, total = _reference_counts(e, g)
        assert (slow.matched_keys, slow.total_keys) == (same, total)
        if identical:
            fast_hits += 1
            assert same == total == len(e) and not slow.mismatches
    assert fast_hits > 500


def tools_identical(e, g):
    """The module's own ``_identical`` (the fixture replaces the attribute, not this reference)."""
    return _ORIGINAL_IDENTICAL(e, g)


_ORIGINAL_IDENTICAL = arguments._identical


def test_compare_parameters_fast_equals_slow(monkeypatch):
    rng = random.Random(9)
    pairs = []
    for _ in range(3000):
        e = {k: _value(rng) for k in rng.sample("xyz", rng.randint(0, 3))}
        g = dict(e) if rng.random() < 0.6 else {k: _value(rng) for k in rng.sample("xyz", 2)}
        pairs.append((e, g, rng.choice(RULES)))
    fast = [compare_parameters(e, g, rules=ArgumentRules(r), tool="a") for e, g, r in pairs]
    monkeypatch.setattr(arguments, "_identical", lambda a, b: False)
    slow = [compare_parameters(e, g, rules=ArgumentRules(r), tool="a") for e, g, r in pairs]
    assert fast == slow


def test_score_is_the_float_of_the_fraction():
    for total in range(0, 301):
        for matched in range(total + 1):
            p = ParameterComparison(matched, total)
            assert p.score == float(p.fraction)
    rng = random.Random(1)
    for _ in range(5000):
        total = rng.randint(1, 10**18)
        p = ParameterComparison(rng.randint(0, total), total)
        assert p.score == float(p.fraction)


# ----------------------------------------------------------------------------- labels, ranks


def test_labels_and_call_order_against_their_definitions(slow_paths):
    rng = random.Random(12)
    reference_labels = tools._labels  # the fixture's straightforward version
    for _ in range(2000):
        n = rng.randint(0, 6)
        calls = _calls(rng, n, used=False, distinct=rng.random() < 0.5)
        typed = GroundTruthAgentic.model_validate({"expected_tools": calls}).expected_tools
        ranks = _ranks(calls)
        order = call_order(typed)
        # ranks: same order and ties as the documented key, numbered densely from 0
        assert order == [sorted(set(ranks)).index(r) for r in ranks]
        names = [c.tool_name.strip() for c in typed]
        assert _ORIGINAL_LABELS(names, order) == reference_labels(names, order)


_ORIGINAL_LABELS = tools._labels


# ----------------------------------------------------------------------------- trusted


class _WithDefaults(BaseModel):
    a: int
    b: list[int] = Field(default_factory=list)
    c: str = "c"
    d: float | None = None


@pytest.mark.parametrize("model", [ToolCorrectnessScore, InteractionResult, AgenticMetric,
                                   _WithDefaults])
def test_trusted_is_model_construct(model):
    tool = ToolCorrectnessScore(tool_selection_correct=1, parameter_accuracy=1, sequence_correct=1,
                                result_utilization=0.5, overall_correctness=0.9, is_correct=False,
                                reasoning="r", utilization_evidence="found")
    sample = {"tool_correctness": tool, "tool_correctness_scores": [tool, None],
              "interactions": [], "b": [1], "a": 2}
    rng = random.Random(hash(model.__name__) % 1000)
    names = list(model.model_fields)
    for _ in range(200):
        keys = rng.sample(names, rng.randint(0, len(names)))
        if rng.random() < 0.3:
            keys = [n for n in names if n in keys]  # in field order (the adopted-dict path)
        values = {k: sample.get(k, rng.choice([0.25, "x", None, 3])) for k in keys}
        built = trusted(model, **values)
        ref = model.model_construct(set(values), **values)
        assert list(built.__dict__.items()) == list(ref.__dict__.items())
        assert built.model_fields_set == ref.model_fields_set
        assert built.__pydantic_extra__ == ref.__pydantic_extra__
        assert built.__pydantic_private__ == ref.__pydantic_private__
        assert repr(built) == repr(ref) and built == ref
        for name, field in model.model_fields.items():  # defaults are fresh per object
            if name not in values and field.default_factory is not None:
                assert built.__dict__[name] is not trusted(model, **values).__dict__[name]


# ----------------------------------------------------------------------------- run-wide scorer


def test_one_scorer_for_a_run_equals_score_tool_use_per_interaction():
    """The options are checked once and the run's rules built once; every score is the same."""
    cases = list(_cases(555, 600))
    for weights, threshold, run_rules in [(None, 1.0, None), ({"selection": 3, "utilization": 1},
                                          0.5, {"*": "normalized"}), (None, 0.0, {"a.x": "ignore"})]:
        scorer = tools.ToolScorer(weights=weights, threshold=threshold,
                                  argument_matching=run_rules)
        for _rng, u, e, _r in cases:
            for override in (None, 0.25):
                got = scorer(u, e, "Paris, 42.", utilization_override=override, query="Paris?")
                want = score_tool_use(u, e, "Paris, 42.", weights=weights, threshold=threshold,
                                      utilization_override=override, query="Paris?",
                                      argument_matching=run_rules)
                assert got == want and (got is None or got.reasoning == want.reasoning)


def test_scorer_raises_where_score_tool_use_does():
    u, e = {"tools_used": [{"tool_name": "a"}]}, {"expected_tools": [{"tool_name": "a"}]}
    with pytest.raises(ConfigError):
        tools.ToolScorer(threshold=1.5)
    with pytest.raises(ConfigError):
        tools.ToolScorer(weights={"selection": -1})
    bad = tools.ToolScorer(argument_matching={"*": "fuzzy"})
    assert bad(None, None) is None and score_tool_use(None, None, argument_matching={"*": "fuzzy"}) is None
    for _ in range(2):  # not remembered: raised on every interaction that needs the rules
        with pytest.raises(ConfigError):
            bad(u, e)
        with pytest.raises(ConfigError):
            score_tool_use(u, e, argument_matching={"*": "fuzzy"})


# ----------------------------------------------------------------------------- interaction results


def test_judged_interaction_results_equal_validated_ones():
    """The judged case built without validation (a tuple) holds what the validating constructor
    makes of the same values."""
    from agenteval.judge.base import JudgeFailure, Verdict
    from agenteval.metrics.agentic import _Given, _interaction_result
    from agenteval.results import RunSettings
    from agenteval.schemas.common import Batch
    from agenteval.statistical.modes import FrequentistMode

    rng = random.Random(4)
    tool_scores = [None] + [score_tool_use(u, e, "Paris") for _r, u, e, _x in _cases(6, 30)]
    for _ in range(500):
        settings = RunSettings(k=3, threshold=rng.choice([0.0, 0.5, 0.7, 1.0]), tool_threshold=1.0,
                               tool_weights=normalize_tool_weights(None), mode=FrequentistMode())
        batch = Batch(qa_id=f"q{rng.randint(0, 9)}", query="q", assistant="a")
        tool = rng.choice(tool_scores)
        score = rng.choice([0.0, 0.5, 0.7, 1.0, 0.69999999, 1])
        outcome = rng.choice([Verdict(score, "why"), Verdict(score), _Given(1.0, True, False),
                              JudgeFailure("boom", code="timeout")])
        got = _interaction_result(batch, outcome, tool, None, settings)
        if isinstance(outcome, Verdict):
            want = InteractionResult(
                qa_id=batch.qa_id, score=float(score), reasoning=outcome.reasoning,
                tool_correctness=tool, judge_error=None, judge_error_code=None, source="judged",
                is_correct=float(score) >= settings.threshold and (tool is None or tool.is_correct),
                graders=None)
            # a tuple of the model's fields (metrics/agentic.py, _Judged), each of its type
            assert [(f, type(v)) for f, v in zip(got._fields, got)] == \
                [(f, type(v)) for f, v in want.__dict__.items()]
            made = InteractionResult(**got._asdict())  # what the validating constructor makes
            assert list(made.__dict__.items()) == list(want.__dict__.items())
            assert made.model_dump_json() == want.model_dump_json()
        else:
            assert got.source == ("given" if isinstance(outcome, _Given) else "judged")
