"""The settings of one evaluation run, shared by the metrics that build results and the results
that hold and save them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agenteval.statistical.modes import StatisticalMode

__all__ = ["RunSettings"]


@dataclass(frozen=True)
class RunSettings:
    """The options one evaluation ran with."""

    k: int
    threshold: float
    tool_threshold: float
    tool_weights: Mapping[str, float]
    mode: StatisticalMode
    outcome_threshold: float | None = None  # None: a given outcome succeeds within 1e-6 of 1
    argument_matching: Mapping[str, Any] | None = None  # run-wide rules (metrics/arguments.py)
