"""pyflakes finds nothing in the package, the tools and the benchmarks: no unused import, no
undefined or shadowed name, no f-string without a placeholder. An import kept for its side
effect says so (``importlib.import_module``), a re-export is listed in ``__all__``. pyflakes
is part of the ``dev`` extra (pinned in constraints.txt), so a missing one fails, not skips.
``tests/`` is not checked: pytest fixtures imported from another test module look unused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_pyflakes_reports_nothing() -> None:
    done = subprocess.run([sys.executable, "-m", "pyflakes", "agenteval", "tools", "benchmarks"],
                          cwd=REPO, capture_output=True, text=True)
    assert done.stdout + done.stderr == "" and done.returncode == 0, done.stdout + done.stderr
