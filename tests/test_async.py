"""run_sync inside a running loop (as in Jupyter): results, errors, and interrupts that stop the work."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agenteval._util.aio import run_sync


async def _double(x: int) -> int:
    await asyncio.sleep(0)
    return 2 * x


async def _fail() -> None:
    raise ValueError("boom")


def test_without_a_running_loop() -> None:
    assert run_sync(_double(2)) == 4


def test_inside_a_running_loop_result_and_error() -> None:
    async def host() -> int:
        with pytest.raises(ValueError, match="boom"):
            run_sync(_fail())
        return run_sync(_double(21))

    assert asyncio.run(host()) == 42


CHILD = textwrap.dedent("""
    import asyncio, signal, sys
    # a kernel installs its own SIGINT handler; do the same, since a background parent (CI) may
    # have left SIGINT ignored, and an ignored signal is inherited
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from agenteval.judge.base import AnswerItem
    from agenteval.judge.llm import LLMJudge

    judge = LLMJudge("m", base_url=sys.argv[1], api_key="k", cache=sys.argv[2],
                     max_concurrency=2, progress=False)
    items = [AnswerItem(f"question {i}", f"answer {i}", "ref") for i in range(200)]

    async def notebook_cell():
        judge.judge_answers(items)  # a sync call inside the kernel's running loop

    loop = asyncio.new_event_loop()
    print("started", flush=True)
    try:
        loop.run_until_complete(notebook_cell())
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
""")


def test_interrupt_inside_a_running_loop_stops_judge_calls_and_keeps_finished_ones(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent / "judge"))
    from openai_server import FakeOpenAI

    from agenteval.judge.base import AnswerItem
    from agenteval.judge.llm import LLMJudge

    cache = tmp_path / "cache.sqlite3"
    with FakeOpenAI(latency=0.05) as server:
        child = subprocess.Popen([sys.executable, "-c", CHILD, server.base_url, str(cache)],
                                 stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while len(server.requests) < 10 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGINT)
        out, _ = child.communicate(timeout=30)
        assert "interrupted" in out and "finished" not in out
        at_exit = len(server.requests)
        time.sleep(0.5)
        assert len(server.requests) == at_exit < 200

        # resume: only what did not finish is paid for
        server.reset()
        judge = LLMJudge("m", base_url=server.base_url, api_key="k", cache=cache, progress=False)
        run = judge.start_run()
        outcomes = judge.judge_answers([AnswerItem(f"question {i}", f"answer {i}", "ref")
                                        for i in range(200)])
        assert all(hasattr(o, "score") for o in outcomes)
        assert run.cache_hits >= 5 and run.cache_hits + len(server.requests) == 200
