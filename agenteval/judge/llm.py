"""An LLM judge over any OpenAI-compatible endpoint: typed, concurrent, cached, budgeted.

This module holds the judge's configuration and public methods; the work is split by job:

- :mod:`agenteval.judge.templates`: request templates per verdict type and mode, prepared once
  per judge by instructor's own mode handlers, which also parse each reply and build the
  re-asks; salvage of replies cut at the token limit and the plain-text mode are ours;
- :mod:`agenteval.judge.transport`: the HTTP client (aiohttp), the key, one request with its
  retries, the run deadline, fail-fast and the stop at the first 401/403;
- :mod:`agenteval.judge.jobs`: one batch of judgments (cache, de-duplication, concurrency,
  progress, accounting);
- :mod:`agenteval.judge.failures`: why a judgment failed, as stable codes.

Verdicts are discrete (see :mod:`agenteval.judge.verdicts`), so a decoding grammar enforces
them and a small local model can judge. A judgment that still fails becomes a ``JudgeFailure``
with its cause and code (or raises ``JudgeError`` when ``strict``); it is never a score of 0.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import time
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agenteval._util.aio import run_sync
from agenteval.errors import ConfigError
from agenteval.judge import prompts
from agenteval.judge.base import (AnswerItem, Judge, JudgeFailure, JudgeOutcome, JudgeRun,
                                  UtilizationItem, Verdict)
from agenteval.judge.cache import JudgeCache, cache_key, resolve_cache
from agenteval.judge.failures import AuthFailed, Failed
from agenteval.judge.jobs import FAILURE_MARK, Job, JobStats, run_jobs
from agenteval.judge.progress import warm as warm_progress
from agenteval.judge.templates import (PLAIN, Template, build_template, mode_from_name,
                                       prompts_extract)
from agenteval.judge.transport import (OPENAI_BASE_URL, Policy, RunState, Secret,
                                       check_base_url, is_local_endpoint, is_openai_endpoint,
                                       make_client, safe_endpoint, server_slots,
                                       warm_http_stack)
from agenteval.judge.verdicts import (AnswerVerdict, AttributionItem, AttributionsVerdict,
                                      NodeRelevanceItem, NodeRelevanceVerdict, StatementsItem,
                                      StatementsVerdict, UtilizationVerdict, attributions_model,
                                      node_relevance_model)

__all__ = ["LLMJudge", "OPENAI_BASE_URL", "PLAIN", "extract_json", "is_openai_endpoint",
           "safe_endpoint"]

M = TypeVar("M", bound=BaseModel)

DEFAULT_CONCURRENCY = 16
"""Concurrent judgments when the server does not say how many it runs at once."""

REMOTE_TIMEOUT = 60.0
LOCAL_TIMEOUT = 300.0
"""Default per-request timeouts (seconds): a local server on a CPU can take minutes per reply."""

FAIL_FAST_AFTER = 8
"""Judgments failed at the transport in a row (after their retries) before a run may stop."""

FAIL_FAST_WINDOW = 30.0
"""...and seconds with no successful request at all before it does (the server is down)."""

_Secret = Secret  # the name earlier versions used


def _is_instructor_client(obj: Any) -> bool:
    return hasattr(obj, "client") and hasattr(obj, "mode") and hasattr(obj, "create")


def extract_json(text: str, bos: str, eos: str) -> str:
    """The JSON of the last block between ``bos`` and ``eos`` (or a reply that is bare JSON)."""
    return prompts_extract(text, bos, eos)


class LLMJudge(Judge):
    """Judge answers (and tool-result use, and RAG verdicts) with an LLM.

    ``model`` is required; point ``base_url`` (default ``$OPENAI_BASE_URL``, else OpenAI) at any
    OpenAI-compatible server (vLLM, Ollama, llama.cpp, ...) or pass a ready ``openai``/
    ``instructor`` client. The key: ``api_key`` when given, or the variable named by
    ``api_key_env`` (sent to whatever endpoint you chose); otherwise ``$OPENAI_API_KEY``, but only
    for OpenAI's own endpoint (``api.openai.com``) or for the endpoint named by
    ``$OPENAI_BASE_URL`` (the pair the openai SDK reads together); any other endpoint gets the
    placeholder ``"EMPTY"``, so your OpenAI key never reaches a third-party server you did not
    give it to. The key is never logged, cached, shown in a repr or written to a pickle. A
    ``base_url`` carrying credentials (``user:pass@``, ``?api-key=``) is refused. A 401/403 stops
    the run at once with one ``JudgeError`` naming the endpoint and where the key came from.

    Verdicts are discrete grades (see :mod:`agenteval.judge.verdicts`), verdict first, reasoning
    bounded; ``max_tokens`` ("auto": a bound per verdict type; an int; None: not sent) caps each
    reply, and a reply cut at that limit still counts when its verdict is complete.

    Local servers: ``max_concurrency=None`` (default) asks the server how many requests it runs
    at once (llama.cpp ``/props`` ``total_slots`` or ``/slots``) and uses that, else 16;
    ``timeout=None`` is 300 s per request for a local host (loopback, private network) and 60 s
    otherwise. ``deadline`` (seconds from :meth:`start_run`) bounds the whole run: what is not
    done by then fails with code ``deadline`` (retried on the next run). Once
    ``fail_fast_after`` judgments in a row failed at the transport after their retries
    (timeouts, connection errors, 429, 5xx, broken bodies) AND no request at all succeeded for
    ``fail_fast_window`` seconds, the run stops sending and the rest fail with code
    ``fail_fast``: a burst of faults, or a steady share of them, on a server that still answers
    never stops a run.

    ``cache``: True (default location, see :func:`agenteval.judge.cache.default_cache_path`),
    False/None (off), or a file path. Deterministic failures (no valid verdict after the
    re-asks) are cached as failures and not paid again unless ``retry_failed=True``.
    ``max_calls`` caps the HTTP requests of one run (from :meth:`start_run`); items left unjudged
    come back as ``JudgeFailure(kind="budget")``. ``retry_initial_delay``/``retry_max_delay``
    shape the exponential backoff (seconds); a valid ``retry-after`` / ``retry-after-ms``
    header (a finite number >= 0, or an HTTP date) is honoured up to ``retry_max_delay``, as one
    pause of the whole run (shown in the progress line), not one per request. ``strict=True`` raises ``JudgeError`` on the first failed judgment
    (budget cuts stay ``JudgeFailure`` records). ``mode`` names an output mode (default
    ``json_schema``; ``tools``, ``tools_strict``, ``json``, ``md_json``; instructor's names and
    ``instructor.Mode`` values are accepted); ``use_structured_output=False`` selects the
    plain-text mode, which parses the JSON between ``bos_json_clause`` and ``eos_json_clause``.
    ``progress``: None shows a bar once a phase takes more than a moment, False never, True
    always. ``include_history``: show the judge a conversation's earlier turns and context.
    """

    name = "llm"
    supports_utilization = True

    def __init__(self, model: str | None = None, *, base_url: str | None = None,
                 api_key: str | None = None, api_key_env: str | None = None, client: Any = None,
                 use_structured_output: bool = True, mode: Any = None,
                 bos_json_clause: str = "```json", eos_json_clause: str = "```",
                 temperature: float = 0.0, max_concurrency: int | None = None,
                 max_retries: int = 4, max_reasks: int = 2, timeout: float | None = None,
                 deadline: float | None = None, max_tokens: int | str | None = "auto",
                 cache: str | os.PathLike[str] | bool | JudgeCache | None = True,
                 retry_failed: bool = False, max_calls: int | None = None, strict: bool = False,
                 include_history: bool = False, progress: bool | None = None,
                 fail_fast_after: int | None = FAIL_FAST_AFTER,
                 fail_fast_window: float = FAIL_FAST_WINDOW,
                 retry_initial_delay: float = 0.5, retry_max_delay: float = 60.0) -> None:
        self.max_concurrency = (None if max_concurrency is None
                                else _check_int("max_concurrency", max_concurrency, 1))
        self.max_retries = _check_int("max_retries", max_retries, 0)
        self.max_reasks = _check_int("max_reasks", max_reasks, 0)
        self.max_calls = None if max_calls is None else _check_int("max_calls", max_calls, 0)
        self.deadline = None if deadline is None else _check_positive("deadline", deadline)
        self.fail_fast_after = (None if fail_fast_after is None
                                else _check_int("fail_fast_after", fail_fast_after, 1))
        self.fail_fast_window = _check_nonneg("fail_fast_window", fail_fast_window)
        if max_tokens not in ("auto", None):
            max_tokens = _check_int("max_tokens", max_tokens, 1)
        self.max_tokens = max_tokens
        self.temperature = _check_nonneg("temperature", temperature)
        self.retry_initial_delay = _check_nonneg("retry_initial_delay", retry_initial_delay)
        self.retry_max_delay = _check_nonneg("retry_max_delay", retry_max_delay)
        if not bos_json_clause or not eos_json_clause:
            raise ConfigError("bos_json_clause and eos_json_clause must be non-empty strings, "
                              f"got {bos_json_clause!r} and {eos_json_clause!r}")
        self.bos_json_clause, self.eos_json_clause = bos_json_clause, eos_json_clause
        self.strict, self.include_history, self.progress = strict, include_history, progress
        self.retry_failed = bool(retry_failed)
        self.use_structured_output = use_structured_output
        self.api_key_env = api_key_env

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
            self.base_url = check_base_url(str(raw.base_url))
            self._secret = Secret(str(raw.api_key)) if isinstance(raw.api_key, str) else None
            self._key_source = "client"
            model = model or getattr(client, "default_model", None)
        else:
            env_url = os.environ.get("OPENAI_BASE_URL")
            self.base_url = check_base_url(base_url or env_url or OPENAI_BASE_URL)
            if api_key_env is not None and not api_key:
                api_key = os.environ.get(api_key_env)
                if not api_key:
                    raise ConfigError(f"api_key_env={api_key_env!r}: ${api_key_env} is not set")
                self._key_source = "env_named"
            else:
                self._key_source = "explicit" if api_key else (
                    "env" if is_openai_endpoint(self.base_url) or (not base_url and env_url)
                    else "placeholder")
            self._secret = Secret(api_key or self._implicit_key())
        if not model or not isinstance(model, str):
            raise ConfigError(f"model must be a non-empty model name, got {model!r}")
        self.model = model

        if not use_structured_output:
            self.mode_name = PLAIN
        else:
            self.mode_name = (mode_from_name(mode) if mode is not None
                              else mode_from_name(instructor_mode) if instructor_mode is not None
                              else "json_schema")
        self.endpoint = safe_endpoint(self.base_url)
        self.local = is_local_endpoint(self.base_url)
        self.timeout = (_check_positive("timeout", timeout) if timeout is not None
                        else LOCAL_TIMEOUT if self.local else REMOTE_TIMEOUT)
        self.cache = resolve_cache(cache)
        self._templates: dict[type[BaseModel], Template] = {}
        self._slots: int | None | bool = False  # False: not asked yet
        self._deadline_at: float | None = None
        self._warm()

    def _warm(self) -> None:
        """Import now what requests need, not inside the first batch (about 0.6 s of CPU).

        The HTTP client, tqdm (unless ``progress=False``), and, through the templates of the
        answer and tool-use verdicts, instructor with the openai types its handlers import.
        """
        warm_http_stack()
        if self.progress is not False:
            warm_progress()
        for verdict in (AnswerVerdict, UtilizationVerdict):
            self.template(verdict)

    # ---- keys and copies --------------------------------------------------------------------

    def _implicit_key(self) -> str:
        """The key when none was passed: see the class docstring for the rule."""
        if self._key_source == "env":
            key = os.environ.get("OPENAI_API_KEY")
            if key:
                return key
            if is_openai_endpoint(self.base_url):
                raise ConfigError("api_key is required for the OpenAI endpoint: pass api_key "
                                  "or set OPENAI_API_KEY")
        if self._key_source == "env_named" and self.api_key_env:
            key = os.environ.get(self.api_key_env)
            if key:
                return key
            raise ConfigError(f"api_key_env={self.api_key_env!r}: ${self.api_key_env} is not set")
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
        secret = Secret(self._implicit_key())
        self._secret = secret
        return secret.get()  # type: ignore[return-value]

    def key_origin(self) -> str:
        """Where the key came from, for messages (never the key itself)."""
        return {"explicit": "the api_key argument",
                "env_named": f"${self.api_key_env}",
                "env": "$OPENAI_API_KEY",
                "client": "the client you passed",
                "placeholder": "nowhere (no key was sent: set one with api_key=... or "
                               "--api-key-env VAR)"}[self._key_source]

    def auth_message(self, auth: AuthFailed) -> str:
        """The one message of a run stopped by a 401/403."""
        return (f"the judge endpoint {self.endpoint} refused the API key (HTTP {auth.status}: "
                f"{self.scrub(auth.detail)}); the key came from {self.key_origin()}. No further "
                "requests were sent: fix the key (or --api-key-env) and run again")

    def __getstate__(self) -> dict[str, Any]:
        # A ready client holds the key (and a live transport): it is not pickled either.
        state = self.__dict__.copy()
        state["_source"] = None
        state["_templates"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __copy__(self) -> LLMJudge:
        # In-memory copies keep the client and the key (pickling is what must not).
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> LLMJudge:
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            new.__dict__[name] = (value if name in ("_source", "_templates")
                                  else copy.deepcopy(value, memo))
        return new

    def __repr__(self) -> str:
        return (f"LLMJudge(model={self.model!r}, endpoint={self.endpoint!r}, "
                f"mode={self.mode_name!r}, max_concurrency={self.max_concurrency}, "
                f"max_calls={self.max_calls}, cache={self.cache!r})")

    # ---- public API -------------------------------------------------------------------------

    def start_run(self) -> JudgeRun:
        """Begin accounting (the ``max_calls`` budget and the ``deadline``) for one evaluation."""
        run = super().start_run()
        self._deadline_at = (None if self.deadline is None
                             else time.monotonic() + self.deadline)
        run.details.update({
            "model": self.model, "endpoint": self.endpoint, "mode": self.mode_name,
            "prompt_version": prompts.PROMPT_VERSION, "temperature": self.temperature,
            "max_calls": self.max_calls, "max_concurrency": self.max_concurrency,
            "timeout_s": self.timeout, "deadline_s": self.deadline,
            "cache": None if self.cache is None else str(self.cache.path),
            "retries": 0, "reasks": 0, "deduplicated": 0, "salvaged": 0, "cached_failures": 0,
            "judgments": {},
        })
        return run

    async def ajudge_answers(self, items: Sequence[AnswerItem]) -> list[JudgeOutcome]:
        """Answer correctness: a ``Verdict(score, reasoning)`` or a ``JudgeFailure`` per item."""
        template = self.template(AnswerVerdict)
        jobs = [Job(prompts.answer_messages(it), template, _label(it, i))
                for i, it in enumerate(items)]
        return [_to_verdict(out) for out in await run_jobs(self, jobs, "answers")]

    async def ajudge_utilization(self, items: Sequence[UtilizationItem]) -> list[JudgeOutcome]:
        """Tool-result use: a ``Verdict`` (score = reliance on tool results) per item."""
        template = self.template(UtilizationVerdict)
        jobs = [Job(prompts.utilization_messages(it), template, _label(it, i))
                for i, it in enumerate(items)]
        return [_to_verdict(out) for out in await run_jobs(self, jobs, "tool use")]

    async def ajudge_node_relevance(
            self, items: Sequence[NodeRelevanceItem]) -> list[NodeRelevanceVerdict | JudgeFailure]:
        """One relevance verdict per retrieved node (exactly as many as nodes, else re-asked)."""
        jobs = [Job(prompts.node_relevance_messages(it),
                    self.template(node_relevance_model(len(it.nodes))), _label(it, i))
                for i, it in enumerate(items)]
        return await run_jobs(self, jobs, "node relevance")  # type: ignore[return-value]

    async def ajudge_statements(
            self, items: Sequence[StatementsItem]) -> list[StatementsVerdict | JudgeFailure]:
        """Atomic statements extracted from each item's text."""
        template = self.template(StatementsVerdict)
        jobs = [Job(prompts.statements_messages(it), template, _label(it, i))
                for i, it in enumerate(items)]
        return await run_jobs(self, jobs, "statements")  # type: ignore[return-value]

    async def ajudge_attribution(
            self, items: Sequence[AttributionItem]) -> list[AttributionsVerdict | JudgeFailure]:
        """One attribution verdict per statement (exactly as many as statements)."""
        jobs = [Job(prompts.attribution_messages(it),
                    self.template(attributions_model(len(it.statements))), _label(it, i))
                for i, it in enumerate(items)]
        return await run_jobs(self, jobs, "attribution")  # type: ignore[return-value]

    def judge_node_relevance(self, items: Sequence[NodeRelevanceItem]) -> list[Any]:
        """Sync wrapper of :meth:`ajudge_node_relevance`."""
        return run_sync(self.ajudge_node_relevance(items))

    def judge_statements(self, items: Sequence[StatementsItem]) -> list[Any]:
        """Sync wrapper of :meth:`ajudge_statements`."""
        return run_sync(self.ajudge_statements(items))

    def judge_attribution(self, items: Sequence[AttributionItem]) -> list[Any]:
        """Sync wrapper of :meth:`ajudge_attribution`."""
        return run_sync(self.ajudge_attribution(items))

    # ---- what the batch engine asks of the judge ----------------------------------------------

    def template(self, model: type[BaseModel]) -> Template:
        """The request template of a verdict type (built on first use, then reused)."""
        found = self._templates.get(model)
        if found is None:
            found = build_template(model, self.mode_name, judge_model=self.model,
                                   temperature=self.temperature, max_tokens=self.max_tokens,
                                   bos=self.bos_json_clause, eos=self.eos_json_clause)
            self._templates[model] = found
        return found

    def cache_key_for(self, template: Template, messages: list[dict[str, str]]) -> str:
        """Everything that determines a verdict, hashed (see :mod:`agenteval.judge.cache`):
        ``messages`` are the item's own (system, user), the format is the template's."""
        return cache_key({
            "model": self.model, "endpoint": self.endpoint, "mode": self.mode_name,
            "temperature": self.temperature, "prompt_version": prompts.PROMPT_VERSION,
            "schema": template.schema_text, "max_tokens": template.body.get("max_tokens"),
            "messages": messages, "format": [template.system_suffix, template.user_suffix],
            "clauses": None if self.mode_name != PLAIN else [self.bos_json_clause,
                                                             self.eos_json_clause],
        })

    def cached(self, key: str, model: type[M]) -> M | Failed | None:
        """A cached verdict, a cached deterministic failure (unless ``retry_failed``), or None."""
        if self.cache is None:
            return None
        entry = self.cache.get(key)
        if entry is None:
            return None
        verdict = entry["verdict"]
        if isinstance(verdict, dict) and FAILURE_MARK in verdict:
            if self.retry_failed:
                return None
            failure = verdict[FAILURE_MARK]
            return Failed("error", f"{failure.get('cause', 'invalid verdict')} [cached from an "
                                   "earlier run; retry_failed=True (--retry-failed) asks again]",
                          str(failure.get("code", "invalid_verdict")), cached=True)
        try:
            return model.model_validate(verdict)
        except ValidationError:
            return None

    def claim(self, key: str) -> bool:
        """True when this process should send ``key`` now (no other process is judging it)."""
        return self.cache is None or self.cache.claim(key, self._lease())

    async def wait_claimed(self, key: str) -> bool:
        """Wait for another process's verdict on ``key``: True once stored, False when this
        process should judge it after all (see :meth:`JudgeCache.wait_for`)."""
        return self.cache is not None and await self.cache.wait_for(key, self._lease())

    def release(self, key: str) -> None:
        """Drop this process's claim on ``key``."""
        if self.cache is not None:
            self.cache.release(key)
        self.note_cache()

    def note_cache(self) -> None:
        """Put a cache problem (unreadable, full or read-only disk) into the run record."""
        if self.cache is not None and self.cache.problem is not None:
            self.run_record.details["cache_problem"] = self.cache.problem

    def _lease(self) -> float:
        """How long a claim holds: the longest one judgment may take."""
        return (self.timeout * (self.max_retries + 1) * (self.max_reasks + 1)
                + self.retry_max_delay * self.max_retries)

    def remember(self, key: str, verdict: BaseModel, stats: JobStats) -> None:
        """Write a verdict now: a cancelled run keeps every finished verdict."""
        if self.cache is not None:
            self.cache.put(key, verdict.model_dump(mode="json"),
                           prompt_tokens=stats.prompt_tokens,
                           completion_tokens=stats.completion_tokens)

    def remember_failure(self, key: str, code: str, cause: str, stats: JobStats) -> None:
        """Cache a deterministic failure so a re-run does not pay for it again."""
        if self.cache is not None:
            self.cache.put(key, {FAILURE_MARK: {"code": code, "cause": cause}},
                           prompt_tokens=stats.prompt_tokens,
                           completion_tokens=stats.completion_tokens)

    def run_state(self) -> RunState:
        """The retry and stop rules shared by the requests of one batch."""
        return RunState(Policy(max_retries=self.max_retries, timeout=self.timeout,
                               retry_initial_delay=self.retry_initial_delay,
                               retry_max_delay=self.retry_max_delay, max_calls=self.max_calls,
                               deadline_at=self._deadline_at,
                               fail_fast_after=self.fail_fast_after,
                               fail_fast_window=self.fail_fast_window), self.run_record)

    async def concurrency(self) -> int:
        """``max_concurrency``, else the server's slot count (asked once), else 16."""
        if self.max_concurrency is not None:
            return self.max_concurrency
        if self._slots is False:
            self._slots = None
            if not is_openai_endpoint(self.base_url):
                key = self._api_key() if self._source is None else None
                self._slots = await asyncio.to_thread(server_slots, self.base_url, key)
            self.run_record.details["server_slots"] = self._slots
        slots = self._slots
        value = slots if isinstance(slots, int) and not isinstance(slots, bool) \
            else DEFAULT_CONCURRENCY
        self.run_record.details["concurrency"] = value
        return value

    def make_client(self) -> Any:
        """A fresh async client for this event loop (the key is checked before any socket)."""
        key = self._api_key() if self._source is None else None
        return make_client(self._source, base_url=self.base_url, api_key=key,
                           timeout=self.timeout)

    def scrub(self, text: str) -> str:
        """``text`` with the key replaced by ``***``."""
        key = self._key_text()
        return text.replace(key, "***") if len(key) >= 4 else text

    def scrub_verdict(self, verdict: M) -> M:
        """``verdict`` with the key replaced by ``***`` in every text (a reasoning echoing it)."""
        key = self._key_text()
        if len(key) < 4:
            return verdict
        data = verdict.model_dump(mode="json")
        if key not in json.dumps(data, ensure_ascii=False):
            return verdict
        return type(verdict).model_validate(_replace_texts(data, key))

    def _key_text(self) -> str:
        return (self._secret.get() if self._secret else None) or ""


def _replace_texts(value: Any, key: str) -> Any:
    if isinstance(value, str):
        return value.replace(key, "***")
    if isinstance(value, list):
        return [_replace_texts(v, key) for v in value]
    if isinstance(value, dict):
        return {k: _replace_texts(v, key) for k, v in value.items()}
    return value


def _to_verdict(out: BaseModel | JudgeFailure) -> JudgeOutcome:
    if isinstance(out, JudgeFailure):
        return out
    return Verdict(score=float(out.score), reasoning=out.reasoning)  # type: ignore[attr-defined]


def _label(item: Any, index: int) -> str:
    ids = [f"{k}={getattr(item, k)!r}" for k in ("session_id", "qa_id") if getattr(item, k, "")]
    return f"item {index}" + (f" ({', '.join(ids)})" if ids else "")


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
