"""Benchmark the LLM judge: inside ``Agentic.run``, then sequential vs concurrent, then a re-run.

A local OpenAI-compatible server (tests/judge/openai_server.py, in its own process) answers every
request after a fixed latency (50 ms by default). In one run the script judges N distinct
interactions (1,000 by default):

1. inside ``Agentic.run`` (what a user runs), concurrency 16, no cache, the judge built before
   the clock starts: wall time, the share of the ideal ``calls x latency / concurrency`` reached,
   and the client's CPU per call (this process's CPU time over calls; the server runs elsewhere);
2. ``judge_answers`` sequentially (``max_concurrency=1``): about N x latency;
3. ``judge_answers`` concurrently, cold cache: speed-up over (2) and share of the ideal;
4. again with a new judge on the same cache file: zero calls, zero requests at the server.

Prints one JSON line, with the load average before and after so a busy machine shows.
Run: ``.venv/bin/python benchmarks/bench_judge.py``.

``--compare DIR [DIR ...]`` measures (1) for several checkouts of agenteval (e.g. main and a
branch), alternating between them ``--repeats`` times in one run, and prints medians and ratios:
the fair way to compare on a shared, noisy machine. Each repeat also runs (1) with the offline
judge, so the LLM judge's own CPU per call (the difference) is printed beside the total.
``--agentic-only`` runs (1) alone (``--offline``: with the offline judge).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if "AGENTEVAL_BENCH_CODE" not in os.environ:
    sys.path.insert(0, str(ROOT))


def _stats(base_url: str) -> dict:
    root = base_url.rsplit("/v1", 1)[0]
    with urllib.request.urlopen(f"{root}/stats", timeout=10) as response:  # loopback only
        return json.loads(response.read())


def _server(latency: float) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "judge" / "openai_server.py"),
         "--latency", str(latency)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    return server, server.stdout.readline().strip()  # type: ignore[union-attr]


def agentic_run(base_url: str, n: int, latency: float, concurrency: int,
                offline: bool = False) -> dict:
    """Phase (1): N interactions (200 conversations of N/200) through ``Agentic.run``.

    ``offline=True`` runs the same data with the offline judge instead: the CPU of everything in
    ``Agentic.run`` that is not the LLM judge (tool scoring, statistics, first imports), so the
    judge's own share is the difference of the two (see :func:`compare`).
    """
    from agenteval import Agentic
    from agenteval.judge.llm import LLMJudge

    per = max(1, n // 200)
    rows = [{"session_id": f"s{c}", "assistant_id": "bench", "conversation": [
        {"qa_id": f"q{j}", "query": f"question {c}-{j}", "assistant": f"answer {c}-{j}",
         "ground_truth_assistant": f"truth {c}-{j}"} for j in range(per)]}
        for c in range((n + per - 1) // per)]
    build0 = time.process_time()
    judge = None if offline else LLMJudge("bench-model", base_url=base_url, api_key="bench",
                                          progress=False, cache=False,
                                          max_concurrency=concurrency)
    build = time.process_time() - build0
    before = _stats(base_url)["requests"]
    cpu0, t0 = time.process_time(), time.perf_counter()
    results = Agentic.run(rows, judge, 1)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    judged = sum(m.total_interactions for m in results)
    calls = results.judge_run.calls if not offline else judged
    ideal = calls * latency / concurrency
    return {"agentic_s": round(wall, 3), "agentic_calls": calls,
            "agentic_server_requests": _stats(base_url)["requests"] - before,
            "agentic_ideal_s": round(ideal, 3), "agentic_share_of_ideal": round(ideal / wall, 3),
            "agentic_cpu_ms_per_call": round(1000 * cpu / max(calls, 1), 3),
            "judge_build_cpu_s": round(build, 3), "agentic_judged": judged,
            "judge": "offline" if offline else "llm"}


def compare(dirs: list[str], args: argparse.Namespace) -> None:
    """Phase (1) for each checkout in ``dirs``, alternating, in fresh processes.

    Each repeat also runs the same data with the offline judge (fresh process too), so the
    summary can state the LLM judge's own CPU per call: the median CPU per call with the LLM
    judge minus the median with the offline one.
    """
    runs: dict[str, list[dict]] = {d: [] for d in dirs}
    offline: dict[str, list[dict]] = {d: [] for d in dirs}
    for r in range(args.repeats):
        for d in dirs:
            for judge in ("llm", "offline"):
                env = {**os.environ, "PYTHONPATH": d, "AGENTEVAL_BENCH_CODE": d}
                cmd = [sys.executable, __file__, "--agentic-only", "--n", str(args.n),
                       "--latency", str(args.latency), "--concurrency", str(args.concurrency)]
                out = subprocess.run(cmd + (["--offline"] if judge == "offline" else []),
                                     env=env, capture_output=True, text=True,
                                     cwd=tempfile.gettempdir(), check=True)
                row = json.loads(out.stdout.strip().splitlines()[-1])
                (runs if judge == "llm" else offline)[d].append(row)
                print(json.dumps({"repeat": r, "code": d, **row}), flush=True)
    keys = ("agentic_s", "agentic_share_of_ideal", "agentic_cpu_ms_per_call", "judge_build_cpu_s")
    summary = {d: {key: statistics.median(row[key] for row in rows) for key in keys}
               for d, rows in runs.items()}
    for d in dirs:
        rest = statistics.median(row["agentic_cpu_ms_per_call"] for row in offline[d])
        summary[d]["offline_cpu_ms_per_interaction"] = rest
        summary[d]["judge_cpu_ms_per_call"] = round(
            summary[d]["agentic_cpu_ms_per_call"] - rest, 3)
    first = dirs[0]
    print(json.dumps({"benchmark": "judge-compare", "n": args.n, "latency_s": args.latency,
                      "concurrency": args.concurrency, "repeats": args.repeats,
                      "medians": summary,
                      "time_ratio_vs_first": {d: round(summary[d]["agentic_s"]
                                                       / summary[first]["agentic_s"], 3)
                                              for d in dirs},
                      "cpu_ratio_vs_first": {d: round(summary[d]["agentic_cpu_ms_per_call"]
                                                      / summary[first]["agentic_cpu_ms_per_call"],
                                                      3) for d in dirs},
                      "loadavg_1m": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--agentic-only", action="store_true")
    parser.add_argument("--offline", action="store_true",
                        help="with --agentic-only: the offline judge (the CPU that is not the "
                             "LLM judge's)")
    parser.add_argument("--compare", nargs="+", metavar="DIR")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.compare:
        compare(args.compare, args)
        return

    from agenteval.judge.base import AnswerItem
    from agenteval.judge.llm import LLMJudge

    server, base_url = _server(args.latency)
    try:
        import agenteval

        if args.agentic_only:
            print(json.dumps({"code": str(Path(agenteval.__file__).parents[1]),
                              **agentic_run(base_url, args.n, args.latency, args.concurrency,
                                            offline=args.offline)}))
            return
        load_before = os.getloadavg()
        agentic = agentic_run(base_url, args.n, args.latency, args.concurrency)
        items = [AnswerItem(query=f"question {i}", answer=f"answer {i}", ground_truth=f"truth {i}")
                 for i in range(args.n)]
        with tempfile.TemporaryDirectory() as tmp:
            def judge(**options: object) -> LLMJudge:
                j = LLMJudge("bench-model", base_url=base_url, api_key="bench", progress=False,
                             **options)  # type: ignore[arg-type]
                j.start_run()
                return j

            def timed(j: LLMJudge) -> tuple[list, float, int]:
                """Outcomes, wall seconds, and requests the server saw during the run."""
                before = _stats(base_url)["requests"]
                t0 = time.perf_counter()
                out = j.judge_answers(items)
                return out, time.perf_counter() - t0, _stats(base_url)["requests"] - before

            cache = Path(tmp) / "judge.sqlite3"
            seq = judge(max_concurrency=1, cache=False)
            seq_out, seq_s, seq_requests = timed(seq)
            conc = judge(max_concurrency=args.concurrency, cache=cache)
            conc_out, conc_s, conc_requests = timed(conc)
            warm = judge(max_concurrency=args.concurrency, cache=cache)
            warm_out, warm_s, warm_requests = timed(warm)

        ideal_s = conc.run_record.calls * args.latency / args.concurrency
        seq_ideal_s = seq.run_record.calls * args.latency
        failures = sum(type(o).__name__ == "JudgeFailure" for o in [*seq_out, *conc_out, *warm_out])
        print(json.dumps({
            "benchmark": "judge", "n": args.n, "latency_s": args.latency,
            "concurrency": args.concurrency, **agentic,
            "sequential_s": round(seq_s, 2), "sequential_calls": seq.run_record.calls,
            "sequential_server_requests": seq_requests,
            "sequential_share_of_ideal": round(seq_ideal_s / seq_s, 3),
            "concurrent_s": round(conc_s, 3), "concurrent_calls": conc.run_record.calls,
            "concurrent_server_requests": conc_requests,
            "speedup": round(seq_s / conc_s, 1),
            "ideal_concurrent_s": round(ideal_s, 3),
            "share_of_ideal": round(ideal_s / conc_s, 3),
            "warm_cache_s": round(warm_s, 3), "warm_cache_calls": warm.run_record.calls,
            "warm_cache_hits": warm.run_record.cache_hits,
            "warm_cache_server_requests": warm_requests, "failures": failures,
            "loadavg_1m_before": round(load_before[0], 2),
            "loadavg_1m_after": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
        }))
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(10)


if __name__ == "__main__":
    main()
