"""One batch of judgments: cache, de-duplication, concurrency, re-asks, progress, accounting.

Identical requests (same cache key) within one batch are sent once and the outcome, verdict or
failure, is given to every item that asked for it. Each verdict is written to the cache as soon
as it arrives, so a cancelled run keeps what finished; cancellation propagates
(``asyncio.CancelledError``), abandons the requests in flight and starts no new ones. A
deterministic failure (no valid verdict after the re-asks) is cached too, as a failure, and
served as such on later runs unless the judge has ``retry_failed=True``; transport failures,
deadline and budget cuts are never cached, so the next run tries them again.

Accounting (``run_record``): ``calls`` counts HTTP requests sent (first tries, retries and
re-asks alike) and ``max_calls`` caps exactly that number; ``cache_hits`` counts items served
from the cache (no request); ``details["deduplicated"]`` counts items that shared the request of
an identical item; ``errors`` and ``not_judged_budget`` count judgments (items), also broken
down per phase in ``details["judgments"]``; ``details["retries"]`` counts requests repeated
after a transport fault, ``details["reasks"]`` requests sent again after an invalid verdict and
``details["salvaged"]`` verdicts recovered from a reply cut at the token limit.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from agenteval.errors import JudgeError, JudgeKeyRefused
from agenteval.judge.base import JudgeFailure, JudgeRun
from agenteval.judge.failures import (JUDGE_FAILURES, AuthFailed, BudgetExhausted, Failed,
                                      InvalidVerdict, ReplyCut, describe, find)
from agenteval.judge.progress import Progress
from agenteval.judge.templates import Template
from agenteval.judge.transport import RunState, send

ITEM_ID_CHARS = 16
"""Hex characters of the cache key a request carries as its item id (64 bits)."""

FAILURE_MARK = "__agenteval_failure__"
"""Key of a cached deterministic failure (never a field of a verdict)."""


class BatchJudge(Protocol):
    """What a batch asks of its judge (:class:`agenteval.judge.llm.BatchJudge` provides it)."""

    model: str
    max_calls: int | None
    max_reasks: int
    strict: bool
    progress: bool | None
    run_record: JudgeRun

    def cache_key_for(self, template: Template, messages: list[dict[str, str]]) -> str: ...
    def cached(self, key: str, model: type[BaseModel]) -> BaseModel | Failed | None: ...
    def remember(self, key: str, verdict: BaseModel, stats: JobStats) -> None: ...
    def claim(self, key: str) -> bool: ...
    async def wait_claimed(self, key: str) -> bool: ...
    def release(self, key: str) -> None: ...
    def note_cache(self) -> None: ...
    def remember_failure(self, key: str, code: str, cause: str, stats: JobStats) -> None: ...
    def run_state(self) -> RunState: ...
    async def concurrency(self) -> int: ...
    def make_client(self) -> Any: ...
    def scrub(self, text: str) -> str: ...
    def scrub_verdict(self, verdict: BaseModel) -> BaseModel: ...
    def auth_message(self, auth: AuthFailed) -> str: ...


@dataclass
class Job:
    """One item's judgment: its messages (before the mode's format), template and label."""

    messages: list[dict[str, str]]
    template: Template
    label: str


@dataclass
class JobStats:
    """Per-judgment counters."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    responses: int = 0
    sends: int = 0  # logical requests that reached the server at least once: 1 + re-asks


def phase_counts(run: Any, phase: str) -> dict[str, int]:
    """The per-phase judgment counters in ``run.details["judgments"]`` (created on first use)."""
    phases = run.details.setdefault("judgments", {})
    return phases.setdefault(phase, {"items": 0, "verdicts": 0, "errors": 0, "budget": 0,
                                     "cache_hits": 0, "cached_failures": 0})


async def run_jobs(judge: BatchJudge, jobs: list[Job], phase: str) -> list[BaseModel | JudgeFailure]:
    """Judge every job; one outcome per job, in order."""
    run = judge.run_record
    counts = phase_counts(run, phase)
    counts["items"] += len(jobs)
    out: list[BaseModel | JudgeFailure | None] = [None] * len(jobs)
    groups: dict[str, tuple[Job, list[dict[str, str]], list[int]]] = {}
    for i, job in enumerate(jobs):
        key = judge.cache_key_for(job.template, job.messages)
        if key in groups:
            groups[key][2].append(i)
            continue
        hit = judge.cached(key, job.template.model)
        if isinstance(hit, Failed):
            counts["cached_failures"] += 1
            run.details["cached_failures"] = run.details.get("cached_failures", 0) + 1
            out[i] = _outcome(judge, hit, job, counts)
        elif hit is not None:
            run.cache_hits += 1
            counts["cache_hits"] += 1
            counts["verdicts"] += 1
            out[i] = hit
        else:
            # the item id the verdict must echo: from the key, so identical requests share it
            groups[key] = (job, job.template.messages(job.messages, key[:ITEM_ID_CHARS]), [i])
    if groups:
        run.details["deduplicated"] = (run.details.get("deduplicated", 0)
                                       + sum(len(g[2]) - 1 for g in groups.values()))
        state = judge.run_state()
        concurrency = await judge.concurrency()
        client = judge.make_client()
        bar = Progress(sum(len(g[2]) for g in groups.values()),
                       f"judging {phase} ({judge.model})", enabled=judge.progress)
        state.on_pause = bar.pause
        pending = iter(groups.items())  # the workers take the next judgment, one at a time
        try:
            async def worker() -> None:
                for key, (job, messages, indices) in pending:
                    result = await _from_other_process(judge, key, job, indices, counts)
                    if result is None:
                        try:
                            result = await _judge_one(judge, client, state, job, messages, key)
                        finally:
                            judge.release(key)
                    for i in indices:
                        out[i] = _outcome(judge, result, jobs[i], counts)
                    bar.update(len(indices),
                               errors=len(indices) if isinstance(result, Failed) else 0)

            async with asyncio.TaskGroup() as group:
                for _ in range(min(concurrency, len(groups))):
                    group.create_task(worker())
        except BaseExceptionGroup as group_error:
            # The first JudgeError (strict, auth) as itself; else the first exception, e.g. a
            # bug of agenteval, as itself with its own traceback (not wrapped in a group).
            first = _first(group_error, JudgeError) or _first(group_error, BaseException)
            raise first from None
        finally:
            bar.close()
            await client.close()
    judge.note_cache()
    return out  # type: ignore[return-value]


