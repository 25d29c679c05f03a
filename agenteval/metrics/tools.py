"""Deterministic tool-call correctness for one interaction (no LLM involved).

``score_tool_use(used, expected, answer)`` compares the calls an agent made (``AgenticTrace``)
with the calls the reference solution makes (``GroundTruthAgentic``) and returns a
``ToolCorrectnessScore`` whose components, each in [0, 1], are defined exactly as follows.

Let U be the used calls (``n_used``), E the expected calls (``n_expected``).

**Matching.** A used call can be paired with an expected call only when their ``tool_name`` is
identical (exact, case-sensitive, after stripping surrounding whitespace). Among those pairs we
take an optimal one-to-one assignment (``scipy.optimize.linear_sum_assignment``, per tool name):
it matches as many calls as possible (``min`` of used and expected calls of that name) and,
among those, maximises the summed parameter agreement. Ties are broken toward pairing calls at
similar positions (least squared rank difference), then improved by a local search that
re-pairs equally good partners while more matched calls fall in the expected order; the result
does not depend on list order except through the calls' positions. A used call left
unpaired is *extra* (this includes a duplicate of a call expected once); an expected call left
unpaired is *missing*.

**Selection** ``tool_selection_correct = matched / max(n_expected, n_used)``. Missing and extra
calls both lower it; expected tools with none used gives 0, and tools used when none were
expected gives 0.

**Parameters.** Per pair, ``matching keys / |union of keys|`` over the top-level argument names
(1.0 when both have no arguments). A key matches when its values are deeply equal:

- dicts need the same keys with equal values; lists need the same length and equal items *in
  order*;
- numbers (int/float) are equal within ``math.isclose(rel_tol=1e-9, abs_tol=1e-12)``, so
  ``5 == 5.0`` and ``0.1 + 0.2 == 0.3``; two NaNs are equal;
- ``bool`` is not a number: ``True != 1``;
- strings are compared **case-insensitively** after Unicode NFKC normalisation, stripping and
  collapsing inner whitespace (``" New  York" == "new york"``);
- any other type mismatch (``"5"`` vs ``5``, ``None`` vs ``0``) is a mismatch;
- a key present on one side only is a mismatch.

``parameter_accuracy`` is the mean of the pair scores over the *expected* calls, a missing call
counting 0. When no calls were expected but some were made, it is 0 (every argument given is
unexpected). Each mismatching key is explained in ``reasoning`` as
``tool.path: expected X, got Y`` (``tool#2.path`` when a tool is expected more than once).

**Sequence.** Order of the used calls is by ``step`` when every used call has one (ties by list
position), else list order; the same rule gives the expected order. If nothing matched,
``sequence_correct = 0``. Otherwise, when ``tool_sequence_matters`` is False it is 1.0; when
True, the matched pairs are sorted by expected position and the score is the length of the
longest strictly increasing subsequence of their used positions divided by the number of
matched pairs (1.0 for a single matched call). Extra and missing calls are already charged by
selection and parameters, so they do not lower this score.

**Utilization** (``result_utilization``, with ``utilization_evidence``) asks whether the answer
uses what the tools returned, from evidence in the answer text combined with the agent's
self-reported ``final_answer_uses_tools`` flag. Each call's ``result`` is walked (dict values,
list items, scalars). Searchable leaves are:

- strings, normalised like parameters, at least 3 characters and not a common word
  (``ok``, ``true``, ``success``, ``none``...), found in the normalised answer on word
  boundaries; long strings are also tried sentence by sentence (segments of >= 20 characters);
- numbers (and strings that are a number), matched against every number written in the answer
  (``1,234.5``, ``42%``, ``$12.50``, ``-3``, ``1.2e5``, ``2.5 million``) within half a unit of
  the answer's last displayed digit: result 3.14159 matches "3.14", result 8 matches "8" and
  "8.0". A percentage also matches its fraction (``42%`` matches 0.42); a negative result also
  matches its magnitude ("fell 5%" for -5). Numbers inside longer strings count when they are
  not single-digit integers. Integers with ``|x| < 10`` are weak evidence: they count only when
  the call's result has nothing more distinctive to find.

Outcomes, in order: ``utilization_override`` given -> that value, evidence ``"judge"``. No tool
used -> 0.0 ``"absent"`` (there is nothing to use). Any used call's result found in the answer
-> 1.0 ``"found"`` (evidence beats a False flag). No searchable result logged -> the flag
decides: True 1.0 / False 0.0 with ``"no_results"``, None 0.5 ``"ambiguous"``. Results logged
but not found -> flag False/None 0.0 ``"absent"``; flag True 1.0 ``"ambiguous"`` (the offline
scorer trusts the agent; a judge may later replace it through ``utilization_override``).

**Overall** ``overall_correctness`` is the weighted sum of the four components with weights
normalised to sum 1 (default 0.25 each); ``is_correct = overall >= threshold - 1e-12``.

``score_tool_use`` returns None only when no tools were expected and none were used.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agenteval.errors import ConfigError, DataError, check_unit
from agenteval.schemas.common import AgenticTrace, ExpectedTool, GroundTruthAgentic, ToolCall
from agenteval.schemas.results import ToolCorrectnessScore

M = TypeVar("M", bound=BaseModel)

__all__ = [
    "DEFAULT_TOOL_WEIGHTS",
    "CallMatch",
    "Evidence",
    "ParameterComparison",
    "call_order",
    "compare_parameters",
    "find_result_evidence",
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

_REL_TOL = 1e-9
_ABS_TOL = 1e-12

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


# ----------------------------------------------------------------------------- parameters


def _norm_text(s: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", s).casefold().split())


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _numbers_equal(a: float, b: float) -> bool:
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    fa, fb = float(a), float(b)
    if math.isnan(fa) or math.isnan(fb):
        return math.isnan(fa) and math.isnan(fb)
    return math.isclose(fa, fb, rel_tol=_REL_TOL, abs_tol=_ABS_TOL)


def values_equal(expected: Any, got: Any) -> bool:
    """Deep equality used for parameters (see the module docstring for the rules)."""
    return not _diffs(expected, got, "")


def _show(x: Any, limit: int = 60) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _diffs(expected: Any, got: Any, path: str) -> list[str]:
    """Where two values differ, as ``path: expected X, got Y`` lines (empty when equal)."""
    if isinstance(expected, bool) or isinstance(got, bool):
        same = isinstance(expected, bool) and isinstance(got, bool) and expected == got
    elif _is_number(expected) and _is_number(got):
        same = _numbers_equal(expected, got)
    elif isinstance(expected, str) and isinstance(got, str):
        same = _norm_text(expected) == _norm_text(got)
    elif isinstance(expected, Mapping) and isinstance(got, Mapping):
        out: list[str] = []
        for key in _union_keys(expected, got):
            sub = f"{path}.{key}" if path else str(key)
            if key not in got:
                out.append(f"{sub}: missing (expected {_show(expected[key])})")
            elif key not in expected:
                out.append(f"{sub}: unexpected (got {_show(got[key])})")
            else:
                out.extend(_diffs(expected[key], got[key], sub))
        return out
    elif isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple)):
        if len(expected) != len(got):
            return [f"{path}: expected {len(expected)} items {_show(expected)}, "
                    f"got {len(got)} items {_show(got)}"]
        out = []
        for i, (e, g) in enumerate(zip(expected, got)):
            out.extend(_diffs(e, g, f"{path}[{i}]"))
        return out
    elif expected is None and got is None:
        same = True
    else:
        same = False
    return [] if same else [f"{path}: expected {_show(expected)}, got {_show(got)}"]


def _union_keys(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """Keys of both mappings, expected ones first, in a stable order."""
    return list(a) + [k for k in b if k not in a]


@dataclass(frozen=True)
class ParameterComparison:
    """Agreement of one used call's arguments with one expected call's."""

    matched_keys: int
    total_keys: int
    mismatches: tuple[str, ...] = ()

    @property
    def fraction(self) -> Fraction:
        """Exact score: matching keys / union of keys (1 when both are empty)."""
        return Fraction(1) if self.total_keys == 0 else Fraction(self.matched_keys, self.total_keys)

    @property
    def score(self) -> float:
        return float(self.fraction)


def compare_parameters(expected: Mapping[str, Any], got: Mapping[str, Any]) -> ParameterComparison:
    """Compare argument dicts key by key; each mismatch is explained with its nested path."""
    keys = _union_keys(expected, got)
    matched = 0
    mismatches: list[str] = []
    for key in keys:
        if key not in got:
            mismatches.append(f"{key}: missing (expected {_show(expected[key])})")
        elif key not in expected:
            mismatches.append(f"{key}: unexpected (got {_show(got[key])})")
        else:
            d = _diffs(expected[key], got[key], str(key))
            if d:
                mismatches.extend(d)
            else:
                matched += 1
    return ParameterComparison(matched, len(keys), tuple(mismatches))


# ----------------------------------------------------------------------------- order & matching


def _canonical(x: Any) -> str:
    """A stable text form of a value, used only to order calls that share a step."""
    if isinstance(x, Mapping):
        return "{" + ",".join(f"{k!r}:{_canonical(x[k])}" for k in sorted(x, key=str)) + "}"
    if isinstance(x, (list, tuple)):
        return "[" + ",".join(_canonical(v) for v in x) + "]"
    return repr(x)


def call_order(calls: Sequence[ToolCall | ExpectedTool]) -> list[int]:
    """Rank of each call: by ``step`` when every call has one (ties by content), else list order."""
    n = len(calls)
    if n and all(c.step is not None for c in calls):
        idx = sorted(range(n), key=lambda i: (calls[i].step, calls[i].tool_name.strip(),
                                              _canonical(calls[i].parameters)))
    else:
        idx = list(range(n))
    rank = [0] * n
    for r, i in enumerate(idx):
        rank[i] = r
    return rank


@dataclass(frozen=True)
class CallMatch:
    """One used call paired with one expected call."""

    used_index: int
    expected_index: int
    parameters: ParameterComparison


def match_calls(used: Sequence[ToolCall], expected: Sequence[ExpectedTool]) -> list[CallMatch]:
    """Optimal one-to-one matching of used to expected calls (same tool name only).

    Per tool name, ``linear_sum_assignment`` pairs ``min(n_used, n_expected)`` calls maximising the
    summed parameter agreement, exactly (integer weights), then minimising the squared difference
    of the calls' ranks (``call_order``). Among matchings with the same agreement, a local search
    then swaps partners while that lengthens the in-order run (the sequence score), so repeated
    calls of one tool are not charged for an arbitrary pairing. Rows and columns are laid out in
    rank order, so the result depends on list order only through the ranks. Returned sorted by
    expected index.
    """
    from scipy.optimize import linear_sum_assignment  # lazy: scipy is heavy

    used_rank = call_order(used)
    exp_rank = call_order(expected)
    groups: dict[str, tuple[list[int], list[int]]] = {}
    for i in sorted(range(len(used)), key=used_rank.__getitem__):
        groups.setdefault(used[i].tool_name.strip(), ([], []))[0].append(i)
    for j in sorted(range(len(expected)), key=exp_rank.__getitem__):
        groups.setdefault(expected[j].tool_name.strip(), ([], []))[1].append(j)

    pairs: dict[int, int] = {}  # expected index -> used index
    comp: dict[tuple[int, int], ParameterComparison] = {}
    live: list[tuple[list[int], list[int]]] = []
    for rows, cols in groups.values():
        if not rows or not cols:
            continue
        live.append((rows, cols))
        group = {(i, j): compare_parameters(expected[j].parameters, used[i].parameters)
                 for i in rows for j in cols}
        comp.update(group)
        cost = _assignment_cost(rows, cols, group, used_rank, exp_rank)
        r_idx, c_idx = linear_sum_assignment(cost)
        for r, c in zip(r_idx.tolist(), c_idx.tolist()):
            pairs[cols[c]] = rows[r]
    if len(pairs) <= _MAX_ORDER_SEARCH:
        _improve_order(pairs, live, comp, used_rank, exp_rank)
    return [CallMatch(pairs[j], j, comp[(pairs[j], j)]) for j in sorted(pairs)]


_MAX_ORDER_SEARCH = 60


def _in_order(pairs: Mapping[int, int], used_rank: list[int], exp_rank: list[int]) -> int:
    """Longest run of matched calls whose used order agrees with the expected order."""
    return longest_increasing_subsequence(
        [used_rank[pairs[j]] for j in sorted(pairs, key=exp_rank.__getitem__)])


def _improve_order(pairs: dict[int, int], groups: list[tuple[list[int], list[int]]],
                   comp: Mapping[tuple[int, int], ParameterComparison],
                   used_rank: list[int], exp_rank: list[int]) -> None:
    """Re-pair calls of one tool, keeping the exact agreement, while the in-order run grows."""
    best = _in_order(pairs, used_rank, exp_rank)
    improved = True
    while improved:
        improved = False
        for rows, cols in groups:
            matched = [j for j in cols if j in pairs]
            candidates: list[dict[int, int]] = []
            for a, j1 in enumerate(matched):  # swap the partners of two expected calls
                for j2 in matched[a + 1:]:
                    u1, u2 = pairs[j1], pairs[j2]
                    if (comp[(u2, j1)].fraction + comp[(u1, j2)].fraction
                            == comp[(u1, j1)].fraction + comp[(u2, j2)].fraction):
                        candidates.append({j1: u2, j2: u1})
            free_used = [i for i in rows if i not in pairs.values()]
            free_exp = [j for j in cols if j not in pairs]
            for j in matched:  # hand a matched expected call to an unmatched used call
                for i in free_used:
                    if comp[(i, j)].fraction == comp[(pairs[j], j)].fraction:
                        candidates.append({j: i})
            for j in matched:  # move a used call to an unmatched expected call
                for j_new in free_exp:
                    if comp[(pairs[j], j_new)].fraction == comp[(pairs[j], j)].fraction:
                        candidates.append({j: -1, j_new: pairs[j]})
            for change in candidates:
                trial = dict(pairs)
                trial.update(change)
                trial = {j: i for j, i in trial.items() if i >= 0}
                score = _in_order(trial, used_rank, exp_rank)
                if score > best:
                    pairs.clear()
                    pairs.update(trial)
                    best, improved = score, True
                    break
            if improved:
                break


def _assignment_cost(rows: list[int], cols: list[int], comp: Mapping[tuple[int, int], ParameterComparison],
                     used_rank: list[int], exp_rank: list[int]) -> Any:
    """Cost matrix whose minimum is lexicographic: max parameter agreement, then min rank shift."""
    import numpy as np

    shift = np.array([[(used_rank[i] - exp_rank[j]) ** 2 for j in cols] for i in rows], dtype=float)
    denom = 1
    for c in comp.values():
        denom = math.lcm(denom, c.fraction.denominator)
    k = min(len(rows), len(cols))
    big = int(shift.max()) * k + 1  # exceeds any total tie-break difference
    if denom * big * k < 2**52:  # exact in float64: agreement dominates, shift breaks ties
        agree = np.array([[int(comp[(i, j)].fraction * denom) for j in cols] for i in rows], dtype=float)
        return -agree * big + shift
    agree = np.array([[comp[(i, j)].score for j in cols] for i in rows])
    return -agree + shift * (1e-9 / (big * k))


def longest_increasing_subsequence(values: Sequence[int]) -> int:
    """Length of the longest strictly increasing subsequence (patience sorting, O(n log n))."""
    import bisect

    tails: list[int] = []
    for v in values:
        pos = bisect.bisect_left(tails, v)
        if pos == len(tails):
            tails.append(v)
        else:
            tails[pos] = v
    return len(tails)


# ----------------------------------------------------------------------------- evidence

_COMMON_WORDS = frozenset({
    "ok", "okay", "true", "false", "none", "null", "nil", "yes", "no", "n/a", "na", "nan",
    "success", "successful", "succeeded", "error", "failed", "failure", "done", "complete",
    "completed", "pending", "unknown", "empty", "result", "results", "status", "data", "value",
    "the", "and", "for", "not", "inf", "infinity",
})
_MIN_TEXT = 3
_MIN_SEGMENT = 20
_MAX_LEAVES = 5000

_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9,
           "trillion": 1e12, "tn": 1e12}
_NUMBER_RE = re.compile(
    r"(?<![\w.])(?P<sign>[-\u2212+])?\s?(?P<cur>[$\u20ac\u00a3\u00a5])?\s?(?P<sign2>[-\u2212])?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:[eE](?P<exp>[-+]?\d+))?"
    r"(?:\s?(?P<pct>%)|\s?(?P<scale>thousand|million|billion|trillion|mn|bn|tn|k)\b)?",
    re.IGNORECASE,
)


def parse_numbers(text: str) -> list[tuple[float, float]]:
    """Numbers written in ``text`` as ``(value, tolerance)``; tolerance is half a displayed unit.

    ``"$1,234.50"`` -> (1234.5, 0.005); ``"42%"`` -> (42, 0.5) and (0.42, 0.005);
    ``"2.5 million"`` -> (2.5, 0.05) and (2.5e6, 5e4); ``"-3"`` -> (-3, 0.5).
    """
    out: list[tuple[float, float]] = []
    text = unicodedata.normalize("NFKC", text)
    for m in _NUMBER_RE.finditer(text):
        digits = m.group("num").replace(",", "")
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        value = float(digits)
        tol = 0.5 * 10.0 ** (-decimals)
        if m.group("exp"):
            factor = 10.0 ** int(m.group("exp"))
            value, tol = value * factor, tol * factor
        if m.group("sign") in ("-", "\u2212") or m.group("sign2"):
            value = -value
        scale = (m.group("scale") or "").lower()
        if scale:  # "2.5 million": the scaled value, and the bare one (results may be in millions)
            out.append((value, tol))
            value, tol = value * _SCALES[scale], tol * _SCALES[scale]
        out.append((value, tol))
        if m.group("pct"):
            out.append((value / 100.0, tol / 100.0))
    return out


def _number_in(x: float, numbers: Iterable[tuple[float, float]]) -> bool:
    for value, tol in numbers:
        slack = tol * (1 + 1e-9) + 1e-12
        if abs(x - value) <= slack or (x < 0 and abs(-x - value) <= slack):
            return True
    return False


def _leaves(x: Any, out: list[Any]) -> None:
    if len(out) >= _MAX_LEAVES:
        return
    if isinstance(x, Mapping):
        for v in x.values():
            _leaves(v, out)
    elif isinstance(x, (list, tuple, set, frozenset)):
        for v in x:
            _leaves(v, out)
    else:
        out.append(x)


_SENTENCE_RE = re.compile(r"(?<=[.!?;:])\s+|\n+")


@dataclass
class _Probes:
    texts: list[str] = field(default_factory=list)
    strong_numbers: list[float] = field(default_factory=list)
    weak_numbers: list[float] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.texts or self.strong_numbers or self.weak_numbers)


def _whole_number(s: str) -> float | None:
    """The number a string is, if it is only a number (``"12.50"``, ``"$3"``, ``"42%"``)."""
    m = _NUMBER_RE.fullmatch(s.strip())
    if m is None:
        return None
    parsed = parse_numbers(s.strip())
    return parsed[0][0] if parsed else None


def _probes(result: Any) -> _Probes:
    """What could show in an answer that used this result."""
    probes = _Probes()
    leaves: list[Any] = []
    _leaves(result, leaves)
    for leaf in leaves:
        if isinstance(leaf, bool) or leaf is None:
            continue
        if _is_number(leaf):
            if math.isfinite(leaf):
                weak = float(leaf).is_integer() and abs(leaf) < 10
                (probes.weak_numbers if weak else probes.strong_numbers).append(float(leaf))
            continue
        text = str(leaf)
        whole = _whole_number(text)
        if whole is not None:
            weak = whole.is_integer() and abs(whole) < 10
            (probes.weak_numbers if weak else probes.strong_numbers).append(whole)
            continue
        norm = _norm_text(text)
        if len(norm) >= _MIN_TEXT and norm not in _COMMON_WORDS:
            probes.texts.append(norm)
            if len(norm) > _MIN_SEGMENT:
                for seg in _SENTENCE_RE.split(norm):
                    seg = seg.strip(" .!?;:,")
                    if len(seg) >= _MIN_SEGMENT and seg != norm:
                        probes.texts.append(seg)
        for value, _tol in parse_numbers(text):
            if not (value.is_integer() and abs(value) < 10):
                probes.strong_numbers.append(value)
    return probes


def _show_number(x: float) -> str:
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def _text_in(phrase: str, answer_norm: str) -> bool:
    pattern = r"(?<!\w)" + re.escape(phrase) + r"(?!\w)"
    return re.search(pattern, answer_norm) is not None


@dataclass(frozen=True)
class Evidence:
    """Which calls' results were found in the answer."""

    searchable: tuple[int, ...]  # indices of calls whose result had something to look for
    found: dict[int, str]  # call index -> what was found (e.g. "'paris'" or "3.14159")

    @property
    def any_found(self) -> bool:
        return bool(self.found)


