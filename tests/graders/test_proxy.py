"""The provider proxy over real HTTP: loopback only, bearer tokens, max_calls, usage, shutdown.

AgentV's contract (EntityProcess/agentv packages/core/src/runtime/provider-proxy.ts): 401
without the invocation's token, 429 "Max calls exceeded" past max_calls, /invokeBatch refused
whole when it would exceed, usage summed. The backend is agenteval's LLM judge against the
local fake OpenAI server, so every count below is also checked on the server's side.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import aiohttp
import pytest

from agenteval.graders.proxy import GraderProxy
from tests.graders.conftest import API_KEY


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def call(url: str, path: str, token: str | None, body: Any = None,
               method: str = "POST") -> tuple[int, Any]:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession() as http:
        async with http.request(method, url + path, json=body, headers=headers) as response:
            return response.status, await response.json()


def _other_address() -> str | None:
    """A non-loopback address of this machine, if it has one."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))  # no packet is sent (UDP connect)
            address = s.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


def test_binds_loopback_only(make_judge):
    async def body() -> None:
        async with GraderProxy(make_judge()) as proxy:
            assert proxy.url.startswith("http://127.0.0.1:")
            port = int(proxy.url.rsplit(":", 1)[1])
            other = _other_address()
            if other is not None:  # the same port on another interface of this host refuses
                with pytest.raises(OSError):
                    socket.create_connection((other, port), timeout=2).close()
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
    run(body())


def test_missing_wrong_or_revoked_token_is_401(make_judge, fake_server):
    async def body() -> None:
        async with GraderProxy(make_judge()) as proxy:
            token, _ = proxy.issue("g", 5)
            other, _ = proxy.issue("g", 5)
            assert token != other and len(token) == 64
            for bad in (None, "", "not-the-token", token[:-1], token + "x", token.upper()):
                for path, method in (("/info", "GET"), ("/invoke", "POST"),
                                     ("/invokeBatch", "POST")):
                    status, reply = await call(proxy.url, path, bad, {"question": "q"}, method)
                    assert (status, reply) == (401, {"error": "Unauthorized"}), (bad, path)
            async with aiohttp.ClientSession() as http:  # a scheme other than Bearer
                async with http.get(proxy.url + "/info",
                                    headers={"Authorization": f"Basic {token}"}) as r:
                    assert r.status == 401
            status, info = await call(proxy.url, "/info", token, method="GET")
            assert status == 200 and info == {"providerLabel": "judge-model", "maxCalls": 5,
                                              "callCount": 0,
                                              "availableProviderLabels": ["judge-model"]}
            proxy.revoke(token)
            assert (await call(proxy.url, "/info", token, method="GET"))[0] == 401
            assert (await call(proxy.url, "/info", other, method="GET"))[0] == 200
        assert fake_server.requests == []  # nothing unauthorised reached the judge
    run(body())


def test_max_calls_exact_for_invoke_and_batch(make_judge, fake_server):
    async def body() -> None:
        async with GraderProxy(make_judge()) as proxy:
            token, usage = proxy.issue("g", 3)
            for i in range(3):
                status, reply = await call(proxy.url, "/invoke", token,
                                           {"question": f"question {i}", "systemPrompt": "s"})
                assert status == 200, reply
            status, reply = await call(proxy.url, "/invoke", token, {"question": "one more"})
            assert (status, reply) == (429, {"error": "Max calls exceeded (limit: 3)"})
            assert usage.calls == 3 and len(fake_server.requests) == 3

            token, usage = proxy.issue("g", 3)
            status, reply = await call(proxy.url, "/invokeBatch", token,
                                       {"requests": [{"question": "b0"}, {"question": "b1"}]})
            assert status == 200 and len(reply["responses"]) == 2
            status, reply = await call(proxy.url, "/invokeBatch", token,
                                       {"requests": [{"question": "b2"}, {"question": "b3"}]})
            assert status == 429 and reply == {"error": "Batch would exceed max calls "
                                                        "(current: 2, batch: 2, limit: 3)"}
            assert usage.calls == 2 and len(fake_server.requests) == 5  # refused whole
            status, reply = await call(proxy.url, "/invokeBatch", token,
                                       {"requests": [{"question": "b4"}]})
            assert status == 200 and usage.calls == 3
            assert (await call(proxy.url, "/invoke", token, {"question": "x"}))[0] == 429
            assert (await call(proxy.url, "/invokeBatch", token, {"requests": []}))[0] == 200
            status, info = await call(proxy.url, "/info", token, method="GET")
            assert info["callCount"] == 3 and info["maxCalls"] == 3
            assert len(fake_server.requests) == 6
            # a request the proxy refuses costs no call
            token, usage = proxy.issue("g", 1)
            assert (await call(proxy.url, "/invoke", token, {"systemPrompt": "no q"}))[0] == 400
            assert (await call(proxy.url, "/invoke", token,
                               {"question": "q", "provider": "gemini-llm"}))[0] == 400
            assert usage.calls == 0
    run(body())


