"""``_util.forked``: work in a forked child comes back as its value, its exception (with the
child's traceback) or its warnings, a crash is one ChildCrashed, and no child outlives the
block that started it. Real forks, real signals."""

from __future__ import annotations

import os
import signal
import threading
import time
import warnings

import pytest

from agenteval._util.forked import ChildCrashed, Forked, can_fork

pytestmark = pytest.mark.skipif(not can_fork(), reason="no fork on this platform")


def _gone(pid: int) -> bool:
    """The child was reaped: it is neither running nor a zombie of this process."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_the_value_and_the_memory_of_the_parent() -> None:
    big = list(range(100_000))   # inherited, not sent
    with Forked(lambda: sum(big) + os.getpid()) as child:
        pid = child._pid
        assert child.wait() == sum(big) + pid
    assert _gone(pid)


def test_an_exception_is_raised_again_with_the_childs_traceback() -> None:
    def bug() -> None:
        {}["planted"]

    with Forked(bug) as child, pytest.raises(KeyError, match="planted") as raised:
        child.wait()
    notes = "\n".join(getattr(raised.value, "__notes__", []))
    assert "in a forked child process" in notes and "in bug" in notes


def test_an_exception_that_does_not_pickle_keeps_its_type_name_and_text() -> None:
    class Local(Exception):   # a class pickle cannot find by name
        pass

    def fail() -> None:
        raise Local("its own words")

    with Forked(fail) as child, pytest.raises(RuntimeError, match="Local: its own words"):
        child.wait()


def test_warnings_reach_the_callers_filters() -> None:
    def warn() -> int:
        warnings.warn("from the child", UserWarning, stacklevel=1)
        return 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with Forked(warn) as child:
            assert child.wait() == 1
    assert [str(w.message) for w in caught] == ["from the child"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with Forked(warn) as child, pytest.raises(UserWarning, match="from the child"):
            child.wait()


def test_a_crash_is_one_child_crashed_naming_the_signal() -> None:
    with Forked(lambda: os.kill(os.getpid(), signal.SIGSEGV)) as child, \
            pytest.raises(ChildCrashed) as raised:
        child.wait()
    assert raised.value.signal == signal.SIGSEGV


def test_leaving_the_block_kills_and_reaps_a_running_child() -> None:
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="the parent's own error"):
        with Forked(lambda: time.sleep(60)) as child:
            pid = child._pid
            raise RuntimeError("the parent's own error")
    assert _gone(pid) and time.monotonic() - started < 30


def test_a_thread_of_the_parent_does_not_run_in_the_child() -> None:
    stop = threading.Event()
    ticks: list[int] = []
    thread = threading.Thread(target=lambda: [ticks.append(1) or time.sleep(0.001)
                                              for _ in iter(lambda: stop.is_set(), True)])
    thread.start()
    try:
        with Forked(lambda: threading.active_count()) as child:
            assert child.wait() == 1
    finally:
        stop.set()
        thread.join()


def test_the_child_freezes_what_it_inherits() -> None:
    """No collection in the child walks the parent's objects (they cannot become garbage there):
    every object the parent had is in the child's permanent generation, and the child still
    collects its own cycles."""
    import gc

    inherited = [object() for _ in range(10_000)]

    def child() -> tuple[int, int, bool]:
        cycle: list = []
        cycle.append(cycle)
        del cycle
        return gc.get_freeze_count(), gc.collect(), gc.isenabled()

    frozen, collected, enabled = Forked(child).wait()
    assert frozen >= len(inherited)
    assert collected >= 1 and enabled
    assert gc.get_freeze_count() == 0   # the parent's own generations are untouched
