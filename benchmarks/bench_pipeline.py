"""End-to-end offline throughput: Agentic.run on the demo data replicated to ~40,000 interactions.

Baseline, in the same process: reading and json-parsing the same file (the floor any loader pays).
Run: .venv/bin/python benchmarks/bench_pipeline.py [--copies 300]   (prints a JSON line)
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from agenteval import Agentic, BayesianMode, _numbers

DEMO = Path(__file__).resolve().parents[1] / "data" / "agentic_demo.jsonl"


def replicate(copies: int, out: Path) -> int:
    """Write the demo `copies` times with fresh session ids; return the interaction count."""
    interactions = 0
    with out.open("w", encoding="utf-8") as fh:
        for copy in range(copies):
            for line in DEMO.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                record["session_id"] = f"{record['session_id']}-{copy}"
                record["task_id"] = f"{record.get('task_id')}-{copy % 30}"
                interactions += len(record["conversation"])
                fh.write(json.dumps(record) + "\n")
    return interactions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copies", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "suite.jsonl"
        interactions = replicate(args.copies, path)
        Agentic.run(str(DEMO), k=3)  # warm-up: imports are not part of the timing
        _numbers._numbers_in_cached.cache_clear()  # ...but the warm-up's parsed texts are
        _numbers._readings_in_cached.cache_clear()

        t0 = time.perf_counter()
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        baseline_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        results = Agentic.run(str(path), k=3, statistical_mode=BayesianMode())
        results.summary()
        run_s = time.perf_counter() - t0
    print(json.dumps({
        "benchmark": "pipeline", "conversations": len(records), "interactions": interactions,
        "agentic_run_s": round(run_s, 2), "interactions_per_s": round(interactions / run_s),
        "json_parse_baseline_s": round(baseline_s, 3), "ratio_to_baseline": round(run_s / baseline_s, 1),
    }))


if __name__ == "__main__":
    main()
