"""Argument matching: is a tool call's argument the one the reference expected?

Rules are set per tool or per field, in the data (``ground_truth_agentic.argument_matching``)
or for the whole run (``Agentic.run(..., argument_matching=...)``, ``--argument-matching``),
as a mapping from a *key* to a *rule*:

========================  ===================================================================
key                       applies to
========================  ===================================================================
``"*"``                   every argument of every tool
``"book"``                every argument of tool ``book``
``"*.date"``              argument ``date`` (and what is inside it) of any tool
``"book.date"``           argument ``date`` of tool ``book``; ``"book.filter.city"`` a nested key
========================  ===================================================================

A rule applies to its path and everything beneath it; at each place the most specific key wins
(tool and path over ``*`` and path, a longer path over a shorter, then the tool, then ``*``),
the data's rules over the run's for the same key. List positions are not part of a path.

A rule is one mode, or a value mode and a key mode joined by ``+`` (``"subset+normalized"``):

- value modes: ``exact`` (the default): strings identical, numbers equal in value (compared
  exactly, so ``5 == 5.0`` and ``1e9 == 1000000000`` but ``1000000001 != 1e9`` and
  ``1e-13 != 0``); ``normalized``: strings equal after Unicode NFKC, case folding and collapsing
  whitespace (``" New  York" == "new york"``), numbers as in exact; ``numeric`` or
  ``numeric:TOL``: numbers, and strings that are numbers (``"42"``), equal when
  ``|a - b| <= TOL * max(|a|, |b|)`` (one relative rule, computed exactly, TOL = 1e-9 unless
  given; no absolute part, so only 0 equals 0), other strings as in exact;
- key modes, for objects (and lists): by default both sides need the same keys (lists: the
  same items in order); ``subset``: the expected keys must be present, extra keys in the call
  are not charged (lists: every expected item appears somewhere); ``superset``: the call may
  leave out expected keys, every key it gives must be expected (lists: every item given is
  expected);
- ``ignore``: the argument is not compared at all (left out of the score).

Always: ``bool`` is not a number (``True != 1``), ``None`` equals only ``None``, two NaNs are
equal, infinities equal only themselves, and any other type mismatch (``"5"`` vs ``5`` outside
numeric mode) is a mismatch.

    >>> compare_parameters({"id": "aB3xQ"}, {"id": "Ab3Xq"}).score
    0.0
    >>> compare_parameters({"id": "aB3xQ"}, {"id": "Ab3Xq"},
    ...                    rules=ArgumentRules({"*.id": "normalized"})).score
    1.0
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from agenteval._util.numbers import fold_text
from agenteval.errors import DataError
from agenteval.schemas.argument_rules import (
    DEFAULT_TOLERANCE,
    KEY_MODES,
    VALUE_MODES,
    Rule,
    check_argument_matching,
    parse_rule,
)

__all__ = [
    "DEFAULT_TOLERANCE",
    "KEY_MODES",
    "VALUE_MODES",
    "ArgumentRules",
    "ParameterComparison",
    "Rule",
    "check_argument_matching",
    "compare_parameters",
    "parse_rule",
    "values_equal",
]


@functools.lru_cache(maxsize=1024)
def _parsed(items: tuple[tuple[str, Any], ...]) -> dict[str, Rule]:
    """Rules parsed once per distinct mapping (the same rules recur on every interaction)."""
    checked = check_argument_matching(dict(items)) or {}
    return {key: parse_rule(spec) for key, spec in checked.items()}


class ArgumentRules:
    """Rules for argument comparison, looked up per tool and path.

    ``ArgumentRules(run_rules, data_rules)``: the later mapping wins for the same key.
    """

    def __init__(self, *layers: Mapping[str, str] | None) -> None:
        self._rules: dict[str, Rule] = {}
        for layer in layers:
            if not layer:
                continue
            try:
                parsed = _parsed(tuple(layer.items()))
            except (AttributeError, TypeError):  # not a mapping of strings: say so
                check_argument_matching(layer)
                raise
            self._rules.update(parsed)
        # the longest path any key names: deeper places need no look-up of their own (a path
        # nested 900 deep costs one look-up per level, not 900)
        self._longest = max((key.count(".") for key in self._rules), default=0)

    def __bool__(self) -> bool:
        return bool(self._rules)

    def at(self, tool: str, path: tuple[str, ...]) -> tuple[Rule, ...]:
        """The rules that apply at ``path`` in ``tool``'s arguments, most specific first."""
        found = []
        for depth in range(min(len(path), self._longest), -1, -1):
            sub = ".".join(path[:depth])
            for key in ((f"{tool}.{sub}", f"*.{sub}") if sub else (tool, "*")):
                rule = self._rules.get(key)
                if rule is not None:
                    found.append(rule)
        return tuple(found)

    def resolve(self, tool: str, path: tuple[str, ...]) -> _Effective:
        rules = self.at(tool, path)
        if rules and rules[0].ignore:
            return _Effective(ignore=True)
        value = next((r for r in rules if r.value), None)
        keys = next((r.keys for r in rules if r.keys), None)
        return _Effective(value=value.value if value else "exact",
                          tolerance=value.tolerance if value else DEFAULT_TOLERANCE,
                          keys=keys)


