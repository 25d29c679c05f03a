"""Per-draw sums over m tasks that share one Beta posterior, without a draw per task when m is large.

Given draws of (a, b) (one per posterior draw of the hyperparameters), the sum over m independent
p_t ~ Beta(a, b) of p, 1 - (1 - p)^k or p^k is what a suite-level interval needs. For small m
each p_t is drawn; for m > ``EXACT_GROUP`` the sum is drawn from the normal with its exact mean and
variance (the central limit theorem over m independent bounded terms), corrected to its exact
skewness by the Cornish-Fisher term, so a suite costs what its
distinct (n, c) pairs cost, not what its tasks cost. The suite comparisons
(:func:`agenteval.statistical.compare.draws.suite_mean_draws`) and the hierarchical fits' suite
summaries (:meth:`agenteval.statistical.hierarchical.HierarchicalFit.task_summary`) share this.
"""

from __future__ import annotations

import numpy as np

__all__ = ["EXACT_GROUP", "beta_moment", "beta_sums"]

EXACT_GROUP = 24
"""Tasks sharing a posterior with more members than this are summed by their exact moments."""


def beta_moment(a: np.ndarray, b: np.ndarray, j: int) -> np.ndarray:
    """E[p^j] for p ~ Beta(a, b), exactly: prod_{i<j} (a + i) / (a + b + i)."""
    out = np.ones(np.shape(a))
    for i in range(j):
        out = out * (a + i) / (a + b + i)
    return out


def _moments(kind: str, k: int, a: np.ndarray, b: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, variance and skewness of one term: kind "rate" (p), "at" (1 - (1-p)^k) or "pow"
    (p^k), from the exact raw moments of a power of a Beta variable."""
    if kind == "at":  # 1 - q with q = (1-p)^k and (1-p) ~ Beta(b, a): q's moments, skew negated
        a, b, sign, power = b, a, -1.0, k
    else:
        sign, power = 1.0, (1 if kind == "rate" else k)
    m1, m2, m3 = (beta_moment(a, b, power * j) for j in (1, 2, 3))
    var = np.maximum(m2 - m1 ** 2, 0.0)
    third = m3 - 3 * m1 * m2 + 2 * m1 ** 3
    with np.errstate(divide="ignore", invalid="ignore"):
        skew = np.where(var > 0, sign * third / var ** 1.5, 0.0)
    mean = 1.0 - m1 if kind == "at" else m1
    return mean, var, skew


def _term(kind: str, k: int, p: np.ndarray) -> np.ndarray:
    if kind == "rate":
        return p
    if kind == "pow":
        return p ** k
    return 1.0 - (1.0 - p) ** k


def beta_sums(a: np.ndarray, b: np.ndarray, m: int, k: int, kinds: tuple[str, ...],
              rng: np.random.Generator) -> dict[str, np.ndarray]:
    """{kind: per-draw sum over m independent p ~ Beta(a, b) of that term}, one value per draw.

    ``a``, ``b``: (draws,) arrays; ``kinds``: any of "rate", "at" (pass@k), "pow" (pass^k).
    """
    if m <= EXACT_GROUP:
        p = rng.beta(a[:, None], b[:, None], size=(a.size, int(m)))
        return {kind: _term(kind, k, p).sum(axis=1) for kind in kinds}
    z = rng.standard_normal((len(kinds), a.size))
    out = {}
    for i, kind in enumerate(kinds):
        mean, var, skew = _moments(kind, k, a, b)
        # Cornish-Fisher to the sum's skewness (skew / sqrt(m)): a bounded term such as p^k can
        # be far from symmetric, and the plain normal then misplaces the interval's ends
        shifted = z[i] + skew / (6.0 * np.sqrt(m)) * (z[i] ** 2 - 1.0)
        out[kind] = np.clip(m * mean + np.sqrt(m * var) * shifted, 0.0, float(m))
    return out
