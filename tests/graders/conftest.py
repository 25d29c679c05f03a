"""Fixtures for the grader tests: the fake OpenAI server and an LLM judge against it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.judge.openai_server import FakeOpenAI

API_KEY = "sk-test-GRADERS-SECRET-0123456789"


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def make_judge(fake_server: FakeOpenAI, tmp_path: Any) -> Callable[..., Any]:
    """An LLMJudge against the fake server (no cache unless asked), fast retries."""
    from agenteval.judge.llm import LLMJudge

    def make(**options: Any) -> Any:
        settings: dict[str, Any] = dict(base_url=fake_server.base_url, api_key=API_KEY,
                                        cache=False, retry_initial_delay=0.001,
                                        retry_max_delay=0.01, timeout=5.0, progress=False,
                                        max_retries=1)
        settings.update(options)
        judge = LLMJudge("judge-model", **settings)
        judge.start_run()
        return judge

    return make
