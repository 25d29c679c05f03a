"""HTTP to an OpenAI-compatible endpoint: the client, the key, one request with its retries.

Every request passes through :func:`send`, which enforces the call budget and the run deadline,
retries transport faults (429 honouring ``retry-after``, 5xx, 408/409, timeouts, connection
errors, a 200 whose body is not JSON or has no ``choices``) with jittered exponential backoff,
and stops the whole run at the first 401/403 (:class:`AuthFailed`) or once judgments keep failing
with no success for a while (:class:`FailFast`, see :class:`RunState`). A ``retry-after`` is
validated, capped and shared: one run-wide pause, not one sleep per request. Credentials never go
to another origin (the slot probe follows no redirect; aiohttp drops ``Authorization`` on a
redirect to another host), and no reply is read past :data:`MAX_REPLY_BYTES`. There are no hidden retries below this, so
every request is seen and counted. Requests go out through one aiohttp connection pool per batch
(:class:`HTTPClient`); a ready openai client only lends its settings (URL, key, headers).

Why aiohttp and not the openai SDK or httpx: the judge's client CPU is what caps a concurrent
run at a local server. Measured on this project's 2-core machine (1,000 POSTs of a judge request
at 50 ms latency, concurrency 16): httpx2 (the SDK's HTTP stack) 0.78 ms CPU per request,
aiohttp 0.22 ms (C HTTP parser, headers and body in one write); the SDK's typed request and
response models add to httpx2's cost (issue #11 measured about 2 ms per call for them).
"""

from __future__ import annotations

import asyncio
import email.utils
import importlib
import ipaddress
import json
import logging
import math
import random
import re
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from agenteval.errors import ConfigError
from agenteval.judge.failures import (AuthFailed, BudgetExhausted, DeadlineReached,
                                      EmptyChoices, FailFast, ReplyTooLarge, TransportError)

OPENAI_BASE_URL = "https://api.openai.com/v1"
MAX_REPLY_BYTES = 1 << 20
"""A reply (or error body) longer than this is not read further (code ``oversized``): a verdict
is a few hundred bytes, and a 40 MB reply read and parsed would cost gigabytes."""
RETRY_STATUS = frozenset({408, 409, 429})
STREAK_CODES = frozenset({"timeout", "connection", "http_5xx", "http_429", "broken_body",
                          "empty_choices"})
"""Faults that, ending judgment after judgment with no success in between, mean the server is
down (or refuses this client)."""
_CREDENTIAL_QUERY = re.compile(r"key|token|secret|passw|auth|sig|credential", re.IGNORECASE)


class Secret:
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
        return (Secret, (None,))

    def __reduce_ex__(self, protocol: object) -> tuple[Any, tuple[None]]:
        return self.__reduce__()

    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Secret:
        return self

    def __repr__(self) -> str:
        return "Secret('***')"


def safe_endpoint(url: str) -> str:
    """The URL without user info, query or fragment (where credentials sometimes hide)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def check_base_url(url: str) -> str:
    """Refuse a base URL that carries credentials (user:pass@, ?api-key=...).

    HTTP debug logs (the client's, a proxy's) print request URLs; a key in the URL would reach them.
    """
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        raise ConfigError(f"base_url must be an http(s) URL such as http://127.0.0.1:8000/v1, "
                          f"got {safe_endpoint(url) or url[:40]!r}")
    secret_query = [k for k, _ in parse_qsl(parts.query, keep_blank_values=True)
                    if _CREDENTIAL_QUERY.search(k)]
    if parts.username or parts.password or secret_query:
        where = "user:password@" if parts.username or parts.password else \
            f"?{secret_query[0]}=..."
        raise ConfigError(f"base_url {safe_endpoint(url)!r} carries credentials ({where}); they "
                          "would reach HTTP debug logs: pass the key with api_key=... (CLI: "
                          "--api-key-env VAR) and give the URL without it")
    return url


def is_openai_endpoint(url: str) -> bool:
    """True for OpenAI's own API host (the only endpoint ``$OPENAI_API_KEY`` is sent to unasked)."""
    return (urlsplit(url).hostname or "").lower() == "api.openai.com"


