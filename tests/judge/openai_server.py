"""A scriptable OpenAI-compatible chat-completions server for the judge tests (aiohttp, loopback).

It runs its own event loop in a thread, binds 127.0.0.1 on a free port and records every request
body, the requests in flight and the most seen at once. By default each request gets a valid
verdict shaped for the request's mode (tool call, JSON-schema content, or a fenced block in plain
mode) that echoes the request's item id, as a model following the schema does (scripted payloads
get it put in too, unless ``Reply(echo=False)``; ``Swap`` echoes another item's id). Tests script faults per request with :meth:`FakeOpenAI.on`: requests whose body contains a
marker string take the next scripted action, in order, then fall back to the default.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Reply:
    """A 200 reply; ``payload`` replaces the verdict JSON text (e.g. an invalid verdict)."""

    payload: str | dict[str, Any] | None = None
    finish_reason: str = "stop"
    raw: bool = False
    """True: ``payload`` is the whole message content (no fence added in plain mode); its
    ``@ITEM@`` marks are replaced by the request's item id."""
    echo: bool = True
    """False: the payload is sent as it is, without the request's item id put in."""


@dataclass
class Status:
    """An HTTP error status with optional headers (e.g. 429 with retry-after)."""

    code: int
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Swap:
    """A valid verdict that echoes another item's id (a server that mixed up replies)."""

    score: float = 1.0


@dataclass
class Sleep:
    """Wait ``seconds`` before replying normally (a hang when longer than the client timeout)."""

    seconds: float


@dataclass
class Truncated:
    """A 200 reply whose verdict JSON is cut after its verdict, inside the key ``"reasoning"``
    (by default as the server cuts it at the token limit: ``finish_reason`` "length")."""

    finish_reason: str = "length"


@dataclass
class Huge:
    """A 200 reply of about ``size`` bytes: a verdict whose reasoning never ends."""

    size: int
    finish_reason: str = "stop"


@dataclass
class BrokenBody:
    """A 200 reply whose HTTP body is not JSON at all."""


@dataclass
class NoChoices:
    """A 200 reply whose completion has an empty ``choices`` list."""


Action = Reply | Status | Swap | Sleep | Truncated | Huge | BrokenBody | NoChoices


ITEM_MARK = "@ITEM@"
"""In a raw reply: replaced by the request's item id."""
_ITEM_LINE = re.compile(r'Item id: "([0-9a-f]+)"')


def item_id(body: dict[str, Any]) -> str:
    """The item id a request asks its verdict to echo (its schema's one-value enum, or the
    "Item id" line of its first user message); '' when it names none."""
    schemas = [body.get("response_format", {}).get("json_schema", {}).get("schema", {})]
    schemas += [t.get("function", {}).get("parameters", {}) for t in body.get("tools") or []]
    for schema in schemas:
        enum = schema.get("properties", {}).get("item", {}).get("enum")
        if enum:
            return str(enum[0])
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    found = _ITEM_LINE.findall(str(users[0].get("content", ""))) if users else []
    return found[-1] if found else ""


def with_item(payload: str | dict[str, Any], item: str) -> str | dict[str, Any]:
    """The verdict with ``item`` echoed first, as a model following the schema gives it."""
    if not item:
        return payload
    if isinstance(payload, dict):
        return payload if "item" in payload else {"item": item, **payload}
    if payload.lstrip().startswith("{") and '"item"' not in payload:
        rest = payload.lstrip()[1:]
        return '{"item": "' + item + '"' + ("" if rest.lstrip().startswith("}") else ", ") + rest
    return payload


def default_verdict(body: dict[str, Any]) -> dict[str, Any]:
    """A valid answer/utilisation verdict (verdict first, as the schemas order it)."""
    return {"score": 0.75, "reasoning": "looks right"}


