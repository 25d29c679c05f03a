"""Outcomes from any grader: when a given outcome or score counts as a success.

A conversation may carry ``Dataset.outcome`` (an environment reward, unit tests, a human label)
and an interaction ``Batch.score``; where given, no judge is asked. One rule turns them into
success, the one tau-bench applies to its rewards: ``True``, or a number within 1e-6 of 1
(``SUCCESS_TOLERANCE``); with an ``outcome_threshold`` t, a number >= t instead.

    >>> outcome_success(1.0), outcome_success(0.9999999), outcome_success(0.5)
    (True, True, False)
    >>> outcome_success(0.5, threshold=0.5), outcome_success(False)
    (True, False)
"""

from __future__ import annotations

from agenteval.errors import check_unit

SUCCESS_TOLERANCE = 1e-6
"""A number within this of 1 is a success (tau-bench's ``is_successful``)."""


def check_outcome_threshold(value: object) -> float | None:
    """None (the 1 +- 1e-6 rule) or a threshold in [0, 1]."""
    return None if value is None else check_unit("outcome_threshold", value)


def outcome_success(value: bool | float, *, threshold: float | None = None) -> bool:
    """Whether a given outcome or score is a success (rule in the module docstring)."""
    if isinstance(value, bool):
        return value
    if threshold is None:
        return 1.0 - SUCCESS_TOLERANCE <= float(value) <= 1.0 + SUCCESS_TOLERANCE  # as tau-bench
    return float(value) >= threshold
