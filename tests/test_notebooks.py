"""Every notebook in notebooks/ runs top to bottom in the project's Jupyter kernel without an error,
and is committed without outputs (reviewable diffs: only the cells' sources change)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
KERNEL = "agenteval"
WIDGET = "application/vnd.jupyter.widget-view+json"


# A cell that gets no reply within this many seconds is a stalled kernel (ipykernel 7's lost
# wake-up, ipykernel issue 1554), not a slow cell: the slowest cell (notebook 05's PyMC fit, cold
# compile included) takes well under a minute on this machine. One retry on a fresh kernel, then
# a failure that names the notebook and the cell.
CELL_TIMEOUT = 120

# The client can miss a reply too: nbclient waits for the shell reply (and the IOPub output) in one
# `await socket.poll(timeout)` each, and a wake-up missed there leaves it idle until that timeout
# ends, when the poll finds the reply waiting and the cell "succeeds" CELL_TIMEOUT seconds late
# (measured with ipykernel 6.31, pyzmq 27.3, jupyter_client 8.10: notebook 03's widget cell took
# exactly the timeout in 5 of 21 runs, with no error; 0 of 10 with the slices). Polling in short
# slices bounds a missed wake-up to one slice; the timeout still applies to the whole wait.
POLL_SLICE = 0.5


def _sliced(channel: object, step: float = POLL_SLICE) -> None:
    """Make ``channel.get_msg(timeout)`` poll in slices of ``step`` seconds (same result, same
    ``Empty`` at the deadline)."""
    from queue import Empty
    from time import monotonic

    original = channel.get_msg

    async def get_msg(timeout: float | None = None) -> dict:
        deadline = None if timeout is None else monotonic() + timeout
        while True:
            left = None if deadline is None else deadline - monotonic()
            try:
                return await original(timeout=step if left is None else max(0.0, min(step, left)))
            except Empty:
                if left is not None and left <= step:
                    raise

    channel.get_msg = get_msg


def _client(nb: object, **options: object) -> object:
    from nbclient import NotebookClient

    class SlicedClient(NotebookClient):
        async def async_start_new_kernel_client(self) -> object:
            kc = await super().async_start_new_kernel_client()
            _sliced(kc.shell_channel)
            _sliced(kc.iopub_channel)
            return kc

    return SlicedClient(nb, **options)


def _execute(nb: object, cwd: Path, *, retries: int = 1) -> None:
    import copy

    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    from nbclient.exceptions import CellTimeoutError

    try:
        KernelSpecManager().get_kernel_spec(KERNEL)
    except NoSuchKernel:  # pragma: no cover - make setup registers it
        pytest.fail(f"no '{KERNEL}' kernel: `make setup` registers it inside .venv")
    original = copy.deepcopy(nb)
    for attempt in range(retries + 1):
        running: list[int] = []
        client = _client(nb, timeout=CELL_TIMEOUT, kernel_name=KERNEL,
                         resources={"metadata": {"path": str(cwd)}},
                         on_cell_execute=lambda cell, cell_index: running.append(cell_index))
        try:
            client.execute()
            return
        except CellTimeoutError:
            index = running[-1] if running else None
            where = (f"cell {index}: {nb.cells[index].source.splitlines()[0][:60]!r}"
                     if index is not None else "kernel start")
            if attempt == retries:
                pytest.fail(f"kernel stalled (no reply in {CELL_TIMEOUT} s) at {where}, "
                            f"{retries + 1} tries on fresh kernels", pytrace=False)
            nb.cells = copy.deepcopy(original.cells)  # a fresh kernel and clean outputs


def test_a_sliced_poll_returns_what_the_channel_has_and_times_out_at_the_deadline() -> None:
    """The slicing changes when the socket is polled, never what get_msg returns."""
    import asyncio
    import time
    from queue import Empty

    class Channel:
        def __init__(self, ready_at: float) -> None:
            self.ready_at, self.polls = ready_at, []

        async def get_msg(self, timeout: float | None = None) -> dict:
            self.polls.append(timeout)
            now = time.monotonic()
            if now >= self.ready_at:
                return {"msg": "reply"}
            await asyncio.sleep(min(timeout, self.ready_at - now) if timeout is not None else 0)
            if time.monotonic() >= self.ready_at:
                return {"msg": "reply"}
            raise Empty

    late = Channel(time.monotonic() + 0.35)
    _sliced(late, step=0.1)
    assert asyncio.run(late.get_msg(timeout=5)) == {"msg": "reply"}
    assert len(late.polls) >= 3 and max(late.polls) <= 0.1  # polled in slices, not one 5 s wait
    never = Channel(time.monotonic() + 60)
    _sliced(never, step=0.1)
    start = time.monotonic()
    with pytest.raises(Empty):
        asyncio.run(never.get_msg(timeout=0.3))
    assert 0.25 < time.monotonic() - start < 2


def _outputs(nb: object) -> list:
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]


# Figures a notebook draws itself (PNG outputs, besides those inside the results' HTML): where a
# picture explains better than a table (02: the plug-in's bias curves and Jensen's gap; 03: the
# priors; 04: coverage; 06: Precision@k against rank and the recall posterior).
FIGURES = {"02_metric_derivation.ipynb": 2, "03_prior_sensitivity.ipynb": 2,
           "04_frequentist_vs_bayesian.ipynb": 1, "06_rag_metrics.ipynb": 2}

# Notebooks whose formulas are all LaTeX: no math written in ASCII or Unicode outside $...$.
LATEX = ("01_quickstart.ipynb", "02_metric_derivation.ipynb", "03_prior_sensitivity.ipynb",
         "04_frequentist_vs_bayesian.ipynb", "05_hierarchical_and_agents.ipynb",
         "06_rag_metrics.ipynb", "07_judge_calibration.ipynb")
_PLAIN_MATH = re.compile(r"Beta\(|\bB\(|E\[|\bC\(n|[≥≤≠Σ·√∫̂αβμκ]|\b[a-z]_[a-z]\b|\b[a-z]\^[a-z0-9(]")


def _prose(source: str) -> str:
    """A markdown cell without its formulas and code (what must hold no formula)."""
    for pattern in (r"\$\$.*?\$\$", r"\$[^$]*\$", r"```.*?```", r"`[^`]*`"):
        source = re.sub(pattern, "", source, flags=re.S)
    return re.sub(r"pass\^[0-9k]\b", "", source)  # the metric's name, as tau-bench writes it


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path: Path) -> None:
    """Top to bottom without an error; the cells' own asserts hold the numbers the prose states."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    _execute(nb, path.parent)
    outputs = _outputs(nb)
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    # rich display: results and summaries render as HTML tables, figures as PNG
    assert any("<table" in o.get("data", {}).get("text/html", "") for o in outputs)
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(figures) >= FIGURES.get(path.name, 0), f"{len(figures)} figure(s)"


