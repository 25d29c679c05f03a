"""Small helpers shared by several test modules."""

from __future__ import annotations

import threading


def finishes(fn, *args, seconds: float = 5.0, **kwargs):
    """Call ``fn`` in a daemon thread; fail (instead of hanging the suite) if it takes too long."""
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # re-raised below, in the test's thread
            out["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"{fn.__name__} still running after {seconds} s"
    if "error" in out:
        raise out["error"]
    return out["value"]
