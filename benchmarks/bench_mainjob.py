"""The README's main job as ratios: ``--out`` against no ``--out``, a run against loading alone.

Three figures, each a ratio of two runs measured in the same driver, interleaved (ABAB...), so
a load spike on this shared machine hits both sides; every figure is a median over the repeats:

- **--out / no --out**: ``agenteval run data/agentic_demo.jsonl --k 3 --mode bayesian`` with
  ``--out DIR`` (summary, CSV/JSON, figures, NetCDF, report) against the same command without
  it, each a fresh interpreter (imports included: what a user waits for). Wall time, and the
  child's CPU time (user + system, from ``getrusage(RUSAGE_CHILDREN)``).
- **run + summary() / loading**: in one fresh interpreter, after a warm-up on the demo,
  ``Agentic.run(path, k=3, statistical_mode=BayesianMode())`` and ``summary()`` against
  ``load_datasets(path)`` alone, CPU time, on ``synth.py`` suites (distinct texts).
- **to_inference_data, second / first call** at 10,000 conversations (arviz imported before
  the first call is timed): a result that holds its draws costs nothing the second time.

``--baseline REV`` runs every figure for agenteval as of git revision REV too (before/after in
one run).

Last run (``--sizes 10000 --repeats 5 --idata-size 0 --baseline 43ef072``, a quiet 2-core
machine, load average 0.5 before, 0.8 after): --out / without on the demo 1.56x wall, 1.93x CPU
(1.66 s against 1.10 s; 43ef072 1.54x, 1.90x: the CPU ratio of one checkout moves between 1.9x
and 2.2x from run to run here); run + summary() / loading 4.9x at 10,000 conversations (5.15 s
against 1.05 s; 43ef072 4.52x). This machine's speed swings by 10-25% within minutes: eight
interleaved runs of each checkout gave 4.6x-5.2x and 4.7x-5.6x (medians 4.97x and 4.84x), while
callgrind counts 8.6% fewer instructions in the run (35.7 G to 32.9 G at 10,000 conversations).
Run: ``.venv/bin/python benchmarks/bench_mainjob.py [--baseline aa6c134]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from _common import (CACHE, HERE, ROOT, baseline_tree, loadavg, median, print_result,
                     run_json)

K = 3
CLI = "import sys; from agenteval.cli import main; sys.exit(main())"

OFFLINE = """
import json, sys, time
from agenteval import Agentic, BayesianMode
from agenteval.core.retriever import load_datasets
Agentic.run(sys.argv[2], k=3, statistical_mode=BayesianMode()).summary()   # warm-up: imports
load_datasets(sys.argv[2])
c0 = time.process_time()
loaded = load_datasets(sys.argv[1])
load = time.process_time() - c0
del loaded
c0 = time.process_time()
results = Agentic.run(sys.argv[1], k=3, statistical_mode=BayesianMode())
results.summary()
run = time.process_time() - c0
print(json.dumps({"load_cpu_seconds": load, "run_cpu_seconds": run}))
"""

IDATA = """
import json, sys, time
import arviz  # noqa: F401  (imported before timing: the figure is the computation)
from agenteval import Agentic, BayesianMode
results = Agentic.run(sys.argv[1], k=3, statistical_mode=BayesianMode())
results.summary()
t0 = time.perf_counter(); results.to_inference_data(); first = time.perf_counter() - t0
t0 = time.perf_counter(); results.to_inference_data(); second = time.perf_counter() - t0
print(json.dumps({"first_seconds": first, "second_seconds": second}))
"""


def _suite(size: int) -> str:
    sys.path.insert(0, str(HERE))
    import synth

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"synth_{size}.jsonl"
    if not path.exists():
        synth.write(path, size)
    return str(path)


def _cli(env: dict[str, str], out: str | None) -> dict:
    """One fresh ``agenteval run`` on the demo: wall and CPU seconds of the child."""
    cmd = [sys.executable, "-c", CLI, "run", str(ROOT / "data" / "agentic_demo.jsonl"),
           "--k", str(K), "--mode", "bayesian", *(["--out", out] if out else [])]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=CACHE,
                          env={**os.environ, **env})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"seconds": wall, "cpu_seconds": cpu}


def _ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000],
                        help="suites for run + summary() / loading")
    parser.add_argument("--idata-size", type=int, default=10_000,
                        help="conversations for the to_inference_data figure (0: skip)")
    parser.add_argument("--baseline", help="git revision of agenteval to compare with")
    args = parser.parse_args()
    trees = {"agenteval": {"PYTHONPATH": str(ROOT)}}
    if args.baseline:
        trees[f"agenteval@{args.baseline}"] = {"PYTHONPATH": str(baseline_tree(args.baseline))}
    for env in trees.values():
        env["PYTHONPATH"] += os.pathsep + str(HERE)
        env["MPLBACKEND"] = "Agg"
    load_before = loadavg()
    CACHE.mkdir(parents=True, exist_ok=True)
    out: dict[str, dict] = {name: {} for name in trees}

    # --out / no --out: fresh interpreters, alternated
    runs = {name: {"out": [], "plain": []} for name in trees}
    for rep in range(args.repeats):
        for name in (list(trees) if rep % 2 == 0 else list(trees)[::-1]):
            for kind in (("out", "plain") if rep % 2 == 0 else ("plain", "out")):
                target = tempfile.mkdtemp(dir=CACHE, prefix="mainjob-") if kind == "out" else None
                try:
                    runs[name][kind].append(_cli(trees[name], target))
                finally:
                    if target:
                        shutil.rmtree(target, ignore_errors=True)
    for name, r in runs.items():
        row = {f"{kind}_{key}": round(median([x[key] for x in r[kind]]), 3)
               for kind in ("out", "plain") for key in ("seconds", "cpu_seconds")}
        # the ratio of each repeat's pair, then the median (pairs ran back to back)
        row["out_ratio_wall"] = round(median([o["seconds"] / p["seconds"]
                                              for o, p in zip(r["out"], r["plain"])]), 2)
        row["out_ratio_cpu"] = round(median([o["cpu_seconds"] / p["cpu_seconds"]
                                             for o, p in zip(r["out"], r["plain"])]), 2)
        out[name]["cli"] = row
        print(f"{name}: agenteval run demo --out {row['out_seconds']:.2f} s "
              f"(cpu {row['out_cpu_seconds']:.2f} s), without {row['plain_seconds']:.2f} s "
              f"(cpu {row['plain_cpu_seconds']:.2f} s): ratio wall {row['out_ratio_wall']}x, "
              f"cpu {row['out_ratio_cpu']}x", flush=True)

    # run + summary() / loading
    demo = str(ROOT / "data" / "agentic_demo.jsonl")
    for size in [s for s in args.sizes if s > 0]:   # --sizes 0: skip this figure
        path = _suite(size)
        res = {name: [] for name in trees}
        for rep in range(max(1, args.repeats // 2)):
            for name in (list(trees) if rep % 2 == 0 else list(trees)[::-1]):
                res[name].append(run_json([sys.executable, "-c", OFFLINE, path, demo],
                                          env=trees[name], cwd=CACHE))
        for name, rows in res.items():
            row = {"conversations": size,
                   "load_cpu_seconds": round(median([x["load_cpu_seconds"] for x in rows]), 3),
                   "run_cpu_seconds": round(median([x["run_cpu_seconds"] for x in rows]), 3),
                   "ratio": round(median([x["run_cpu_seconds"] / x["load_cpu_seconds"]
                                          for x in rows]), 2)}
            out[name].setdefault("offline", []).append(row)
            print(f"{name}: {size:,} conversations: Agentic.run + summary() "
                  f"{row['run_cpu_seconds']:.2f} s cpu, loading {row['load_cpu_seconds']:.2f} s: "
                  f"{row['ratio']}x", flush=True)

    # to_inference_data, first and second call
    if args.idata_size:
        path = _suite(args.idata_size)
        for name in trees:
            r = run_json([sys.executable, "-c", IDATA, path], env=trees[name], cwd=CACHE)
            row = {"conversations": args.idata_size,
                   "first_seconds": round(r["first_seconds"], 3),
                   "second_seconds": round(r["second_seconds"], 4),
                   "second_over_first": round(r["second_seconds"] / r["first_seconds"], 4)}
            out[name]["idata"] = row
            print(f"{name}: to_inference_data at {args.idata_size:,} conversations: first "
                  f"{row['first_seconds']:.2f} s, second {row['second_seconds']:.3f} s", flush=True)

    print_result({"benchmark": "mainjob", "k": K, "repeats": args.repeats,
                  "baseline": args.baseline, "results": out,
                  "loadavg_before": load_before, "loadavg_after": loadavg()})


if __name__ == "__main__":
    main()
