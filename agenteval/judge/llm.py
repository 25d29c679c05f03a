"""An LLM judge over any OpenAI-compatible endpoint: typed, concurrent, cached, budgeted.

Structured modes go through ``instructor`` (JSON schema or tool calls), which validates each reply
against the verdict model and re-asks on a schema violation (at most ``max_reasks`` times). Below
instructor, every HTTP request passes through one function that enforces the call budget and
retries transient faults (429 honouring ``retry-after``, 5xx, timeouts, connection errors) with
exponential backoff; the openai client's own retries are switched off so every request is seen
and counted. At most ``max_concurrency`` judgments are in progress at once (asyncio semaphore). A judgment that still fails becomes a ``JudgeFailure`` with
its cause (or raises ``JudgeError`` when ``strict``); it is never a score of 0.

Accounting (``run_record``): ``calls`` counts HTTP requests sent (first tries, retries and
re-asks alike) and ``max_calls`` caps exactly that number; ``cache_hits`` counts judgments served
from the cache (no request); token usage sums every response received.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import email.utils
import functools
import json
import logging
import os
import random
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ValidationError

from agenteval._async import run_sync
from agenteval.errors import ConfigError, JudgeError
from agenteval.judge import prompts
from agenteval.judge.base import (AnswerItem, Judge, JudgeFailure, JudgeOutcome, JudgeRun,
                                  UtilizationItem, Verdict)
from agenteval.judge.cache import JudgeCache, cache_key, resolve_cache
from agenteval.judge.verdicts import (AnswerVerdict, AttributionItem, AttributionsVerdict,
                                      NodeRelevanceItem, NodeRelevanceVerdict, StatementsItem,
                                      StatementsVerdict, UtilizationVerdict, attributions_model,
                                      node_relevance_model)

M = TypeVar("M", bound=BaseModel)

OPENAI_BASE_URL = "https://api.openai.com/v1"
PLAIN = "plain"
_RETRY_STATUS = frozenset({408, 409, 429})
_job_usage: contextvars.ContextVar[list[int]] = contextvars.ContextVar("agenteval_job_usage")


class _BudgetExhausted(Exception):
    """Raised before a request that would exceed ``max_calls``."""


class _InvalidVerdict(Exception):
    """Plain-text mode: no valid verdict after the allowed re-asks."""


class _Secret:
    """Holds the API key; its repr never shows it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"


@dataclass
class _Job:
    messages: list[dict[str, str]]
    model: type[BaseModel]
    label: str


@dataclass
class _Ctx:
    client: Any
    patched: Any
    semaphore: asyncio.Semaphore


