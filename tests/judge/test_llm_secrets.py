"""Where the API key may go: never into a pickle, never to a third-party endpoint unasked."""

from __future__ import annotations

import copy
import pickle

import pytest

from agenteval.errors import ConfigError
from agenteval.judge.base import AnswerItem, Verdict
from openai_server import FakeOpenAI

from conftest import API_KEY

GOOD = Verdict(0.75, "looks right")
ENV_KEY = "sk-env-OPENAI-KEY-must-not-leak-42"


def _items(n: int = 1) -> list[AnswerItem]:
    return [AnswerItem(query=f"q{i}", answer=f"a{i}", ground_truth="t") for i in range(n)]


def _auth(server: FakeOpenAI) -> list[str]:
    return [h["Authorization"] for h in server.headers]


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_never_contains_the_key(make_judge, fake_server, protocol):
    judge = make_judge()
    assert judge.judge_answers(_items(2)) == [GOOD] * 2  # after a run, too
    assert _auth(fake_server) == [f"Bearer {API_KEY}"] * 2
    for obj in (judge, copy.copy(judge), copy.deepcopy(judge), judge.run_record,
                {"settings": {"judge": judge}}):
        data = pickle.dumps(obj, protocol=protocol)
        assert API_KEY.encode() not in data
        assert API_KEY.encode("utf-16-le") not in data  # nor hidden in another encoding


def test_copies_work_in_memory_but_unpickled_judge_asks_for_the_key(make_judge, fake_server):
    judge = make_judge(cache=False)
    clone = copy.deepcopy(judge)
    assert clone.judge_answers(_items()) == [GOOD]
    assert _auth(fake_server) == [f"Bearer {API_KEY}"]
    restored = pickle.loads(pickle.dumps(judge))
    assert restored.model == judge.model and restored.endpoint == judge.endpoint
    with pytest.raises(ConfigError, match="api_key"):
        restored.judge_answers(_items())
    assert len(fake_server.requests) == 1  # nothing was sent with a missing key


def test_unpickled_judge_resolves_an_implicit_key_again(fake_server, monkeypatch, cache_file):
    from agenteval.judge.llm import LLMJudge

    judge = LLMJudge("m", base_url=fake_server.base_url, cache=cache_file, progress=False)
    restored = pickle.loads(pickle.dumps(judge))
    assert restored.judge_answers(_items()) == [GOOD]
    assert _auth(fake_server) == ["Bearer EMPTY"]


def test_judge_built_from_a_client_pickles_without_the_client(fake_server, cache_file):
    import openai

    from agenteval.judge.llm import LLMJudge

    client = openai.OpenAI(api_key=API_KEY, base_url=fake_server.base_url)
    judge = LLMJudge("m", client=client, cache=cache_file, progress=False)
    data = pickle.dumps(judge)
    assert API_KEY.encode() not in data
    with pytest.raises(ConfigError, match="client"):
        pickle.loads(data).judge_answers(_items())
    assert fake_server.requests == []


def test_env_key_is_not_sent_to_a_third_party_endpoint(fake_server, monkeypatch, cache_file):
    from agenteval.judge.llm import LLMJudge

    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    judge = LLMJudge("m", base_url=fake_server.base_url, cache=cache_file, progress=False)
    assert judge.judge_answers(_items()) == [GOOD]
    assert _auth(fake_server) == ["Bearer EMPTY"]
    assert all(ENV_KEY not in raw for raw in fake_server.raw)


def test_explicit_key_is_sent_to_the_endpoint_chosen(fake_server, monkeypatch, cache_file):
    from agenteval.judge.llm import LLMJudge

    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    judge = LLMJudge("m", base_url=fake_server.base_url, api_key=API_KEY, cache=cache_file,
                     progress=False)
    judge.judge_answers(_items())
    assert _auth(fake_server) == [f"Bearer {API_KEY}"]


def test_env_key_goes_with_the_env_endpoint(fake_server, monkeypatch, cache_file):
    # $OPENAI_BASE_URL and $OPENAI_API_KEY are configured together (as the openai SDK reads them)
    from agenteval.judge.llm import LLMJudge

    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_server.base_url)
    judge = LLMJudge("m", cache=cache_file, progress=False)
    judge.judge_answers(_items())
    assert _auth(fake_server) == [f"Bearer {ENV_KEY}"]


def test_env_key_is_read_for_openai_itself(monkeypatch):
    from agenteval.judge.llm import LLMJudge, is_openai_endpoint

    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for url in (None, "https://api.openai.com/v1", "https://API.openai.com/v1/"):
        judge = LLMJudge("gpt-4o-mini", base_url=url, cache=False)
        assert judge._api_key() == ENV_KEY
        assert ENV_KEY not in repr(judge) and ENV_KEY.encode() not in pickle.dumps(judge)
    assert not is_openai_endpoint("https://api.openai.com.evil.example/v1")
    assert not is_openai_endpoint("http://127.0.0.1:8000/v1")


def test_copies_of_a_client_judge_keep_working(fake_server, cache_file):
    import openai

    from agenteval.judge.llm import LLMJudge

    judge = LLMJudge("m", client=openai.OpenAI(api_key=API_KEY, base_url=fake_server.base_url),
                     cache=False, progress=False)
    for clone in (copy.copy(judge), copy.deepcopy(judge)):
        assert clone.judge_answers(_items()) == [GOOD]
        assert API_KEY.encode() not in pickle.dumps(clone)
    assert _auth(fake_server) == [f"Bearer {API_KEY}"] * 2
