"""How long `import agenteval` takes, against `import json` as the in-process baseline.

Run: .venv/bin/python benchmarks/bench_import.py   (prints a JSON line; target: under 0.3 s)
"""

from __future__ import annotations

import json
import subprocess
import sys


def import_seconds(module: str, repeats: int = 5) -> float:
    """Best of `repeats` fresh interpreters, from -X importtime's cumulative figure."""
    best = float("inf")
    for _ in range(repeats):
        err = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                             capture_output=True, text=True, check=True).stderr
        last = [line for line in err.splitlines() if line.rstrip().endswith(f" {module}")][-1]
        best = min(best, int(last.split("|")[1]) / 1e6)
    return best


if __name__ == "__main__":
    ours, baseline = import_seconds("agenteval"), import_seconds("json")
    print(json.dumps({"benchmark": "import", "agenteval_s": round(ours, 4),
                      "json_s": round(baseline, 4), "ratio": round(ours / baseline, 1),
                      "target_s": 0.3, "ok": ours < 0.3}))
