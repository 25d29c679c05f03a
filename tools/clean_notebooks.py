"""Strip outputs, execution counts and per-run metadata, so a notebook's diff shows only its cells.

    python tools/clean_notebooks.py notebooks/*.ipynb      (or: make notebooks-clean)

tests/test_notebooks.py fails on a notebook committed with outputs.
"""

from __future__ import annotations

import sys

import nbformat

KEEP = ("kernelspec", "language_info")


def clean(path: str) -> bool:
    """Clean one notebook in place; True when it changed."""
    nb = nbformat.read(path, as_version=4)
    with open(path, encoding="utf-8") as fh:
        before = fh.read()
    nb.metadata = {key: nb.metadata[key] for key in KEEP if key in nb.metadata}
    if "language_info" in nb.metadata:
        nb.metadata["language_info"] = {"name": nb.metadata["language_info"].get("name", "python")}
    for cell in nb.cells:
        cell.metadata = {}
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    after = nbformat.writes(nb) + "\n"
    if after != before:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(after)
    return after != before


if __name__ == "__main__":
    changed = [p for p in sys.argv[1:] if clean(p)]
    print(f"cleaned {len(changed)} of {len(sys.argv) - 1} notebook(s)")