def safe_endpoint(url: str) -> str:
    """The URL without user info, query or fragment (where credentials sometimes hide)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def _mode_from_name(name: str) -> Any:
    from instructor import Mode

    key = name.strip()
    for mode in Mode:
        if key.upper() == mode.name or key.lower() == str(mode.value).lower():
            return mode
    allowed = ", ".join(m.name.lower() for m in (Mode.JSON_SCHEMA, Mode.TOOLS, Mode.MD_JSON,
                                                 Mode.JSON, Mode.TOOLS_STRICT))
    raise ConfigError(f"mode must be an instructor mode name (e.g. {allowed}), got {name!r}")


def _is_instructor_client(obj: Any) -> bool:
    return hasattr(obj, "client") and hasattr(obj, "mode") and hasattr(obj, "create")


class LLMJudge(Judge):
    """Judge answers (and tool-result use, and RAG verdicts) with an LLM.

    ``model`` is required; point ``base_url`` at any OpenAI-compatible server (vLLM, Ollama,
    llama.cpp, ...) or pass a ready ``openai``/``instructor`` client. The key comes from
    ``api_key`` or ``$OPENAI_API_KEY`` and is never logged, cached or shown in a repr.

    ``cache``: True (default location, see :func:`agenteval.judge.cache.default_cache_path`),
    False/None (off), or a file path. ``max_calls`` caps the HTTP requests of one run (from
    :meth:`start_run`); items left unjudged come back as ``JudgeFailure(kind="budget")``.
    ``retry_initial_delay``/``retry_max_delay`` shape the exponential backoff (seconds); a
    ``retry-after`` header is honoured up to ``retry_max_delay``. ``strict=True`` raises
    ``JudgeError`` on the first failed judgment (budget cuts stay ``JudgeFailure`` records).
    ``mode`` names an instructor mode (default ``json_schema``; ``tools``, ``md_json`` ...);
    ``use_structured_output=False`` selects the plain-text mode, which parses the JSON between
    ``bos_json_clause`` and ``eos_json_clause`` and ignores ``mode``. A ready client's own
    transport and retries are replaced (a fresh transport per event loop, retries done here).
    """

    name = "llm"
    supports_utilization = True

    def __init__(self, model: str | None = None, *, base_url: str | None = None,
                 api_key: str | None = None, client: Any = None,
                 use_structured_output: bool = True, mode: str | None = None,
                 bos_json_clause: str = "```json", eos_json_clause: str = "```",
                 temperature: float = 0.0, max_concurrency: int = 16, max_retries: int = 4,
                 max_reasks: int = 2, timeout: float = 60.0,
                 cache: str | os.PathLike[str] | bool | JudgeCache | None = True,
                 max_calls: int | None = None, strict: bool = False,
                 include_history: bool = False, progress: bool | None = None,
                 retry_initial_delay: float = 0.5, retry_max_delay: float = 60.0) -> None:
        self.max_concurrency = _check_int("max_concurrency", max_concurrency, 1)
        self.max_retries = _check_int("max_retries", max_retries, 0)
        self.max_reasks = _check_int("max_reasks", max_reasks, 0)
        self.max_calls = None if max_calls is None else _check_int("max_calls", max_calls, 0)
        self.timeout = _check_positive("timeout", timeout)
        self.temperature = _check_nonneg("temperature", temperature)
        self.retry_initial_delay = _check_nonneg("retry_initial_delay", retry_initial_delay)
        self.retry_max_delay = _check_nonneg("retry_max_delay", retry_max_delay)
        if not bos_json_clause or not eos_json_clause:
            raise ConfigError("bos_json_clause and eos_json_clause must be non-empty strings, "
                              f"got {bos_json_clause!r} and {eos_json_clause!r}")
        self.bos_json_clause, self.eos_json_clause = bos_json_clause, eos_json_clause
        self.strict, self.include_history, self.progress = strict, include_history, progress
        self.use_structured_output = use_structured_output

        self._source = client
        instructor_mode = None
        if client is not None:
            if _is_instructor_client(client):
                instructor_mode = client.mode
                raw = client.client
            else:
                raw = client
            if raw is None or not hasattr(raw, "chat") or not hasattr(raw, "base_url"):
                raise ConfigError("client must be an openai.OpenAI / openai.AsyncOpenAI client or "
                                  f"an instructor client wrapping one, got {type(client).__name__}")
            self._source = raw
            self.base_url = str(raw.base_url)
            self._secret = _Secret(str(raw.api_key)) if isinstance(raw.api_key, str) else None
            model = model or getattr(client, "default_model", None)
        else:
            self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
            key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
            if not key:
                if safe_endpoint(self.base_url) == OPENAI_BASE_URL:
                    raise ConfigError("api_key is required for the OpenAI endpoint: pass api_key "
                                      "or set OPENAI_API_KEY")
                key = "EMPTY"  # local servers usually ignore it, the client wants one
            self._secret = _Secret(key)
        if not model or not isinstance(model, str):
            raise ConfigError(f"model must be a non-empty model name, got {model!r}")
        self.model = model

        if not use_structured_output:
            self.mode_name = PLAIN
            self._mode = None
        else:
            self._mode = (_mode_from_name(mode) if mode is not None
                          else instructor_mode if instructor_mode is not None
                          else _mode_from_name("json_schema"))
            self.mode_name = self._mode.name.lower()
        self.endpoint = safe_endpoint(self.base_url)
        self.cache = resolve_cache(cache)

    # ---- public API -------------------------------------------------------------------------

    def __repr__(self) -> str:
        return (f"LLMJudge(model={self.model!r}, endpoint={self.endpoint!r}, "
                f"mode={self.mode_name!r}, max_concurrency={self.max_concurrency}, "
                f"max_calls={self.max_calls}, cache={self.cache!r})")

    def start_run(self) -> JudgeRun:
        """Begin accounting (and the ``max_calls`` budget) for one evaluation."""
        run = super().start_run()
        run.details.update({
            "model": self.model, "endpoint": self.endpoint, "mode": self.mode_name,
            "prompt_version": prompts.PROMPT_VERSION, "temperature": self.temperature,
            "max_calls": self.max_calls, "max_concurrency": self.max_concurrency,
            "cache": None if self.cache is None else str(self.cache.path),
            "retries": 0, "reasks": 0,
        })
        return run

    async def ajudge_answers(self, items: Sequence[AnswerItem]) -> list[JudgeOutcome]:
        """Answer correctness: a ``Verdict(score, reasoning)`` or a ``JudgeFailure`` per item."""
        jobs = [_Job(prompts.answer_messages(it, include_history=self.include_history),
                     AnswerVerdict, _label(it, i)) for i, it in enumerate(items)]
        return [_to_verdict(out) for out in await self._run_jobs(jobs)]

    async def ajudge_utilization(self, items: Sequence[UtilizationItem]) -> list[JudgeOutcome]:
        """Tool-result use: a ``Verdict`` (score = reliance on tool results) per item."""
        jobs = [_Job(prompts.utilization_messages(it), UtilizationVerdict, _label(it, i))
                for i, it in enumerate(items)]
        return [_to_verdict(out) for out in await self._run_jobs(jobs)]

    async def ajudge_node_relevance(
            self, items: Sequence[NodeRelevanceItem]) -> list[NodeRelevanceVerdict | JudgeFailure]:
        """One relevance verdict per retrieved node (exactly as many as nodes, else re-asked)."""
        jobs = [_Job(prompts.node_relevance_messages(it), node_relevance_model(len(it.nodes)),
                     _label(it, i)) for i, it in enumerate(items)]
        return await self._run_jobs(jobs)  # type: ignore[return-value]

    async def ajudge_statements(
            self, items: Sequence[StatementsItem]) -> list[StatementsVerdict | JudgeFailure]:
        """Atomic statements extracted from each item's text."""
        jobs = [_Job(prompts.statements_messages(it), StatementsVerdict, _label(it, i))
                for i, it in enumerate(items)]
        return await self._run_jobs(jobs)  # type: ignore[return-value]

    async def ajudge_attribution(
            self, items: Sequence[AttributionItem]) -> list[AttributionsVerdict | JudgeFailure]:
        """One attribution verdict per statement (exactly as many as statements)."""
        jobs = [_Job(prompts.attribution_messages(it), attributions_model(len(it.statements)),
                     _label(it, i)) for i, it in enumerate(items)]
        return await self._run_jobs(jobs)  # type: ignore[return-value]

    def judge_node_relevance(self, items: Sequence[NodeRelevanceItem]) -> list[Any]:
        """Sync wrapper of :meth:`ajudge_node_relevance`."""
        return run_sync(self.ajudge_node_relevance(items))

    def judge_statements(self, items: Sequence[StatementsItem]) -> list[Any]:
        """Sync wrapper of :meth:`ajudge_statements`."""
        return run_sync(self.ajudge_statements(items))

    def judge_attribution(self, items: Sequence[AttributionItem]) -> list[Any]:
        """Sync wrapper of :meth:`ajudge_attribution`."""
        return run_sync(self.ajudge_attribution(items))

    # ---- engine -----------------------------------------------------------------------------

    def _messages_for(self, job: _Job) -> list[dict[str, str]]:
        """The exact messages sent first (plain mode adds the format instruction)."""
        if self._mode is not None:
            return copy.deepcopy(job.messages)
        msgs = copy.deepcopy(job.messages)
        msgs[0]["content"] += prompts.plain_format_instruction(
            _schema(job.model), self.bos_json_clause, self.eos_json_clause)
        return msgs

    def _key(self, job: _Job, messages: list[dict[str, str]]) -> str:
        return cache_key({
            "model": self.model, "endpoint": self.endpoint, "mode": self.mode_name,
            "temperature": self.temperature, "prompt_version": prompts.PROMPT_VERSION,
            "schema": _schema(job.model), "messages": messages,
            "clauses": None if self._mode is not None else [self.bos_json_clause,
                                                            self.eos_json_clause],
        })

    def _make_client(self) -> Any:
        """A fresh async client bound to the running loop, with the SDK's own retries off."""
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("LLMJudge needs the 'llm' extra: pip install 'agenteval[llm]'"
                              ) from exc
        _quiet_library_loggers()
        http = openai.DefaultAsyncHttpx2Client()
        if isinstance(self._source, openai.AsyncOpenAI):
            return self._source.copy(http_client=http, max_retries=0, timeout=self.timeout)
        if self._source is not None:  # a sync client: same settings, async transport
            return openai.AsyncOpenAI(
                api_key=self._source.api_key, base_url=self.base_url,
                organization=getattr(self._source, "organization", None),
                project=getattr(self._source, "project", None),
                http_client=http, max_retries=0, timeout=self.timeout)
        return openai.AsyncOpenAI(api_key=self._secret.get() if self._secret else None,
                                  base_url=self.base_url, http_client=http, max_retries=0,
                                  timeout=self.timeout)

    async def _run_jobs(self, jobs: list[_Job]) -> list[BaseModel | JudgeFailure]:
        run = self.run_record
        out: list[BaseModel | JudgeFailure | None] = [None] * len(jobs)
        pending: list[tuple[int, _Job, list[dict[str, str]], str]] = []
        for i, job in enumerate(jobs):
            messages = self._messages_for(job)
            key = self._key(job, messages)
            hit = self._cache_get(key, job.model)
            if hit is not None:
                run.cache_hits += 1
                out[i] = hit
            else:
                pending.append((i, job, messages, key))
        if pending:
            client = self._make_client()
            ctx = _Ctx(client=client, patched=None, semaphore=asyncio.Semaphore(
                self.max_concurrency))
            if self._mode is not None:
                import instructor

                async def send(**kwargs: Any) -> Any:
                    return await self._send(ctx, kwargs)

                ctx.patched = instructor.patch(create=send, mode=self._mode)
            bar = self._progress_bar(len(pending))
            try:
                async def one(i: int, job: _Job, messages: list[dict[str, str]],
                              key: str) -> None:
                    out[i] = await self._judge_one(ctx, job, messages, key)
                    if bar is not None:
                        bar.update(1)

                async with asyncio.TaskGroup() as group:
                    for args in pending:
                        group.create_task(one(*args))
            except BaseExceptionGroup as group_error:
                first = _first_judge_error(group_error)
                if first is not None:
                    raise first from None
                raise
            finally:
                if bar is not None:
                    bar.close()
                await client.close()
        missing = [i for i, o in enumerate(out) if o is None]
        if missing:  # pragma: no cover - the task group either fills every slot or raises
            raise RuntimeError(f"judge produced no outcome for items {missing}")
        return out  # type: ignore[return-value]

    async def _judge_one(self, ctx: _Ctx, job: _Job, messages: list[dict[str, str]],
                         key: str) -> BaseModel | JudgeFailure:
        # The slot is held for the whole judgment (re-asks and backoff included): at most
        # max_concurrency judgments in progress, and a 429 slows the run down as it should.
        async with ctx.semaphore:
            return await self._judge_one_unlimited(job, messages, key, ctx)

    async def _judge_one_unlimited(self, job: _Job, messages: list[dict[str, str]], key: str,
                                   ctx: _Ctx) -> BaseModel | JudgeFailure:
        run = self.run_record
        if self.max_calls is not None and run.calls >= self.max_calls:
            run.not_judged_budget += 1
            return JudgeFailure(f"not judged: max_calls={self.max_calls} reached", kind="budget")
        usage = [0, 0, 0]  # prompt tokens, completion tokens, responses received
        _job_usage.set(usage)
        try:
            if self._mode is not None:
                verdict = await ctx.patched(response_model=job.model, messages=messages,
                                            model=self.model, temperature=self.temperature,
                                            max_retries=self.max_reasks)
            else:
                verdict = await self._plain(ctx, job, messages)
        except Exception as exc:  # every failure becomes a record (or JudgeError if strict)
            run.details["reasks"] += max(usage[2] - 1, 0)
            if _find(exc, _BudgetExhausted) is not None:
                run.not_judged_budget += 1
                return JudgeFailure(f"not judged: max_calls={self.max_calls} reached "
                                    f"({_describe(exc, self.max_reasks)})"
                                    if usage[2] else
                                    f"not judged: max_calls={self.max_calls} reached",
                                    kind="budget")
            run.errors += 1
            cause = self._scrub(f"{job.label}: {_describe(exc, self.max_reasks)}")
            if self.strict:
                raise JudgeError(f"judge call failed for {cause}") from None
            return JudgeFailure(cause, kind="error")
        run.details["reasks"] += max(usage[2] - 1, 0)
        verdict = job.model.model_validate(verdict.model_dump())  # drop instructor's extras
        if self.cache is not None:
            self.cache.put(key, verdict.model_dump(mode="json"), prompt_tokens=usage[0],
                           completion_tokens=usage[1])
        return verdict

    async def _send(self, ctx: _Ctx, kwargs: dict[str, Any]) -> Any:
        """One logical request: budget check, then transient-fault retries."""
        run = self.run_record
        attempt = 0
        while True:
            if self.max_calls is not None and run.calls >= self.max_calls:
                raise _BudgetExhausted(f"max_calls={self.max_calls} reached")
            run.calls += 1
            try:
                response = await ctx.client.chat.completions.create(**kwargs)
            except Exception as exc:
                if attempt >= self.max_retries or not _retryable(exc):
                    raise
                delay = self._delay(exc, attempt)
                attempt += 1
                run.details["retries"] += 1
                await asyncio.sleep(delay)
                continue
            self._account(response)
            return response

    def _account(self, response: Any) -> None:
        usage = getattr(response, "usage", None)
        p = int(getattr(usage, "prompt_tokens", 0) or 0)
        c = int(getattr(usage, "completion_tokens", 0) or 0)
        run = self.run_record
        run.prompt_tokens += p
        run.completion_tokens += c
        job = _job_usage.get(None)
        if job is not None:
            job[0] += p
            job[1] += c
            job[2] += 1

    def _delay(self, exc: Exception, attempt: int) -> float:
        """``retry-after`` when the server sends one, else jittered exponential backoff."""
        after = _retry_after(exc)
        if after is not None:
            return min(after, self.retry_max_delay)
        base = self.retry_initial_delay * (2 ** attempt)
        return min(base, self.retry_max_delay) * random.uniform(0.5, 1.0)

    async def _plain(self, ctx: _Ctx, job: _Job, messages: list[dict[str, str]]) -> BaseModel:
        """Plain-text mode: parse the fenced JSON block, re-ask with the error when invalid."""
        msgs = list(messages)
        error = ""
        for _ in range(self.max_reasks + 1):
            response = await self._send(ctx, {"model": self.model, "messages": msgs,
                                               "temperature": self.temperature})
            text = response.choices[0].message.content or ""
            try:
                return job.model.model_validate_json(
                    extract_json(text, self.bos_json_clause, self.eos_json_clause))
            except (ValueError, ValidationError) as exc:
                error = str(exc)
                msgs = msgs + [{"role": "assistant", "content": text},
                               {"role": "user", "content": prompts.plain_reask(
                                   error, self.bos_json_clause, self.eos_json_clause)}]
        raise _InvalidVerdict(error)

    def _cache_get(self, key: str, model: type[M]) -> M | None:
        if self.cache is None:
            return None
        entry = self.cache.get(key)
        if entry is None:
            return None
        try:
            return model.model_validate(entry["verdict"])
        except ValidationError:
            return None

    def _progress_bar(self, total: int) -> Any:
        show = self.progress
        if show is None:
            show = total >= 50 and ("ipykernel" in sys.modules or sys.stderr.isatty())
        if not show:
            return None
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=f"judging ({self.model})", unit="item", leave=True)

    def _scrub(self, text: str) -> str:
        key = self._secret.get() if self._secret else ""
        return text.replace(key, "***") if len(key) >= 4 else text