async def _from_other_process(judge: BatchJudge, key: str, job: Job, indices: list[int],
                              counts: dict[str, int]) -> BaseModel | Failed | None:
    """The outcome another process sharing the cache just stored for ``key``, else None (this
    process judges it: it holds the claim, or the other process gave up)."""
    if judge.claim(key) or not await judge.wait_claimed(key):
        return None
    hit = judge.cached(key, job.template.model)
    if hit is None:
        return None
    run = judge.run_record
    run.details["from_other_process"] = run.details.get("from_other_process", 0) + len(indices)
    if not isinstance(hit, Failed):
        run.cache_hits += len(indices)
        counts["cache_hits"] += len(indices)
    return hit


def _outcome(judge: BatchJudge, result: BaseModel | Failed, job: Job,
             counts: dict[str, int]) -> BaseModel | JudgeFailure:
    """One item's outcome from its (possibly shared) judgment, with per-item accounting."""
    if not isinstance(result, Failed):
        counts["verdicts"] += 1
        return result
    run = judge.run_record
    if result.kind == "budget":
        run.not_judged_budget += 1
        counts["budget"] += 1
        return JudgeFailure(result.text, kind="budget", code="budget")
    run.errors += 1
    counts["errors"] += 1
    return JudgeFailure(judge.scrub(f"{job.label}: {result.text}"), kind="error",
                        code=result.code, cached=result.cached)


async def _judge_one(judge: BatchJudge, client: Any, state: RunState, job: Job,
                     messages: list[dict[str, str]], key: str) -> BaseModel | Failed:
    run = judge.run_record
    budget = f"not judged: max_calls={judge.max_calls} reached"
    if judge.max_calls is not None and run.calls >= judge.max_calls:
        return Failed("budget", budget, "budget")
    stats = JobStats()
    template = job.template
    try:
        verdict = await _ask(judge, client, state, template, messages, stats, key[:ITEM_ID_CHARS])
    except JUDGE_FAILURES as exc:  # the judge's failures become records (or JudgeError if
        # strict); anything else is a bug of agenteval and propagates with its traceback
        reasks = max(stats.sends - 1, 0)
        run.details["reasks"] += reasks
        auth = find(exc, AuthFailed)
        if auth is not None:
            raise JudgeKeyRefused(judge.auth_message(auth)) from None  # type: ignore[arg-type]
        if find(exc, BudgetExhausted) is not None:
            return Failed("budget", f"{budget} part-way through this item "
                                    f"({stats.responses} reply(ies) received, {reasks} "
                                    "re-ask(s))" if stats.sends else budget, "budget")
        code, cause = describe(exc, reasks)
        if judge.strict:
            run.errors += 1
            raise JudgeError(
                f"judge call failed for {judge.scrub(f'{job.label}: {cause}')}") from None
        if code in ("invalid_verdict", "truncated"):
            judge.remember_failure(key, code, cause, stats)
        return Failed("error", cause, code)
    run.details["reasks"] += max(stats.sends - 1, 0)
    verdict = judge.scrub_verdict(verdict)  # a reasoning that echoes the key is never stored
    judge.remember(key, verdict, stats)
    return verdict


async def _ask(judge: BatchJudge, client: Any, state: RunState, template: Template,
               messages: list[dict[str, Any]], stats: JobStats, item: str) -> BaseModel:
    """Send, parse (salvaging a cut reply), re-ask with the error while replies are invalid."""
    msgs = messages
    error = ""
    data = ("\n".join(m["content"] for m in messages if m.get("role") == "user")
            if template.searches else "")
    for _ in range(judge.max_reasks + 1):
        response = await send(client, template.encode(msgs, item), state, stats)
        try:
            verdict, salvaged = template.parse(response, item=item, data=data)
        except ValueError as exc:  # ValidationError and JSONDecodeError are ValueErrors
            error = str(exc)
            if response.choices[0].finish_reason == "length":  # the same limit would cut again
                raise ReplyCut(template.body.get("max_tokens")) from exc
            msgs = template.reask(msgs, response, exc)
            continue
        if salvaged:
            judge.run_record.details["salvaged"] = judge.run_record.details.get("salvaged", 0) + 1
        return verdict
    raise InvalidVerdict(error)


def _first(group: BaseExceptionGroup, kind: type[BaseException]) -> BaseException | None:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            found = _first(exc, kind)
            if found is not None:
                return found
        elif isinstance(exc, kind):
            return exc
    return None
