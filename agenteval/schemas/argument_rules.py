"""The grammar of argument-matching rules: ``check_argument_matching`` and ``parse_rule``.

Part of the data model (``GroundTruthAgentic.argument_matching`` is validated with it when a
file is read); what the rules mean when arguments are compared is :mod:`agenteval.metrics.arguments`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agenteval.errors import ConfigError

__all__ = ["DEFAULT_TOLERANCE", "KEY_MODES", "VALUE_MODES", "Rule", "check_argument_matching",
           "parse_rule"]

VALUE_MODES = ("exact", "normalized", "numeric")
KEY_MODES = ("subset", "superset")
DEFAULT_TOLERANCE = 1e-9
"""Relative tolerance of ``numeric`` when none is given."""


@dataclass(frozen=True)
class Rule:
    """One parsed rule: a value mode, a key mode, or ``ignore``."""

    value: str | None = None       # exact / normalized / numeric
    keys: str | None = None        # subset / superset
    tolerance: float = DEFAULT_TOLERANCE
    ignore: bool = False

    def text(self) -> str:
        """The rule written back in its canonical form."""
        if self.ignore:
            return "ignore"
        value = self.value
        if value == "numeric" and self.tolerance != DEFAULT_TOLERANCE:
            value = f"numeric:{self.tolerance!r}"
        return "+".join(p for p in (self.keys, value) if p)


def parse_rule(spec: Any, *, where: str = "argument_matching") -> Rule:
    """``"exact"``, ``"numeric:0.01"``, ``"subset+normalized"``, ``"ignore"`` ... -> Rule."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"{where}: expected a rule such as 'exact', 'normalized', 'numeric', "
                          f"'numeric:0.01', 'subset', 'superset' or 'ignore', got {spec!r}")
    value = keys = None
    tolerance, ignore = DEFAULT_TOLERANCE, False
    for part in (p.strip().lower() for p in spec.split("+")):
        name, _, arg = part.partition(":")
        if name == "ignore" and not arg:
            ignore = True
        elif name in KEY_MODES and not arg and keys is None:
            keys = name
        elif name in VALUE_MODES and value is None and (not arg or name == "numeric"):
            value = name
            if arg:
                try:
                    tolerance = float(arg)
                except ValueError:
                    tolerance = math.nan
                if not (math.isfinite(tolerance) and tolerance >= 0):
                    raise ConfigError(f"{where}: numeric tolerance must be a number >= 0, "
                                      f"got {arg!r} in {spec!r}")
        else:
            raise ConfigError(f"{where}: cannot read {part!r} in rule {spec!r}; modes are "
                              f"{', '.join(VALUE_MODES + KEY_MODES)} and ignore, at most one "
                              "value mode and one key mode joined by '+'")
    if ignore and (value or keys):
        raise ConfigError(f"{where}: 'ignore' cannot be combined with other modes in {spec!r}")
    return Rule(value=value, keys=keys, tolerance=tolerance, ignore=ignore)


def _check_key(key: Any, where: str) -> str:
    if not isinstance(key, str) or not key.strip() or any(not p.strip() for p in key.split(".")):
        raise ConfigError(f"{where}: a key is '*', a tool name, or TOOL.FIELD / *.FIELD "
                          f"(dotted for nested fields), got {key!r}")
    return key.strip()


def check_argument_matching(spec: Mapping[str, Any] | None, *,
                            where: str = "argument_matching") -> dict[str, str] | None:
    """Validate rules; returns them canonical (key -> rule text), or None when none are given."""
    if spec is None:
        return None
    if not isinstance(spec, Mapping):
        raise ConfigError(f"{where}: expected a mapping of key -> rule, e.g. "
                          f"{{'*': 'normalized', 'book.date': 'exact'}}, got {spec!r}")
    return {_check_key(k, where): parse_rule(v, where=f"{where}[{k!r}]").text()
            for k, v in spec.items()}