def _quiet_library_loggers() -> None:
    """instructor logs every failed attempt at ERROR; we report failures as records instead.

    A NullHandler (the stdlib's advice for libraries) stops Python's last-resort handler from
    printing them when the user configured no logging; configured handlers still get them.
    """
    logger = logging.getLogger("instructor")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())


@functools.lru_cache(maxsize=512)
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    """The verdict model's JSON schema (computed once per model: it is costly)."""
    return model.model_json_schema()


def extract_json(text: str, bos: str, eos: str) -> str:
    """The text between the first ``bos`` and the next ``eos`` (or a bare JSON object)."""
    start = text.find(bos)
    if start >= 0:
        body = text[start + len(bos):]
        end = body.find(eos)
        if end < 0:
            raise ValueError(f"the JSON block opened with {bos!r} is not closed with {eos!r}")
        return body[:end].strip()
    stripped = text.strip()
    if stripped.startswith("{"):
        return stripped
    raise ValueError(f"no JSON block between {bos!r} and {eos!r} in the reply")


def _to_verdict(out: BaseModel | JudgeFailure) -> JudgeOutcome:
    if isinstance(out, JudgeFailure):
        return out
    return Verdict(score=float(out.score), reasoning=out.reasoning)  # type: ignore[attr-defined]


def _label(item: Any, index: int) -> str:
    ids = [f"{k}={getattr(item, k)!r}" for k in ("session_id", "qa_id") if getattr(item, k, "")]
    return f"item {index}" + (f" ({', '.join(ids)})" if ids else "")