def is_local_endpoint(url: str) -> bool:
    """True for loopback, private-network and ``localhost`` hosts (a local model server)."""
    host = (urlsplit(url).hostname or "").lower()
    if host in ("localhost", "") or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def server_slots(base_url: str, api_key: str | None, *, timeout: float = 2.0) -> int | None:
    """How many requests the server runs at once, where it says (llama.cpp ``/props``/``/slots``).

    None when the server does not say (OpenAI, vLLM, Ollama ...). Blocking; call it in a thread.
    """
    root = safe_endpoint(base_url)
    root = root[:-3] if root.endswith("/v1") else root
    headers = {"Authorization": f"Bearer {api_key}"} if api_key and api_key != "EMPTY" else {}
    # No redirects: urllib would follow one to any host with the Authorization header.
    opener = urllib.request.build_opener(_NoRedirect)
    for path, read in (("/props", lambda d: d.get("total_slots")),
                       ("/slots", lambda d: len(d) if isinstance(d, list) else None)):
        try:
            request = urllib.request.Request(root + path, headers=headers)
            with opener.open(request, timeout=timeout) as response:
                value = read(json.loads(response.read(MAX_REPLY_BYTES)))
        except Exception:  # noqa: BLE001 - any failure means "the server does not say"
            continue
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
    return None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses every redirect (the probe then reads "the server does not say")."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class StatusError(Exception):
    """A reply with an HTTP error status (``status_code``, ``response.headers``, ``body``)."""

    def __init__(self, status_code: int, response: Any, body: Any) -> None:
        detail = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(detail, dict):
            detail = detail.get("message") or detail
        super().__init__(f"HTTP {status_code}: {str(detail)[:200]}")
        self.status_code = status_code
        self.response = response
        self.body = body


class HTTPClient:
    """POSTs chat completions over one aiohttp connection pool, bound to the running loop."""

    def __init__(self, base_url: str, headers: dict[str, str], timeout: float) -> None:
        import aiohttp
        import yarl
        from aiohttp.helpers import get_env_proxy_for_url

        self.url = base_url.rstrip("/") + "/chat/completions"
        self.headers = headers
        # The proxy from HTTP(S)_PROXY / NO_PROXY (as the openai SDK honours them), looked up
        # once: aiohttp's trust_env would look it up (and read ~/.netrc) in a thread per request.
        try:
            self.proxy, self.proxy_auth = get_env_proxy_for_url(yarl.URL(self.url))
        except LookupError:
            self.proxy, self.proxy_auth = None, None
        self._timeout_of = aiohttp.ClientTimeout
        self.http = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=1000, keepalive_timeout=5.0),
            timeout=aiohttp.ClientTimeout(total=timeout))

    async def complete(self, content: bytes, timeout: float) -> Completion:
        """One request: the completion, or StatusError / a transport error / a broken body."""
        limit = self._timeout_of(total=timeout)  # a run deadline shortens it request by request
        async with self.http.post(self.url, data=content, headers=self.headers, timeout=limit,
                                  proxy=self.proxy, proxy_auth=self.proxy_auth) as response:
            raw = await read_capped(response, MAX_REPLY_BYTES)
        if response.status >= 400:
            try:
                detail: Any = json.loads(raw)
            except ValueError:
                detail = raw[:200].decode("utf-8", "replace")
            raise StatusError(response.status, response, detail)
        return Completion.parse(raw)

    async def close(self) -> None:
        await self.http.close()


