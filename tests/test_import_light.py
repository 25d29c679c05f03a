"""`import agenteval` must stay fast and must not pull in heavy or optional libraries."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = ["pymc", "arviz", "matplotlib", "openai", "instructor", "pandas", "scipy", "IPython",
         "pytensor", "aiohttp", "inspect_ai"]


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True,
    ).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_import_agenteval_pulls_in_nothing_heavy() -> None:
    loaded = _modules_after("import agenteval")
    assert not [m for m in HEAVY if m in loaded]


def test_estimators_do_not_import_io_judge_or_plotting() -> None:
    loaded = _modules_after("import agenteval.statistical.estimators, agenteval.statistical.modes")
    banned = ["pandas", "openai", "instructor", "matplotlib", "IPython", "agenteval.judge",
              "agenteval.core", "agenteval.metrics"]
    assert not [m for m in banned if m in loaded]


def test_offline_evaluation_does_not_import_llm_stack() -> None:
    loaded = _modules_after(
        "from agenteval import Agentic\n"
        "Agentic.run([{'session_id': 's', 'assistant_id': 'a', 'conversation': [{'qa_id': 'q', "
        "'query': 'q?', 'assistant': '8', 'ground_truth_assistant': '8'}]}], k=1)"
    )
    assert not [m for m in ["openai", "instructor", "aiohttp", "pymc", "matplotlib"] if m in loaded]


def test_loading_agenteval_files_does_not_import_inspect() -> None:
    demo = Path(__file__).resolve().parents[1] / "data" / "agentic_demo.jsonl"
    loaded = _modules_after(f"from agenteval.core import load_datasets\nload_datasets({str(demo)!r})")
    assert "inspect_ai" not in loaded


def test_statistical_modules_import_no_sampler_or_plotting() -> None:
    loaded = _modules_after("import agenteval.statistical.hierarchical, agenteval.statistical.suite\n"
                            "import agenteval.plots.bayes, agenteval._util.arviz\n"
                            "from agenteval import BayesianMode\n"
                            "BayesianMode(method='hierarchical')")
    assert not [m for m in ["pymc", "pytensor", "arviz", "matplotlib", "pandas"] if m in loaded]


def test_the_main_job_without_out_imports_no_scipy_stats_or_plotting() -> None:
    """`agenteval run demo --mode bayesian` (no --out) needs none of scipy.stats (about 0.4 s of
    imports, which a module-level import in statistical.judge_error once added to every run),
    arviz, matplotlib or a sampler."""
    demo = Path(__file__).resolve().parents[1] / "data" / "agentic_demo.jsonl"
    loaded = _modules_after(
        "import contextlib, io, sys\nfrom agenteval.cli import main\n"
        f"sys.argv = ['agenteval', 'run', {str(demo)!r}, '--k', '3', '--mode', 'bayesian']\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main()")
    assert not [m for m in ["scipy.stats", "arviz", "matplotlib", "xarray", "pymc", "pytensor"]
                if m in loaded]
