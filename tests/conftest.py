"""Shared test setup: no test writes outside its own temporary folders."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# Runs inside the reference venv (deepeval, ragas), never in this one: not collected here.
collect_ignore = ["metrics/rag_reference_scores.py"]

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "data" / "agentic_demo.jsonl"


def demo_with_judge_errors(folder: Path) -> Path:
    """The demo with the reference removed from a seeded fifth of the interactions: the offline
    judge cannot score those (judge errors), so shares are post-stratified by length."""
    import json
    import random

    rng = random.Random(16)
    lines = []
    for line in DEMO.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for turn in record["conversation"]:
            if rng.random() < 0.2:
                turn.pop("ground_truth_assistant", None)
        lines.append(json.dumps(record))
    path = folder / "with_errors.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def ragged_suite() -> list[dict]:
    """Two agents on partly different tasks (A: t1-t3, B: t2 and t4), three attempts each, with
    given outcomes: a suite whose agent x task grid has empty cells."""
    return [{"session_id": f"{a}-{t}-{i}", "assistant_id": a, "task_id": t, "attempt": i + 1,
             "outcome": float((i + len(t)) % 2),
             "conversation": [{"qa_id": "q", "query": "q", "assistant": "x"}]}
            for a, tasks in (("A", ("t1", "t2", "t3")), ("B", ("t2", "t4"))) for t in tasks
            for i in range(3)]

# PyTensor reads its compile folder once, at import: an ignored folder of this checkout, so the
# cache stays warm between runs and nothing lands in the home directory.
os.environ.setdefault("AGENTEVAL_PYTENSOR_DIR", str(REPO / ".cache" / "pytensor"))


@pytest.fixture(autouse=True, scope="session")
def _private_tmpdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A private TMPDIR for the session (PyMC / PyTensor / subprocesses write temp files)."""
    path = tmp_path_factory.mktemp("tmpdir")
    old_env, old_tempdir = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"], tempfile.tempdir = str(path), str(path)
    yield
    tempfile.tempdir = old_tempdir
    if old_env is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = old_env


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the judge cache at a fresh folder so tests never share or leave a cache."""
    monkeypatch.setenv("AGENTEVAL_CACHE_DIR", str(tmp_path_factory.mktemp("agenteval-cache")))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
