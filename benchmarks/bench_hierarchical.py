"""Benchmark: hierarchical Beta-Binomial fit time for 50, 1,000, 10,000 and 1,000,000 units.

Each measurement runs in its own process (so "cold" really means an empty PyTensor compile cache
and nothing imported): cold = a fresh compile folder; warm = the folder a previous fit filled.
Timed: the PyMC fit (model build + compile + NUTS, default settings: 4 chains x (1000 tune +
1000 draws), one core) and the empirical-Bayes fit of the same data; the import of PyMC is timed
apart. Units have n ~ U{1..10} interactions and p ~ Beta(0.65 * 6, 0.35 * 6), two agents, so the
distinct (agent, n, c) triples stay near 2 x 65 however many units there are. Sizes and cold /
warm runs are interleaved; the last printed line is JSON.

Run: .venv/bin/python benchmarks/bench_hierarchical.py [--sizes 50 1000] [--repeats 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = (50, 1_000, 10_000, 1_000_000)

CHILD = r"""
import json, sys, time, warnings
t0 = time.perf_counter()
from agenteval.statistical import hierarchical as hier
pm = hier.import_pymc()
t_import = time.perf_counter() - t0
import numpy as np
units = int(sys.argv[1])
rng = np.random.default_rng(units)
n = rng.integers(1, 11, units)
c = rng.binomial(n, rng.beta(0.65 * 6, 0.35 * 6, units))
g = rng.integers(0, 2, units)
t1 = time.perf_counter()
eb = hier.fit_empirical_bayes(n, c, g, seed=1)
t_eb = time.perf_counter() - t1
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t2 = time.perf_counter()
    fit = hier.fit_mcmc(n, c, g, seed=1)
    t_fit = time.perf_counter() - t2
d = fit.diagnostics
print(json.dumps({"units": units, "triples": int(fit.triples[0].size), "import_s": t_import,
                  "mcmc_s": t_fit, "eb_s": t_eb, "r_hat_max": d["r_hat_max"],
                  "ess_bulk_min": d["ess_bulk_min"], "ess_tail_min": d["ess_tail_min"],
                  "divergences": d["divergences"], "ok": d["ok"],
                  "mu_mcmc": fit.population(3, 0.95)["mu"], "mu_eb": eb.population(3, 0.95)["mu"]}))
"""


def run_child(units: int, compiledir: Path) -> dict:
    env = {**os.environ, "AGENTEVAL_PYTENSOR_DIR": str(compiledir)}
    env.pop("PYTENSOR_FLAGS", None)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, str(units)], env=env, capture_output=True,
                         text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["process_s"] = time.perf_counter() - start
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="agenteval-bench-") as tmp:
        warm_dir = Path(tmp) / "warm"
        run_child(50, warm_dir)   # fill the warm cache once
        for rep in range(args.repeats):
            for units in args.sizes:   # interleaved: cold, warm, next size
                cold = run_child(units, Path(tmp) / f"cold-{units}-{rep}")
                warm = run_child(units, warm_dir)
                rows.append({"units": units, "cold": cold, "warm": warm})
                print(f"{units:>9} units ({cold['triples']} distinct triples): MCMC cold "
                      f"{cold['mcmc_s']:6.1f} s, warm {warm['mcmc_s']:6.1f} s; empirical Bayes "
                      f"{warm['eb_s']:6.2f} s; import pymc cold {cold['import_s']:.1f} s; max r_hat "
                      f"{warm['r_hat_max']:.3f}, min ESS bulk {warm['ess_bulk_min']:.0f} tail "
                      f"{warm['ess_tail_min']:.0f}, divergences {warm['divergences']}; mu MCMC "
                      f"{warm['mu_mcmc']:.3f} EB {warm['mu_eb']:.3f}", flush=True)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(json.dumps({"benchmark": "hierarchical", "machine": platform.platform(),
                      "python": platform.python_version(), "cpus": os.cpu_count(),
                      "load_average": load, "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                      "rows": rows}))


if __name__ == "__main__":
    main()