@dataclass(frozen=True)
class _Effective:
    value: str = "exact"
    tolerance: float = DEFAULT_TOLERANCE
    keys: str | None = None
    ignore: bool = False


_NO_RULES = ArgumentRules()
_DEFAULT = _Effective()


# ----------------------------------------------------------------------------- values


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _as_number(x: Any) -> int | float | None:
    """A number, or a string that reads as one (numeric mode); None otherwise."""
    if _is_number(x):
        return x
    if isinstance(x, str):
        text = x.strip()
        if "_" in text:  # int() and float() accept 1_000; no one writes a number so
            return None
        try:
            return int(text)
        except ValueError:
            pass
        try:
            return float(text)
        except ValueError:
            return None
    return None


def _numbers_equal(a: int | float, b: int | float, rule: _Effective) -> bool:
    """Exact value equality, or the relative rule in numeric mode (see the module docstring)."""
    if a == b:  # Python compares int and float exactly
        return True
    fa = a if isinstance(a, float) else None
    fb = b if isinstance(b, float) else None
    if (fa is not None and math.isnan(fa)) or (fb is not None and math.isnan(fb)):
        return fa is not None and fb is not None and math.isnan(fa) and math.isnan(fb)
    if (fa is not None and math.isinf(fa)) or (fb is not None and math.isinf(fb)):
        return False
    if rule.value != "numeric":
        return False
    ea, eb = Fraction(a), Fraction(b)
    return abs(ea - eb) <= Fraction(rule.tolerance) * max(abs(ea), abs(eb))


def _show(x: Any, limit: int = 60) -> str:
    """A short repr for a mismatch line; a deep or huge value is cut, never walked whole."""
    if isinstance(x, (dict, list, tuple)) and not _shallow(x, 8, 64):
        text = _SHORT.repr(x)  # bounded in depth and width (reprlib): no recursion limit hit
    else:
        text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _shallow(x: Any, depth: int, width: int) -> bool:
    """Whether ``x`` nests at most ``depth`` containers and holds at most ``width`` items in all
    (an explicit stack: any depth is safe, and the walk stops early)."""
    stack, seen = [(x, 0)], 0
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            value = value.values()
        elif not isinstance(value, (list, tuple)):
            continue
        if level >= depth:
            return False
        for item in value:
            seen += 1
            if seen > width:
                return False
            stack.append((item, level + 1))
    return True


def _short_repr() -> Any:
    import reprlib

    r = reprlib.Repr()
    r.maxlevel, r.maxdict, r.maxlist, r.maxtuple, r.maxstring, r.maxother = 4, 6, 6, 6, 40, 40
    return r


_SHORT = _short_repr()