@pytest.mark.parametrize("name", LATEX)
def test_formulas_are_latex(name: str) -> None:
    import nbformat

    nb = nbformat.read(REPO / "notebooks" / name, as_version=4)
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert any("$" in m for m in markdown)
    plain = [(i, m.group()) for i, text in enumerate(markdown) for m in _PLAIN_MATH.finditer(_prose(text))]
    assert not plain, f"math outside $...$ in markdown cells: {plain}"


def test_the_formula_check_sees_plain_math() -> None:
    assert _PLAIN_MATH.search(_prose("the posterior Beta(1 + c, 1 + n - c) and E[p^k]"))
    assert _PLAIN_MATH.search(_prose("mean_t p_t^k ≥ (mean p)^k"))
    assert not _PLAIN_MATH.search(_prose("pass^k of $\\text{Beta}(a, b)$, `Beta(1, 1)` in code"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_committed_without_outputs(path: Path) -> None:
    """Clear them before committing: `make notebooks-clean`."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    assert all(c.outputs == [] and c.execution_count is None for c in code)
    assert all(not c.metadata for c in nb.cells)  # no execution timings, no collapsed flags
    assert set(nb.metadata) <= {"kernelspec", "language_info"}  # no saved widget state
    assert nb.metadata.kernelspec.name == KERNEL


def test_quickstart_uses_the_magic_and_shows_a_figure_and_the_explorer() -> None:
    import nbformat

    path = REPO / "notebooks" / "01_quickstart.ipynb"
    nb = nbformat.read(path, as_version=4)
    assert any(c.source.startswith("%agentic_eval") for c in nb.cells)
    _execute(nb, path.parent)
    html = [o["data"]["text/html"] for o in _outputs(nb) if "text/html" in o.get("data", {})]
    assert any("data:image/png;base64," in h and "Per-conversation results (73)" in h for h in html)
    assert any(WIDGET in o.get("data", {}) for o in _outputs(nb))


def test_progress_is_a_widget_in_a_notebook() -> None:
    """tqdm.auto picks the ipywidgets bar in a kernel (text elsewhere)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(cells=[new_code_cell(
        "from agenteval import Agentic\n"
        "# progress=True: at once (by default a bar appears once a phase takes more than a moment)\n"
        "r = Agentic.run('../data/agentic_demo.jsonl', k=1, progress=True)")])
    _execute(nb, REPO / "notebooks")
    bars = [o for o in _outputs(nb) if WIDGET in o.get("data", {})]
    assert bars and "/s" in bars[0]["data"]["text/plain"]
    assert not [o for o in _outputs(nb) if o.output_type == "stream" and o.name == "stderr"]
    assert nbformat.validate(nb) is None


def test_figures_show_inline_after_the_results_display() -> None:
    """The results' own figure (drawn inside paper_style) must not switch inline figures off."""
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(cells=[
        new_code_cell("%load_ext agenteval\n%agentic_eval ../data/agentic_demo.jsonl --k 3 --mode bayesian"),
        new_code_cell("from agenteval.plots import plot_priors\nfig = plot_priors(10, 8, {'uniform': (1, 1)})"),
    ])
    _execute(nb, REPO / "notebooks")
    assert any("image/png" in o.get("data", {}) for o in nb.cells[1].outputs)


def test_a_cell_with_no_reply_fails_fast_naming_the_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stall guard: no reply within CELL_TIMEOUT, one retry on a fresh kernel, then a failure
    that names the cell (a sleeping cell looks to the client exactly like a stalled kernel)."""
    from nbformat.v4 import new_code_cell, new_notebook

    monkeypatch.setattr(sys.modules[__name__], "CELL_TIMEOUT", 3)
    nb = new_notebook(cells=[new_code_cell("x = 1"), new_code_cell("import time\ntime.sleep(10)")])
    with pytest.raises(pytest.fail.Exception, match=r"kernel stalled .* cell 1: 'import time', 2 tries"):
        _execute(nb, REPO / "notebooks")


def test_the_kernel_is_ipykernel_6() -> None:
    """ipykernel 7.x can leave the kernel idle without replying (issue 1554): the pin holds."""
    import ipykernel

    assert int(ipykernel.__version__.split(".")[0]) < 7


def test_there_is_a_notebook() -> None:
    assert len(NOTEBOOKS) >= 4
