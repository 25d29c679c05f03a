"""HTML report size and write time at N conversations, uncapped against the default cap.

    python benchmarks/bench_report.py --sizes 1000 10000        # synth data (benchmarks/synth.py)

Per size: one offline ``Agentic.run`` (frequentist, k=3), then ``write_report`` with
``max_conversations=None`` (every conversation drilled down, the report as it was) and with the
default cap, alternated ``--repeats`` times; prints bytes and CPU seconds (``process_time``,
median) of each, their ratio, and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import synth
    from agenteval import Agentic, FrequentistMode
    from agenteval.core import load_datasets
    from agenteval.report import DEFAULT_MAX_CONVERSATIONS, write_report

    cache = HERE.parent / ".cache" / "bench"
    cache.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.2f}; default cap {DEFAULT_MAX_CONVERSATIONS}")
    for n in args.sizes:
        data = cache / f"synth_{n}.jsonl"
        if not data.exists():
            synth.write(data, n)
        datasets = load_datasets(data)
        results = Agentic.run(datasets, k=3, statistical_mode=FrequentistMode())
        results.summary()  # cached: the timing below is the report's own
        times: dict[str, list[float]] = {"uncapped": [], "capped": []}
        sizes: dict[str, int] = {}
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(args.repeats):
                for label, cap in (("uncapped", None), ("capped", DEFAULT_MAX_CONVERSATIONS)):
                    path = Path(tmp) / f"{label}.html"
                    t0 = time.process_time()
                    write_report(results, path, datasets=datasets, max_conversations=cap)
                    times[label].append(time.process_time() - t0)
                    sizes[label] = path.stat().st_size
        u, c = statistics.median(times["uncapped"]), statistics.median(times["capped"])
        print(f"{n:>6} conversations: uncapped {sizes['uncapped'] / 1e6:7.2f} MB {u:6.2f} s CPU | "
              f"capped {sizes['capped'] / 1e6:6.2f} MB {c:6.2f} s CPU | size x{sizes['uncapped'] / sizes['capped']:.1f}, "
              f"time x{u / c:.1f}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
