"""Estimators judged by simulation: bias, RMSE and 95% coverage of every mode's task-level numbers.

Two generators of suites of 50 tasks x 4 attempts (seeded):

- ``beta``: task rates p_t ~ Beta(0.642, 0.858), the maximum-likelihood Beta-Binomial fit to
  tau-bench's published gpt-4o airline trials; attempts Binomial(4, p_t).
- ``resampled``: 50 tasks drawn with replacement from those 50 real tasks, each with its real
  success share as its rate (p_t = c_t / 4: 28% of the real tasks always fail, 20% always
  succeed), attempts re-drawn Binomial(4, p_t).

Truths per suite: *suite's tasks* mean_t p_t^k (pass^k) and mean_t 1-(1-p_t)^k (pass@k) of that
suite's own rates; *new task* the population's E[p^k] and E[1-(1-p)^k] (Beta moments; for
``resampled``, the mean over the 50 real tasks). Cells: bias / RMSE / coverage of the 95%
interval, for pass^1 (= pass@1) .. pass^4 and pass@2 .. pass@4, both scopes, every mode:

- ``unbiased``: the mean over tasks of C(c,k)/C(n,k) and 1 - C(n-c,k)/C(n,k) (no interval);
- ``default``: ``BayesianMode()`` as it stands (the headline of ``agenteval run``);
- ``flat``: ``BayesianMode(method="conjugate")``, independent Beta(1, 1) per task;
- ``empirical_bayes``: ``BayesianMode(method="empirical_bayes")``;
- ``frequentist``: ``FrequentistMode()``;
- ``pymc`` (``--pymc N``: N suites per generator only, it samples): ``method="hierarchical"``.

Every mode is called through ``mode.task_estimates`` (the public path of the suite summary), so
the same script measures any checkout: ``PYTHONPATH=<tree> python benchmarks/bench_estimators.py``.
The per-task counts of the real log are in ``benchmarks/data/taubench_gpt4o_airline_counts.json``
(``--extract FILE`` rebuilds them from tau-bench's ``historical_trajectories/gpt-4o-airline.json``).
Last line: JSON of every cell.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
COUNTS = HERE / "data" / "taubench_gpt4o_airline_counts.json"
TASKS, ATTEMPTS, KS = 50, 4, (1, 2, 3, 4)
BETA = (0.642, 0.858)
LEADERBOARD = {1: 0.420, 2: 0.273, 3: 0.220, 4: 0.200}


def real_counts() -> tuple[np.ndarray, np.ndarray]:
    data = json.loads(COUNTS.read_text())
    return np.array(data["n"], dtype=np.int64), np.array(data["c"], dtype=np.int64)


def extract(path: str) -> dict:
    """Per task_id (n trials, c successes) from a tau-bench results file."""
    records = json.loads(Path(path).read_text())
    out: dict[str, list[int]] = {}
    for r in sorted(records, key=lambda r: (r["task_id"], r["trial"])):
        n, c = out.setdefault(str(r["task_id"]), [0, 0])
        out[str(r["task_id"])] = [n + 1, c + int(abs(float(r["reward"]) - 1.0) < 1e-6)]
    return {"task_id": list(out), "n": [v[0] for v in out.values()],
            "c": [v[1] for v in out.values()]}


def truths_population(gen: str) -> dict[str, float]:
    from scipy.special import betaln

    out = {}
    if gen == "beta":
        a, b = BETA
        for k in KS:
            out[f"pass^{k}"] = math.exp(betaln(a + k, b) - betaln(a, b))
            out[f"pass@{k}"] = 1.0 - math.exp(betaln(a, b + k) - betaln(a, b))
    else:
        n, c = real_counts()
        p = c / n
        for k in KS:
            out[f"pass^{k}"] = float(np.mean(p ** k))
            out[f"pass@{k}"] = float(np.mean(1 - (1 - p) ** k))
    return out


def draw_suite(gen: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(p_t, c_t) of one suite; n_t = ATTEMPTS."""
    if gen == "beta":
        p = rng.beta(*BETA, size=TASKS)
    else:
        n, c = real_counts()
        p = (c / n)[rng.integers(0, n.size, size=TASKS)]
    return p, rng.binomial(ATTEMPTS, p)


