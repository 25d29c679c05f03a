"""Benchmark the LLM judge: sequential vs concurrent judging, then a warm-cache re-run.

A local OpenAI-compatible server (tests/judge/openai_server.py, in its own process) answers every
request after a fixed latency (50 ms by default). In one run the script judges the same N
interactions (1,000 by default, all distinct):

1. sequentially (``max_concurrency=1``), all N, no cache: about N x latency (50 s at defaults);
2. with the default concurrency (16), all N, cold cache; reports the speed-up over (1) and the
   share of the ideal time ``calls x latency / concurrency`` reached;
3. again with a new judge on the same cache file: zero calls, zero requests at the server.

Prints one JSON line, with the load average before and after so a busy machine shows.
Run: ``.venv/bin/python benchmarks/bench_judge.py``.
"""

from __future__ import annotations

import argparse
import json
import os
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

            def timed(j: LLMJudge) -> tuple[list, float, int]:
                """Outcomes, wall seconds, and requests the server saw during the run."""
                before = _stats(base_url)["requests"]
                t0 = time.perf_counter()
                out = j.judge_answers(items)
                return out, time.perf_counter() - t0, _stats(base_url)["requests"] - before

            load_before = os.getloadavg()
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
            "concurrency": args.concurrency,
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