class FakeOpenAI:
    """The server; use as a context manager or call start()/stop()."""

    def __init__(self, *, latency: float = 0.0,
                 verdict: Callable[[dict[str, Any]], dict[str, Any]] = default_verdict,
                 usage: tuple[int, int] = (11, 7), fence: tuple[str, str] = ("```json", "```"),
                 slots: int | None = None, props_redirect: str | None = None) -> None:
        self.latency = latency
        self.verdict = verdict
        self.usage = usage
        self.fence = fence
        self.slots = slots
        """Served at /props (``total_slots``) and /slots like llama.cpp; None: 404 there."""
        self.props_redirect = props_redirect
        """When set, /props and /slots answer 302 to this URL (a redirect to another origin)."""
        self.gets: list[str] = []
        self.get_headers: list[dict[str, str]] = []
        self.times: list[float] = []
        """When each POST arrived (time.monotonic(), this process's clock)."""
        self.requests: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.replied = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._rules: list[tuple[str | None, deque[Action]]] = []
        self._lock = threading.Lock()
        self.port = 0

    # -- scripting --------------------------------------------------------------------------

    def on(self, marker: str | None, *actions: Action) -> FakeOpenAI:
        """Requests containing ``marker`` (None: any request) take ``actions`` one by one."""
        self._rules.append((marker, deque(actions)))
        return self

    def reset(self) -> None:
        """Forget recorded requests and scripted actions."""
        with self._lock:
            self.requests.clear()
            self.raw.clear()
            self.headers.clear()
            self.times.clear()
            self._rules.clear()
            self.replied = 0
            self.max_in_flight = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="fake-openai")
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._astart(), self._loop).result(10)
        return self

    async def _astart(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_get("/stats", self._stats)
        app.router.add_get("/props", self._props)
        app.router.add_get("/slots", self._slot_list)
        self._runner = web.AppRunner(app, shutdown_timeout=0.2, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._astop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    async def _astop(self) -> None:
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in others:  # hanging handlers: cancel rather than wait
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        await self._runner.cleanup()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- handling ---------------------------------------------------------------------------

    async def _stats(self, request: web.Request) -> web.Response:
        with self._lock:
            return web.json_response({"requests": len(self.requests), "replied": self.replied,
                                      "max_in_flight": self.max_in_flight})

    def _redirect(self, request: web.Request) -> web.Response | None:
        self.get_headers.append(dict(request.headers))
        if self.props_redirect is None:
            return None
        raise web.HTTPFound(self.props_redirect + request.path)

    async def _props(self, request: web.Request) -> web.Response:
        self.gets.append("/props")
        self._redirect(request)
        if self.slots is None:
            return web.json_response({"error": "not found"}, status=404)
        return web.json_response({"total_slots": self.slots, "model_path": "fake.gguf"})

    async def _slot_list(self, request: web.Request) -> web.Response:
        self.gets.append("/slots")
        self._redirect(request)
        if self.slots is None:
            return web.json_response({"error": "not found"}, status=404)
        return web.json_response([{"id": i, "is_processing": False} for i in range(self.slots)])

    def _next_action(self, text: str) -> Action | None:
        with self._lock:
            for marker, actions in self._rules:
                if actions and (marker is None or marker in text):
                    return actions.popleft()
        return None

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        text = await request.text()
        body = json.loads(text)
        with self._lock:
            self.times.append(time.monotonic())
            self.requests.append(body)
            self.raw.append(text)
            self.headers.append(dict(request.headers))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency:
                await asyncio.sleep(self.latency)
            action = self._next_action(text)
            if isinstance(action, Sleep):
                await asyncio.sleep(action.seconds)
                action = None
            if isinstance(action, Status):
                return web.json_response(
                    {"error": {"message": f"scripted {action.code}", "type": "scripted"}},
                    status=action.code, headers=action.headers)
            if isinstance(action, NoChoices):
                return web.json_response({"id": "chatcmpl-empty", "object": "chat.completion",
                                          "created": 0, "model": body.get("model", "fake"),
                                          "choices": []})
            if isinstance(action, BrokenBody):
                return web.Response(text='{"id": "chatcmpl-broken", "choices": [', status=200,
                                    content_type="application/json")
            payload: Any
            finish = "stop"
            item = item_id(body)
            if isinstance(action, Reply) and action.raw:
                content = str(action.payload).replace(ITEM_MARK, item)
                return web.json_response(self._completion(body, content, action.finish_reason,
                                                          raw=True))
            if isinstance(action, Swap):
                other = "0" * len(item) if item != "0" * len(item) else "1" * len(item)
                payload = {"item": other, "score": action.score, "reasoning": "swapped"}
                return web.json_response(self._completion(body, json.dumps(payload), "stop"))
            if isinstance(action, Reply):
                payload = action.payload if action.payload is not None else self.verdict(body)
                finish = action.finish_reason
            else:
                payload = self.verdict(body)
            if not (isinstance(action, Reply) and not action.echo):
                payload = with_item(payload, item)
            payload_text = payload if isinstance(payload, str) else json.dumps(payload)
            if isinstance(action, Truncated):  # cut inside the key of the reasoning
                at = payload_text.find('"reasoning"')
                payload_text = payload_text[: at + 6 if at >= 0 else len(payload_text) // 2]
                finish = action.finish_reason
            if isinstance(action, Huge):
                payload_text = ('{"item": "' + item + '", "score": 1.0, "reasoning": "'
                                + "x" * action.size + '"}')
                finish = action.finish_reason
            with self._lock:
                self.replied += 1
            return web.json_response(self._completion(body, payload_text, finish))
        finally:
            with self._lock:
                self.in_flight -= 1

    def _completion(self, body: dict[str, Any], payload: str, finish: str, *,
                    raw: bool = False) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None}
        if raw:
            message["content"] = payload
        elif body.get("tools"):
            name = body["tools"][0]["function"]["name"]
            message["tool_calls"] = [{"id": "call_0", "type": "function",
                                      "function": {"name": name, "arguments": payload}}]
            finish = "tool_calls" if finish == "stop" else finish
        elif body.get("response_format"):
            message["content"] = payload
        else:
            bos, eos = self.fence
            message["content"] = f"Here is my verdict.\n{bos}\n{payload}\n{eos}\n"
        return {
            "id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": self.usage[0], "completion_tokens": self.usage[1],
                      "total_tokens": sum(self.usage)},
        }


def main() -> None:
    """Serve in its own process (the benchmark does this): prints the base URL, then waits."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    server = FakeOpenAI(latency=args.latency).start()
    print(server.base_url, flush=True)
    try:
        sys.stdin.read()  # until the parent closes our stdin
    finally:
        server.stop()


if __name__ == "__main__":
    main()
