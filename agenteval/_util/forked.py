"""Work done in a forked child process: beside this one (the figures are drawn while the other
output files are written) or shielded from it (the HDF5 library can crash the process after a
failed write on a full disk).

The child inherits the parent's memory (nothing is copied or pickled on the way in); it sends
back one pickled message: the work's return value, or the exception it raised with its
traceback, and the warnings it raised, which the parent raises again where it waits, so they
reach the caller's filters as if the work had run in-process. A child that dies of a signal is
one :class:`ChildCrashed`. A parent that stops waiting (an error of its own, Ctrl-C) kills and
reaps the child: no process outlives the call that started it.
"""

from __future__ import annotations

import os
import pickle
import signal
import traceback
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["ChildCrashed", "Forked", "can_fork", "spare_core"]


class ChildCrashed(RuntimeError):
    """The child died of a signal (``signal``: its number) before it could report."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"the child process died of signal {signum}")
        self.signal = signum


def can_fork() -> bool:
    return hasattr(os, "fork")


def spare_core() -> bool:
    """Whether a child would run beside this process rather than take turns with it."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return can_fork() and cores > 1


class Forked:
    """``work()`` run in a forked child, started at once; ``wait()`` returns its value or raises
    its exception. Use as a context manager: leaving the block without ``wait()`` (an exception)
    kills the child."""

    def __init__(self, work: Callable[[], Any]) -> None:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child (its coverage is not collected)
            os.close(read)
            _child(work, write)
        os.close(write)
        self._pid: int | None = pid
        self._read = read

    def wait(self) -> Any:
        chunks = []
        try:
            while chunk := os.read(self._read, 1 << 16):
                chunks.append(chunk)
        finally:
            os.close(self._read)
            _, status = os.waitpid(self._pid, 0)
            self._pid = None
        code = os.waitstatus_to_exitcode(status)
        if code < 0 or not chunks:
            raise ChildCrashed(-code if code < 0 else 0)
        outcome, value, caught = pickle.loads(b"".join(chunks))
        for message, category, filename, lineno in caught:
            warnings.warn_explicit(message, category, filename, lineno)
        if outcome == "error":
            raise value
        return value

    def cancel(self) -> None:
        """Kill the child if it still runs, and reap it."""
        if self._pid is None:
            return
        try:
            os.kill(self._pid, signal.SIGKILL)
        except ProcessLookupError:  # pragma: no cover - it had just finished
            pass
        os.waitpid(self._pid, 0)
        self._pid = None
        os.close(self._read)

    def __enter__(self) -> Forked:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.cancel()


def _child(work: Callable[[], Any], write: int) -> None:  # pragma: no cover - runs in the child
    """Run ``work``, send the outcome, and leave without running anything of the parent's
    (``os._exit``: no atexit handler, no flush of buffers the parent still holds)."""
    import faulthandler
    import gc

    # What the child inherits lives until it exits and none of it becomes garbage here: frozen,
    # no collection of the child walks it (nor writes to its pages, which fork shares).
    gc.freeze()
    faulthandler.disable()  # a crash is reported by the parent, in one line
    quiet = os.open(os.devnull, os.O_WRONLY)  # a library's dying words are not the user's line
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: the parent reports it, once
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            message: tuple[Any, ...] = ("ok", work(), None)
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent
            message = ("error", _portable(exc), None)
    shown = [(w.message, w.category, w.filename, w.lineno) for w in caught]
    try:
        data = pickle.dumps((message[0], message[1], shown))
    except Exception as exc:  # noqa: BLE001 - a value or warning that does not pickle
        data = pickle.dumps(("error", _portable(exc), []))
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(write, view):]
    finally:
        os._exit(0)


def _portable(exc: BaseException) -> BaseException:
    """``exc`` as it can cross to the parent: itself (with the child's traceback as a note)
    when it pickles, else a RuntimeError with its type, text and traceback."""
    trace = "".join(traceback.format_exception(exc)).rstrip()
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any exception type may fail to pickle
        exc = RuntimeError(f"{type(exc).__name__}: {exc}")
    if not isinstance(exc, (OSError, KeyboardInterrupt)) and hasattr(exc, "add_note"):
        exc.add_note(f"in a forked child process:\n{trace}")
    return exc
