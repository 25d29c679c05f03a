"""Every notebook in notebooks/ runs top to bottom in the project's Jupyter kernel without an error,
and is committed without outputs (reviewable diffs: only the cells' sources change)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
KERNEL = "agenteval"
WIDGET = "application/vnd.jupyter.widget-view+json"


def _execute(nb: object, cwd: Path) -> None:
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    from nbclient import NotebookClient

    try:
        KernelSpecManager().get_kernel_spec(KERNEL)
    except NoSuchKernel:  # pragma: no cover - make setup registers it
        pytest.fail(f"no '{KERNEL}' kernel: `make setup` registers it inside .venv")
    # timeout: a hang guard per cell, not a speed assertion
    NotebookClient(nb, timeout=300, kernel_name=KERNEL,
                   resources={"metadata": {"path": str(cwd)}}).execute()


def _outputs(nb: object) -> list:
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path: Path) -> None:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    _execute(nb, path.parent)
    outputs = _outputs(nb)
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    # rich display: results and summaries render as HTML tables, figures as PNG
    assert any("<table" in o.get("data", {}).get("text/html", "") for o in outputs)


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


def test_there_is_a_notebook() -> None:
    assert len(NOTEBOOKS) >= 4