def _find(exc: BaseException | None, kind: type[BaseException]) -> BaseException | None:
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, kind):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _first_judge_error(group: BaseExceptionGroup) -> JudgeError | None:
    for exc in group.exceptions:
        if isinstance(exc, JudgeError):
            return exc
        if isinstance(exc, BaseExceptionGroup):
            found = _first_judge_error(exc)
            if found is not None:
                return found
    return None


def _retryable(exc: Exception) -> bool:
    import openai

    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError,
                        openai.APIResponseValidationError, json.JSONDecodeError)):
        return True  # transport faults, and a reply body that is not JSON at all
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    return False


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(float(ms) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def _describe(exc: BaseException, max_reasks: int) -> str:
    """A one-line cause: the innermost meaningful error, with the HTTP status when there is one."""
    import openai

    status = _find(exc, openai.APIStatusError)
    if status is not None:
        return (f"HTTP {status.status_code} ({type(status).__name__}): "  # type: ignore[attr-defined]
                f"{_short(status)}")
    for kind, what in ((openai.APITimeoutError, "request timed out"),
                       (openai.APIConnectionError, "connection error")):
        found = _find(exc, kind)
        if found is not None:
            return f"{what} ({type(found).__name__}): {_short(found)}"
    if isinstance(exc, _InvalidVerdict) or _find(exc, ValidationError) is not None \
            or _find(exc, json.JSONDecodeError) is not None \
            or type(exc).__name__ == "InstructorRetryException":
        inner = exc.__cause__ or exc
        return (f"invalid verdict after {max_reasks} re-ask(s) "
                f"({type(inner).__name__}): {_short(inner)}")
    return f"{type(exc).__name__}: {_short(exc)}"


def _short(exc: BaseException, limit: int = 300) -> str:
    text = re.sub(r"\s+", " ", str(exc)).strip()
    return text if len(text) <= limit else text[:limit] + "..."


def _check_int(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}")
    return value


def _check_positive(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ConfigError(f"{name} must be a number > 0, got {value!r}")
    return float(value)


def _check_nonneg(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ConfigError(f"{name} must be a number >= 0, got {value!r}")
    return float(value)
