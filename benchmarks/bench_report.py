"""HTML report size, write time and (optionally) time in Chromium at N conversations.

    python benchmarks/bench_report.py --sizes 1000 10000                 # this checkout
    python benchmarks/bench_report.py --sizes 10000 --compare e05b22d    # and another, same data
    python benchmarks/bench_report.py --sizes 10000 --browser            # + Chromium timings

Per size: one offline ``Agentic.run`` (frequentist, k=3) on synth data (benchmarks/synth.py),
then ``write_report`` with the default drill-down cap and with ``max_conversations=None`` (every
conversation drilled down), alternated ``--repeats`` times: bytes and CPU seconds
(``process_time``, median). ``--compare REF`` runs the same measurement on the package as of
git commit REF (exported to a temporary folder, run in a child process with the same data), so
before and after come from one invocation on one machine load. ``--browser`` opens the capped
report in Debian's headless Chromium (offline) and reports the time from navigation start to
the viewer being ready (``html[data-ready]``; before the viewer: the load event), and the time
of one sort and one filter of the whole list (synchronous handler time, median of 5).
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))


def measure(sizes: list[int], repeats: int, browser: bool) -> list[dict]:
    """One record per size and cap: bytes, CPU seconds, and the browser timings if asked."""
    import synth
    from agenteval import Agentic, FrequentistMode
    from agenteval.core import load_datasets
    from agenteval.report import DEFAULT_MAX_CONVERSATIONS, write_report

    cache = REPO / ".cache" / "bench"
    cache.mkdir(parents=True, exist_ok=True)
    out = []
    for n in sizes:
        data = cache / f"synth_{n}.jsonl"
        if not data.exists():
            synth.write(data, n)
        datasets = load_datasets(data)
        results = Agentic.run(datasets, k=3, statistical_mode=FrequentistMode(), progress=False)
        results.summary()  # cached: the timing below is the report's own
        times: dict[str, list[float]] = {"capped": [], "uncapped": []}
        sizes_b: dict[str, int] = {}
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(repeats):
                for label, cap in (("capped", DEFAULT_MAX_CONVERSATIONS), ("uncapped", None)):
                    path = Path(tmp) / f"{label}.html"
                    t0 = time.process_time()
                    write_report(results, path, datasets=datasets, max_conversations=cap)
                    times[label].append(time.process_time() - t0)
                    sizes_b[label] = path.stat().st_size
            timings = _browser(Path(tmp) / "capped.html") if browser else {}
        for label in ("capped", "uncapped"):
            out.append({"n": n, "cap": label, "bytes": sizes_b[label],
                        "cpu_s": statistics.median(times[label]),
                        **(timings if label == "capped" else {})})
    return out


def _browser(path: Path) -> dict:
    import importlib.util

    spec = importlib.util.spec_from_file_location("report_browser", REPO / "tests" / "browser.py")
    browser = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(browser)  # the tests' offline Chromium page, by file
    offline_page = browser.offline_page

    with offline_page(height=1000) as (page, blocked):
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        ready = page.evaluate("""() => new Promise(done => {
            const t = () => document.documentElement.hasAttribute('data-ready')
                || !document.getElementById('report-data');
            const wait = () => t() ? done(performance.now()) : setTimeout(wait, 5); wait(); })""")
        out = {"ready_ms": ready}
        if page.locator("#list th").count():
            out["sort_ms"] = statistics.median(page.evaluate("""() => {
                const th = document.querySelectorAll('#list th')[5], t = [];
                for (let i = 0; i < 5; i++) { const s = performance.now(); th.click();
                    t.push(performance.now() - s); } return t; }"""))
            out["filter_ms"] = statistics.median(page.evaluate("""() => {
                const box = document.getElementById('filter'), t = [];
                for (const q of ['conv-1', 'conv-12', 'x', 'conv-9', '']) {
                    const s = performance.now(); box.value = q;
                    box.dispatchEvent(new Event('input')); t.push(performance.now() - s); }
                return t; }"""))
            out["rows_listed"] = page.locator("#list tbody tr").count()
        assert not blocked, blocked
    return out


def _other(ref: str, sizes: list[int], repeats: int, browser: bool) -> list[dict]:
    """The same measurement on the package as of commit ``ref``, in a child process."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "agenteval"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        env = dict(os.environ, PYTHONPATH=tmp)
        argv = [sys.executable, __file__, "--child", "--sizes", *map(str, sizes),
                "--repeats", str(repeats), *(["--browser"] if browser else [])]
        done = subprocess.run(argv, env=env, check=True, capture_output=True, text=True)
        return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compare", metavar="REF", help="also measure git commit REF")
    parser.add_argument("--browser", action="store_true", help="also time it in Chromium")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.sizes, args.repeats, args.browser)))
        return 0
    print(f"load average {os.getloadavg()[0]:.2f}")
    runs = {}
    if args.compare:
        runs[args.compare] = _other(args.compare, args.sizes, args.repeats, args.browser)
    runs["this checkout"] = measure(args.sizes, args.repeats, args.browser)
    for name, records in runs.items():
        print(f"== {name}")
        for r in records:
            extra = "".join(f"  {k} {r[k]:.0f}" if isinstance(r[k], float) else f"  {k} {r[k]}"
                            for k in ("ready_ms", "sort_ms", "filter_ms", "rows_listed") if k in r)
            print(f"{r['n']:>6} conversations {r['cap']:>8}: {r['bytes'] / 1e6:7.2f} MB "
                  f"{r['cpu_s']:6.2f} s CPU{extra}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
