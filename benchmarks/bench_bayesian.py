"""Benchmark: exact conjugate BayesianMode.estimate over 1,000,000 conversations.

Compares against (a) the same closed forms computed without grouping identical (n, c) pairs and
(b) a naive per-conversation Python loop in the Fair Forge style (5000 Monte Carlo posterior
draws per conversation, mean and percentiles), timed on a 10,000-conversation subset and scaled.
The last printed line is JSON.

Run: .venv/bin/python benchmarks/bench_bayesian.py
"""

from __future__ import annotations

import json
import platform
import time

import numpy as np

from agenteval.statistical import BayesianMode
from agenteval.statistical import estimators as est

N_CONV = 1_000_000
N_BASELINE = 10_000
K = 3
SEED = 2024


def naive_loop(n: np.ndarray, c: np.ndarray, k: int, *, mc_samples: int = 5000, level: float = 0.95,
               seed: int = 42) -> list[tuple[float, ...]]:
    """One conversation at a time, sampling the posterior as a straightforward implementation would."""
    rng = np.random.default_rng(seed)
    tails = [100 * (1 - level) / 2, 100 * (1 + level) / 2]
    out = []
    for ni, ci in zip(n.tolist(), c.tolist()):
        p = rng.beta(1.0 + ci, 1.0 + ni - ci, size=mc_samples)
        at, pw = 1 - (1 - p) ** k, p ** k
        out.append((p.mean(), *np.percentile(p, tails), at.mean(), *np.percentile(at, tails),
                    pw.mean(), *np.percentile(pw, tails)))
    return out


def ungrouped(n: np.ndarray, c: np.ndarray, k: int, level: float = 0.95) -> tuple[np.ndarray, ...]:
    """The same exact closed forms, vectorised over every conversation without grouping."""
    a, b = 1.0 + c, 1.0 + n - c
    lo, hi = est.beta_interval(a, b, level)
    return (a / (a + b), lo, hi, est.beta_pass_at_k_mean(a, b, k), est.beta_pass_pow_k_mean(a, b, k))


def best_of(fn, repeats: int = 3) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    rng = np.random.default_rng(SEED)
    n = rng.integers(1, 11, N_CONV)
    c = rng.integers(0, n + 1)
    mode = BayesianMode()

    t_grouped, res = best_of(lambda: mode.estimate(n, c, K))
    t_ungrouped, raw = best_of(lambda: ungrouped(n, c, K), repeats=1)
    # both paths must agree (exact closed forms either way)
    max_abs_diff = max(float(np.max(np.abs(x - y))) for x, y in
                       zip((res.rate, res.rate_low, res.rate_high, res.pass_at_k, res.pass_pow_k), raw))

    sub = slice(0, N_BASELINE)
    t_naive_sub, naive = best_of(lambda: naive_loop(n[sub], c[sub], K), repeats=1)
    t_naive = t_naive_sub * N_CONV / N_BASELINE
    naive_at = np.array([row[3] for row in naive])
    mc_max_err = float(np.max(np.abs(naive_at - res.pass_at_k[sub])))

    print(f"machine: {platform.processor() or platform.machine()}, numpy {np.__version__}")
    print(f"conversations: {N_CONV:,} (n in 1..10, c <= n), k = {K}, "
          f"unique (n, c) pairs: {len(np.unique(n * 11 + c))}")
    print(f"BayesianMode.estimate (exact, grouped):   {t_grouped:8.3f} s")
    print(f"exact closed forms, no grouping:          {t_ungrouped:8.3f} s  (max |diff| {max_abs_diff:.1e})")
    print(f"naive MC loop, {N_BASELINE:,} conv scaled to 1e6: {t_naive:8.1f} s  "
          f"(measured {t_naive_sub:.2f} s; max |MC - exact| pass@k {mc_max_err:.3f})")
    print(f"speed-up vs naive loop: {t_naive / t_grouped:,.0f}x")
    print(json.dumps({
        "n_conversations": N_CONV, "k": K,
        "bayesian_estimate_s": round(t_grouped, 4),
        "exact_ungrouped_s": round(t_ungrouped, 4),
        "naive_loop_subset": N_BASELINE,
        "naive_loop_subset_s": round(t_naive_sub, 4),
        "naive_loop_scaled_s": round(t_naive, 2),
        "speedup_vs_naive": round(t_naive / t_grouped, 1),
        "speedup_vs_ungrouped": round(t_ungrouped / t_grouped, 1),
        "max_abs_diff_grouped_vs_ungrouped": max_abs_diff,
        "max_abs_err_naive_mc_pass_at_k": mc_max_err,
    }))


if __name__ == "__main__":
    main()
