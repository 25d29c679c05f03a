"""Coverage of judge-only vs judge-corrected intervals, by number of human labels.

A judge with known sensitivity 0.9 / specificity 0.75 judges suites of two agents (theta 0.85
and 0.7 per interaction), 40 tasks each of 1..5 interactions, 3 attempts per task (600
conversations, ~1,800 interactions); ``n`` interactions drawn at random carry their human label.
For agent 0 the table gives, over ``--reps`` seeded suites, how often the 95% interval covers
the true (human) value and its mean width, for the interaction rate, the share of fully correct
conversations and the suite's-task pass^2 / pass@2:

- judge-only: the judge's verdicts taken as the truth (Wilson interval for the rates; the
  unbiased estimators with a task bootstrap for pass^k/pass@k);
- Rogan-Gladen (Fieller) and PPI++ for the interaction rate;
- corrected, frequentist (parametric + task bootstrap), frequentist cluster (conversations
  resampled, labelled and judged items alike) and Bayesian (latent-truth model).

Three judges: ``iid`` errors (the model's assumption); ``fails tasks``: on 15% of the tasks
the judge fails as a whole and calls every interaction of every attempt correct, whatever the
truth, so its errors are correlated within a task and its conversations
(``judge_sim.make_suite(fooled=0.15)``); ``fails hard``: 20% of the tasks are hard (rate 0.4 per
interaction) and the judge calls all of those correct (``fooled=0.2, fooled_theta=0.4``), so
its errors are correlated with the truth through the task, the worst case for compounding.
``corrected cluster`` resamples whole tasks (``cluster=task``).

Run: ``.venv/bin/python benchmarks/bench_judge_error.py [--reps 50]`` (last line JSON).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "statistical"))
sys.path.insert(0, str(ROOT))

from judge_sim import make_suite  # noqa: E402

from agenteval.statistical import judge_error as je  # noqa: E402

K = 2


def wilson(x: float, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = x / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return c - h, c + h


def judge_only(s, g: int, rng: np.random.Generator):
    """The judge's verdicts as the truth: the same estimators the uncorrected headline uses."""
    m = s.group[s.conversation] == g
    full = np.ones(s.group.size, bool)
    np.logical_and.at(full, s.conversation, s.judge == 1)
    members = s.group == g
    out = {"rate": wilson(s.judge[m].sum(), int(m.sum())),
           "share": wilson(full[members].sum(), int(members.sum()))}
    # tasks: unbiased estimators, bootstrap over tasks
    task = s.task[members]
    f = full[members].astype(float)
    _, t = np.unique(task, return_inverse=True)
    c_t = np.bincount(t, weights=f)
    n_t = np.bincount(t)
    from scipy.special import comb
    pw = comb(c_t, K) / comb(n_t, K)
    at = 1 - comb(n_t - c_t, K) / comb(n_t, K)
    idx = rng.integers(0, t.max() + 1, size=(1000, t.max() + 1))
    out["pass_pow"] = tuple(np.quantile(pw[idx].mean(1), [0.025, 0.975]))
    out["pass_at"] = tuple(np.quantile(at[idx].mean(1), [0.025, 0.975]))
    return out


METHODS = (("corrected freq", dict(bayesian=False)),
           ("corrected cluster", dict(bayesian=False, cluster="task")),
           ("corrected Bayes", dict(bayesian=True)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--labels", type=int, nargs="*", default=[50, 100, 200, 400])
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    rows = []
    settings = (("iid", {}), ("fails tasks", {"fooled": 0.15}),
                ("fails hard", {"fooled": 0.2, "fooled_theta": 0.4}))
    for judge_kind, judge_kw in settings:
        for n_labels in args.labels:
            cells: dict[str, list[tuple[bool, float]]] = {}

            def add(name: str, iv, true: float) -> None:
                lo, hi = iv[-2], iv[-1]
                cells.setdefault(name, []).append((lo <= true <= hi, hi - lo))

            not_identified = {name: 0 for name, _ in METHODS}
            for r in range(args.reps):
                s = make_suite(np.random.default_rng(10_000 + r), n_labels=n_labels, k=K,
                               **judge_kw)
                truths = {"rate": s.true_rate[0], "share": s.true_share[0],
                          "pass_pow": s.true_pass_pow[0], "pass_at": s.true_pass_at[0]}
                for q, iv in judge_only(s, 0, np.random.default_rng(r)).items():
                    add(f"judge-only {q}", iv, truths[q])
                lab = ~np.isnan(s.human)
                m = s.group[s.conversation] == 0
                u = m & ~lab
                rg = je.rogan_gladen(int(s.judge[u].sum()), int(u.sum()),
                                     je.confusion(s.human[lab], s.judge[lab]))
                add("Rogan-Gladen rate", (rg.low, rg.high), truths["rate"])
                if (m & lab).sum() >= 2:
                    add("PPI++ rate", je.ppi_mean(s.human[m & lab], s.judge[m & lab],
                                                  s.judge[u]), truths["rate"])
                for name, kw in METHODS:
                    kw = {**kw, "cluster": s.task} if "cluster" in kw else kw
                    c = je.correct_conversations(s.conversation, s.judge, s.human, s.group,
                                                 s.task, k=K, draws=1000, seed=r, **kw)[0]
                    not_identified[name] += not c.identified
                    add(f"{name} rate", c.interaction_rate, truths["rate"])
                    add(f"{name} share", c.share, truths["share"])
                    add(f"{name} pass_pow", c.pass_pow_k, truths["pass_pow"])
                    add(f"{name} pass_at", c.pass_at_k, truths["pass_at"])
            for name, v in cells.items():
                arr = np.array(v)
                rows.append({"judge": judge_kind, "labels": n_labels, "interval": name,
                             "coverage": float(arr[:, 0].mean()),
                             "width": float(arr[:, 1].mean()), "runs": len(v)})
            for name, count in not_identified.items():
                rows.append({"judge": judge_kind, "labels": n_labels,
                             "interval": f"{name} not identified", "coverage": None,
                             "width": None, "runs": count})
    seconds = time.perf_counter() - t0
    qs = ["rate", "share", "pass_pow", "pass_at"]
    names = ["judge-only", *(name for name, _ in METHODS)]
    print(f"{'judge':<12}{'labels':>6}  {'interval':<18}"
          + "".join(f"{q:>17}" for q in ["rate", "share", f"pass^{K}", f"pass@{K}"]))
    for judge_kind, _ in settings:
        for n_labels in args.labels:
            cells = {r["interval"]: r for r in rows
                     if r["labels"] == n_labels and r["judge"] == judge_kind}
            for nm in [*names, "Rogan-Gladen", "PPI++"]:
                line = f"{judge_kind:<12}{n_labels:>6}  {nm:<18}"
                for q in qs:
                    r = cells.get(f"{nm} {q}")
                    line += f"{r['coverage']:>9.2f} w{r['width']:.3f}" if r else f"{'':>17}"
                print(line)
    print(json.dumps({"reps": args.reps, "seconds": round(seconds, 1),
                      "rows": rows}))


if __name__ == "__main__":
    main()
