"""An LLM judge over any OpenAI-compatible endpoint: typed, concurrent, cached, budgeted.

Structured modes go through ``instructor`` (JSON schema or tool calls), which validates each reply
against the verdict model and re-asks on a schema violation (at most ``max_reasks`` times). Below
instructor, every HTTP request passes through one function that enforces the call budget and
retries transport faults (429 honouring ``retry-after``, 5xx, timeouts, connection errors, a
200 whose body is not JSON) with exponential backoff; the openai client's own retries are
switched off so every request is seen and counted. A transport fault that outlives its retries
leaves that layer as ``_TransportError``, which instructor does not re-ask: re-asks are only for
replies that arrived and failed validation. At most ``max_concurrency`` judgments are in progress
at once (asyncio semaphore). A judgment that still fails becomes a ``JudgeFailure`` with its
cause (or raises ``JudgeError`` when ``strict``); it is never a score of 0.

Identical requests (same cache key) within one call are sent once and the outcome, verdict or
failure, is given to every item that asked for it. Each verdict is written to the cache as soon
as it arrives, so a cancelled run keeps what finished; cancellation propagates
(``asyncio.CancelledError``), abandons the requests in flight and starts no new ones.

Accounting (``run_record``): ``calls`` counts HTTP requests sent (first tries, retries and
re-asks alike) and ``max_calls`` caps exactly that number; ``cache_hits`` counts items served
from the cache (no request); ``details["deduplicated"]`` counts items that shared the request of
an identical item of the same call (neither a call nor a cache hit); ``errors`` and
``not_judged_budget`` count items; ``details["retries"]`` counts requests repeated after a
transport fault and ``details["reasks"]`` requests sent again after an invalid verdict; token
usage sums every response received.
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
_job_stats: contextvars.ContextVar[_JobStats] = contextvars.ContextVar("agenteval_job_stats")


class _BudgetExhausted(Exception):
    """Raised before a request that would exceed ``max_calls``."""


class _InvalidVerdict(Exception):
    """Plain-text mode: no valid verdict after the allowed re-asks."""


class _TransportError(Exception):
    """A request that failed at the HTTP level after its retries (the cause is chained).

    Deliberately not a ``ValueError``/``ValidationError``: instructor must not re-ask the model
    about a reply it never received (a body that is not JSON raises ``JSONDecodeError``, which
    instructor would otherwise treat as an invalid verdict).
    """

    def __init__(self, retries: int) -> None:
        super().__init__(f"request failed after {retries} retr{'y' if retries == 1 else 'ies'}")
        self.retries = retries


@dataclass
class _JobStats:
    """Per-judgment counters (a context variable, so concurrent judgments keep their own)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    responses: int = 0
    sends: int = 0  # logical requests that reached the server at least once: 1 + re-asks


@dataclass(frozen=True)
class _Failed:
    """A judgment's failure before it is labelled for each item that shares it."""

    kind: str
    text: str


class _Secret:
    """Holds the API key: its repr never shows it and pickling never writes it.

    A pickle (and anything built on one) stores a dropped secret (``get()`` returns None);
    ``copy``/``deepcopy`` share this in-memory object instead of going through pickling.
    """

    __slots__ = ("_value",)

    def __init__(self, value: str | None) -> None:
        self._value = value

    def get(self) -> str | None:
        return self._value

    @property
    def dropped(self) -> bool:
        return self._value is None

    def __reduce__(self) -> tuple[Any, tuple[None]]:
        return (_Secret, (None,))

    def __reduce_ex__(self, protocol: object) -> tuple[Any, tuple[None]]:
        return self.__reduce__()

    def __copy__(self) -> _Secret:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Secret:
        return self

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


def is_openai_endpoint(url: str) -> bool:
    """True for OpenAI's own API host (the only endpoint ``$OPENAI_API_KEY`` is sent to unasked)."""
    return (urlsplit(url).hostname or "").lower() == "api.openai.com"


