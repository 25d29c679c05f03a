"""What every benchmark shares: the peer's interpreter, child processes, medians, the machine.

Each comparison runs in one driver process that starts agenteval's side and the peer's side as
child processes, alternately (ABAB...), so a load spike on this shared machine hits both; the
figures are medians over the repeats. Children print one JSON line (their last line of output).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import io
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "benchmarks"
CACHE = ROOT / ".cache" / "bench"
PEER_PYTHON = Path(os.environ.get("AGENTEVAL_BENCH_PEER", ROOT / ".cache" / "bench-venv" / "bin" / "python"))
PEER_SCRIPT = HERE / "peer_fairforge.py"


def peer_python() -> tuple[Path | None, str]:
    """The benchmark venv's interpreter if the peer imports there, else (None, why not)."""
    if not PEER_PYTHON.exists():
        return None, f"no benchmark venv at {PEER_PYTHON} (make bench creates it)"
    probe = subprocess.run([str(PEER_PYTHON), "-c", "import fair_forge.metrics.agentic"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["import failed"])[-1]
        return None, f"alquimia-fair-forge does not import in the benchmark venv: {last}"
    return PEER_PYTHON, ""


def run_json(cmd: list[str], *, env: dict[str, str] | None = None, cwd: Path = ROOT,
             timeout: float = 3600) -> dict:
    """Run a child, return the JSON object on its last output line (raise with its stderr)."""
    full_env = {**os.environ, **(env or {})}
    # children import the small stdlib helpers of benchmarks/ (e.g. _peak)
    full_env["PYTHONPATH"] = os.pathsep.join(p for p in (full_env.get("PYTHONPATH"), str(HERE)) if p)
    done = subprocess.run(cmd, capture_output=True, text=True, env=full_env, cwd=cwd,
                          timeout=timeout)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({done.returncode}):\n"
                           f"{done.stderr[-2000:]}")
    return json.loads(lines[-1])


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "system": f"{platform.system()} {platform.release()}"}


def baseline_tree(rev: str) -> Path:
    """agenteval as of git revision ``rev``, extracted once under .cache (for before/after)."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", f"{rev}^{{commit}}"],
                            capture_output=True, text=True, check=True).stdout.strip()
    target = ROOT / ".cache" / f"baseline-{commit}"  # by commit: HEAD~1 moves, a hash does not
    if not (target / "agenteval" / "__init__.py").exists():
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit,
                                  "agenteval"], capture_output=True, check=True).stdout
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(target)
    return target


def print_result(result: dict) -> None:
    """The benchmark's one JSON line (run_all.py collects it)."""
    print(json.dumps(result), flush=True)


def python() -> str:
    return sys.executable
