"""Fixtures for the LLM judge tests: a fresh fake OpenAI server and a judge factory per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from openai_server import FakeOpenAI

API_KEY = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def cache_file(tmp_path: Path) -> Path:
    return tmp_path / "judge-cache" / "judge.sqlite3"


@pytest.fixture
def make_judge(fake_server: FakeOpenAI, cache_file: Path) -> Callable[..., Any]:
    """An LLMJudge against the fake server, with fast retries and a private cache file."""
    from agenteval.judge.llm import LLMJudge

    def make(model: str = "judge-model", **options: Any) -> LLMJudge:
        settings: dict[str, Any] = dict(
            base_url=fake_server.base_url, api_key=API_KEY, cache=cache_file,
            retry_initial_delay=0.001, retry_max_delay=1.0, timeout=5.0, progress=False)
        settings.update(options)
        judge = LLMJudge(model, **settings)
        judge.start_run()
        return judge

    return make
