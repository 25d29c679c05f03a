"""End to end with an LLM judge, side by side, against one local OpenAI-compatible server.

One server (``tests/judge/openai_server.py``, its own process, 127.0.0.1, fixed latency, 50 ms
by default) answers both tools. The suite is ``synth.py``'s first ``--conversations`` (60 by
default, 5 interactions each). Each run is a fresh child process, alternately:

- agenteval: ``Agentic.run(path, k=3, model=LLMJudge(..., base_url=server))`` with its default
  concurrency (16). **cold**: an empty judge cache; **re-run**: a new process on the same cache
  file (what re-running a notebook or the CLI does);
- the peer: ``Agentic.run`` of alquimia-fair-forge with LangChain's ``ChatOpenAI`` pointed at the
  same server (its default structured output: the server answers its JSON schema); it judges
  one interaction at a time and keeps no cache, so its re-run costs what its cold run did.

Reported per run: wall seconds (median over repeats), requests the server saw during it, and the
share of the ideal time ``requests x latency / concurrency`` (concurrency 1 for the peer).
Run: ``.venv/bin/python benchmarks/bench_e2e.py`` (last line JSON).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from _common import CACHE, HERE, PEER_SCRIPT, ROOT, loadavg, median, peer_python, print_result, run_json

K = 3

SERVER = """
import sys
sys.path.insert(0, sys.argv[2])
from tests.judge.openai_server import FakeOpenAI, default_verdict

def verdict(body):
    if "AnswerCorrectnessOutput" in str(body.get("response_format")):  # the peer's schema
        return {"correctness_score": 0.75, "reasoning": "looks right"}
    return default_verdict(body)

server = FakeOpenAI(latency=float(sys.argv[1]), verdict=verdict).start()
print(server.base_url, flush=True)
try:
    sys.stdin.read()
finally:
    server.stop()
"""

CHILD = """
import json, sys, time
from agenteval import Agentic
from agenteval.judge.llm import LLMJudge
judge = LLMJudge("bench-model", base_url=sys.argv[2], api_key="bench", cache=sys.argv[3],
                 progress=False)
t0 = time.perf_counter()
results = Agentic.run(sys.argv[1], k=int(sys.argv[4]), model=judge)
seconds = time.perf_counter() - t0
run = results.judge_run
print(json.dumps({"seconds": seconds, "calls": run.calls, "cache_hits": run.cache_hits,
                  "errors": run.errors, "concurrency": run.details.get("concurrency") or 16}))
"""


def requests_seen(base_url: str) -> int:
    with urllib.request.urlopen(base_url.rsplit("/v1", 1)[0] + "/stats", timeout=10) as r:
        return json.loads(r.read())["requests"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=60)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-repeats", type=int, default=2)
    args = parser.parse_args()
    peer, why = peer_python()
    sys.path.insert(0, str(HERE))
    import synth

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"e2e_{args.conversations}.jsonl"
    interactions = synth.write(path, args.conversations, seed=11)
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(args.latency), str(ROOT)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        base_url = server.stdout.readline().strip()  # type: ignore[union-attr]
        runs: dict[str, list[dict]] = {"agenteval_cold": [], "agenteval_rerun": [],
                                       "peer_cold": [], "peer_rerun": []}
        load_before = loadavg()
        with tempfile.TemporaryDirectory() as tmp:
            def ours(cache: Path) -> dict:
                before = requests_seen(base_url)
                out = run_json([sys.executable, "-c", CHILD, str(path), base_url, str(cache),
                                str(K)], cwd=CACHE)
                return {**out, "requests": requests_seen(base_url) - before}

            def theirs() -> dict:
                before = requests_seen(base_url)
                out = run_json([str(peer), str(PEER_SCRIPT), "e2e", str(path), str(K), base_url],
                               cwd=CACHE)
                return {**out, "requests": requests_seen(base_url) - before, "concurrency": 1}

            for rep in range(args.repeats):
                cache = Path(tmp) / f"judge-{rep}.sqlite3"
                runs["agenteval_cold"].append(ours(cache))
                if peer is not None and rep < args.peer_repeats:
                    runs["peer_cold"].append(theirs())
                runs["agenteval_rerun"].append(ours(cache))
                if peer is not None and rep < args.peer_repeats:
                    runs["peer_rerun"].append(theirs())
        summary: dict = {}
        for name, outs in runs.items():
            if not outs:
                continue
            s = median([o["seconds"] for o in outs])
            requests = int(median([o["requests"] for o in outs]))
            ideal = requests * args.latency / outs[0]["concurrency"]
            summary[name] = {"seconds": round(s, 3), "requests": requests,
                             "ideal_s": round(ideal, 3),
                             "share_of_ideal": round(ideal / s, 3) if requests else None,
                             "repeats": len(outs)}
        for when in ("cold", "rerun"):
            if f"peer_{when}" in summary:
                summary[f"peer_over_agenteval_{when}"] = round(
                    summary[f"peer_{when}"]["seconds"] / summary[f"agenteval_{when}"]["seconds"], 1)
        for name, v in summary.items():
            print(f"{name}: {v}", flush=True)
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(10)
    print_result({"benchmark": "e2e", "conversations": args.conversations,
                  "interactions": interactions, "latency_s": args.latency, **summary,
                  "peer_skipped": why or None, "loadavg_before": load_before,
                  "loadavg_after": loadavg()})


if __name__ == "__main__":
    main()
