"""The posterior figures that ``save`` writes into ``figures/``: which ones a run gets, drawn in a
forked child beside the other writers where the machine has a core to spare.

Why a child: matplotlib's import and the drawing of four figures take longer than every other
output file together (and longer than the whole run without ``--out`` on the demo), and they
need nothing the other files do. The child inherits the results (nothing is copied), draws the
same bytes as this process would, and reports the files it wrote, or its exception, which the
parent raises where it waits (``_util.forked``). On one core, or without ``fork``, they are
drawn here, in turn.

``agenteval run --out`` starts the child before judging (``warm_worker``): it imports
matplotlib while the parent judges and fits, and ``save`` then hands it the results, pickled
(a few MB on the demo, milliseconds), instead of forking a child that would import matplotlib
only then.
"""

from __future__ import annotations

import importlib
import os
import pickle
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["WARM_LIMIT", "FigureJob", "draw_figures", "figure_plan", "warm_worker"]

WARM_LIMIT = 2_000
"""Most conversations whose results are handed to a warm worker; beyond, pickling them costs
more than the import it saves, and a child forked at ``save`` inherits them instead."""


def figure_plan(results: Any) -> dict[str, str]:
    """``{file stem: plots function}`` of the figures a run gets; none when nothing was judged
    (a figure would draw the prior as if it were a result)."""
    rows = results.summary().rows
    if not any(r.complete for r in rows):
        return {}
    plan = {"pass_posterior": "plot_pass_posterior", "forest": "plot_forest"}
    if any(r.tasks for r in rows) and "p_task" in results.posterior_draws().posterior:
        # (p_task is left out of huge suites)
        plan["shrinkage"] = "plot_shrinkage"
    mode = results.settings.mode
    if getattr(mode, "method", "conjugate") != "conjugate" or (
            (mode.beta_prior_a, mode.beta_prior_b) != (1.0, 1.0)):
        # prior against posterior says something where a prior was chosen or fitted; against
        # the flat Beta(1, 1) it repeats the posterior figures (and costs as much as they do)
        plan["prior_posterior"] = "plot_prior_posterior"
    return plan


def draw_figures(results: Any, root: Path, formats: Sequence[str]) -> list[str]:
    """Draw the run's figures as ``root/figures/<stem>.<format>``; return those names (relative
    to ``root``). The shrinkage figure is named ``prior_pull`` when nothing was pooled."""
    from agenteval import plots

    written = []
    for stem, name in figure_plan(results).items():
        fig = getattr(plots, name)(results)
        import matplotlib.pyplot as plt  # (after the first figure: plots chose the backend)

        if stem == "shrinkage" and not fig.agenteval_values["pooled"]:
            stem = "prior_pull"  # nothing pooled: the move is the prior's pull, named so
        plots.export(fig, root / "figures" / stem, formats=formats, dpi=150,
                     png_compress_level=1)
        plt.close(fig)
        written += [f"figures/{stem}.{ext}" for ext in formats]
    return written


class FigureJob:
    """The figures of ``results``, started at once (in a forked child where a core is spare);
    ``wait()`` returns the names written. Use as a context manager: leaving the block without
    ``wait()`` stops the child."""

    def __init__(self, results: Any, root: Path, formats: Sequence[str]) -> None:
        from agenteval._util.forked import Forked, spare_core

        formats = tuple(formats)
        warm = _WARM.pop() if _WARM else None
        self._here = (results, root, formats)
        self._child = None
        if formats and spare_core():
            results.posterior_draws()  # computed once, here: the child and the NetCDF writer
            sent = warm is not None and len(results) <= WARM_LIMIT and warm.send(self._here)
            self._child = warm.child if sent else Forked(lambda: draw_figures(*self._here))
        if warm is not None and self._child is not getattr(warm, "child", None):
            warm.cancel()

    def wait(self) -> list[str]:
        if self._child is None:
            return draw_figures(*self._here) if self._here[2] else []
        from agenteval._util.forked import ChildCrashed
        from agenteval.errors import OutputError

        try:
            return self._child.wait()
        except ChildCrashed as crash:
            raise OutputError(f"cannot write {self._here[1] / 'figures'}: the figure writer "
                              f"crashed (signal {crash.signal})") from None

    def __enter__(self) -> FigureJob:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._child is not None:
            self._child.cancel()


