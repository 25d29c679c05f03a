"""One tool result of 50 MB, offline: the evidence search must stay linear in time and memory.

Before the fix the search compiled every result text into a regular expression: 108 s and about
5 GB for this case. Now texts are found by substring search over normalised text, and one call's
result is searched in its first ``MAX_RESULT_CHARS`` characters (the tool score's reasoning says
when it was cut). A fresh child process runs ``Agentic.run`` (offline judge) on one conversation
whose tool returned ``--mb`` megabytes of log text (the answer quotes none of it: the worst
case, everything up to the cap is searched), and reports wall time and peak RSS, next to the
same conversation with a 0.9 MB result (under the cap) as the reference.
Run: ``.venv/bin/python benchmarks/bench_bigresult.py`` (last line JSON).
"""

from __future__ import annotations

import argparse
import json
import sys

from _common import CACHE, loadavg, median, print_result, run_json

CHILD = """
import json, sys, time
from _peak import peak_mib as _peak_mib  # benchmarks/ is on the child's PYTHONPATH
from agenteval import Agentic
Agentic.run({demo!r}, k=3)  # warm-up: imports are not timed
t0 = time.perf_counter()
results = Agentic.run(sys.argv[1], k=3)
tool = results[0].interactions[0].tool_correctness
print(json.dumps({{"seconds": time.perf_counter() - t0,
                  "peak_rss_mib": _peak_mib(),
                  "evidence": tool.utilization_evidence,
                  "cut_reported": "searched in its first" in tool.reasoning}}))
"""


def write(path, megabytes: float) -> None:
    line = "2026-01-01T00:00:00 worker-{i} processed batch {i} in {ms} ms, status nominal.\n"
    parts, size, i = [], 0, 0
    while size < megabytes * 1_000_000:
        part = line.format(i=i, ms=i % 997)
        parts.append(part)
        size += len(part)
        i += 1
    log = "".join(parts)
    record = {"session_id": "big", "assistant_id": "agent", "conversation": [{
        "qa_id": "q1", "query": "Did the nightly job finish?",
        "assistant": "Yes: worker-3 processed batch 3 in 3 ms, status nominal.",
        "ground_truth_assistant": "Yes, it finished.",
        "agentic": {"tools_used": [{"tool_name": "read_log", "parameters": {"job": "nightly"},
                                    "result": log}]},
        "ground_truth_agentic": {"expected_tools": [{"tool_name": "read_log",
                                                     "parameters": {"job": "nightly"}}]}}]}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")


def main() -> None:
    from _common import ROOT

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    sizes = {"reference_0.9mb": 0.9, "big": args.mb}
    paths = {}
    for name, mb in sizes.items():
        paths[name] = CACHE / f"bigresult_{mb:g}mb.jsonl"
        if not paths[name].exists():
            write(paths[name], mb)
    code = CHILD.format(demo=str(ROOT / "data" / "agentic_demo.jsonl"))
    load_before = loadavg()
    runs = {name: [] for name in sizes}
    for _ in range(args.repeats):
        for name in sizes:
            runs[name].append(run_json([sys.executable, "-c", code, str(paths[name])], cwd=CACHE))
    out = {}
    for name, rs in runs.items():
        out[name] = {"megabytes": sizes[name], "seconds": round(median([r["seconds"] for r in rs]), 3),
                     "peak_rss_mib": round(median([r["peak_rss_mib"] for r in rs]), 1),
                     "evidence": rs[0]["evidence"], "cut_reported": rs[0]["cut_reported"]}
        print(f"{name}: {out[name]}", flush=True)
    print_result({"benchmark": "bigresult", **out, "repeats": args.repeats,
                  "before_fix": {"seconds": 108, "memory_gb": 5, "source": "issue 9, item 6"},
                  "loadavg_before": load_before, "loadavg_after": loadavg()})


if __name__ == "__main__":
    main()
