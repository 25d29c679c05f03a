"""The few pieces of AgentV's SDK the ported graders need, in the standard library only.

``create_provider_client`` follows ``packages/sdk/src/provider-client.ts`` of EntityProcess/agentv:
it reads AGENTV_PROVIDER_PROXY_URL and AGENTV_PROVIDER_PROXY_TOKEN and calls ``/invoke``,
``/invokeBatch`` and ``/info`` with the bearer token. Unlike the SDK, a failed call raises
``ProviderError`` (the script then fails with a message on stderr: an execution error, which
agenteval keeps out of n and c) instead of letting an "Error: ..." text pass for a reply.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any


class ProviderError(Exception):
    """A proxy call that gave no reply."""


class ProviderClient:
    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url.rstrip("/"), token

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, method=method,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=600) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            try:
                message = json.loads(exc.read()).get("error") or f"HTTP {exc.code}"
            except ValueError:
                message = f"HTTP {exc.code}"
            raise ProviderError(f"{path}: {message}") from None

    def invoke(self, question: str, system_prompt: str | None = None) -> dict[str, Any]:
        return self._call("POST", "/invoke", {"question": question, "systemPrompt": system_prompt})

    def invoke_batch(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        replies = self._call("POST", "/invokeBatch", {"requests": requests})["responses"]
        for reply in replies:
            if reply.get("error"):
                raise ProviderError(f"/invokeBatch: {reply['error']}")
        return replies

    def get_info(self) -> dict[str, Any]:
        return self._call("GET", "/info")


def create_provider_client() -> ProviderClient | None:
    """The proxy's client, or None when the run gave no proxy (no LLM judge)."""
    url = os.environ.get("AGENTV_PROVIDER_PROXY_URL")
    token = os.environ.get("AGENTV_PROVIDER_PROXY_TOKEN")
    if not url:
        return None
    if not token:
        fail("AGENTV_PROVIDER_PROXY_URL is set but AGENTV_PROVIDER_PROXY_TOKEN is missing")
    return ProviderClient(url, token)


def message_text(messages: list[dict[str, Any]], role: str = "assistant") -> str:
    """The text of the last message of ``role`` (getMessageText in the TypeScript examples)."""
    for msg in reversed(messages or []):
        if msg.get("role") == role:
            content = msg.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "\n".join(b.get("text", "") for b in content
                                 if isinstance(b, dict) and b.get("type") == "text")
    return ""


def retrieval_context(expected_output: list[dict[str, Any]]) -> list[str]:
    """Strings in expected_output[].tool_calls[].output.results (utils.ts, flattened)."""
    results: list[str] = []
    for message in expected_output or []:
        for call in message.get("tool_calls") or []:
            output = call.get("output")
            if isinstance(output, dict) and isinstance(output.get("results"), list):
                results.extend(r for r in output["results"] if isinstance(r, str))
    return results


def first_json_object(text: str) -> dict[str, Any]:
    """The reply's JSON (the TypeScript's /\\{[\\s\\S]*\\}/ match); ProviderError if none."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ProviderError(f"the reply holds no JSON object: {text[:200]!r}")
    try:
        value = json.loads(text[start:end + 1])
    except ValueError as exc:
        raise ProviderError(f"the reply's JSON does not parse ({exc}): {text[:200]!r}") from None
    if not isinstance(value, dict):
        raise ProviderError(f"the reply's JSON is not an object: {text[:200]!r}")
    return value


def fail(message: str) -> None:
    """Stop with an execution error (stderr + exit 1): no verdict, never a score of 0."""
    print(message, file=sys.stderr)
    sys.exit(1)
