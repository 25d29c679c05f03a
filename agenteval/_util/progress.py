"""Progress for long phases (judging, tool scoring, MCMC fits): counts, rate, errors so far,
time left (``tqdm.auto``).

A widget in notebooks (none when ipywidgets is missing), text on stderr elsewhere, shown only once a phase has taken more than
:data:`DELAY` seconds (a fast run prints nothing). ``enabled=False`` turns it off (``--quiet``);
``None`` shows it on a terminal or in a notebook, and on other streams (CI logs) with updates at
most every :data:`LOG_INTERVAL` seconds so a log is not flooded.
"""

from __future__ import annotations

import sys
import time
from typing import Any

DELAY = 1.0
"""Seconds a phase runs before its bar appears."""

LOG_INTERVAL = 10.0
"""Minimum seconds between updates when stderr is not a terminal."""


class Progress:
    """One phase's bar; every method is a no-op when the bar is off."""

    def __init__(self, total: int, desc: str, *, enabled: bool | None = None,
                 unit: str = "item") -> None:
        self.errors = 0
        self.pauses = 0
        self._paused_until = 0.0
        self._bar: Any = None
        if enabled is False or total <= 0:
            return
        notebook = "ipykernel" in sys.modules
        if notebook and not _has_widgets():
            return  # a notebook shows progress as a widget; without ipywidgets, none
        from tqdm.auto import tqdm

        tty = bool(getattr(sys.stderr, "isatty", lambda: False)())
        options: dict[str, Any] = {"mininterval": 0.2 if (tty or notebook) else LOG_INTERVAL}
        if enabled is None:
            options["delay"] = DELAY
        self._bar = tqdm(total=total, desc=desc, unit=unit, leave=True, dynamic_ncols=True,
                         file=sys.stderr, **options)
        self._bar.set_postfix_str("errors=0", refresh=False)

    def update(self, n: int = 1, *, errors: int = 0) -> None:
        """Count ``n`` finished items, ``errors`` of which failed."""
        if self._bar is None:
            return
        if errors or self._paused_until:
            self.errors += errors
            self._bar.set_postfix_str(self._postfix(), refresh=False)
        self._bar.update(n)

    def pause(self, seconds: float) -> None:
        """Show that the run waits ``seconds`` because the server asked (retry-after, 429)."""
        self.pauses += 1
        self._paused_until = time.monotonic() + seconds
        if self._bar is not None:
            self._bar.set_postfix_str(self._postfix(), refresh=True)

    def _postfix(self) -> str:
        text = f"errors={self.errors}"
        left = self._paused_until - time.monotonic()
        if left > 0:
            return f"{text}, server asked to wait: paused {left:.0f} s"
        self._paused_until = 0.0
        return text

    def stage(self, text: str, *, slow: bool = False) -> None:
        """Say what the phase does now (``compiling``, ``sampling``), shown at once when the bar
        is already visible, the phase has run longer than :data:`DELAY`, or the stage is known
        to be ``slow`` (importing PyMC: seconds)."""
        if self._bar is None:
            return
        self._bar.set_postfix_str(text, refresh=False)
        now = self._bar._time()
        if slow or now - self._bar.start_t >= self._bar.delay:
            self._bar.refresh()
            self._bar.last_print_t = now  # shown: close() prints the final count

    def restart(self) -> None:
        """Start the clock again (the rate and time left of sampling, not of compiling).

        Not tqdm's ``reset()``: it redraws the bar at once, also when the phase has not yet
        been shown (then a phase shorter than the delay left a stray 0/N line and no final one).
        """
        bar = self._bar
        if bar is None:
            return
        now = bar._time()
        if bar.last_print_t >= bar.start_t + bar.delay or now - bar.start_t >= bar.delay:
            bar.delay = 0  # on screen, or the phase already ran past the delay: show it through
        bar.n = bar.last_print_n = 0
        bar.last_print_t = bar.start_t = now

    def close(self) -> None:
        """Close the bar; a phase that ran past the delay ends with its final count printed
        (also when stderr is a log that has had no update since, at LOG_INTERVAL)."""
        bar = self._bar
        if bar is not None:
            if bar._time() - bar.start_t >= bar.delay:
                bar.last_print_t = max(bar.last_print_t, bar.start_t + bar.delay)
            bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def warm() -> None:
    """Import tqdm now (about 50 ms of CPU), e.g. when a judge is built, not in its first phase."""
    import importlib

    importlib.import_module("tqdm.auto")   # for its side effect: the import is the warm-up


def _has_widgets() -> bool:
    import importlib.util

    return importlib.util.find_spec("ipywidgets") is not None


def iterate(items: Any, desc: str, *, enabled: bool | None = None) -> Any:
    """Yield ``items`` while a :class:`Progress` counts them."""
    bar = Progress(len(items), desc, enabled=enabled)
    try:
        for item in items:
            yield item
            bar.update()
    finally:
        bar.close()
