"""A big suite offline: time and peak memory of ``agenteval run`` at 10k / 100k / 1M conversations.

Each size is a ``synth.py`` suite (five interactions per conversation, distinct texts, three
agents, tasks repeating four times), run as the README's main job with the offline judge,
``--k 3 --mode bayesian``, without and with ``--out`` (CSV, results.json, report, NetCDF,
figures), each in a fresh interpreter (imports included). A child reports its CPU time and its
peak resident memory (VmHWM); the driver adds the wall time. The figures per conversation
(MB / 1,000 conversations = KB per conversation) show whether memory and time grow linearly.

``--baseline REV`` runs the smallest size for agenteval as of git revision REV too (before /
after in one run). Run: ``.venv/bin/python benchmarks/bench_bigsuite.py --sizes 10000 100000
[--baseline e05b22d]``; 1,000,000 takes a long while and about 3.4 GB of JSONL in .cache.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

from _common import CACHE, HERE, ROOT, baseline_tree, loadavg, print_result, run_json

CHILD = """
import json, os, sys, time
sys.argv = ["agenteval", *sys.argv[1:]]
from _peak import peak_mib
from agenteval.cli import main
quiet = open(os.devnull, "w")
real, sys.stdout = sys.stdout, quiet   # the per-conversation table of a big suite
c0 = time.process_time()
code = main(sys.argv[1:])
cpu = time.process_time() - c0
sys.stdout = real
print(json.dumps({"code": code, "cpu_seconds": cpu, "peak_mib": peak_mib()}))
"""


def _suite(size: int) -> str:
    sys.path.insert(0, str(HERE))
    import synth

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"synth_{size}.jsonl"
    if not path.exists():
        synth.write(path, size)
    return str(path)


def _run(env: dict[str, str], path: str, out: str | None) -> dict:
    cmd = [sys.executable, "-c", CHILD, "run", path, "--k", "3", "--mode", "bayesian",
           "--quiet", *(["--out", out] if out else [])]
    t0 = time.perf_counter()
    row = run_json(cmd, env=env, cwd=CACHE, timeout=6 * 3600)
    row["seconds"] = time.perf_counter() - t0
    if row["code"] not in (0, 1):
        raise RuntimeError(f"agenteval run exited {row['code']}")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--baseline", help="git revision of agenteval to compare with (at the "
                        "smallest size)")
    parser.add_argument("--no-out", action="store_true", help="only the runs without --out")
    parser.add_argument("--out-only", action="store_true", help="only the runs with --out")
    args = parser.parse_args()
    trees = {"agenteval": {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}}
    if args.baseline:
        trees[f"agenteval@{args.baseline}"] = {
            "PYTHONPATH": str(baseline_tree(args.baseline)), "MPLBACKEND": "Agg"}
    load_before = loadavg()
    results: dict[str, list[dict]] = {name: [] for name in trees}
    for size in sorted(args.sizes):
        path = _suite(size)
        for name, env in trees.items():
            if name != "agenteval" and size != min(args.sizes):
                continue
            kinds = ("plain",) if args.no_out else ("out",) if args.out_only else ("plain", "out")
            for kind in kinds:
                target = tempfile.mkdtemp(dir=CACHE, prefix="bigsuite-") if kind == "out" else None
                try:
                    r = _run(env, path, target)
                finally:
                    if target:
                        shutil.rmtree(target, ignore_errors=True)
                row = {"conversations": size, "out": kind == "out",
                       "seconds": round(r["seconds"], 1), "cpu_seconds": round(r["cpu_seconds"], 1),
                       "peak_mib": round(r["peak_mib"], 1),
                       "kb_per_conversation": round(r["peak_mib"] * 1024 / size, 2),
                       "ms_per_conversation": round(r["seconds"] * 1000 / size, 3)}
                results[name].append(row)
                print(f"{name}: {size:,} conversations{' --out' if row['out'] else ''}: "
                      f"{row['seconds']:.1f} s (cpu {row['cpu_seconds']:.1f} s), peak "
                      f"{row['peak_mib']:,.0f} MiB ({row['kb_per_conversation']} KB per "
                      f"conversation)", flush=True)
    print_result({"benchmark": "bigsuite", "results": results, "cpus": os.cpu_count(),
                  "loadavg_before": load_before, "loadavg_after": loadavg()})


if __name__ == "__main__":
    main()