def _is_instructor_client(obj: Any) -> bool:
    return hasattr(obj, "client") and hasattr(obj, "mode") and hasattr(obj, "create")


class LLMJudge(Judge):
    """Judge answers (and tool-result use, and RAG verdicts) with an LLM.

    ``model`` is required; point ``base_url`` (default ``$OPENAI_BASE_URL``, else OpenAI) at any
    OpenAI-compatible server (vLLM, Ollama, llama.cpp, ...) or pass a ready ``openai``/
    ``instructor`` client. The key: ``api_key`` when given (sent to whatever endpoint you chose);
    otherwise ``$OPENAI_API_KEY``, but only for OpenAI's own endpoint (``api.openai.com``) or for
    the endpoint named by ``$OPENAI_BASE_URL`` (the pair the openai SDK reads together); any
    other endpoint without ``api_key`` gets the placeholder ``"EMPTY"``, so your OpenAI key never
    reaches a third-party server you did not give it to. The key is never logged, cached, shown
    in a repr or written to a pickle (an unpickled judge re-reads the environment by the same
    rule, and asks for the key again if it was passed explicitly).

    ``include_history``: the user's switch for showing the judge a conversation's earlier turns
    and context; ``Agentic.run`` fills the items' ``history``/``context`` when this or its own
    ``include_history`` is true, and the prompt renders whatever the items carry.

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
            self._key_source = "client"
            model = model or getattr(client, "default_model", None)
        else:
            env_url = os.environ.get("OPENAI_BASE_URL")
            self.base_url = base_url or env_url or OPENAI_BASE_URL
            self._key_source = "explicit" if api_key else (
                "env" if is_openai_endpoint(self.base_url) or (not base_url and env_url)
                else "placeholder")
            self._secret = _Secret(api_key or self._implicit_key())
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

    def _implicit_key(self) -> str:
        """The key when none was passed: see the class docstring for the rule."""
        if self._key_source == "env":
            key = os.environ.get("OPENAI_API_KEY")
            if key:
                return key
            if is_openai_endpoint(self.base_url):
                raise ConfigError("api_key is required for the OpenAI endpoint: pass api_key "
                                  "or set OPENAI_API_KEY")
        return "EMPTY"  # local servers usually ignore it; the client wants one

    def _api_key(self) -> str:
        """The key for a new client; after unpickling, resolved again (never read from a file).

        Never None: the openai client would then read ``$OPENAI_API_KEY`` for any endpoint.
        """
        if self._secret is not None and not self._secret.dropped:
            return self._secret.get()  # type: ignore[return-value]
        if self._key_source in ("explicit", "client"):
            raise ConfigError("this LLMJudge was unpickled, and its API key is never written to "
                              "a pickle: create the judge again with api_key=... (or client=...)")
        secret = _Secret(self._implicit_key())
        self._secret = secret
        return secret.get()

    def __getstate__(self) -> dict[str, Any]:
        # A ready client holds the key (and a live transport): it is not pickled either.
        state = self.__dict__.copy()
        state["_source"] = None
        return state

    def __copy__(self) -> LLMJudge:
        # In-memory copies keep the client and the key (pickling is what must not).
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> LLMJudge:
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            new.__dict__[name] = value if name == "_source" else copy.deepcopy(value, memo)
        return new

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
            "retries": 0, "reasks": 0, "deduplicated": 0,
        })
        return run

    async def ajudge_answers(self, items: Sequence[AnswerItem]) -> list[JudgeOutcome]:
        """Answer correctness: a ``Verdict(score, reasoning)`` or a ``JudgeFailure`` per item."""
        jobs = [_Job(prompts.answer_messages(it), AnswerVerdict, _label(it, i))
                for i, it in enumerate(items)]
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
        key = self._api_key() if self._source is None else None  # may raise: before any socket
        http = openai.DefaultAsyncHttpx2Client()
        if isinstance(self._source, openai.AsyncOpenAI):
            return self._source.copy(http_client=http, max_retries=0, timeout=self.timeout)
        if self._source is not None:  # a sync client: same settings, async transport
            return openai.AsyncOpenAI(
                api_key=self._source.api_key, base_url=self.base_url,
                organization=getattr(self._source, "organization", None),
                project=getattr(self._source, "project", None),
                http_client=http, max_retries=0, timeout=self.timeout)
        return openai.AsyncOpenAI(api_key=key, base_url=self.base_url, http_client=http,
                                  max_retries=0, timeout=self.timeout)

    async def _run_jobs(self, jobs: list[_Job]) -> list[BaseModel | JudgeFailure]:
        run = self.run_record
        out: list[BaseModel | JudgeFailure | None] = [None] * len(jobs)
        # One request per distinct key: {key: (job, messages, [item indices])}
        groups: dict[str, tuple[_Job, list[dict[str, str]], list[int]]] = {}
        for i, job in enumerate(jobs):
            messages = self._messages_for(job)
            key = self._key(job, messages)
            if key in groups:
                groups[key][2].append(i)
                continue
            hit = self._cache_get(key, job.model)
            if hit is not None:
                run.cache_hits += 1
                out[i] = hit
            else:
                groups[key] = (job, messages, [i])
        if groups:
            run.details["deduplicated"] = (run.details.get("deduplicated", 0)
                                           + sum(len(g[2]) - 1 for g in groups.values()))
            client = self._make_client()
            ctx = _Ctx(client=client, patched=None, semaphore=asyncio.Semaphore(
                self.max_concurrency))
            if self._mode is not None:
                import instructor

                async def send(**kwargs: Any) -> Any:
                    return await self._send(ctx, kwargs)

                ctx.patched = instructor.patch(create=send, mode=self._mode)
            bar = self._progress_bar(sum(len(g[2]) for g in groups.values()))
            try:
                async def one(key: str, job: _Job, messages: list[dict[str, str]],
                              indices: list[int]) -> None:
                    result = await self._judge_one(ctx, job, messages, key)
                    for i in indices:
                        out[i] = self._outcome(result, jobs[i])
                    if bar is not None:
                        bar.update(len(indices))

                async with asyncio.TaskGroup() as group:
                    for key, (job, messages, indices) in groups.items():
                        group.create_task(one(key, job, messages, indices))
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

    def _outcome(self, result: BaseModel | _Failed, job: _Job) -> BaseModel | JudgeFailure:
        """One item's outcome from its (possibly shared) judgment, with per-item accounting."""
        if not isinstance(result, _Failed):
            return result
        run = self.run_record
        if result.kind == "budget":
            run.not_judged_budget += 1
            return JudgeFailure(result.text, kind="budget")
        run.errors += 1
        return JudgeFailure(self._scrub(f"{job.label}: {result.text}"), kind="error")

    async def _judge_one(self, ctx: _Ctx, job: _Job, messages: list[dict[str, str]],
                         key: str) -> BaseModel | _Failed:
        # The slot is held for the whole judgment (re-asks and backoff included): at most
        # max_concurrency judgments in progress, and a 429 slows the run down as it should.
        async with ctx.semaphore:
            return await self._judge_one_unlimited(job, messages, key, ctx)

    async def _judge_one_unlimited(self, job: _Job, messages: list[dict[str, str]], key: str,
                                   ctx: _Ctx) -> BaseModel | _Failed:
        run = self.run_record
        budget = f"not judged: max_calls={self.max_calls} reached"
        if self.max_calls is not None and run.calls >= self.max_calls:
            return _Failed("budget", budget)
        stats = _JobStats()
        _job_stats.set(stats)
        try:
            if self._mode is not None:
                verdict = await ctx.patched(response_model=job.model, messages=messages,
                                            model=self.model, temperature=self.temperature,
                                            max_retries=self.max_reasks)
            else:
                verdict = await self._plain(ctx, job, messages)
        except Exception as exc:  # every failure becomes a record (or JudgeError if strict)
            reasks = max(stats.sends - 1, 0)
            run.details["reasks"] += reasks
            if _find(exc, _BudgetExhausted) is not None:
                return _Failed("budget", f"{budget} part-way through this item "
                                         f"({stats.responses} reply(ies) received, {reasks} "
                                         "re-ask(s))" if stats.sends else budget)
            cause = _describe(exc, reasks)
            if self.strict:
                run.errors += 1
                raise JudgeError(
                    f"judge call failed for {self._scrub(f'{job.label}: {cause}')}") from None
            return _Failed("error", cause)
        run.details["reasks"] += max(stats.sends - 1, 0)
        verdict = job.model.model_validate(verdict.model_dump())  # drop instructor's extras
        if self.cache is not None:  # written now: a cancelled run keeps every finished verdict
            self.cache.put(key, verdict.model_dump(mode="json"),
                           prompt_tokens=stats.prompt_tokens,
                           completion_tokens=stats.completion_tokens)
        return verdict

    async def _send(self, ctx: _Ctx, kwargs: dict[str, Any]) -> Any:
        """One logical request: budget check, then transport-fault retries.

        Gives up with ``_TransportError`` (the fault chained), never with the raw fault, so that
        the layer above cannot mistake an unreadable body for an invalid verdict.
        """
        run = self.run_record
        stats = _job_stats.get(None)
        attempt = 0
        while True:
            if self.max_calls is not None and run.calls >= self.max_calls:
                raise _BudgetExhausted(f"max_calls={self.max_calls} reached")
            run.calls += 1
            if attempt == 0 and stats is not None:
                stats.sends += 1
            try:
                response = await ctx.client.chat.completions.create(**kwargs)
            except Exception as exc:
                if attempt >= self.max_retries or not _retryable(exc):
                    raise _TransportError(attempt) from exc
                delay = self._delay(exc, attempt)
                attempt += 1
                run.details["retries"] += 1
                await asyncio.sleep(delay)
                continue
            self._account(response, stats)
            return response

    def _account(self, response: Any, stats: _JobStats | None) -> None:
        usage = getattr(response, "usage", None)
        p = int(getattr(usage, "prompt_tokens", 0) or 0)
        c = int(getattr(usage, "completion_tokens", 0) or 0)
        run = self.run_record
        run.prompt_tokens += p
        run.completion_tokens += c
        if stats is not None:
            stats.prompt_tokens += p
            stats.completion_tokens += c
            stats.responses += 1

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
        key = (self._secret.get() if self._secret else None) or ""
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


