"""Benchmark the LLM judge: sequential vs concurrent judging, then a warm-cache re-run.

A local OpenAI-compatible server (tests/judge/openai_server.py, in its own process) answers every
request after a fixed latency (50 ms by default). The script judges N interactions (1,000 by
default):

1. sequentially (max_concurrency=1) on a subset (100 by default) and scales the time to N:
   a sequential run is calls x latency by construction, so the subset measures it faithfully;
2. with the default concurrency (16) on all N, cold cache, and reports the speed-up and the share
   of the ideal time ``calls x latency / concurrency``;
3. again with a warm cache: zero requests reach the server.

Prints one JSON line. Run: ``.venv/bin/python benchmarks/bench_judge.py``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _stats(base_url: str) -> dict:
    root = base_url.rsplit("/v1", 1)[0]
    with urllib.request.urlopen(f"{root}/stats", timeout=10) as response:  # loopback only
        return json.loads(response.read())


def main() -> None:
    from agenteval.judge.base import AnswerItem
    from agenteval.judge.llm import LLMJudge

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--sequential-subset", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()

    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "judge" / "openai_server.py"),
         "--latency", str(args.latency)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True)
    try:
        base_url = server.stdout.readline().strip()  # type: ignore[union-attr]
        items = [AnswerItem(query=f"question {i}", answer=f"answer {i}", ground_truth=f"truth {i}")
                 for i in range(args.n)]
        with tempfile.TemporaryDirectory() as tmp:
            def judge(**options: object) -> LLMJudge:
                j = LLMJudge("bench-model", base_url=base_url, api_key="bench", progress=False,
                             **options)  # type: ignore[arg-type]
                j.start_run()
                return j

            # warm-up: imports and the first connection are not part of any timing
            judge(cache=False).judge_answers(items[:2])

            subset = items[: args.sequential_subset]
            seq = judge(max_concurrency=1, cache=False)
            t0 = time.perf_counter()
            seq_out = seq.judge_answers(subset)
            seq_subset_s = time.perf_counter() - t0
            seq_scaled_s = seq_subset_s * args.n / len(subset)

            cache = Path(tmp) / "judge.sqlite3"
            before = _stats(base_url)["requests"]
            conc = judge(max_concurrency=args.concurrency, cache=cache)
            t0 = time.perf_counter()
            conc_out = conc.judge_answers(items)
            conc_s = time.perf_counter() - t0
            conc_requests = _stats(base_url)["requests"] - before

            before = _stats(base_url)["requests"]
            warm = judge(max_concurrency=args.concurrency, cache=cache)
            t0 = time.perf_counter()
            warm_out = warm.judge_answers(items)
            warm_s = time.perf_counter() - t0
            warm_requests = _stats(base_url)["requests"] - before

        ideal_s = args.n * args.latency / args.concurrency
        failures = sum(type(o).__name__ == "JudgeFailure" for o in [*seq_out, *conc_out, *warm_out])
        print(json.dumps({
            "benchmark": "judge", "n": args.n, "latency_s": args.latency,
            "concurrency": args.concurrency,
            "sequential_subset": len(subset), "sequential_subset_s": round(seq_subset_s, 3),
            "sequential_scaled_s": round(seq_scaled_s, 2),
            "concurrent_s": round(conc_s, 3), "speedup": round(seq_scaled_s / conc_s, 1),
            "ideal_concurrent_s": round(ideal_s, 3),
            "share_of_ideal": round(ideal_s / conc_s, 3),
            "concurrent_calls": conc.run_record.calls, "concurrent_server_requests": conc_requests,
            "warm_cache_s": round(warm_s, 3), "warm_cache_calls": warm.run_record.calls,
            "warm_cache_hits": warm.run_record.cache_hits,
            "warm_cache_server_requests": warm_requests, "failures": failures,
        }))
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(10)


if __name__ == "__main__":
    main()
