"""AgentV's provider proxy, backed by agenteval's LLM judge: script graders call an LLM without
holding any key.

The contract is AgentV's (``packages/core/src/runtime/provider-proxy.ts`` and the client in
``packages/sdk/src/provider-client.ts`` of EntityProcess/agentv):

    GET  /info          {providerLabel, maxCalls, callCount, availableProviderLabels}
    POST /invoke        {question, systemPrompt?, evalCaseId?, attempt?, provider?}
                        -> {output: [{role: "assistant", content}], rawText, tokenUsage}
                        429 {"error": "Max calls exceeded (limit: N)"} past max_calls
    POST /invokeBatch   {requests: [...]} -> {responses: [...]}; refused WHOLE (429) when the
                        batch would take the calls past max_calls
    every request       ``Authorization: Bearer <token>``, else 401 {"error": "Unauthorized"}

Security, as AgentV's: the server binds 127.0.0.1 only, on a free port; each script invocation
gets a fresh random token (``secrets.token_hex(32)``) with its own ``max_calls`` budget, revoked
when the script ends, and the server shuts down when the grading ends (later requests cannot
connect). The judge's API key stays in this process: it is never in the script's environment
(see :func:`agenteval.graders.script.script_environment`) nor in any reply (errors are scrubbed).

Where agenteval differs: the provider is the run's LLM judge, so every call goes through its
transport (retries, deadline, fail-fast), its ``max_calls`` (HTTP requests of the whole run, on
top of the per-invocation ``max_calls`` here, which counts the script's requests, cache hits
included, as AgentV counts them), its cache (the same question and system prompt are answered
from the cache on a re-run) and its accounting (``run_record.calls``, tokens, and the phase
``grader proxy`` in ``details["judgments"]``). A batch item that fails carries an ``error``
field besides AgentV's ``rawText: "Error: ..."``, so a grader can tell a failure from a reply.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Any

from agenteval.judge.cache import cache_key

__all__ = ["GraderProxy", "TokenUsage", "URL_VARIABLE", "TOKEN_VARIABLE", "DEFAULT_MAX_CALLS",
           "complete_text"]

URL_VARIABLE = "AGENTV_PROVIDER_PROXY_URL"
TOKEN_VARIABLE = "AGENTV_PROVIDER_PROXY_TOKEN"
DEFAULT_MAX_CALLS = 50
"""AgentV's default ``max_calls`` per script invocation."""
TEXT_MAX_TOKENS = 512
"""``max_tokens`` of a free-text proxy reply when the judge's is "auto"."""
MAX_BODY = 4 * 1024 * 1024
PHASE = "grader proxy"


@dataclass
class TokenUsage:
    """One invocation's budget and what it used."""

    grader: str
    max_calls: int
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: int = 0
    active: bool = True


class _Failed(Exception):
    """A proxy call that produced no text (the judge's failure, scrubbed)."""


async def complete_text(judge: Any, client: Any, state: Any, system: str | None,
                        question: str) -> tuple[str, int, int]:
    """(text, prompt tokens, completion tokens) of one free-text completion through the judge.

    Cached under a key of everything that determines the reply; a cached reply costs no request
    and reports zero tokens. Raises ``_Failed`` with the judge's coded, scrubbed cause.
    """
    from agenteval.judge.failures import AuthFailed, BudgetExhausted, describe, find
    from agenteval.judge.jobs import JobStats, phase_counts
    from agenteval.judge.transport import send

    messages = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": question}]
    limit = judge.max_tokens
    max_tokens = TEXT_MAX_TOKENS if limit == "auto" else limit
    body: dict[str, Any] = {"model": judge.model, "temperature": judge.temperature,
                            "messages": messages}
    if max_tokens is not None:
        body["max_tokens"] = int(max_tokens)
    key = cache_key({"kind": "agentv-proxy-text-1", "model": judge.model,
                     "endpoint": judge.endpoint, "temperature": judge.temperature,
                     "max_tokens": body.get("max_tokens"), "messages": messages})
    run = judge.run_record
    counts = phase_counts(run, PHASE)
    counts["items"] += 1
    if judge.cache is not None:
        entry = judge.cache.get(key)
        text = entry["verdict"].get("text") if entry and isinstance(entry["verdict"], dict) \
            else None
        if isinstance(text, str):
            run.cache_hits += 1
            counts["cache_hits"] += 1
            counts["verdicts"] += 1
            return text, 0, 0
    stats = JobStats()
    try:
        response = await send(client, json.dumps(body).encode(), state, stats)
        text = response.choices[0].message.content
        if not isinstance(text, str):
            raise ValueError("the completion has no text content")
    except Exception as exc:
        if find(exc, BudgetExhausted) is not None:
            run.not_judged_budget += 1
            counts["budget"] += 1
            raise _Failed(f"budget: the judge's max_calls={judge.max_calls} is reached") from None
        run.errors += 1
        counts["errors"] += 1
        if find(exc, AuthFailed) is not None:
            raise _Failed(judge.scrub(judge.auth_message(find(exc, AuthFailed)))) from None
        code, cause = describe(exc, 0)
        raise _Failed(judge.scrub(f"{code}: {cause}")) from None
    counts["verdicts"] += 1
    if judge.cache is not None:
        judge.cache.put(key, {"text": text}, prompt_tokens=stats.prompt_tokens,
                        completion_tokens=stats.completion_tokens)
    return text, stats.prompt_tokens, stats.completion_tokens