async def read_capped(response: Any, limit: int) -> bytes:
    """The body of an aiohttp response, or ReplyTooLarge once it passes ``limit`` bytes."""
    if response.content_length is not None and response.content_length > limit:
        raise ReplyTooLarge(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_any():
        size += len(chunk)
        if size > limit:
            raise ReplyTooLarge(limit)  # leaving the context closes the connection
        chunks.append(chunk)
    return b"".join(chunks)


def make_client(source: Any, *, base_url: str, api_key: str | None, timeout: float) -> HTTPClient:
    """A fresh client for this event loop; a ready openai client lends its URL, key and headers."""
    quiet_library_loggers()
    if source is not None:
        headers = {**dict(getattr(source, "default_headers", {}) or {}),
                   **dict(getattr(source, "auth_headers", {}) or {})}
        headers = {k: v for k, v in headers.items() if isinstance(v, str)}
        headers.setdefault("Content-Type", "application/json")
        return HTTPClient(str(source.base_url), headers, timeout)
    headers = {"Content-Type": "application/json", "Accept": "application/json",
               "User-Agent": "agenteval-judge"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return HTTPClient(base_url, headers, timeout)


def warm_http_stack() -> None:
    """Import the HTTP client now (aiohttp builds its TLS contexts on import), not in a batch."""
    try:
        importlib.import_module("aiohttp")   # for its side effect: the import is the warm-up
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("LLMJudge needs the 'llm' extra: pip install 'agenteval[llm]'"
                          ) from exc


def quiet_library_loggers() -> None:
    """instructor/openai log failed attempts; we report failures as records instead.

    A NullHandler (the stdlib's advice for libraries) stops Python's last-resort handler from
    printing them when the user configured no logging; configured handlers still get them.
    """
    for name in ("instructor", "openai", "aiohttp"):
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())


@dataclass
class Policy:
    """The retry and stop rules of one run (from the judge's options)."""

    max_retries: int
    timeout: float
    retry_initial_delay: float
    retry_max_delay: float
    max_calls: int | None
    deadline_at: float | None
    fail_fast_after: int | None
    fail_fast_window: float = 30.0


@dataclass
class RunState:
    """What the requests of one run share: counters, the fail-fast rule, the shared pause.

    Fail-fast counts failed *judgments* (a logical request that outlived its retries with a
    transport fault), in a row, reset by any successful request; it trips only when that streak
    reaches ``fail_fast_after`` AND no request has succeeded for ``fail_fast_window`` seconds,
    so a burst of faults on a healthy server, or a steady share of them, never stops a run.

    The pause is run-wide: a 429 (or any fault with a ``retry-after``) holds back every request
    of the run until ``pause_until``, instead of each request sleeping on its own while the
    others keep hitting the server.
    """

    policy: Policy
    run: Any  # JudgeRun
    streak_code: str = ""
    streak: int = 0
    stopped: FailFast | None = None
    auth: AuthFailed | None = None
    last_success: float = field(default_factory=time.monotonic)
    pause_until: float = 0.0
    on_pause: Callable[[float], None] | None = None
    """Told the seconds of each new pause (the progress line shows the wait)."""

    def note_failed_judgment(self, code: str) -> None:
        if code not in STREAK_CODES:
            return
        self.streak_code, self.streak = code, self.streak + 1
        limit = self.policy.fail_fast_after
        quiet = time.monotonic() - self.last_success
        if (limit is not None and self.streak >= limit and quiet >= self.policy.fail_fast_window
                and self.stopped is None):
            self.stopped = FailFast(code, self.streak, self.policy.fail_fast_window)

    def note_success(self) -> None:
        self.streak_code, self.streak = "", 0
        self.last_success = time.monotonic()

    def pause(self, seconds: float) -> None:
        """Hold back every request of the run for ``seconds`` from now (the longer pause wins)."""
        until = time.monotonic() + seconds
        if until > self.pause_until + 0.05:
            details = self.run.details
            details["paused_s"] = round(details.get("paused_s", 0.0)
                                        + until - max(self.pause_until, time.monotonic()), 3)
            self.pause_until = until
            if self.on_pause is not None:
                self.on_pause(seconds)

    async def wait_pause(self) -> None:
        """Sleep out the run-wide pause (DeadlineReached if it ends past the deadline)."""
        while True:
            left = self.pause_until - time.monotonic()
            if left <= 0:
                return
            deadline = self.policy.deadline_at
            if deadline is not None and self.pause_until >= deadline:
                raise DeadlineReached("the server asked to wait past the run deadline")
            await asyncio.sleep(left)


async def send(client: Any, body: bytes, state: RunState, stats: Any) -> Any:
    """One logical request: budget, deadline, pause and stop checks, then fault retries.

    Gives up with ``TransportError`` (the fault chained), never with the raw fault, so that the
    layer above cannot mistake an unreadable body for an invalid verdict. Only transport faults
    are caught (:func:`transport_faults`): an exception of agenteval's own propagates.
    """
    policy, run = state.policy, state.run
    faults = transport_faults()
    attempt = 0
    while True:
        await state.wait_pause()
        if state.auth is not None:
            raise state.auth
        if state.stopped is not None:
            raise state.stopped
        if policy.max_calls is not None and run.calls >= policy.max_calls:
            raise BudgetExhausted(f"max_calls={policy.max_calls} reached")
        timeout = policy.timeout
        if policy.deadline_at is not None:
            left = policy.deadline_at - time.monotonic()
            if left <= 0:
                raise DeadlineReached("not finished before the run deadline")
            timeout = min(timeout, left)
        run.calls += 1
        if attempt == 0 and stats is not None:
            stats.sends += 1
        try:
            response = await client.complete(body, timeout)
        except faults as exc:
            status = getattr(exc, "status_code", None)
            if status in (401, 403):
                state.auth = state.auth or AuthFailed(status, _status_detail(exc))
                raise state.auth from exc
            code = fault_code(exc)
            if attempt >= policy.max_retries or not retryable(exc) or state.stopped is not None:
                if (policy.deadline_at is not None and code == "timeout"
                        and time.monotonic() >= policy.deadline_at):
                    raise DeadlineReached("not finished before the run deadline") from exc
                state.note_failed_judgment(code)
                raise TransportError(attempt, code) from exc
            delay, shared = backoff(exc, attempt, policy, run)
            if policy.deadline_at is not None and time.monotonic() + delay >= policy.deadline_at:
                raise DeadlineReached("the next retry would end past the run deadline") from exc
            attempt += 1
            run.details["retries"] += 1
            if shared:
                state.pause(delay)  # the next loop waits it out, with every other request
            else:
                await asyncio.sleep(delay)
            continue
        state.note_success()
        account(response, run, stats)
        return response


def transport_faults() -> tuple[type[BaseException], ...]:
    """What a request may fail with at the transport (anything else is a bug and raises)."""
    import aiohttp

    return (StatusError, EmptyChoices, ReplyTooLarge, TimeoutError, json.JSONDecodeError,
            UnicodeDecodeError, aiohttp.ClientError, OSError)


class Completion:
    """Attribute access over a completion's JSON (``.choices[0].message.content`` ...).

    Parsing the reply into the SDK's typed models costs more CPU than the rest of a request;
    the judge reads five fields, so it reads them from the JSON directly.
    """

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    @classmethod
    def parse(cls, raw: bytes) -> Completion:
        """The completion in ``raw``; JSONDecodeError if it is not JSON, EmptyChoices if empty."""
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise json.JSONDecodeError("a completion must be a JSON object", str(data)[:40], 0)
        choices = data.get("choices")
        if not choices or not isinstance(choices, list):
            raise EmptyChoices()
        if not all(isinstance(c, dict) and isinstance(c.get("message"), dict) for c in choices):
            raise json.JSONDecodeError("a choice without a message", str(choices)[:40], 0)
        return cls(data)

    def model_dump(self, **_: Any) -> dict[str, Any]:
        """The JSON as dicts and lists (what instructor's re-ask reads from a message)."""
        return json.loads(json.dumps(self._data))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)  # copy/pickle probe dunders: not completion fields
        value = self._data.get(name)
        if isinstance(value, dict):
            return Completion(value)
        if isinstance(value, list):
            return [Completion(v) if isinstance(v, dict) else v for v in value]
        return value