def _union_keys(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """Keys of both mappings, expected ones first, in a stable order."""
    return list(a) + [k for k in b if k not in a]


MAX_UNORDERED_NESTING = 100
"""Lists compared as ``subset``/``superset`` nested in one another beyond which a comparison
stops with a DataError (each such level searches item pairs, one Python call deep; ordered
lists and objects are compared iteratively at any depth)."""


class _Comparer:
    """Deep comparison of one tool's arguments under its rules.

    Iterative (an explicit stack of pending comparisons), so arguments nested as deep as any JSON
    reader allows never overflow Python's recursion; mismatch lines come out in document order.
    """

    def __init__(self, rules: ArgumentRules, tool: str) -> None:
        self.rules = rules
        self.tool = tool
        self.nesting = 0  # unordered list comparisons in progress, one inside the other

    def rule(self, path: tuple[str, ...]) -> _Effective:
        return self.rules.resolve(self.tool, path) if self.rules else _DEFAULT

    def diffs(self, expected: Any, got: Any, path: tuple[str, ...], shown: str) -> list[str]:
        """Where two values differ, as ``path: expected X, got Y`` lines (empty when equal)."""
        out: list[str] = []
        stack: list[tuple[Any, ...]] = [(expected, got, path, shown)]
        while stack:
            task = stack.pop()
            if len(task) == 1:  # a line whose place in the output order has come
                out.append(task[0])
                continue
            e, g, p, s = task
            rule = self.rule(p)
            if rule.ignore:
                continue
            if isinstance(e, Mapping) and isinstance(g, Mapping):
                stack.extend(reversed(self._mapping_tasks(e, g, p, s, rule.keys)))
            elif isinstance(e, (list, tuple)) and isinstance(g, (list, tuple)):
                if rule.keys in KEY_MODES:
                    out.extend(self._unordered(e, g, p, s, rule))
                elif len(e) != len(g):
                    out.append(f"{s}: expected {len(e)} items {_show(e)}, "
                               f"got {len(g)} items {_show(g)}")
                else:
                    stack.extend((ei, gi, p, f"{s}[{i}]")
                                 for i, ei, gi in reversed(list(zip(range(len(e)), e, g))))
            elif not _leaf_equal(e, g, rule):
                out.append(f"{s}: expected {_show(e)}, got {_show(g)}")
        return out

    def _mapping_tasks(self, expected: Mapping[str, Any], got: Mapping[str, Any],
                       path: tuple[str, ...], shown: str, keys_mode: str | None) -> list[tuple]:
        """The pending comparisons (4-tuples) and lines (1-tuples) of two objects, in order."""
        tasks: list[tuple] = []
        for key in _union_keys(expected, got):
            sub_path = (*path, str(key))
            sub = f"{shown}.{key}" if shown else str(key)
            if key not in got:
                if keys_mode != "superset" and not self.rule(sub_path).ignore:
                    tasks.append((f"{sub}: missing (expected {_show(expected[key])})",))
            elif key not in expected:
                if keys_mode != "subset" and not self.rule(sub_path).ignore:
                    tasks.append((f"{sub}: unexpected (got {_show(got[key])})",))
            else:
                tasks.append((expected[key], got[key], sub_path, sub))
        return tasks

    def mapping_diffs(self, expected: Mapping[str, Any], got: Mapping[str, Any],
                      path: tuple[str, ...], shown: str) -> tuple[int, int, list[str]]:
        """(keys equal, keys charged as different, mismatch lines) for two objects at ``path``."""
        matched = charged = 0
        out: list[str] = []
        for task in self._mapping_tasks(expected, got, path, shown, self.rule(path).keys):
            if len(task) == 1:
                out.append(task[0])
                charged += 1
                continue
            if self.rule(task[2]).ignore:
                continue
            d = self.diffs(*task)
            if d:
                out.extend(d)
                charged += 1
            else:
                matched += 1
        return matched, charged, out

    def _unordered(self, expected: Any, got: Any, path: tuple[str, ...], shown: str,
                   rule: _Effective) -> list[str]:
        """``subset``: every expected item appears among the call's; ``superset``: every item
        the call gives is expected."""
        if self.nesting >= MAX_UNORDERED_NESTING:
            raise DataError(f"tool {self.tool or '?'!r}: argument {shown or 'value'!r} nests more "
                            f"than {MAX_UNORDERED_NESTING} lists compared as {rule.keys}; "
                            "agenteval compares at most that many")
        self.nesting += 1
        try:
            if rule.keys == "subset":
                lost = [e for e in expected
                        if not any(not self.diffs(e, g, path, shown) for g in got)]
                return [f"{shown}: expected item {_show(e)} not found" for e in lost]
            extra = [g for g in got if not any(not self.diffs(e, g, path, shown) for e in expected)]
            return [f"{shown}: unexpected item {_show(g)}" for g in extra]
        finally:
            self.nesting -= 1


def _leaf_equal(expected: Any, got: Any, rule: _Effective) -> bool:
    """Two values that are not both objects nor both lists, under one effective rule."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return isinstance(expected, bool) and isinstance(got, bool) and expected == got
    if _is_number(expected) and _is_number(got):
        return _numbers_equal(expected, got, rule)
    if rule.value == "numeric" and (_is_number(expected) or _is_number(got)) and \
            (_as_number(expected) is not None and _as_number(got) is not None):
        return _numbers_equal(_as_number(expected), _as_number(got), rule)  # type: ignore[arg-type]
    if isinstance(expected, str) and isinstance(got, str):
        if expected == got:
            return True
        if rule.value == "normalized":
            return fold_text(expected) == fold_text(got)
        if rule.value == "numeric":
            ea, ga = _as_number(expected), _as_number(got)
            return ea is not None and ga is not None and _numbers_equal(ea, ga, rule)
        return False
    return expected is None and got is None


_NONE = type(None)


def _identical(a: Any, b: Any) -> bool:
    """Equal with the same plain JSON type at every level (dict, list, tuple, str, int, float,
    bool, None): then they are equal under the default rule, so no rule needs looking up. False
    says nothing (NaN, 5 vs 5.0 and other types go the rule-by-rule way). Iterative: any depth."""
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        t = type(a)
        if t is not type(b):
            return False
        if t is dict:
            if len(a) != len(b):
                return False
            for k, v in a.items():
                if k not in b:
                    return False
                stack.append((v, b[k]))
        elif t is list or t is tuple:
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b))
        elif not ((t is str or t is int or t is float or t is bool or t is _NONE) and a == b):
            return False
    return True


def values_equal(expected: Any, got: Any, *, rule: str = "exact") -> bool:
    """Deep equality of two argument values under one rule (module docstring).

    >>> values_equal(5, 5.0), values_equal("/Home/a.txt", "/home/a.txt")
    (True, False)
    >>> values_equal(1000000001, 1e9, rule="numeric"), values_equal(1e-13, 0, rule="numeric")
    (True, False)
    """
    comparer = _Comparer(ArgumentRules({"*": rule}), "")
    return not comparer.diffs(expected, got, (), "value")


@dataclass(frozen=True)
class ParameterComparison:
    """Agreement of one used call's arguments with one expected call's."""

    matched_keys: int
    total_keys: int
    mismatches: tuple[str, ...] = ()

    @property
    def fraction(self) -> Fraction:
        """Exact score: matching keys / keys compared (1 when none are compared)."""
        return Fraction(1) if self.total_keys == 0 else Fraction(self.matched_keys, self.total_keys)

    @property
    def score(self) -> float:
        """``float(fraction)``: one correctly rounded integer division, as Fraction's own."""
        return 1.0 if self.total_keys == 0 else self.matched_keys / self.total_keys


def compare_parameters(expected: Mapping[str, Any], got: Mapping[str, Any], *,
                       rules: ArgumentRules | None = None, tool: str = "") -> ParameterComparison:
    """Compare argument dicts key by key under ``rules`` (for ``tool``).

    The score is matching keys over the keys compared: the union of both sides' keys, less
    ignored ones, less keys the key mode does not charge (extra keys under ``subset``, left-out
    ones under ``superset``). Each mismatch is explained with its nested path.
    """
    if not rules and _identical(expected, got):  # the common case: nothing to explain
        n = len(expected)
        return _ALL_AGREE[n] if n < len(_ALL_AGREE) else ParameterComparison(n, n, ())
    comparer = _Comparer(rules if rules is not None else _NO_RULES, tool)
    if comparer.rule(()).ignore:
        return ParameterComparison(0, 0, ())
    matched, charged, mismatches = comparer.mapping_diffs(expected, got, (), "")
    return ParameterComparison(matched, matched + charged, tuple(mismatches))


_ALL_AGREE = tuple(ParameterComparison(n, n, ()) for n in range(32))
"""Every key agreeing, by key count (immutable, so one object each serves every call)."""