_SHARED_MODULES = ("numpy.random", "scipy.special", "agenteval.core.retriever",
                   "agenteval.metrics.agentic", "agenteval.results.agentic",
                   "agenteval.results.columns", "agenteval.statistical.summarise",
                   "agenteval.statistical.compare", "agenteval.statistical.hierarchical")
"""What every run imports and its results unpickle into (a hint: the child imports what is
missing)."""

_WARM: list[_WarmWorker] = []
"""The process's warm worker while a ``warm_worker`` block runs: the next FigureJob takes it."""


@contextmanager
def warm_worker(enabled: bool = True) -> Iterator[None]:
    """Within the block, the first ``save`` hands its figures to a child forked now (while the
    process is small), which imports matplotlib meanwhile. A child nothing took is stopped at
    the end of the block."""
    from agenteval._util.forked import spare_core

    enabled = enabled and spare_core()
    if enabled:   # imported before the fork, once for both processes (the run needs them too)
        for name in _SHARED_MODULES:
            importlib.import_module(name)
    worker = _WarmWorker() if enabled else None
    if worker is not None:
        _WARM.append(worker)
    try:
        yield
    finally:
        if worker is not None:
            if worker in _WARM:
                _WARM.remove(worker)
            worker.cancel()   # nothing to do once a FigureJob waited for it


class _WarmWorker:
    """A forked child with matplotlib imported, waiting for one pickled ``(results, root,
    formats)`` on its inbox (a length, then the bytes), then drawing them."""

    def __init__(self) -> None:
        from agenteval._util.forked import Forked

        inbox, self._send = os.pipe()
        self.child = Forked(lambda: _draw_sent(inbox, self._send))
        os.close(inbox)

    def send(self, job: tuple[Any, Path, tuple[str, ...]]) -> bool:
        """Hand the job over; False when it does not pickle (the caller forks afresh)."""
        try:
            data = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - a results object holding something unpicklable
            return False
        view = memoryview(len(data).to_bytes(8, "little") + data)
        try:
            while view:
                view = view[os.write(self._send, view):]
        except OSError:   # the child is gone: the caller forks afresh
            return False
        finally:
            self._close()
        return True

    def cancel(self) -> None:
        self._close()
        self.child.cancel()

    def _close(self) -> None:
        if self._send is not None:
            os.close(self._send)
            self._send = None


def _draw_sent(inbox: int, send: int) -> list[str]:  # pragma: no cover - runs in the child
    os.close(send)   # the parent's end: without it the child would hold its own inbox open
    import gc

    from agenteval._util.gc import collector_paused

    with collector_paused():   # matplotlib's modules, fonts and parser: no garbage among them
        from agenteval import plots

        _warm_up(plots)
    gc.freeze()   # ... and kept to the end: the figures' collections walk only their own objects
    size = int.from_bytes(_read(inbox, 8) or bytes(8), "little")
    data = _read(inbox, size) if size else b""
    if not data:   # the parent went away without a job
        return []
    return draw_figures(*pickle.loads(data))


def _warm_up(plots: Any) -> None:  # pragma: no cover - runs in the child
    """What the first figure of a process pays once, paid while the parent judges: pyplot (with
    the backend the figures use), the fonts, the mathtext parser, the Agg renderer."""
    with plots.paper_style():
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(1, 1))
        fig.text(0.5, 0.5, r"$\mathrm{pass}^{3}$ $p_t$", parse_math=True)
        fig.text(0.5, 0.2, "text", fontsize=7, fontweight="bold")
        fig.canvas.draw()
        plt.close(fig)


def _read(fd: int, size: int) -> bytes:  # pragma: no cover - runs in the child
    chunks, left = [], size
    while left and (chunk := os.read(fd, min(left, 1 << 20))):
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks) if not left else b""