class GraderProxy:
    """The proxy of one grading run (use ``async with``); see the module docstring."""

    def __init__(self, judge: Any) -> None:
        self.judge = judge
        self.label = str(getattr(judge, "model", "judge"))
        self.url = ""
        self.tokens: dict[str, TokenUsage] = {}
        self.closed = False
        self._runner: Any = None
        self._client: Any = None
        self._state: Any = None
        self._slots: asyncio.Semaphore | None = None

    # -- lifecycle ------------------------------------------------------------------------

    async def __aenter__(self) -> GraderProxy:
        from aiohttp import web

        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        self._client = self.judge.make_client()
        self._state = self.judge.run_state()
        self._slots = asyncio.Semaphore(await self.judge.concurrency())  # the judge's bound
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.closed = True
        for usage in self.tokens.values():
            usage.active = False
        self.tokens.clear()
        try:
            await self._runner.cleanup()
        finally:
            await self._client.close()

    def issue(self, grader: str, max_calls: int) -> tuple[str, TokenUsage]:
        """A fresh token for one script invocation, with its own budget."""
        token = secrets.token_hex(32)
        usage = TokenUsage(grader, max_calls)
        self.tokens[token] = usage
        return token, usage

    def revoke(self, token: str) -> None:
        """The invocation ended: its token no longer opens anything."""
        usage = self.tokens.pop(token, None)
        if usage is not None:
            usage.active = False

    # -- requests -------------------------------------------------------------------------

    def _usage_for(self, header: str | None) -> TokenUsage | None:
        if not header or not header.startswith("Bearer "):
            return None
        given = header[len("Bearer "):].encode()
        found = None
        for token, usage in self.tokens.items():  # the live ones: at most one per running script
            if hmac.compare_digest(given, token.encode()) and usage.active:
                found = usage
        return found

    async def _handle(self, request: Any) -> Any:
        from aiohttp import web

        usage = self._usage_for(request.headers.get("Authorization"))
        if usage is None:
            return web.json_response({"error": "Unauthorized"}, status=401)
        if self.closed:
            return web.json_response({"error": "Proxy is shutting down"}, status=503)
        path, method = request.path, request.method
        if method == "GET" and path == "/info":
            return web.json_response({"providerLabel": self.label, "maxCalls": usage.max_calls,
                                      "callCount": usage.calls,
                                      "availableProviderLabels": [self.label]})
        if method == "POST" and path in ("/invoke", "/invokeBatch"):
            try:
                payload = json.loads(await request.text())
            except (ValueError, UnicodeDecodeError):
                return web.json_response({"error": "the body is not JSON"}, status=400)
            if path == "/invoke":
                return await self._invoke(usage, payload)
            return await self._invoke_batch(usage, payload)
        return web.json_response({"error": "Not found"}, status=404)

    def _problem(self, request: Any) -> str | None:
        if not isinstance(request, dict):
            return "each request must be an object"
        question = request.get("question")
        if not isinstance(question, str) or not question:
            return "Missing required field: question"
        system = request.get("systemPrompt")
        if system is not None and not isinstance(system, str):
            return "systemPrompt must be a string"
        provider = request.get("provider")
        if provider is not None and provider != self.label:
            return f"Unknown provider '{provider}'. Available: {self.label}"
        return None

    async def _one(self, usage: TokenUsage, request: dict[str, Any]) -> dict[str, Any]:
        assert self._slots is not None
        try:
            async with self._slots:
                text, p, c = await complete_text(self.judge, self._client, self._state,
                                                 request.get("systemPrompt"), request["question"])
        except _Failed as exc:
            usage.errors += 1
            return {"output": [], "rawText": f"Error: {exc}", "error": str(exc)}
        usage.prompt_tokens += p
        usage.completion_tokens += c
        return {"output": [{"role": "assistant", "content": text}], "rawText": text,
                "tokenUsage": {"input": p, "output": c}}

    async def _invoke(self, usage: TokenUsage, request: Any) -> Any:
        from aiohttp import web

        if usage.calls >= usage.max_calls:
            return web.json_response(
                {"error": f"Max calls exceeded (limit: {usage.max_calls})"}, status=429)
        problem = self._problem(request)
        if problem is not None:
            return web.json_response({"error": problem}, status=400)
        usage.calls += 1
        reply = await self._one(usage, request)
        if "error" in reply:
            return web.json_response({"error": reply["error"]}, status=500)
        return web.json_response(reply)

    async def _invoke_batch(self, usage: TokenUsage, payload: Any) -> Any:
        from aiohttp import web

        requests = payload.get("requests") if isinstance(payload, dict) else None
        if not isinstance(requests, list):
            return web.json_response({"error": "Missing required field: requests (array)"},
                                     status=400)
        if usage.calls + len(requests) > usage.max_calls:
            return web.json_response(
                {"error": f"Batch would exceed max calls (current: {usage.calls}, batch: "
                          f"{len(requests)}, limit: {usage.max_calls})"}, status=429)
        jobs: list[Any] = []
        for request in requests:
            problem = self._problem(request)
            if problem is not None:
                jobs.append({"output": [], "rawText": f"Error: {problem}", "error": problem})
                continue
            usage.calls += 1
            jobs.append(self._one(usage, request))
        replies = await asyncio.gather(*(j for j in jobs if not isinstance(j, dict)))
        it = iter(replies)
        return web.json_response({"responses": [j if isinstance(j, dict) else next(it)
                                                for j in jobs]})
