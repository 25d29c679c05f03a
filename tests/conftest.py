"""Shared test setup: no test writes outside its own temporary folders."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "data" / "agentic_demo.jsonl"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the judge cache at a fresh folder so tests never share or leave a cache."""
    monkeypatch.setenv("AGENTEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("agenteval-cache")))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
