"""Statistics side by side: per-conversation Bayesian pass@k / pass^k with 95% intervals.

For 1k, 100k and 1M conversations (seeded n in 1..10 interactions, c <= n correct, k = 3):

- agenteval: ``BayesianMode().estimate(n, c, k)``, exact (Beta posterior means and equal-tailed
  Beta quantiles mapped through p^k and 1-(1-p)^k), median over repeats;
- the peer, alquimia-fair-forge 3.0.0 in the benchmark venv: ``BayesianMode().rate_estimation``
  per conversation (5,000 Monte Carlo draws) and the transforms of its ``Agentic._process``.
  Past ``--peer-limit`` conversations the peer is timed on the first ``--peer-limit`` and its
  time scaled linearly (it is a per-conversation loop), which the output says.

Reports the time ratio and the peer's largest error against agenteval's exact values (means and
bounds of pass@k and pass^k). Both use the prior Beta(1, 1) and 95% equal-tailed intervals.
Run: ``.venv/bin/python benchmarks/bench_bayesian.py`` (last line JSON).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _common import CACHE, PEER_SCRIPT, loadavg, median, peer_python, print_result, run_json

K = 3
SEED = 2024


def counts(size: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    n = rng.integers(1, 11, size)
    return n, rng.integers(0, n + 1)


def ours(n: np.ndarray, c: np.ndarray) -> tuple[float, np.ndarray]:
    from agenteval.statistical import BayesianMode

    t0 = time.perf_counter()
    e = BayesianMode().estimate(n, c, K)
    seconds = time.perf_counter() - t0
    return seconds, np.stack([e.pass_at_k, e.pass_at_k_low, e.pass_at_k_high,
                              e.pass_pow_k, e.pass_pow_k_low, e.pass_pow_k_high])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--peer-limit", type=int, default=20_000)
    args = parser.parse_args()
    peer, why = peer_python()
    CACHE.mkdir(parents=True, exist_ok=True)
    ours(*counts(10))  # warm-up: scipy's import is not part of the timing (bench_import has it)
    load_before = loadavg()
    rows = []
    for size in args.sizes:
        n, c = counts(size)
        times, peer_times, exact, peer_err, peer_n = [], [], None, None, min(size, args.peer_limit)
        for rep in range(args.repeats):
            seconds, exact = ours(n, c)
            times.append(seconds)
            if peer is not None and (rep < 3 if size <= args.peer_limit else rep < 1):
                path = CACHE / f"nc_{size}.npy"
                np.save(path, np.stack([n[:peer_n], c[:peer_n]]))
                out = run_json([str(peer), str(PEER_SCRIPT), "stats", str(path), str(K)])
                peer_times.append(out["seconds"] * size / peer_n)
                got = np.load(path.with_suffix(".peer.npy"))
                peer_err = float(np.max(np.abs(got - exact[:, :peer_n])))
        row = {"conversations": size, "agenteval_s": round(median(times), 5),
               "agenteval_repeats": len(times)}
        if peer_times:
            row.update(peer_s=round(median(peer_times), 3), peer_repeats=len(peer_times),
                       peer_timed_conversations=peer_n, peer_extrapolated=peer_n < size,
                       ratio=round(median(peer_times) / median(times), 1),
                       peer_max_abs_error=round(peer_err, 4))
        rows.append(row)
        print(f"{size:>9,} conversations: agenteval {row['agenteval_s']:.4f} s"
              + (f", peer {row['peer_s']:.2f} s{' (scaled from ' + format(peer_n, ',') + ')' if peer_n < size else ''}"
                 f" -> {row['ratio']:,}x; peer max |error| {row['peer_max_abs_error']}"
                 if peer_times else f" (peer skipped: {why})"), flush=True)
    print_result({"benchmark": "statistics", "k": K, "rows": rows, "peer_skipped": why or None,
                  "loadavg_before": load_before, "loadavg_after": loadavg()})


if __name__ == "__main__":
    main()
