"""Import time of ``import agenteval`` and the first use of each heavy feature, fresh processes.

Each figure is the median over ``--repeats`` fresh interpreters of the wall time of one step:
``import agenteval`` itself (against ``import json`` as the interpreter's floor), then, after
``import agenteval`` (not counted), the first use of a feature that loads a heavy library:

- exact Bayesian estimate (scipy.special), an offline ``Agentic.run`` of the demo (pydantic
  models, the offline judge, tool scoring), ``to_dataframe()`` of its results (pandas, the run
  itself not counted), an LLM judge built with its client libraries imported (openai,
  instructor), a first figure (matplotlib), the hierarchical model (pymc) when installed;
- the peer's ``import fair_forge.metrics.agentic`` (LangChain) in the benchmark venv.

Run: ``.venv/bin/python benchmarks/bench_import.py`` (last line JSON; target for
``import agenteval``: under 0.3 s).
"""

from __future__ import annotations

import argparse
import importlib.util

from _common import CACHE, ROOT, loadavg, median, peer_python, print_result, run_json

DEMO = str(ROOT / "data" / "agentic_demo.jsonl")

TIMER = """
import json, sys, time
{setup}
t0 = time.perf_counter()
{step}
print(json.dumps({{"seconds": time.perf_counter() - t0}}))
"""

STEPS: dict[str, tuple[str, str]] = {
    "import json (floor)": ("", "import json"),
    "import agenteval": ("", "import agenteval"),
    "exact Bayesian estimate": (
        "import agenteval, numpy as np",
        "from agenteval import BayesianMode; BayesianMode().estimate(np.array([5]), np.array([3]), 3)"),
    "offline Agentic.run (demo)": (
        "import agenteval", f"from agenteval import Agentic; Agentic.run({DEMO!r}, k=3)"),
    "results.to_dataframe()": (
        f"import agenteval; from agenteval import Agentic; r = Agentic.run({DEMO!r}, k=3)",
        "r.to_dataframe()"),
    "LLM judge built (openai, instructor)": (
        "import agenteval",
        "from agenteval.judge.llm import LLMJudge\n"
        "LLMJudge('m', base_url='http://127.0.0.1:9/v1', api_key='x', cache=False)\n"
        "import openai, instructor"),
    "first figure (matplotlib)": (
        "import agenteval", "from agenteval.plots import figure_axes; figure_axes()"),
}
if importlib.util.find_spec("pymc") is not None:
    STEPS["hierarchical model (pymc)"] = ("import agenteval", "import pymc")
NEEDS = {"first figure (matplotlib)": "matplotlib", "results.to_dataframe()": "pandas",
         "LLM judge built (openai, instructor)": "instructor"}
SKIPPED = [name for name, module in NEEDS.items() if importlib.util.find_spec(module) is None]
for name in SKIPPED:
    del STEPS[name]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import sys

    peer, why = peer_python()
    CACHE.mkdir(parents=True, exist_ok=True)
    load_before = loadavg()
    times: dict[str, list[float]] = {name: [] for name in STEPS}
    if peer is not None:
        times["peer: import fair_forge.metrics.agentic"] = []
    for _ in range(args.repeats):  # interleaved: each round runs every step once
        for name, (setup, step) in STEPS.items():
            times[name].append(run_json([sys.executable, "-c", TIMER.format(setup=setup, step=step)],
                                        cwd=CACHE)["seconds"])
        if peer is not None:
            code = TIMER.format(setup="", step="import fair_forge.metrics.agentic")
            times["peer: import fair_forge.metrics.agentic"].append(
                run_json([str(peer), "-c", code], cwd=CACHE)["seconds"])
    result = {name: round(median(v), 4) for name, v in times.items()}
    for name, s in result.items():
        print(f"{name:42s} {s:7.3f} s", flush=True)
    print_result({"benchmark": "import", "seconds": result, "repeats": args.repeats,
                  "import_agenteval_target_s": 0.3,
                  "import_agenteval_ok": result["import agenteval"] < 0.3,
                  "not_installed": SKIPPED,
                  "peer_skipped": why or None, "loadavg_before": load_before,
                  "loadavg_after": loadavg()})


if __name__ == "__main__":
    main()