def _describe(exc: BaseException, reasks: int) -> str:
    """A one-line cause: the innermost meaningful error, with the HTTP status when there is one.

    Transport faults (status, timeout, connection, unreadable body) are told apart from invalid
    verdicts; ``reasks`` is the number of re-asks actually sent for this judgment.
    """
    import openai

    transport = _find(exc, _TransportError)
    if transport is not None:
        fault = transport.__cause__ or transport
        tries = transport.retries  # type: ignore[attr-defined]
        after = f" (after {tries} retr{'y' if tries == 1 else 'ies'})" if tries else ""
        if isinstance(fault, openai.APIStatusError):
            return f"HTTP {fault.status_code} ({type(fault).__name__}): {_short(fault)}{after}"
        for kind, what in ((openai.APITimeoutError, "request timed out"),
                           (openai.APIConnectionError, "connection error"),
                           ((json.JSONDecodeError, openai.APIResponseValidationError),
                            "response body is not a valid completion")):
            if isinstance(fault, kind):
                return f"{what} ({type(fault).__name__}): {_short(fault)}{after}"
        return f"{type(fault).__name__}: {_short(fault)}{after}"
    if isinstance(exc, _InvalidVerdict) or _find(exc, ValidationError) is not None \
            or _find(exc, json.JSONDecodeError) is not None \
            or type(exc).__name__ == "InstructorRetryException":
        inner = exc.__cause__ or exc
        return (f"invalid verdict after {reasks} re-ask(s) "
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
