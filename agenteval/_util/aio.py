"""Run a coroutine to completion from sync code, also inside a running loop (Jupyter)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` where possible; in a worker thread with its own loop when one is running.

    Jupyter runs an event loop in the kernel's main thread, where ``asyncio.run`` refuses to
    start; a worker thread keeps the same code working there without nest_asyncio. An interrupt
    (the kernel's stop button, Ctrl-C) cancels the work in the worker, so no new judge calls start
    and what already finished stays cached, then re-raises in the caller.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)

    loop = asyncio.new_event_loop()
    task = loop.create_task(coro)
    box: dict[str, Any] = {}

    def worker() -> None:
        asyncio.set_event_loop(loop)
        try:
            box["value"] = loop.run_until_complete(task)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc
        finally:
            try:
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()

    thread = threading.Thread(target=worker, name="agenteval-async", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.1)
    except BaseException:
        try:
            loop.call_soon_threadsafe(task.cancel)
        except RuntimeError:  # the loop already finished and closed
            pass
        thread.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]