def account(response: Any, run: Any, stats: Any) -> None:
    """Add a response's token usage to the run and to the judgment's own counters."""
    usage = getattr(response, "usage", None)
    p = int(getattr(usage, "prompt_tokens", 0) or 0)
    c = int(getattr(usage, "completion_tokens", 0) or 0)
    run.prompt_tokens += p
    run.completion_tokens += c
    if stats is not None:
        stats.prompt_tokens += p
        stats.completion_tokens += c
        stats.responses += 1


def retryable(exc: BaseException) -> bool:
    """Transport faults and unreadable bodies are retried; other statuses are not."""
    if isinstance(exc, StatusError):
        return exc.status_code in RETRY_STATUS or exc.status_code >= 500
    return fault_code(exc) in ("timeout", "connection", "broken_body", "empty_choices")


def backoff(exc: BaseException, attempt: int, policy: Policy,
            run: Any = None) -> tuple[float, bool]:
    """(seconds, shared): the wait before the next try, and whether the whole run waits.

    A valid ``retry-after`` (capped at ``retry_max_delay``) or any 429 is a run-wide pause: the
    server is telling every request to slow down. Other faults back off per request, jittered
    and exponential.
    """
    base = min(policy.retry_initial_delay * (2 ** attempt), policy.retry_max_delay)
    after = retry_after(exc)
    if after is not None:
        if after > policy.retry_max_delay and run is not None:
            run.details["retry_after_capped"] = run.details.get("retry_after_capped", 0) + 1
        return min(after, policy.retry_max_delay), True
    shared = getattr(exc, "status_code", None) == 429
    return base * random.uniform(0.5, 1.0), shared


def retry_after(exc: BaseException) -> float | None:
    """Seconds from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date), or None.

    A value that is not a finite number >= 0 (NaN, inf, negative, garbage) is ignored: a NaN
    sleep corrupts asyncio's timer heap. Capping is the caller's (:func:`backoff`).
    """
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    ms = _finite(headers.get("retry-after-ms"))
    if ms is not None:
        return ms / 1000.0
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _finite(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(str(value))
        left = when.timestamp() - time.time()
    except (TypeError, ValueError, OverflowError, IndexError):
        return None
    return max(left, 0.0) if math.isfinite(left) else None


def _finite(value: Any) -> float | None:
    """``value`` as a finite float >= 0, else None."""
    if value is None:
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def fault_code(exc: BaseException) -> str:
    """The code of one transport fault (see :mod:`agenteval.judge.failures`)."""
    import aiohttp

    if isinstance(exc, EmptyChoices):
        return "empty_choices"
    if isinstance(exc, ReplyTooLarge):
        return "oversized"
    if isinstance(exc, TimeoutError):  # asyncio's and aiohttp's timeouts (before OSError)
        return "timeout"
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError, aiohttp.ClientPayloadError)):
        return "broken_body"
    if isinstance(exc, StatusError):
        status = exc.status_code
        return "http_429" if status == 429 else "http_5xx" if status >= 500 else "http_4xx"
    if isinstance(exc, (aiohttp.ClientError, OSError)):
        return "connection"
    return "other"


def _status_detail(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        message = err.get("message") if isinstance(err, dict) else None
        if message:
            return str(message)[:200]
    return type(exc).__name__
