"""Deterministic tool-call correctness for one interaction (no LLM involved).

``score_tool_use(used, expected, answer)`` compares the calls an agent made (``AgenticTrace``)
with the calls the reference solution makes (``GroundTruthAgentic``) and returns a
``ToolCorrectnessScore`` whose components, each in [0, 1], are defined exactly as follows.

Let U be the used calls (``n_used``), E the expected calls (``n_expected``).

**Matching.** A used call can be paired with an expected call only when their ``tool_name`` is
identical (exact, case-sensitive, after stripping surrounding whitespace). Among one-to-one
pairings we take the best lexicographically: most pairs (``min`` of used and expected calls of
each name), then the highest summed parameter agreement (exact fractions), then, when
``tool_sequence_matters``, the most pairs in expected order (the sequence score below). The
equally good pairings of each tool are enumerated exactly and every combination across tools
is tried, so repeated calls of one tool are never charged for an arbitrary pairing; past a cap
(``_MAX_MATCHINGS`` = 1000 pairings, see ``match_calls``) it falls back to a greedy in-order
pairing improved one tool at a time, which may miss the best order. Scores do not depend
on list order except through the calls' positions. A used call left unpaired is *extra* (this
includes a duplicate of a call expected once); an expected call left unpaired is *missing*.

**Selection** ``tool_selection_correct = matched / max(n_expected, n_used)``. Missing and extra
calls both lower it; expected tools with none used gives 0, and tools used when none were
expected gives 0.

**Parameters.** Per pair, ``matching keys / keys compared`` over the top-level argument names
(1.0 when none are compared). A key matches when its values are deeply equal under the
argument-matching rules (``agenteval.metrics.arguments``: per tool or field ``exact``, the
default, ``normalized``, ``numeric``, ``subset`` / ``superset``, ``ignore``; from the data's
``ground_truth_agentic.argument_matching`` over the run's ``argument_matching``). By default:
dicts need the same keys with equal values, lists the same items *in order*, strings are
identical, numbers equal in value (``5 == 5.0``), ``True != 1``, and a key present on one side
only is a mismatch.

``parameter_accuracy`` is the mean of the pair scores over the *expected* calls, a missing call
counting 0. When no calls were expected but some were made, it is 0 (every argument given is
unexpected). Each mismatching key is explained in ``reasoning`` as
``tool.path: expected X, got Y`` (``tool#2.path`` when a tool is expected more than once).

**Sequence.** Each call's rank is its ``step`` when every call on its side has one, else its
list position. Calls sharing a step are parallel: there is no order between them. If nothing
matched, ``sequence_correct = 0``. Otherwise, when ``tool_sequence_matters`` is False it is
1.0; when True, it is the size of the largest set of matched pairs that agree on order,
divided by the number of matched pairs (1.0 for a single matched call). Pairs agree unless an
expected "before" (smaller expected step) was used "after" (larger used step): expected calls
sharing a step may be made in any order, and calls the agent made in parallel (one step, e.g.
several tool calls in one assistant message) show no wrong order. Extra and missing calls are
already charged by selection and parameters, so they do not lower this score.

**Utilization** (``result_utilization``, with ``utilization_evidence``) asks whether the answer
uses what the tools returned, from evidence in the answer text combined with the agent's
self-reported ``final_answer_uses_tools`` flag. Each call's ``result`` is walked (dict values,
list items, scalars), its text up to ``MAX_RESULT_CHARS`` (1,000,000 characters; a call cut
there is named in ``reasoning``; the search lives in :mod:`agenteval.metrics.evidence` and is
linear in time and memory). Searchable leaves are:

- strings, normalised like parameters, at least 3 characters and not a common word
  (``ok``, ``true``, ``success``, ``none``...), found in the normalised answer on word
  boundaries; long strings are also tried sentence by sentence (segments of >= 20 characters);
- numbers (and strings that are a number), matched against every number written in the answer
  (``1,234.5``, ``42%``, ``$12.50``, ``-3``, ``1.2e5``, ``2.5 million``; parser shared with the
  offline judge in ``agenteval._util.numbers``) within half a unit of the answer's last displayed
  digit, inclusive: result 3.14159 matches "3.14", result 8 matches "8" and "8.0". A percentage
  also matches its fraction (``42%`` matches 0.42); a negative result also matches its magnitude
  ("fell 5%" for -5). Numbers inside longer strings count when they are not single-digit
  integers. Integers with ``|x| < 10`` are weak evidence: they count only when the call's result
  has nothing more distinctive to find.

What the agent was given is no evidence that it used a tool: a result leaf that also appears in
the ``query`` or in that call's ``parameters`` (text on word boundaries, a number by equal
value) is not searched, and an answer number equal to a number there is ignored for that call.

Outcomes, first that applies:

=====================================  ============  ==============
situation                              utilization   evidence
=====================================  ============  ==============
``utilization_override`` given         that value    ``judge``
no tool used                           0.0           ``absent``
some call's result found in answer     1.0           ``found``
nothing searchable logged, flag True   1.0           ``no_results``
nothing searchable logged, flag False  0.0           ``no_results``
nothing searchable logged, flag None   0.5           ``ambiguous``
results not found, flag True           1.0           ``ambiguous``
results not found, flag None           0.0           ``ambiguous``
results not found, flag False          0.0           ``absent``
=====================================  ============  ==============

Evidence beats a False flag. ``ambiguous`` is where a judge able to read the answer (one that
supports utilisation) is asked and its score replaces the offline one through
``utilization_override``; the flag is None whenever it is unknown (always for OpenAI-style
transcripts).

**Overall** ``overall_correctness`` is the weighted sum of the four components with weights
normalised to sum 1 (default 0.25 each); ``is_correct = overall >= threshold - 1e-12``.

``score_tool_use`` returns None only when no tools were expected and none were used.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agenteval.errors import ConfigError, DataError, check_unit
from agenteval.metrics.arguments import (
    ArgumentRules,
    ParameterComparison,
    compare_parameters,
    values_equal,
)
from agenteval.metrics.evidence import MAX_RESULT_CHARS, Evidence, find_result_evidence, parse_numbers
from agenteval.schemas.common import AgenticTrace, ExpectedTool, GroundTruthAgentic, ToolCall
from agenteval.schemas.results import ToolCorrectnessScore, trusted

M = TypeVar("M", bound=BaseModel)

__all__ = [
    "DEFAULT_TOOL_WEIGHTS",
    "CallMatch",
    "Evidence",
    "ParameterComparison",
    "ToolScorer",
    "call_order",
    "compare_parameters",
    "find_result_evidence",
    "in_order_count",
    "longest_increasing_subsequence",
    "match_calls",
    "normalize_tool_weights",
    "parse_numbers",
    "score_tool_use",
    "values_equal",
]

DEFAULT_TOOL_WEIGHTS: dict[str, float] = {
    "selection": 0.25,
    "parameters": 0.25,
    "sequence": 0.25,
    "utilization": 0.25,
}


# ----------------------------------------------------------------------------- weights


def normalize_tool_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    """Validate component weights and scale them to sum 1 (None -> equal weights).

    Keys must be among selection, parameters, sequence, utilization; a missing key weighs 0.
    """
    if weights is None:
        return dict(DEFAULT_TOOL_WEIGHTS)
    if not isinstance(weights, Mapping):
        raise ConfigError(f"tool weights must be a mapping of component -> weight, got {weights!r}")
    allowed = tuple(DEFAULT_TOOL_WEIGHTS)
    raw: dict[str, float] = dict.fromkeys(allowed, 0.0)
    for key, value in weights.items():
        if key not in raw:
            raise ConfigError(
                f"tool weights: unknown component {key!r}; allowed: {', '.join(allowed)}"
            )
        if isinstance(value, bool):
            raise ConfigError(f"tool weights: {key} must be a finite number >= 0, got {value!r}")
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ConfigError(
                f"tool weights: {key} must be a finite number >= 0, got {value!r}"
            ) from None
        if not math.isfinite(v) or v < 0:
            raise ConfigError(f"tool weights: {key} must be a finite number >= 0, got {value!r}")
        raw[key] = v
    total = math.fsum(raw.values())
    if total <= 0:
        raise ConfigError(f"tool weights must have a positive sum, got {dict(weights)!r}")
    return {k: v / total for k, v in raw.items()}


# ----------------------------------------------------------------------------- order & matching


def call_order(calls: Sequence[ToolCall | ExpectedTool]) -> list[int]:
    """Rank of each call: its ``step``'s rank when every call has one, else its list position.

    Calls sharing a step share a rank: they are parallel, with no order between them.
    """
    n = len(calls)
    if n < 2:
        return [0] * n
    steps = [c.step for c in calls]
    if None in steps:
        return list(range(n))
    distinct = sorted(set(steps))
    if distinct == steps:  # increasing steps (the usual log): the ranks are the positions
        return list(range(n))
    rank_of = {s: r for r, s in enumerate(distinct)}
    return [rank_of[s] for s in steps]


def in_order_count(pairs: Iterable[tuple[int, int]]) -> int:
    """Most ``(expected rank, used rank)`` pairs that agree on order (the sequence numerator).

    A set of pairs agrees when, for any two, an expected "before" (smaller expected rank) is not
    a used "after" (larger used rank). Equal expected ranks impose nothing; equal used ranks
    (calls made together, in parallel) show no wrong order, so they agree with any expected
    order. With pairs sorted by (expected, used) rank this is the longest non-decreasing run of
    used ranks.
    """
    return longest_increasing_subsequence([u for _e, u in sorted(pairs)], strict=False)


@dataclass(frozen=True)
class CallMatch:
    """One used call paired with one expected call."""

    used_index: int
    expected_index: int
    parameters: ParameterComparison


_MAX_MATCHINGS = 1000  # equally good matchings examined per tool (and per interaction, combined)
_MAX_NODES = 50_000  # search steps per tool when enumerating them
_MAX_DEPTH = 200  # calls of one tool beyond which only the assignment solver's pairing is used


def match_calls(used: Sequence[ToolCall], expected: Sequence[ExpectedTool], *,
                ordered: bool = True, rules: ArgumentRules | None = None) -> list[CallMatch]:
    """Best one-to-one pairing of used with expected calls (same tool name only).

    Optimal lexicographically: most pairs, then most summed parameter agreement (exact
    fractions), then, when ``ordered``, most pairs in expected order (``in_order_count``). Per
    tool name the equally good matchings are enumerated exactly; the in-order count is
    maximised over every combination of them across tools. That search is exact while a tool
    has at most ``_MAX_MATCHINGS`` equally good matchings (found within ``_MAX_NODES`` steps) and
    their combinations number at most ``_MAX_MATCHINGS``. Beyond that (or past ``_MAX_DEPTH``
    calls of one tool) it is a documented approximation: it starts from each tool's first
    matching (a greedy in-order pass, see ``_best_matchings``) and re-pairs one tool at a time,
    among its first ``_MAX_MATCHINGS`` matchings, while the in-order count grows. Returned
    sorted by expected index. ``rules`` say how arguments are compared (``metrics/arguments.py``).
    When no name repeats on either side (the usual log) the only largest matching pairs equal
    names, and it is taken without a search.
    """
    pairs = _match(used, expected, [c.tool_name.strip() for c in used],
                   [c.tool_name.strip() for c in expected], call_order(used), call_order(expected),
                   ordered=ordered, rules=rules)
    return [CallMatch(i, j, comparison) for i, j, comparison in pairs]


_Pair = tuple[int, int, ParameterComparison]
"""(used index, expected index, their parameters' agreement): a ``CallMatch`` as a tuple."""


def _match(used: Sequence[ToolCall], expected: Sequence[ExpectedTool], used_names: list[str],
           exp_names: list[str], used_rank: list[int], exp_rank: list[int], *, ordered: bool,
           rules: ArgumentRules | None) -> list[_Pair]:
    """``match_calls`` as tuples, with the calls' stripped names and ranks already known."""
    if len(used_names) == 1 == len(exp_names):  # one call each: paired if the names agree
        return ([(0, 0, compare_parameters(expected[0].parameters, used[0].parameters,
                                           rules=rules, tool=exp_names[0]))]
                if used_names[0] == exp_names[0] else [])
    if len(set(used_names)) == len(used_names) and len(set(exp_names)) == len(exp_names):
        # No name repeats on either side: every tool has at most one call per side, so the only
        # largest matching pairs the calls of equal name, whatever their agreement or order.
        where = {name: i for i, name in enumerate(used_names)}
        return [(i, j, compare_parameters(expected[j].parameters, used[i].parameters,
                                          rules=rules, tool=name))
                for j, name in enumerate(exp_names) if (i := where.get(name)) is not None]
    return _search_matching(used, expected, used_names, exp_names, used_rank, exp_rank,
                            ordered=ordered, rules=rules)


def _search_matching(used: Sequence[ToolCall], expected: Sequence[ExpectedTool],
                     used_names: list[str], exp_names: list[str], used_rank: list[int],
                     exp_rank: list[int], *, ordered: bool,
                     rules: ArgumentRules | None) -> list[_Pair]:
    """The general matching of ``match_calls`` (any names, repeated or not), as tuples."""
    groups: dict[str, tuple[list[int], list[int]]] = {}
    for i in sorted(range(len(used)), key=lambda i: (used_rank[i], i)):
        groups.setdefault(used_names[i], ([], []))[0].append(i)
    for j in sorted(range(len(expected)), key=lambda j: (exp_rank[j], j)):
        groups.setdefault(exp_names[j], ([], []))[1].append(j)

    comp: dict[tuple[int, int], ParameterComparison] = {}
    choices: list[list[dict[int, int]]] = []  # per tool: its best matchings, expected -> used
    complete = True
    for name, (rows, cols) in groups.items():
        if rows and cols:
            group = {(i, j): compare_parameters(expected[j].parameters, used[i].parameters,
                                                rules=rules, tool=name)
                     for i in rows for j in cols}
            comp.update(group)
            options, whole = _best_matchings(rows, cols, group, used_rank, exp_rank,
                                             limit=_MAX_MATCHINGS if ordered else 1)
            choices.append(options)
            complete = complete and whole

    def in_order(parts: Sequence[dict[int, int]]) -> int:
        return in_order_count((exp_rank[j], used_rank[i]) for part in parts for j, i in part.items())

    if not ordered:
        chosen = [options[0] for options in choices]
    elif complete and math.prod(len(o) for o in choices) <= _MAX_MATCHINGS:
        chosen = list(max(itertools.product(*choices), key=in_order, default=()))
    else:
        chosen = [options[0] for options in choices]
        best, improved = in_order(chosen), True
        while improved:
            improved = False
            for g, options in enumerate(choices):
                for option in options:
                    trial = [*chosen[:g], option, *chosen[g + 1:]]
                    score = in_order(trial)
                    if score > best:
                        chosen, best, improved = trial, score, True
    pairs = {j: i for part in chosen for j, i in part.items()}
    return [(pairs[j], j, comp[(pairs[j], j)]) for j in sorted(pairs)]


def _best_matchings(rows: list[int], cols: list[int],
                    comp: Mapping[tuple[int, int], ParameterComparison],
                    used_rank: list[int], exp_rank: list[int], *,
                    limit: int) -> tuple[list[dict[int, int]], bool]:
    """Matchings of one tool's used calls (rows) and expected calls (cols), each as large as
    possible with the highest exact total agreement, as ``expected -> used`` dicts.

    Depth-first over the smaller side in rank order, trying first the partners ranked after the
    previous call's partner, earliest first, then the rest, earliest first: the first matching
    found keeps as many pairs in order as a greedy pass can. Returns at most ``limit`` of them
    and whether that is all of them.
    """
    import bisect

    small_is_exp = len(cols) <= len(rows)
    small, large = (cols, rows) if small_is_exp else (rows, cols)
    exact = [[(comp[(b, a)] if small_is_exp else comp[(a, b)]).fraction for b in large] for a in small]
    denom = math.lcm(*(f.denominator for row in exact for f in row))
    agree = [[f.numerator * (denom // f.denominator) for f in row] for row in exact]  # exact ints
    if len(small) == 1:  # one call of this tool on one side: the best partner, no solver needed
        best = max(agree[0])
        start = (agree[0].index(best),)
    else:
        import numpy as np
        from scipy.optimize import linear_sum_assignment  # lazy: scipy is heavy

        r_idx, c_idx = linear_sum_assignment(np.array(exact, dtype=float), maximize=True)
        best = sum(agree[a][b] for a, b in zip(r_idx.tolist(), c_idx.tolist()))
        start = tuple(c_idx.tolist())  # an optimal matching (up to float rounding), kept as fallback
    large_ranks = [(used_rank if small_is_exp else exp_rank)[x] for x in large]  # ascending
    suffix = [0] * (len(small) + 1)  # most the remaining small-side calls can add
    for a in range(len(small) - 1, -1, -1):
        suffix[a] = suffix[a + 1] + max(agree[a])

    found: list[tuple[int, ...]] = []
    if len(small) > _MAX_DEPTH:  # too many calls of one tool to search them one by one
        found.append(start)
    chosen: list[int] = []
    taken = [False] * len(large)
    nodes = 0

    def search(a: int, total: int, last: int) -> None:
        nonlocal best, nodes
        nodes += 1
        if len(found) > limit or nodes > _MAX_NODES or total + suffix[a] < best:
            return
        if a == len(small):
            if total > best:  # only if float rounding misled the assignment solver
                best = total
                found.clear()
            found.append(tuple(chosen))
            return
        after = bisect.bisect_right(large_ranks, last)
        for b in itertools.chain(range(after, len(large)), range(after)):
            if not taken[b]:
                taken[b] = True
                chosen.append(b)
                search(a + 1, total + agree[a][b], large_ranks[b])
                chosen.pop()
                taken[b] = False

    if not found:
        search(0, 0, -1)
    # the recursive closure refers to itself through its cell: a cycle only the collector
    # frees (and offline runs pause it, metrics/agentic.py); emptying the cell breaks it
    search = None  # type: ignore[assignment]
    whole = len(found) <= limit and nodes <= _MAX_NODES and len(small) <= _MAX_DEPTH
    found = found[:limit] or [start]

    def as_dict(m: tuple[int, ...]) -> dict[int, int]:
        return ({small[a]: large[b] for a, b in enumerate(m)} if small_is_exp
                else {large[b]: small[a] for a, b in enumerate(m)})

    return [as_dict(m) for m in found], whole


def longest_increasing_subsequence(values: Sequence[Any], *, strict: bool = True) -> int:
    """Length of the longest strictly (or, with ``strict=False``, weakly) increasing subsequence.

    Patience sorting, O(n log n); ``values`` may be any mutually comparable items (tuples too).
    """
    import bisect

    place = bisect.bisect_left if strict else bisect.bisect_right
    tails: list[Any] = []
    for v in values:
        pos = place(tails, v)
        if pos == len(tails):
            tails.append(v)
        else:
            tails[pos] = v
    return len(tails)


# ----------------------------------------------------------------------------- scoring


def _as_model(value: Any, model: type[M], *, field: str, what: str) -> M | None:
    """Accept a typed model, the peers' plain dict, or None; a bad dict is a DataError."""
    if value is None or isinstance(value, model):
        return value
    if isinstance(value, Mapping):
        try:
            return model.model_validate(dict(value))
        except ValidationError as exc:
            raise DataError(f"invalid {what}: {exc.errors()[0]['msg']} at {_loc(exc)}",
                            field=field) from exc
    raise DataError(f"expected a {model.__name__} or dict, got {type(value).__name__}", field=field)


def _as_trace(used: AgenticTrace | Mapping[str, Any] | None) -> AgenticTrace | None:
    return _as_model(used, AgenticTrace, field="agentic", what="tool trace")


def _as_truth(expected: GroundTruthAgentic | Mapping[str, Any] | None) -> GroundTruthAgentic | None:
    return _as_model(expected, GroundTruthAgentic, field="ground_truth_agentic",
                     what="expected tools")


def _loc(exc: ValidationError) -> str:
    return ".".join(str(p) for p in exc.errors()[0]["loc"]) or "(root)"


def _labels(names: list[str], order: list[int]) -> list[str]:
    """``tool`` or ``tool#k`` (k-th of that name in call order) for messages, from the calls'
    stripped names."""
    if len(names) < 2 or len(set(names)) == len(names):  # no name repeats: labels are names
        return names
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    seen: dict[str, int] = {}
    labels = [""] * len(names)
    for i in sorted(range(len(names)), key=order.__getitem__):
        n = names[i]
        seen[n] = seen.get(n, 0) + 1
        labels[i] = n if counts[n] == 1 else f"{n}#{seen[n]}"
    return labels


def score_tool_use(
    used: AgenticTrace | Mapping[str, Any] | None,
    expected: GroundTruthAgentic | Mapping[str, Any] | None,
    answer: str = "",
    *,
    weights: Mapping[str, float] | None = None,
    threshold: float = 1.0,
    utilization_override: float | None = None,
    query: str = "",
    argument_matching: Mapping[str, Any] | None = None,
) -> ToolCorrectnessScore | None:
    """Score how one interaction used tools (definitions in the module docstring).

    ``used`` is the agent's trace, ``expected`` the reference tool use (typed models or the
    plain dicts of Fair Forge), ``answer`` the agent's final answer text, ``query`` the user's
    message (what the query already says is not evidence of using a tool),
    ``argument_matching`` the run's rules for comparing arguments (the data's
    ``expected.argument_matching`` wins for the same key). Returns None only when no tools were
    expected and none were used.

    >>> s = score_tool_use({"tools_used": [{"tool_name": "calc", "parameters": {"x": "2+2"},
    ...                                     "result": 4}]},
    ...                    {"expected_tools": [{"tool_name": "calc", "parameters": {"x": "2+2"}}]},
    ...                    "The answer is 4.")
    >>> s.overall_correctness, s.utilization_evidence
    (1.0, 'found')
    """
    return ToolScorer(weights=weights, threshold=threshold, argument_matching=argument_matching)(
        used, expected, answer, utilization_override=utilization_override, query=query)


class ToolScorer:
    """``score_tool_use`` with its run-wide options checked once, for scoring many interactions
    alike (``Agentic.run`` scores every interaction of a suite with one).

    >>> score = ToolScorer(threshold=0.75)
    >>> score({"tools_used": [{"tool_name": "calc"}]}, {"expected_tools": []}).is_correct
    False
    """

    __slots__ = ("_weights", "_threshold", "_argument_matching", "_run_rules")

    def __init__(self, *, weights: Mapping[str, float] | None = None, threshold: float = 1.0,
                 argument_matching: Mapping[str, Any] | None = None) -> None:
        w = normalize_tool_weights(weights)
        self._weights = (w["selection"], w["parameters"], w["sequence"], w["utilization"])
        self._threshold = check_unit("threshold", threshold)
        self._argument_matching = argument_matching
        self._run_rules: ArgumentRules | None = None  # the run's rules alone, built when needed

    def _rules(self, data_rules: Mapping[str, str] | None) -> ArgumentRules | None:
        """The rules for one interaction: the data's over the run's (None when there are none)."""
        if data_rules:
            return ArgumentRules(self._argument_matching, data_rules)
        if not self._argument_matching:
            return None
        if self._run_rules is None:
            self._run_rules = ArgumentRules(self._argument_matching)
        return self._run_rules

    def __call__(self, used: AgenticTrace | Mapping[str, Any] | None,
                 expected: GroundTruthAgentic | Mapping[str, Any] | None, answer: str = "", *,
                 utilization_override: float | None = None,
                 query: str = "") -> ToolCorrectnessScore | None:
        """``score_tool_use`` of one interaction with this scorer's options."""
        return _score(self, used, expected, answer, utilization_override, query)


def _score(scorer: ToolScorer, used: AgenticTrace | Mapping[str, Any] | None,
           expected: GroundTruthAgentic | Mapping[str, Any] | None, answer: str,
           utilization_override: float | None, query: str) -> ToolCorrectnessScore | None:
    """The body of ``score_tool_use`` (module docstring)."""
    w_sel, w_par, w_seq, w_use = scorer._weights
    thr = scorer._threshold
    override = None if utilization_override is None else check_unit(
        "utilization_override", utilization_override)
    trace = used if type(used) is AgenticTrace else _as_trace(used)  # typed: nothing to check
    truth = expected if type(expected) is GroundTruthAgentic else _as_truth(expected)
    used_calls = trace.tools_used if trace is not None else []
    exp_calls = truth.expected_tools if truth is not None else []
    if not used_calls and not exp_calls:
        return None
    n_used, n_exp = len(used_calls), len(exp_calls)
    sequence_matters = truth.tool_sequence_matters if truth is not None else False
    flag = trace.final_answer_uses_tools if trace is not None else None

    rules = scorer._rules(truth.argument_matching if truth is not None else None)
    used_names = [c.tool_name.strip() for c in used_calls]
    exp_names = [c.tool_name.strip() for c in exp_calls]
    used_rank, exp_rank = call_order(used_calls), call_order(exp_calls)
    matches = _match(used_calls, exp_calls, used_names, exp_names, used_rank, exp_rank,
                     ordered=sequence_matters, rules=rules)
    used_lab, exp_lab = _labels(used_names, used_rank), _labels(exp_names, exp_rank)
    n_matched = len(matches)
    lines: list[str] = []

    # selection
    selection = n_matched / max(n_exp, n_used)
    missing = extra = ()
    if n_matched < n_exp:
        matched_e = {j for _i, j, _p in matches}
        missing = [exp_lab[j] for j in sorted(range(n_exp), key=exp_rank.__getitem__)
                   if j not in matched_e]
    if n_matched < n_used:
        matched_u = {i for i, _j, _p in matches}
        extra = [used_lab[i] for i in sorted(range(n_used), key=used_rank.__getitem__)
                 if i not in matched_u]
    sel = f"selection {selection:.3g}: {n_matched} matched of {n_exp} expected, {n_used} used"
    if missing:
        sel += f"; missing: {', '.join(missing)}"
    if extra:
        sel += f"; extra: {', '.join(extra)}"
    lines.append(sel)

    # parameters
    if n_exp:
        parameters = math.fsum([p.score for _i, _j, p in matches]) / n_exp
    else:
        parameters = 0.0
    details = [f"{exp_lab[j]}.{d}" for _i, j, p in matches for d in p.mismatches]
    par = f"parameters {parameters:.3g}"
    if not n_exp:
        par += ": no calls expected, every argument is unexpected"
    elif details:
        par += ": " + "; ".join(details)
    elif missing:
        par += ": matched calls agree; missing calls count 0"
    else:
        par += ": all arguments agree"
    lines.append(par)

    # sequence
    if not matches:
        sequence = 0.0
        lines.append("sequence 0: no call matched")
    elif not sequence_matters:
        sequence = 1.0
        lines.append("sequence 1: order does not matter")
    else:
        lis = 1 if n_matched == 1 else in_order_count(
            [(exp_rank[j], used_rank[i]) for i, j, _p in matches])
        sequence = lis / n_matched
        lines.append(f"sequence {sequence:.3g}: {lis} of {n_matched} matched calls in expected order")

    # utilization
    cut = False
    if override is not None:
        utilization, evidence, why = override, "judge", "set by judge"
    elif not n_used:
        utilization, evidence, why = 0.0, "absent", "no tool was used"
    else:
        ev = find_result_evidence([c.result for c in used_calls], answer, query=query,
                                  parameters=[c.parameters for c in used_calls])
        if ev.any_found:
            shown = "; ".join(f"{used_lab[i]} result {v}" for i, v in sorted(ev.found.items()))
            utilization, evidence, why = 1.0, "found", f"answer contains {shown}"
        elif not ev.searchable:
            if flag is None:
                utilization, evidence = 0.5, "ambiguous"
                why = "no searchable tool result logged and no self-report"
            else:
                utilization, evidence = (1.0 if flag else 0.0), "no_results"
                why = f"no searchable tool result logged; self-report says {flag}"
        elif flag:
            utilization, evidence = 1.0, "ambiguous"
            why = "tool results not found in the answer, but self-report says True"
        elif flag is None:
            utilization, evidence = 0.0, "ambiguous"
            why = "tool results not found in the answer and no self-report"
        else:
            utilization, evidence = 0.0, "absent"
            why = "tool results not found in the answer; self-report says False"
        if ev.truncated:
            cut = True
            calls = ", ".join(used_lab[i] for i in ev.truncated)
            why += f" (result of {calls} searched in its first {MAX_RESULT_CHARS:,} characters)"
    lines.append(f"utilization {utilization:.3g} ({evidence}): {why}")

    overall = math.fsum([w_sel * selection, w_par * parameters, w_seq * sequence,
                         w_use * utilization])
    overall = min(1.0, max(0.0, overall))
    is_correct = overall >= thr - 1e-12
    lines.append(f"overall {overall:.3g} {'>=' if is_correct else '<'} threshold {thr:.3g}")
    return trusted(  # all computed above: no re-validation
        ToolCorrectnessScore,
        tool_selection_correct=selection,
        parameter_accuracy=parameters,
        sequence_correct=sequence,
        result_utilization=utilization,
        overall_correctness=overall,
        is_correct=is_correct,
        reasoning="\n".join(lines),
        utilization_evidence=evidence,
        result_cut=cut,
    )