def find_result_evidence(results: Sequence[Any], answer: str) -> Evidence:
    """Look for each result (one per call, None = not logged) in the answer text."""
    answer = answer or ""
    answer_norm = _norm_text(answer)
    numbers = parse_numbers(answer)
    searchable: list[int] = []
    found: dict[int, str] = {}
    for idx, result in enumerate(results):
        if result is None:
            continue
        probes = _probes(result)
        if not probes:
            continue
        searchable.append(idx)
        hit = next((t for t in probes.texts if _text_in(t, answer_norm)), None)
        if hit is not None:
            found[idx] = _show(hit, 40)
            continue
        strong = next((x for x in probes.strong_numbers if _number_in(x, numbers)), None)
        if strong is not None:
            found[idx] = _show_number(strong)
            continue
        if not probes.texts and not probes.strong_numbers:
            weak = next((x for x in probes.weak_numbers if _number_in(x, numbers)), None)
            if weak is not None:
                found[idx] = _show_number(weak)
    return Evidence(tuple(searchable), found)


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


def _labels(calls: Sequence[ToolCall | ExpectedTool], order: list[int]) -> list[str]:
    """``tool`` or ``tool#k`` (k-th of that name in call order) for messages."""
    names = [c.tool_name.strip() for c in calls]
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    seen: dict[str, int] = {}
    labels = [""] * len(calls)
    for i in sorted(range(len(calls)), key=order.__getitem__):
        n = names[i]
        seen[n] = seen.get(n, 0) + 1
        labels[i] = n if counts[n] == 1 else f"{n}#{seen[n]}"
    return labels


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def score_tool_use(
    used: AgenticTrace | Mapping[str, Any] | None,
    expected: GroundTruthAgentic | Mapping[str, Any] | None,
    answer: str = "",
    *,
    weights: Mapping[str, float] | None = None,
    threshold: float = 1.0,
    utilization_override: float | None = None,
) -> ToolCorrectnessScore | None:
    """Score how one interaction used tools (definitions in the module docstring).

    ``used`` is the agent's trace, ``expected`` the reference tool use (typed models or the
    plain dicts of Fair Forge), ``answer`` the agent's final answer text. Returns None only when
    no tools were expected and none were used.

    >>> s = score_tool_use({"tools_used": [{"tool_name": "calc", "parameters": {"x": "2+2"},
    ...                                     "result": 4}]},
    ...                    {"expected_tools": [{"tool_name": "calc", "parameters": {"x": "2+2"}}]},
    ...                    "The answer is 4.")
    >>> s.overall_correctness, s.utilization_evidence
    (1.0, 'found')
    """
    w = normalize_tool_weights(weights)
    thr = check_unit("threshold", threshold)
    override = None if utilization_override is None else check_unit(
        "utilization_override", utilization_override)
    trace = _as_trace(used)
    truth = _as_truth(expected)
    used_calls = list(trace.tools_used) if trace is not None else []
    exp_calls = list(truth.expected_tools) if truth is not None else []
    if not used_calls and not exp_calls:
        return None
    n_used, n_exp = len(used_calls), len(exp_calls)
    sequence_matters = truth.tool_sequence_matters if truth is not None else False
    flag = trace.final_answer_uses_tools if trace is not None else None

    matches = match_calls(used_calls, exp_calls)
    used_rank, exp_rank = call_order(used_calls), call_order(exp_calls)
    used_lab, exp_lab = _labels(used_calls, used_rank), _labels(exp_calls, exp_rank)
    lines: list[str] = []

    # selection
    selection = len(matches) / max(n_exp, n_used)
    matched_u = {m.used_index for m in matches}
    matched_e = {m.expected_index for m in matches}
    missing = [exp_lab[j] for j in sorted(range(n_exp), key=exp_rank.__getitem__) if j not in matched_e]
    extra = [used_lab[i] for i in sorted(range(n_used), key=used_rank.__getitem__) if i not in matched_u]
    sel = f"selection {_fmt(selection)}: {len(matches)} matched of {n_exp} expected, {n_used} used"
    if missing:
        sel += f"; missing: {', '.join(missing)}"
    if extra:
        sel += f"; extra: {', '.join(extra)}"
    lines.append(sel)

    # parameters
    if n_exp:
        parameters = math.fsum(m.parameters.score for m in matches) / n_exp
    else:
        parameters = 0.0
    details = []
    for m in matches:
        label = exp_lab[m.expected_index]
        details.extend(f"{label}.{d}" for d in m.parameters.mismatches)
    par = f"parameters {_fmt(parameters)}"
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
        pos = [used_rank[m.used_index] for m in sorted(matches, key=lambda m: exp_rank[m.expected_index])]
        lis = longest_increasing_subsequence(pos)
        sequence = lis / len(matches)
        lines.append(f"sequence {_fmt(sequence)}: {lis} of {len(matches)} matched calls in expected order")

    # utilization
    if override is not None:
        utilization, evidence, why = override, "judge", "set by judge"
    elif not n_used:
        utilization, evidence, why = 0.0, "absent", "no tool was used"
    else:
        ev = find_result_evidence([c.result for c in used_calls], answer)
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
        else:
            utilization, evidence = 0.0, "absent"
            why = "tool results not found in the answer" + (
                "; self-report says False" if flag is False else "")
    lines.append(f"utilization {_fmt(utilization)} ({evidence}): {why}")

    overall = math.fsum([w["selection"] * selection, w["parameters"] * parameters,
                         w["sequence"] * sequence, w["utilization"] * utilization])
    overall = min(1.0, max(0.0, overall))
    is_correct = overall >= thr - 1e-12
    lines.append(f"overall {_fmt(overall)} {'>=' if is_correct else '<'} threshold {_fmt(thr)}")
    return ToolCorrectnessScore(
        tool_selection_correct=selection,
        parameter_accuracy=parameters,
        sequence_correct=sequence,
        result_utilization=utilization,
        overall_correctness=overall,
        is_correct=is_correct,
        reasoning="\n".join(lines),
        utilization_evidence=evidence,
    )
