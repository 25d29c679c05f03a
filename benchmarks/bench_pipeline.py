"""The offline pipeline side by side, at 1k and 10k conversations of distinct texts.

Data: ``synth.py`` (seeded; 5 interactions per conversation, tool calls with logged results,
every text distinct, so no cache of parsed texts makes it a best case). Each contender runs in
a fresh child process, alternately, and reports wall time, process CPU time and peak RSS:

- agenteval: ``Agentic.run(path, k=3, statistical_mode=BayesianMode())`` and ``summary()`` with
  the offline judge (loading and validation, judging, tool scoring with evidence search, exact
  estimates, results); one warm-up run of the same calls on the demo file first, so imports
  are not timed;
- ``--baseline REV``: the same with agenteval as of git revision REV (before/after);
- the peer: ``Agentic.run`` of alquimia-fair-forge 3.0.0 with a zero-cost fake LangChain judge
  (it has no offline judge), so only its own pipeline is timed; no warm-up (its imports happen
  before timing starts).

Peak RSS is the whole process (interpreter, libraries, data, results): what a user's machine
needs. The scaling exponent is log(t_10k / t_1k) / log(10): 1 is linear.
Run: ``.venv/bin/python benchmarks/bench_pipeline.py [--baseline 7b02cd8]`` (last line JSON).
"""

from __future__ import annotations

import argparse
import math
import sys

from _common import (CACHE, HERE, PEER_SCRIPT, ROOT, baseline_tree, loadavg, median, peer_python,
                     print_result, run_json)

K = 3

CHILD = """
import json, sys, time
from _peak import peak_mib as _peak_mib  # benchmarks/ is on the child's PYTHONPATH
from agenteval import Agentic, BayesianMode
# warm-up, the same calls as timed (the Bayesian mode and summary() import what they use):
# imports and first-use costs are not timed
Agentic.run(sys.argv[2], k=3, statistical_mode=BayesianMode()).summary()
parts = {}
if sys.argv[4:] == ["parts"]:  # loading alone, timed as Agentic.run loads (collector paused)
    from agenteval._util.gc import collector_paused
    from agenteval.core.retriever import load_datasets
    c = time.process_time()
    with collector_paused():
        loaded = load_datasets(sys.argv[1])
    parts["load_cpu_seconds"] = time.process_time() - c
    del loaded
t0, c0 = time.perf_counter(), time.process_time()
results = Agentic.run(sys.argv[1], k=int(sys.argv[3]), statistical_mode=BayesianMode())
c1 = time.process_time()
results.summary()
parts["summary_cpu_seconds"] = time.process_time() - c1
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
                  "conversations": len(results),
                  "peak_rss_mib": _peak_mib(), **parts}))
"""


def suite(size: int) -> tuple[str, int]:
    sys.path.insert(0, str(HERE))
    import synth

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"synth_{size}.jsonl"
    interactions = size * 5
    if not path.exists():
        interactions = synth.write(path, size)
    return str(path), interactions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", help="git revision of agenteval to compare with (before/after)")
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--parts", action="store_true",
                        help="also time loading alone (one extra load per run, before the timed "
                        "run: peak memory may then include its leftovers) and report summary() "
                        "and loading CPU time per agenteval run")
    parser.add_argument("--peer-repeats-large", type=int, default=1,
                        help="the peer's repeats at 10,000 conversations and more (minutes each)")
    args = parser.parse_args()
    peer, why = (None, "--no-peer") if args.no_peer else peer_python()
    demo = str(ROOT / "data" / "agentic_demo.jsonl")
    contenders: dict[str, list[str] | tuple[list[str], dict]] = {
        "agenteval": ([sys.executable, "-c", CHILD], {})}
    if args.baseline:
        tree = baseline_tree(args.baseline)
        contenders[f"agenteval@{args.baseline}"] = ([sys.executable, "-c", CHILD],
                                                     {"PYTHONPATH": str(tree)})
    if peer is not None:
        contenders["peer"] = ([str(peer), str(PEER_SCRIPT), "offline"], {})
    load_before = loadavg()
    rows = []
    for size in args.sizes:
        path, interactions = suite(size)
        runs: dict[str, list[dict]] = {name: [] for name in contenders}
        for rep in range(args.repeats):
            names = list(contenders) if rep % 2 == 0 else list(contenders)[::-1]
            for name in names:
                if name == "peer" and size >= 10_000 and rep >= args.peer_repeats_large:
                    continue
                cmd, env = contenders[name]
                extra = ([path, str(K)] if name == "peer"
                         else [path, demo, str(K), *(["parts"] if args.parts else [])])
                runs[name].append(run_json([*cmd, *extra], env=env, cwd=CACHE))  # not the repo: -c puts cwd first on sys.path
        row: dict = {"conversations": size, "interactions": interactions}
        for name, outs in runs.items():
            s = median([o["seconds"] for o in outs])
            row[name] = {"seconds": round(s, 3),
                         "cpu_seconds": round(median([o["cpu_seconds"] for o in outs]), 3),
                         "interactions_per_s": round(interactions / s),
                         "peak_rss_mib": round(median([o["peak_rss_mib"] for o in outs]), 1),
                         "repeats": len(outs)}
            for part in ("load_cpu_seconds", "summary_cpu_seconds"):
                if all(part in o for o in outs):
                    row[name][part] = round(median([o[part] for o in outs]), 3)
        for name in runs:
            if name != "agenteval":
                row[name]["time_ratio_vs_agenteval"] = round(row[name]["seconds"] / row["agenteval"]["seconds"], 2)
                row[name]["cpu_ratio_vs_agenteval"] = round(row[name]["cpu_seconds"] / row["agenteval"]["cpu_seconds"], 2)
        rows.append(row)
        print(f"{size:>6,} conversations ({interactions:,} interactions): " + "; ".join(
            f"{name} {row[name]['seconds']:.2f} s ({row[name]['interactions_per_s']:,}/s, "
            f"cpu {row[name]['cpu_seconds']:.2f} s, peak {row[name]['peak_rss_mib']:.0f} MiB"
            + "".join(f", {part.split('_')[0]} cpu {row[name][part]:.2f} s"
                      for part in ("load_cpu_seconds", "summary_cpu_seconds") if part in row[name])
            + ")"
            for name in runs), flush=True)
    scaling, scaling_cpu = {}, {}
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        for name in contenders:
            for out, key in ((scaling, "seconds"), (scaling_cpu, "cpu_seconds")):
                out[name] = round(math.log(b[name][key] / a[name][key])
                                  / math.log(b["conversations"] / a["conversations"]), 2)
        print("scaling exponent (1 = linear), wall: " + ", ".join(
            f"{k} {v}" for k, v in scaling.items()) + "; CPU: " + ", ".join(
            f"{k} {v}" for k, v in scaling_cpu.items()))
    print_result({"benchmark": "pipeline", "k": K, "rows": rows, "scaling_exponent": scaling,
                  "scaling_exponent_cpu": scaling_cpu,
                  "peer_skipped": why or None, "baseline": args.baseline,
                  "loadavg_before": load_before, "loadavg_after": loadavg()})


if __name__ == "__main__":
    main()