def quantities() -> list[str]:
    return [f"pass^{k}" for k in KS] + [f"pass@{k}" for k in KS if k > 1]


def build_modes(pymc: bool) -> dict[str, object]:
    from agenteval.statistical.modes import BayesianMode, FrequentistMode

    modes: dict[str, object] = {"unbiased": None, "default": BayesianMode(),
                                "flat": BayesianMode(method="conjugate"),
                                "empirical_bayes": BayesianMode(method="empirical_bayes"),
                                "frequentist": FrequentistMode()}
    if pymc:
        modes["pymc"] = BayesianMode(method="hierarchical", draws=500, tune=500, chains=2)
    return modes


def estimates(mode: object, n: np.ndarray, c: np.ndarray) -> dict[tuple[str, str], tuple]:
    """{(quantity, scope): (value, low, high)} for one suite."""
    out: dict[tuple[str, str], tuple] = {}
    for k in KS:
        if mode is None:
            from agenteval.statistical.estimators import pass_at_k_unbiased, pass_pow_k_unbiased

            pw = float(np.mean(pass_pow_k_unbiased(n, c, k)))
            at = float(np.mean(pass_at_k_unbiased(n, c, k)))
            vals = {"pass_pow_k": (pw, math.nan, math.nan), "pass_at_k": (at, math.nan, math.nan)}
            for scope in ("suite", "new"):
                out[(f"pass^{k}", scope)] = vals["pass_pow_k"]
                if k > 1:
                    out[(f"pass@{k}", scope)] = vals["pass_at_k"]
            continue
        est = mode.task_estimates(n, c, k, groups=np.zeros(n.size, dtype=np.int64),
                                  names=["agent"])[0]
        for scope, prefix in (("suite", "task_"), ("new", "new_task_")):
            for name, field in ((f"pass^{k}", "pass_pow_k"), (f"pass@{k}", "pass_at_k")):
                if name == "pass@1":
                    continue
                f = prefix + field
                out[(name, scope)] = (getattr(est, f), getattr(est, f + "_low"),
                                      getattr(est, f + "_high"))
    return out


def run(suites: dict[str, int], pymc_suites: int, seed: int) -> dict:
    import warnings

    modes = build_modes(pymc_suites > 0)
    # a mode that is another one under a second name (the default, usually) is computed once
    same = {name: next(o for o in modes if repr(modes[o]) == repr(mode))
            for name, mode in modes.items()}
    cells: dict[str, dict] = {}
    timing: dict[str, float] = {name: 0.0 for name in modes}
    for gi, (gen, count) in enumerate(suites.items()):
        pop = truths_population(gen)
        rng = np.random.default_rng([seed, gi])
        errs: dict[tuple, list] = {}
        for s in range(count):
            p, c = draw_suite(gen, rng)
            n = np.full(TASKS, ATTEMPTS, dtype=np.int64)
            truth = {}
            for k in KS:
                truth[(f"pass^{k}", "suite")] = float(np.mean(p ** k))
                truth[(f"pass@{k}", "suite")] = float(np.mean(1 - (1 - p) ** k))
                truth[(f"pass^{k}", "new")] = pop[f"pass^{k}"]
                truth[(f"pass@{k}", "new")] = pop[f"pass@{k}"]
            done: dict[str, dict] = {}
            for name, mode in modes.items():
                if name == "pymc" and s >= pymc_suites:
                    continue
                t0 = time.perf_counter()
                if same[name] in done:
                    est = done[same[name]]
                else:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est = done[name] = estimates(mode, n, c)
                timing[name] += time.perf_counter() - t0
                for key, (v, lo, hi) in est.items():
                    t = truth[key]
                    errs.setdefault((name,) + key, []).append(
                        (v - t, (lo <= t <= hi) if not math.isnan(lo) else math.nan))
        for (name, q, scope), rows in errs.items():
            e = np.array([r[0] for r in rows], dtype=float)
            cov = np.array([r[1] for r in rows], dtype=float)
            cells[f"{gen}|{q}|{scope}|{name}"] = {
                "bias": float(np.nanmean(e)), "rmse": float(np.sqrt(np.nanmean(e ** 2))),
                "coverage": float(np.mean(cov)) if not np.isnan(cov).all() else math.nan,
                "suites": int(e.size)}
    return {"cells": cells, "seconds": timing, "modes": {k: repr(v) for k, v in modes.items()}}


