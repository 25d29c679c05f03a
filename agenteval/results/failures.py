"""Judge failures of a run, grouped by kind: for the CLI's failure policy and the HTML report.

A run with a hundred unjudged interactions usually has two or three causes. Grouping them (with a
count and one full example each) says what to fix; a list of a hundred near-identical lines does
not. The grouping key is :func:`failure_kind`: the judge's failure code where it gives one
(``JudgeFailure.code``, carried to ``InteractionResult.judge_error_code``), else the normalised
cause text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_MIN_JUDGED", "FailureGroup", "JudgedCheck", "check_judged", "failure_kind",
           "group_failure_records", "group_failures", "judged_share"]

DEFAULT_MIN_JUDGED = 0.95
"""Share of interactions that must get a verdict for a run to count as done (``--min-judged``)."""


@dataclass(frozen=True)
class FailureGroup:
    """Interactions that failed for the same kind of reason."""

    kind: str
    """What went wrong, without item numbers, ids or values (the grouping key)."""
    count: int
    """Interactions in the group."""
    example: str
    """The first cause in the group, in full."""
    session_id: str
    """The conversation the example comes from."""


_LABEL = re.compile(r"\bitem \d+(?: \([^)]*\))?:?\s*")   # the judge's "item 3 (session_id='s', qa_id='q'):"
_BODY = re.compile(r"\{.*\}|\[.*\]", re.S)                # a reply or error body
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
_SPACE = re.compile(r"\s+")


def failure_kind(interaction: Any) -> str:
    """The grouping key of one failed interaction (an ``InteractionResult`` with ``judge_error``).

    Uses the judge's failure code when the result carries one; otherwise the cause text with
    item labels, quoted values and numbers replaced, so "score 54 is above 1" and "score 10.09 is
    above 1" fall into one group.

    >>> from types import SimpleNamespace as NS
    >>> failure_kind(NS(judge_error="error: item 3 (qa_id='q1'): score 54 is greater than 1"))
    'error: score # is greater than #'
    """
    return _kind(interaction.judge_error or "", getattr(interaction, "judge_error_code", None))


def _kind(text: str, code: str | None) -> str:
    if code:
        return ("tool-result use: " if text.startswith("tool-result use:") else "") + str(code)
    text = _LABEL.sub("", text)
    text = _NUMBER.sub("#", _QUOTED.sub("'…'", _BODY.sub("{…}", text)))
    return _SPACE.sub(" ", text).strip()


def group_failures(results: Iterable[Any]) -> list[FailureGroup]:
    """Failed interactions of ``results`` (AgenticMetric items) grouped by kind, largest first.

    ``AgenticResults`` hold their groups (``failure_groups``, found once in the columns); any
    other iterable of results is walked."""
    held = getattr(results, "failure_groups", None)
    if callable(held):
        return held()
    return group_failure_records((metric.session_id, r.judge_error,
                                  getattr(r, "judge_error_code", None))
                                 for metric in results for r in metric.interactions
                                 if r.judge_error)


def group_failure_records(records: Iterable[tuple[str, str, str | None]]) -> list[FailureGroup]:
    """``(session_id, judge_error, judge_error_code)`` of failed interactions, in run order,
    grouped by kind (:func:`failure_kind`), largest group first, each with its first example."""
    groups: dict[str, list[Any]] = {}
    for session_id, error, code in records:
        groups.setdefault(_kind(error, code), []).append((session_id, error))
    out = [FailureGroup(kind=kind, count=len(items), example=items[0][1], session_id=items[0][0])
           for kind, items in groups.items()]
    return sorted(out, key=lambda g: -g.count)


def judged_share(results: Iterable[Any]) -> tuple[int, int]:
    """(interactions with a verdict, interactions in total) over the run.

    Counted per interaction, not from n: a conversation with a given outcome is one graded unit
    (n = 1), yet every one of its interactions has its verdict.
    """
    if callable(getattr(results, "judged_share", None)):   # AgenticResults keep the count
        return results.judged_share()
    judged = total = 0
    for metric in results:
        if getattr(metric, "source", "judged") == "given":
            judged += sum(r.is_correct is not None for r in metric.interactions)
        else:
            judged += metric.total_interactions
        total += len(metric.interactions)
    return judged, total


@dataclass(frozen=True)
class JudgedCheck:
    """Whether a run judged enough of its interactions to be trusted: the ``--min-judged`` policy.

    The CLI exits 1 and the magic raises when :attr:`failed`; both print :meth:`warning_lines`
    and :attr:`error` from here, so the two cannot drift apart.
    """

    judged: int
    """Interactions with a verdict."""
    total: int
    """Interactions in the run."""
    min_judged: float
    """The share of ``total`` that had to be judged."""
    groups: tuple[FailureGroup, ...]
    """The unjudged interactions grouped by kind, largest first."""

    @property
    def share(self) -> float:
        """judged / total (1.0 for a run without interactions)."""
        return self.judged / self.total if self.total else 1.0

    @property
    def failed(self) -> bool:
        """Nothing was judged, or less than ``min_judged`` of it."""
        return self.judged == 0 or self.share < self.min_judged

    @property
    def error(self) -> str | None:
        """Why the run failed, in one line (None when it did not)."""
        if self.judged == 0:
            return "no interaction could be judged"
        if self.share < self.min_judged:
            return (f"only {self.judged} of {self.total} interactions ({self.share:.1%}) were "
                    f"judged, below --min-judged {self.min_judged:g}, so the estimates rest on "
                    "part of the data; fix the causes listed, or pass a lower --min-judged to "
                    "accept the run")
        return None

    def warning_lines(self) -> list[str]:
        """How many interactions were not judged and why, by kind (empty when all were)."""
        if not self.groups:
            return []
        failed = sum(g.count for g in self.groups)
        lines = [f"{failed} of {self.total} interactions ({failed / self.total:.1%}) could not be "
                 "judged and were left out of n and c; causes by kind:"]
        for g in self.groups:
            lines.append(f"  {g.count} x {g.kind}")
            if g.example != g.kind:
                lines.append(f"      e.g. (session {g.session_id}) {g.example}")
        return lines


def check_judged(results: Any, *, min_judged: float = DEFAULT_MIN_JUDGED) -> JudgedCheck:
    """The ``--min-judged`` policy on ``results``: a rate computed from the few interactions a
    failing judge did score is not the suite's rate, so such a run must not look like a success.

    ``min_judged`` is a share in [0, 1]; 0 accepts any run that judged something.
    """
    from agenteval.errors import ConfigError

    if isinstance(min_judged, bool) or not isinstance(min_judged, (int, float)) or not (
            0.0 <= min_judged <= 1.0):
        raise ConfigError(f"min_judged must be a share in [0, 1], got {min_judged!r}")
    judged, total = judged_share(results)
    return JudgedCheck(judged=judged, total=total, min_judged=float(min_judged),
                       groups=tuple(group_failures(results)))
