"""How often does a nominal 95% interval for a binomial rate contain the true rate?

Exact coverage, not simulation: for n trials and true rate p the count c is Binomial(n, p), so
coverage(n, p) = sum over c = 0..n of P(c | n, p) * [low(c, n) <= p <= high(c, n)]. A Monte
Carlo simulation converges to this number; enumerating the n + 1 outcomes gives it without
noise. Vectorised over n, c and p at once (a (len(n), max(n) + 1, len(p)) array), so the
classic picture, n = 3 .. 100 over a fine grid of p, takes well under a second.

Methods: ``wald`` (the CLT interval p_hat +- z sqrt(p_hat (1 - p_hat) / n), shown for its
failure at small n: zero width at c = 0 or c = n), ``wilson``, ``clopper-pearson`` and
``bayes`` (equal-tailed Beta(a + c, b + n - c) quantiles; ``bayes`` uses the uniform prior,
``jeffreys`` Beta(1/2, 1/2)). See Brown, Cai & DasGupta (2001), "Interval estimation for a
binomial proportion", Statistical Science 16(2).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agenteval.errors import ConfigError, check_level
from agenteval.statistical import estimators as est

__all__ = ["METHODS", "binomial_interval", "coverage", "wald_interval"]

METHODS = ("wald", "wilson", "clopper-pearson", "bayes", "jeffreys")


def wald_interval(c: Any, n: Any, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The textbook Wald interval, clipped to [0, 1]; ``nan`` where ``n == 0``.

    >>> lo, hi = wald_interval(5, 10, 0.95)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.1901, 0.8099)
    >>> [float(x) for x in wald_interval(0, 10)]   # zero width: the failure at the boundary
    [0.0, 0.0]
    """
    from scipy.special import ndtri

    level = check_level("level", level)
    c, n = np.asarray(c, dtype=float), np.asarray(n, dtype=float)
    z = float(ndtri(0.5 + level / 2.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = c / n
        half = z * np.sqrt(p * (1.0 - p) / n)
    return np.clip(p - half, 0.0, 1.0), np.clip(p + half, 0.0, 1.0)


def binomial_interval(c: Any, n: Any, method: str, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the ``method`` interval for c successes in n trials (arrays broadcast)."""
    c, n = np.asarray(c, dtype=float), np.asarray(n, dtype=float)
    if method == "wald":
        return wald_interval(c, n, level)
    if method == "wilson":
        return est.wilson_interval(c, n, level)
    if method == "clopper-pearson":
        return est.clopper_pearson_interval(c, n, level)
    if method in ("bayes", "jeffreys"):
        a = 1.0 if method == "bayes" else 0.5
        return est.beta_interval(a + c, a + n - c, level)
    raise ConfigError(f"method must be one of {list(METHODS)}, got {method!r}")


def coverage(n: Any, p: Any, *, method: str, level: float = 0.95) -> np.ndarray:
    """Exact coverage probability of the ``method`` interval, shape (len(n), len(p)).

    >>> cov = coverage([10], [0.5], method="clopper-pearson")
    >>> bool(cov[0, 0] >= 0.95)   # Clopper-Pearson never undercovers
    True
    """
    from scipy.stats import binom

    n = np.atleast_1d(np.asarray(n))
    p = np.atleast_1d(np.asarray(p, dtype=float))
    if n.ndim != 1 or p.ndim != 1:
        raise ConfigError("n and p must be scalars or 1-d arrays")
    if n.size == 0 or np.any(n < 1) or np.any(n != np.floor(n)):
        raise ConfigError(f"n must hold integers >= 1, got {n!r}")
    if np.any((p < 0) | (p > 1)):
        raise ConfigError("p must lie in [0, 1]")
    n = n.astype(int)
    c = np.arange(n.max() + 1)
    valid = c[None, :] <= n[:, None]                                   # (N, C)
    cc = np.where(valid, c[None, :], 0)
    low, high = binomial_interval(cc, np.broadcast_to(n[:, None], cc.shape), method, level)
    pmf = binom.pmf(c[None, :, None], n[:, None, None], p[None, None, :])   # (N, C, P)
    inside = (low[:, :, None] <= p) & (p <= high[:, :, None]) & valid[:, :, None]
    return np.sum(pmf * inside, axis=1)