def real_log(modes: dict[str, object]) -> dict[str, dict[str, float]]:
    """Every mode's suite's-task pass^1..4 on the real gpt-4o airline counts."""
    n, c = real_counts()
    out: dict[str, dict[str, float]] = {}
    for name, mode in modes.items():
        if name == "pymc":
            continue
        est = estimates(mode, n, c)
        out[name] = {f"pass^{k}": est[(f"pass^{k}", "suite")][0] for k in KS}
    return out


def table(result: dict) -> str:
    cells = result["cells"]
    names = list(result["modes"])
    lines = ["| generator | quantity | scope | " + " | ".join(names) + " |",
             "|---|---|---|" + "---|" * len(names)]
    for gen in ("beta", "resampled"):
        for scope in ("suite", "new"):
            for q in quantities():
                row = []
                for name in names:
                    cell = cells.get(f"{gen}|{q}|{scope}|{name}")
                    if cell is None:
                        row.append("")
                        continue
                    text = f"{cell['bias']:+.3f}/{cell['rmse']:.3f}"
                    if not math.isnan(cell["coverage"]):
                        text += f"/{cell['coverage']:.2f}"
                    row.append(text)
                scope_name = "suite's tasks" if scope == "suite" else "new task"
                lines.append(f"| {gen} | {q} | {scope_name} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def check(result: dict, mode: str = "default") -> list[str]:
    """The done-when bands for one mode: |bias| <= 0.02, coverage in [0.92, 0.98]."""
    bad = []
    for key, cell in result["cells"].items():
        gen, q, scope, name = key.split("|")
        if name != mode:
            continue
        if abs(cell["bias"]) > 0.02 or not 0.92 <= cell["coverage"] <= 0.98:
            bad.append(f"{key}: bias {cell['bias']:+.3f}, coverage {cell['coverage']:.3f}")
    return bad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--beta-suites", type=int, default=800)
    ap.add_argument("--resampled-suites", type=int, default=600)
    ap.add_argument("--pymc", type=int, default=0, metavar="N",
                    help="also PyMC NUTS on N suites per generator (slow: ~seconds per fit)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--extract", metavar="FILE", help="print per-task counts of a tau-bench "
                    "results file (JSON) and exit")
    ap.add_argument("--out", type=Path, help="also write the JSON result here")
    args = ap.parse_args()
    if args.extract:
        print(json.dumps(extract(args.extract)))
        return
    import agenteval

    t0 = time.perf_counter()
    result = run({"beta": args.beta_suites, "resampled": args.resampled_suites}, args.pymc,
                 args.seed)
    result["real_log"] = real_log(build_modes(False))
    result["leaderboard"] = {f"pass^{k}": v for k, v in LEADERBOARD.items()}
    result["agenteval"] = str(Path(agenteval.__file__).parent)
    result["wall_seconds"] = time.perf_counter() - t0
    result["default_outside_bands"] = check(result)
    print(f"agenteval from {result['agenteval']}; default mode: {result['modes']['default']}")
    print("cells: bias / RMSE / coverage of the 95% interval")
    print(table(result))
    print("\nreal tau-bench gpt-4o airline log, suite's tasks pass^1..4 (leaderboard "
          + " / ".join(f"{v:.3f}" for v in LEADERBOARD.values()) + "):")
    for name, vals in result["real_log"].items():
        print(f"  {name:<16} " + " / ".join(f"{v:.3f}" for v in vals.values()))
    print(f"\ndefault mode cells outside |bias| <= 0.02, coverage [0.92, 0.98]: "
          f"{len(result['default_outside_bands'])}")
    for line in result["default_outside_bands"]:
        print("  " + line)
    print("seconds per mode: " + ", ".join(f"{k} {v:.1f}" for k, v in result["seconds"].items())
          + f"; wall {result['wall_seconds']:.0f} s")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
