"""Run every benchmark (one driver process each, one after another) and record the run.

Each ``bench_*.py`` prints its figures and, last, one JSON line; this collects those lines into
``benchmarks/results.json`` with the machine, the versions, the date and the load average, so
the file always describes the last run (``benchmarks/README.md`` explains every figure).

Run: ``make bench`` (creates the peer's benchmark venv first), or
``.venv/bin/python benchmarks/run_all.py [--only pipeline e2e] [--baseline REV]``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import HERE, loadavg, machine, peer_python  # noqa: E402

ORDER = ["import", "bayesian", "pipeline", "bigresult", "e2e", "judge", "hierarchical", "mainjob"]


def _versions(peer: Path | None) -> dict:
    out = {}
    for name in ("agenteval", "numpy", "scipy", "pydantic", "openai", "instructor", "pymc"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    if peer is not None:
        code = ("from importlib.metadata import version as v; import json; print(json.dumps("
                "{p: v(p) for p in ('alquimia-fair-forge', 'langchain', 'langchain-core', "
                "'langchain-openai')}))")
        done = subprocess.run([str(peer), "-c", code], capture_output=True, text=True)
        if done.returncode == 0:
            out["peer"] = json.loads(done.stdout)
    try:
        out["agenteval_commit"] = subprocess.run(
            ["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=ORDER)
    parser.add_argument("--baseline", help="git revision for the pipeline's before/after column")
    parser.add_argument("--out", default=str(HERE / "results.json"))
    args = parser.parse_args()
    peer, why = peer_python()
    if peer is None:
        print(f"peer: skipped ({why})", flush=True)
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    record = {"date": now, "machine": machine(), "versions": _versions(peer),
              "peer_skipped": why or None, "loadavg_start": loadavg(), "benchmarks": {},
              "failed": []}
    out = Path(args.out)
    if args.only and out.exists():  # a partial run updates its entries, keeps the others
        previous = json.loads(out.read_text(encoding="utf-8"))
        record["benchmarks"] = previous.get("benchmarks", {})
    for name in args.only or ORDER:
        script = HERE / f"bench_{name}.py"
        if not script.exists():
            continue
        cmd = [sys.executable, str(script)]
        if name in ("pipeline", "mainjob") and args.baseline:
            cmd += ["--baseline", args.baseline]
        print(f"== {script.name}", flush=True)
        done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, cwd=HERE.parent)
        print(done.stdout, end="", flush=True)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 or not lines:
            record["failed"].append(name)
            continue
        record["benchmarks"][name] = {**json.loads(lines[-1]), "date": now,
                                      "commit": record["versions"].get("agenteval_commit")}
    record["loadavg_end"] = loadavg()
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"recorded in {args.out}")
    if out == HERE / "results.json":
        from render import render

        render(out)
        print("figures written into benchmarks/README.md")
    sys.exit(1 if record["failed"] else 0)


if __name__ == "__main__":
    main()
