"""The number-reading parts alone: the offline answer judge and the tool-result evidence search.

Over every interaction of a ``synth.py`` suite (distinct texts): ``score_answer(answer,
reference)`` and ``find_result_evidence(results, answer, query=..., parameters=...)``, as the
pipeline calls them, timed as CPU seconds per part. ``--baseline REV`` runs the same on agenteval
as of REV in alternating child processes and checks that both give the same verdicts and
evidence (a digest of every output).

Run: ``.venv/bin/python benchmarks/bench_numbers.py --baseline 78dd607 --size 10000`` (last line JSON).
"""

from __future__ import annotations

import argparse
import sys

from _common import CACHE, HERE, baseline_tree, loadavg, median, print_result, run_json

CHILD = """
import hashlib, json, sys, time
from agenteval.judge.offline import score_answer
from agenteval.metrics.evidence import find_result_evidence
answers, calls = [], []
with open(sys.argv[1], encoding="utf-8") as fh:
    for line in fh:
        for it in json.loads(line)["conversation"]:
            used = it["agentic"]["tools_used"]
            answers.append((it["assistant"], it["ground_truth_assistant"]))
            calls.append(([c.get("result") for c in used], it["assistant"], it["query"],
                          [c.get("parameters") for c in used]))
c0 = time.process_time()
verdicts = [score_answer(a, r) for a, r in answers]
c1 = time.process_time()
found = [find_result_evidence(res, a, query=q, parameters=p) for res, a, q, p in calls]
c2 = time.process_time()
digest = hashlib.sha256(repr([(v.score, v.reasoning) for v in verdicts]).encode())
digest.update(repr([(e.searchable, sorted(e.found.items()), e.truncated) for e in found]).encode())
print(json.dumps({"judge_cpu": c1 - c0, "evidence_cpu": c2 - c1, "interactions": len(answers),
                  "digest": digest.hexdigest()}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000, help="conversations (5 interactions each)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", help="git revision of agenteval to compare with")
    args = parser.parse_args()

    sys.path.insert(0, str(HERE))
    import synth

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"synth_{args.size}.jsonl"
    if not path.exists():
        synth.write(path, args.size)
    contenders = {"agenteval": {}}
    if args.baseline:
        contenders[f"agenteval@{args.baseline}"] = {"PYTHONPATH": str(baseline_tree(args.baseline))}
    runs: dict[str, list[dict]] = {name: [] for name in contenders}
    for _ in range(args.repeats):  # alternating, so a load spike hits both
        for name, env in contenders.items():
            # not the repo as cwd: -c puts cwd first on sys.path
            runs[name].append(run_json([sys.executable, "-c", CHILD, str(path)], env=env, cwd=CACHE))
    result = {"benchmark": "numbers", "size": args.size, "loadavg": loadavg()}
    for name, rs in runs.items():
        judge, ev = median([r["judge_cpu"] for r in rs]), median([r["evidence_cpu"] for r in rs])
        result[name] = {"judge_cpu": judge, "evidence_cpu": ev, "digest": rs[0]["digest"]}
        print(f"{name:>22}: judge {judge:6.3f} s  evidence {ev:6.3f} s  total {judge + ev:6.3f} s "
              f"CPU for {rs[0]['interactions']} interactions")
    if args.baseline:
        new, old = result["agenteval"], result[f"agenteval@{args.baseline}"]
        ratio = (old["judge_cpu"] + old["evidence_cpu"]) / (new["judge_cpu"] + new["evidence_cpu"])
        same = new["digest"] == old["digest"]
        result["speedup"], result["same_outputs"] = ratio, same
        print(f"speed-up {ratio:.2f}x; outputs {'identical' if same else 'DIFFERENT'}")
    print_result(result)


if __name__ == "__main__":
    main()
