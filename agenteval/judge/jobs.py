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
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from agenteval.errors import JudgeError
from agenteval.judge.base import JudgeFailure
from agenteval.judge.failures import (AuthFailed, BudgetExhausted, Failed, InvalidVerdict,
                                      ReplyCut, describe, find)
from agenteval.judge.progress import Progress
from agenteval.judge.templates import Template
from agenteval.judge.transport import RunState, send

if TYPE_CHECKING:
    from agenteval.judge.llm import LLMJudge

FAILURE_MARK = "__agenteval_failure__"
"""Key of a cached deterministic failure (never a field of a verdict)."""


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


async def run_jobs(judge: LLMJudge, jobs: list[Job], phase: str) -> list[BaseModel | JudgeFailure]:
    """Judge every job; one outcome per job, in order."""
    run = judge.run_record
    counts = phase_counts(run, phase)
    counts["items"] += len(jobs)
    out: list[BaseModel | JudgeFailure | None] = [None] * len(jobs)
    groups: dict[str, tuple[Job, list[dict[str, str]], list[int]]] = {}
    for i, job in enumerate(jobs):
        messages = job.template.messages(job.messages)
        key = judge.cache_key_for(job.template, messages)
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
            groups[key] = (job, messages, [i])
    if groups:
        run.details["deduplicated"] = (run.details.get("deduplicated", 0)
                                       + sum(len(g[2]) - 1 for g in groups.values()))
        state = judge.run_state()
        concurrency = await judge.concurrency()
        semaphore = asyncio.Semaphore(concurrency)
        client = judge.make_client()
        bar = Progress(sum(len(g[2]) for g in groups.values()),
                       f"judging {phase} ({judge.model})", enabled=judge.progress)
        try:
            async def one(key: str, job: Job, messages: list[dict[str, str]],
                          indices: list[int]) -> None:
                async with semaphore:  # held for the whole judgment, re-asks and backoff too
                    result = await _judge_one(judge, client, state, job, messages, key)
                for i in indices:
                    out[i] = _outcome(judge, result, jobs[i], counts)
                bar.update(len(indices), errors=len(indices) if isinstance(result, Failed) else 0)

            async with asyncio.TaskGroup() as group:
                for key, (job, messages, indices) in groups.items():
                    group.create_task(one(key, job, messages, indices))
        except BaseExceptionGroup as group_error:
            first = _first_judge_error(group_error)
            if first is not None:
                raise first from None
            raise
        finally:
            bar.close()
            await client.close()
    return out  # type: ignore[return-value]


def _outcome(judge: LLMJudge, result: BaseModel | Failed, job: Job,
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


async def _judge_one(judge: LLMJudge, client: Any, state: RunState, job: Job,
                     messages: list[dict[str, str]], key: str) -> BaseModel | Failed:
    run = judge.run_record
    budget = f"not judged: max_calls={judge.max_calls} reached"
    if judge.max_calls is not None and run.calls >= judge.max_calls:
        return Failed("budget", budget, "budget")
    stats = JobStats()
    template = job.template
    try:
        verdict = await _ask(judge, client, state, template, messages, stats)
    except Exception as exc:  # every failure becomes a record (or JudgeError if strict)
        reasks = max(stats.sends - 1, 0)
        run.details["reasks"] += reasks
        auth = find(exc, AuthFailed)
        if auth is not None:
            raise JudgeError(judge.auth_message(auth)) from None  # type: ignore[arg-type]
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
    judge.remember(key, verdict, stats)
    return verdict


async def _ask(judge: LLMJudge, client: Any, state: RunState, template: Template,
               messages: list[dict[str, Any]], stats: JobStats) -> BaseModel:
    """Send, parse (salvaging a cut reply), re-ask with the error while replies are invalid."""
    msgs = messages
    error = ""
    for _ in range(judge.max_reasks + 1):
        response = await send(client, template.encode(msgs), state, stats)
        try:
            verdict, salvaged = template.parse(response)
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


def _first_judge_error(group: BaseExceptionGroup) -> JudgeError | None:
    for exc in group.exceptions:
        if isinstance(exc, JudgeError):
            return exc
        if isinstance(exc, BaseExceptionGroup):
            found = _first_judge_error(exc)
            if found is not None:
                return found
    return None