def test_usage_is_summed_and_replies_are_agentv_shaped(make_judge, fake_server):
    judge = make_judge()

    async def body() -> None:
        async with GraderProxy(judge) as proxy:
            token, usage = proxy.issue("g", 10)
            status, reply = await call(proxy.url, "/invoke", token,
                                       {"question": "Is it?", "systemPrompt": "Be brief."})
            assert status == 200
            text = reply["rawText"]
            assert reply["output"] == [{"role": "assistant", "content": text}]
            assert reply["tokenUsage"] == {"input": 11, "output": 7}
            status, reply = await call(proxy.url, "/invokeBatch", token, {"requests": [
                {"question": "a"}, {"question": "b"}, {"question": "c"}]})
            assert [r["tokenUsage"] for r in reply["responses"]] == [{"input": 11, "output": 7}] * 3
            assert (usage.prompt_tokens, usage.completion_tokens) == (44, 28)
        sent = fake_server.requests[0]
        assert sent["messages"] == [{"role": "system", "content": "Be brief."},
                                    {"role": "user", "content": "Is it?"}]
        assert "response_format" not in sent and "tools" not in sent  # free text, as AgentV
    run(body())
    run_record = judge.run_record
    assert run_record.calls == 4 and run_record.prompt_tokens == 44
    assert run_record.details["judgments"]["grader proxy"]["verdicts"] == 4


def test_judge_cache_and_budget_apply(make_judge, fake_server, tmp_path):
    judge = make_judge(cache=tmp_path / "cache.sqlite3", max_calls=2)

    async def body() -> None:
        async with GraderProxy(judge) as proxy:
            token, usage = proxy.issue("g", 10)
            for _ in range(3):  # the same question: one request, then the cache
                assert (await call(proxy.url, "/invoke", token, {"question": "same"}))[0] == 200
            assert len(fake_server.requests) == 1 and judge.run_record.cache_hits == 2
            assert usage.calls == 3  # AgentV counts the script's requests, cache hits too
            assert (await call(proxy.url, "/invoke", token, {"question": "new"}))[0] == 200
            status, reply = await call(proxy.url, "/invoke", token, {"question": "third"})
            assert status == 500 and "max_calls=2" in reply["error"]  # the judge's own budget
            status, reply = await call(proxy.url, "/invokeBatch", token,
                                       {"requests": [{"question": "fourth"}]})
            assert "error" in reply["responses"][0]
            assert reply["responses"][0]["rawText"].startswith("Error: ")
        assert len(fake_server.requests) == 2
    run(body())


def test_stops_with_the_run(make_judge):
    async def body() -> None:
        async with GraderProxy(make_judge()) as proxy:
            token, _ = proxy.issue("g", 5)
            url = proxy.url
            assert (await call(url, "/info", token, method="GET"))[0] == 200
        with pytest.raises(aiohttp.ClientConnectorError):
            await call(url, "/info", token, method="GET")
    run(body())


def test_the_key_never_reaches_a_script(make_judge, fake_server, tmp_path, monkeypatch):
    """A script that prints its whole environment and everything the proxy tells it."""
    from agenteval import Agentic
    from agenteval.graders import ScriptGrader

    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("MY_JUDGE_KEY", API_KEY)
    monkeypatch.setenv("SOMETHING_ELSE", f"prefix-{API_KEY}-suffix")
    monkeypatch.setenv("HARMLESS", "kept")
    script = tmp_path / "spy.py"
    script.write_text(
        "import json, os, sys, urllib.request\n"
        "sys.stdin.read()\n"
        "url, token = os.environ['AGENTV_PROVIDER_PROXY_URL'], "
        "os.environ['AGENTV_PROVIDER_PROXY_TOKEN']\n"
        "def get(path, body=None):\n"
        "    r = urllib.request.Request(url + path, data=None if body is None else "
        "json.dumps(body).encode(), headers={'Authorization': 'Bearer ' + token})\n"
        "    return urllib.request.urlopen(r).read().decode()\n"
        "seen = get('/info') + get('/invoke', {'question': 'hello'})\n"
        "print(json.dumps({'pass': True, 'score': 1, 'reason': json.dumps(dict(os.environ)) + "
        "seen, 'checks': [{'text': 'env', 'pass': True, 'reason': json.dumps(dict(os.environ))}]}))\n")
    judge = make_judge(api_key=None, api_key_env="MY_JUDGE_KEY")
    results = Agentic.run([{"session_id": "s", "assistant_id": "a", "conversation": [
        {"qa_id": "q", "query": "hi", "assistant": "hello", "ground_truth_assistant": "hello"}]}],
        judge, 1, graders=[ScriptGrader(f"python {script}")])
    (g,) = results[0].interactions[0].graders
    assert g.error is None and g.calls == 1, g.error
    assert '"HARMLESS": "kept"' in g.reason and "AGENTV_PROVIDER_PROXY_TOKEN" in g.reason
    for name in ("OPENAI_API_KEY", "MY_JUDGE_KEY", "SOMETHING_ELSE"):
        assert f'"{name}"' not in g.reason
    assert API_KEY not in results[0].model_dump_json()
    # the judge did use the key: it went to the server, and only there
    assert any(h.get("Authorization") == f"Bearer {API_KEY}" for h in fake_server.headers)
