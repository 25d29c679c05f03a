"""The judge interface: batches of items in, one verdict or one failure per item out.

A judge is async-first so an LLM judge can run its calls concurrently; the sync wrappers make
it usable from scripts and notebooks alike. A failure is its own value (``JudgeFailure``) that
metrics keep out of n and c: it is never turned into a score of 0.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agenteval._util.aio import run_sync


@dataclass(frozen=True)
class AnswerItem:
    """One answer to judge against its reference."""

    query: str
    answer: str
    ground_truth: str | None
    context: str = ""
    history: tuple[tuple[str, str], ...] = ()
    """Prior (query, answer) turns; filled only when the user asks for them."""
    qa_id: str = ""
    session_id: str = ""


@dataclass(frozen=True)
class UtilizationItem:
    """Does an answer use what its tool calls returned? Asked only when evidence is ambiguous."""

    query: str
    answer: str
    tool_results: tuple[tuple[str, Any], ...]
    """(tool_name, result) pairs, in call order."""
    qa_id: str = ""
    session_id: str = ""


@dataclass(frozen=True)
class Verdict:
    """A judge's score in [0, 1] and why."""

    score: float
    reasoning: str = ""


@dataclass(frozen=True)
class JudgeFailure:
    """A judgment that could not be made: kept out of n and c, and reported."""

    cause: str
    kind: str = "error"
    """'error' (the call failed after retries), 'budget' (max_calls reached), 'no_reference',
    'unsupported', 'unresolved'."""
    code: str = ""
    """What failed, stable for grouping (see :data:`agenteval.judge.failures.CODES`), e.g.
    'invalid_verdict', 'timeout', 'http_5xx'; '' when the kind says it all."""
    cached: bool = False
    """True when this is a deterministic failure remembered from an earlier run (no request)."""

    @property
    def transient(self) -> bool:
        """True when a later run may succeed without any change (transport faults, deadline)."""
        from agenteval.judge.failures import TRANSIENT

        return self.code in TRANSIENT


JudgeOutcome = Verdict | JudgeFailure


@dataclass
class JudgeRun:
    """What a judge did during one evaluation (for the results' run record)."""

    judge: str
    calls: int = 0
    cache_hits: int = 0
    errors: int = 0
    not_judged_budget: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    details: dict[str, Any] = field(default_factory=dict)


class Judge(ABC):
    """Scores answers (and, optionally, tool-result use). Subclasses implement the async methods."""

    name: str = "judge"
    supports_utilization: bool = False

    @abstractmethod
    async def ajudge_answers(self, items: Sequence[AnswerItem]) -> list[JudgeOutcome]:
        """One outcome per item, in order."""

    async def ajudge_utilization(self, items: Sequence[UtilizationItem]) -> list[JudgeOutcome]:
        """One outcome per item; judges without this ability report a failure for each."""
        return [JudgeFailure(f"{self.name} does not judge tool-result use", kind="unsupported")
                for _ in items]

    def judge_answers(self, items: Sequence[AnswerItem]) -> list[JudgeOutcome]:
        """Sync wrapper of :meth:`ajudge_answers` (works inside Jupyter's running loop too)."""
        return run_sync(self.ajudge_answers(items))

    def judge_utilization(self, items: Sequence[UtilizationItem]) -> list[JudgeOutcome]:
        """Sync wrapper of :meth:`ajudge_utilization`."""
        return run_sync(self.ajudge_utilization(items))

    def start_run(self) -> JudgeRun:
        """Begin accounting for one evaluation; the judge adds to the returned record."""
        self._run = JudgeRun(judge=self.name)
        return self._run

    @property
    def run_record(self) -> JudgeRun:
        """Accounting of the current (or last) evaluation."""
        run = getattr(self, "_run", None)
        return run if run is not None else self.start_run()
