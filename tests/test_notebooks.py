"""Every notebook in notebooks/ runs top to bottom in a real Jupyter kernel without an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_executes(path: Path) -> None:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    # rich display: the results and the summary render as HTML tables in Jupyter
    assert any("text/html" in o.get("data", {}) and "<table" in o["data"]["text/html"] for o in outputs)


def test_there_is_a_notebook() -> None:
    assert NOTEBOOKS
