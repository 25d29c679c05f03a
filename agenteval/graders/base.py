"""What a grader sees and what it gives back; the failure codes of graders.

A grader grades ONE interaction (a user turn and the agent's answer, in its conversation):

    case  -> GraderCase: the query, the answer, the reference, the earlier turns, the tool
             calls made and expected, the conversation's context and metadata
    out   <- Score(score in [0, 1], passed, reason, checks=[Check(text, passed, score, reason)])
             (a Python grader may also return a bool, a number in [0, 1] or a dict with those
             keys; a script grader writes AgentV's JSON or answers by exit code)

A grader that cannot give a result (it raised, timed out, crashed, wrote garbage, its judge
call failed) gives a ``GraderFailure``: an error of that grader, reported with a stable code,
kept out of n and c like every judge error, never a score of 0.

    grader_raised     a Python grader raised an exception
    grader_output     what the grader returned or wrote is not a valid result (garbage stdout,
                      a score out of [0, 1], a missing field)
    grader_timeout    a script did not finish within its timeout (it is killed)
    grader_exit       a script exited non-zero and wrote to stderr (or wrote JSON): an
                      execution error, not a quality failure
    grader_start      the command could not be started (not found, not executable)
    (judge codes)     a ``judge.ask`` inside a Python grader failed: the judge's own code
                      (budget, invalid_verdict, timeout, ...)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GraderCase", "Check", "Score", "GraderFailure", "GraderRaised", "CODES",
           "coerce_score"]

CODES = ("grader_raised", "grader_output", "grader_timeout", "grader_exit", "grader_start")


@dataclass(frozen=True)
class ToolUse:
    """A tool call as a grader sees it."""

    name: str
    arguments: dict[str, Any]
    result: Any = None


@dataclass(frozen=True)
class GraderCase:
    """One interaction to grade, with its conversation around it."""

    session_id: str
    assistant_id: str
    task_id: str | None
    qa_id: str
    index: int
    """The interaction's position in its conversation (0-based)."""
    query: str
    answer: str
    expected: str | None
    """The reference answer (``ground_truth_assistant``), if any."""
    context: str = ""
    history: tuple[tuple[str, str], ...] = ()
    """Earlier (query, answer) turns of the conversation, in order."""
    tool_calls: tuple[ToolUse, ...] = ()
    """The calls the agent made in this interaction, in call order."""
    expected_tools: tuple[ToolUse, ...] = ()
    """The calls the reference solution makes (``ground_truth_agentic``)."""
    rubric: tuple[str, ...] = ()
    """The rubric criteria that apply to this interaction (data and call)."""
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Check:
    """One aspect a grader checked."""

    text: str
    passed: bool | None
    score: float | None = None
    reason: str = ""


@dataclass(frozen=True)
class Score:
    """A grader's result on one interaction."""

    score: float
    passed: bool
    reason: str = ""
    checks: tuple[Check, ...] = ()


@dataclass(frozen=True)
class GraderFailure:
    """No result: why, and a stable code (see the module docstring)."""

    cause: str
    code: str


class GraderRaised(Exception):
    """Raised inside ``judge.ask`` when the judgment failed; the grader's result is then that
    failure (with the judge's code) unless the grader catches it and decides otherwise."""

    def __init__(self, cause: str, code: str) -> None:
        super().__init__(cause)
        self.cause, self.code = cause, code


def _unit(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    v = float(value)
    if not (math.isfinite(v) and 0.0 <= v <= 1.0):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    return v


def _check(value: Any, index: int) -> Check:
    if isinstance(value, Check):
        return value
    if not isinstance(value, dict):
        raise ValueError(f"checks[{index}] must be an object with text and pass, got {value!r}")
    text = value.get("text")
    passed = value.get("pass", value.get("passed"))
    if not isinstance(text, str):
        raise ValueError(f"checks[{index}].text must be a string, got {text!r}")
    if not isinstance(passed, bool):
        raise ValueError(f"checks[{index}].pass must be true or false, got {passed!r}")
    score = value.get("score")
    reason = value.get("reason", "")
    if not isinstance(reason, str):
        raise ValueError(f"checks[{index}].reason must be a string, got {reason!r}")
    return Check(text, passed, None if score is None else _unit(f"checks[{index}].score", score),
                 reason)


def coerce_score(value: Any, *, threshold: float) -> Score:
    """A ``Score`` from what a grader gave; ValueError (with the field) when it is not one.

    Accepted: a ``Score``; True/False (score 1/0); a number in [0, 1] (passed when >=
    ``threshold``); a dict in AgentV's shape ``{pass, score, reason, checks}`` where ``score``
    defaults to the mean of the checks' scores (a check without one counts 1 if it passed, else
    0) or to 1/0 by ``pass``, and ``pass`` defaults to score >= ``threshold``. Out-of-range or
    non-numeric scores are errors, never clipped.
    """
    if isinstance(value, Score):
        _unit("score", value.score)
        return value
    if isinstance(value, bool):
        return Score(1.0 if value else 0.0, value)
    if isinstance(value, (int, float)):
        v = _unit("score", value)
        return Score(v, v >= threshold)
    if not isinstance(value, dict):
        raise ValueError("a grader returns a Score, a bool, a number in [0, 1] or an object "
                         f"with pass/score/reason/checks, got {type(value).__name__}")
    raw_checks = value.get("checks", [])
    if not isinstance(raw_checks, list):
        raise ValueError(f"checks must be a list, got {raw_checks!r}")
    checks = tuple(_check(c, i) for i, c in enumerate(raw_checks))
    passed = value.get("pass", value.get("passed"))
    if passed is not None and not isinstance(passed, bool):
        raise ValueError(f"pass must be true or false, got {passed!r}")
    score = value.get("score")
    if score is not None:
        score = _unit("score", score)
    elif checks:
        score = sum(c.score if c.score is not None else float(bool(c.passed))
                    for c in checks) / len(checks)
    elif passed is not None:
        score = 1.0 if passed else 0.0
    else:
        raise ValueError("the result has none of pass, score or checks")
    reason = value.get("reason", "")
    if reason is None:
        reason = ""
    if not isinstance(reason, str):
        raise ValueError(f"reason must be a string, got {reason!r}")
    return Score(score, passed if passed is not None else score >= threshold, reason, checks)
