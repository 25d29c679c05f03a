"""Issue 18 (judge side): a misbehaving server, before and after, in one run.

Each scenario runs in a fresh child process per checkout of agenteval (``--compare DIR ...``,
default: ``--base`` (``main``) exported by ``git archive``, and this tree), against the local fault-injecting
server of the tests (tests/judge/openai_server.py):

- ``burst``: 64 items at concurrency 16, the first 8 requests answer 503 (healthy right after):
  items judged (main: fail-fast stopped the run);
- ``rate10``: 300 items at concurrency 16, each request fails with 503 with probability 0.1
  (seeded): items judged;
- ``nan_storm``: 32 items at concurrency 16, the first 96 requests answer 429 with
  ``retry-after-ms: NaN``, default backoff: wall seconds (main: a NaN sleep);
- ``reply_40mb``: one 40 MB reply, the server in its own process: the judging process's peak
  RSS growth (MiB) and the outcome;
- ``sigint``: 100,000 items at concurrency 16 (50 ms latency), SIGINT after 3 s: seconds from
  the signal to the process's exit;
- ``cpu_per_call``: 1,000 items, no latency, a fresh cache: client CPU ms per call (the claims
  in the cache cost something: this says how much).

Prints one JSON object. The machine was shared; ratios within one run are what to read.
Run: ``.venv/bin/python benchmarks/bench_judge_hostile.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PRELUDE = """
import json, os, random, resource, signal, subprocess, sys, time
sys.path.insert(0, os.environ["BENCH_TESTS"])
from openai_server import FakeOpenAI, Huge, Reply, Status
from agenteval.judge.base import AnswerItem
from agenteval.judge.llm import LLMJudge

def items(n):
    return [AnswerItem(query=f"query {i}", answer="a", ground_truth="ref") for i in range(n)]

def judge(server, **kw):
    opts = dict(base_url=server.base_url, api_key="sk-bench-0123456789", cache=False,
                progress=False)
    opts.update(kw)
    j = LLMJudge("m", **opts)
    j.start_run()
    return j

def judged(out):
    return sum(type(o).__name__ == "Verdict" for o in out)
"""

SCENARIOS = {
    "burst": """
with FakeOpenAI() as s:
    s.on(None, *[Status(503)] * 8)
    out = judge(s, max_concurrency=16).judge_answers(items(64))
print(json.dumps({"judged": judged(out), "of": 64}))
""",
    "rate10": """
rng = random.Random(7)
with FakeOpenAI(latency=0.01) as s:
    s.on(None, *[Status(503) if rng.random() < 0.1 else Reply() for _ in range(900)])
    out = judge(s, max_concurrency=16).judge_answers(items(300))
print(json.dumps({"judged": judged(out), "of": 300}))
""",
    "nan_storm": """
with FakeOpenAI() as s:
    s.on(None, *[Status(429, {"retry-after-ms": "NaN"})] * 96)
    t = time.monotonic()
    out = judge(s, max_concurrency=16).judge_answers(items(32))
print(json.dumps({"seconds": round(time.monotonic() - t, 2), "judged": judged(out), "of": 32}))
""",
    "reply_40mb": """
code = ("import sys; sys.path.insert(0, sys.argv[1]); from openai_server import FakeOpenAI, Huge;"
        "s = FakeOpenAI().start(); s.on(None, *[Huge(40_000_000)] * 20); print(s.base_url, flush=True);"
        "sys.stdin.read()")
proc = subprocess.Popen([sys.executable, "-c", code, os.environ["BENCH_TESTS"]],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
url = proc.stdout.readline().strip()
class S: base_url = url
j = judge(S, max_concurrency=1, max_retries=0, max_reasks=0, timeout=120)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.monotonic()
out = j.judge_answers(items(1))
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
proc.stdin.close(); proc.wait(10)
o = out[0]
print(json.dumps({"peak_rss_growth_mib": round(grown, 1), "seconds": round(time.monotonic() - t, 2),
                  "outcome": getattr(o, "code", None) or f"score {o.score}"}))
""",
    "sigint": """
if os.environ.get("BENCH_CHILD"):
    with FakeOpenAI(latency=0.05) as s:
        print("ready", flush=True)
        try:
            judge(s, max_concurrency=16).judge_answers(items(100_000))
        except KeyboardInterrupt:
            pass
    sys.exit(130)
env = {**os.environ, "BENCH_CHILD": "1"}
proc = subprocess.Popen([sys.executable, "-c", sys.argv[1]], env=env, stdout=subprocess.PIPE,
                        text=True)
proc.stdout.readline()
time.sleep(3)
t = time.monotonic()
proc.send_signal(signal.SIGINT)
try:
    proc.wait(120)
except subprocess.TimeoutExpired:
    proc.kill()
print(json.dumps({"seconds_to_exit": round(time.monotonic() - t, 2)}))
""",
    "cpu_per_call": """
import tempfile
with FakeOpenAI() as s, tempfile.TemporaryDirectory() as d:
    j = judge(s, max_concurrency=16, cache=os.path.join(d, "c.sqlite3"))
    j.judge_answers(items(20))  # warm
    c0 = time.process_time()
    j.judge_answers([AnswerItem(query=f"other {i}", answer="a", ground_truth="ref") for i in range(1000)])
    cpu = time.process_time() - c0
print(json.dumps({"cpu_ms_per_call": round(1000 * cpu / 1000, 3)}))
""",
}


def run(tree: Path, name: str) -> dict:
    code = _PRELUDE + SCENARIOS[name]
    env = {**os.environ, "PYTHONPATH": str(tree), "BENCH_TESTS": str(ROOT / "tests" / "judge")}
    done = subprocess.run([sys.executable, "-c", code, code], env=env, capture_output=True,
                          text=True, timeout=600, cwd=tempfile.gettempdir())
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--compare", nargs="*", type=Path)
    parser.add_argument("--only", nargs="*", choices=sorted(SCENARIOS))
    parser.add_argument("--base", default="main",
                        help="the git ref measured as 'before' (default main)")
    args = parser.parse_args()
    trees = args.compare
    if not trees:
        main_tree = Path(tempfile.mkdtemp(prefix="agenteval-main-"))
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base, "agenteval"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(main_tree)], input=archive, check=True)
        trees = [main_tree, ROOT]
    out = {"load_before": os.getloadavg()[0]}
    for name in args.only or SCENARIOS:
        out[name] = {(f"before ({args.base})" if i == 0 and not args.compare else str(t)): run(t, name)
                     for i, t in enumerate(trees)}
        if not args.compare:
            out[name]["this tree"] = out[name].pop(str(ROOT))
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
