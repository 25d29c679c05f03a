"""Paired proportions with one attempt per task: Newcombe's interval and the exact McNemar test."""

from __future__ import annotations

from typing import Any

import numpy as np

from agenteval.errors import ConfigError, check_level

__all__ = ["mcnemar_exact", "newcombe_paired"]


def newcombe_paired(both: Any, a_only: Any, b_only: Any, neither: Any, *,
                    ci_level: float = 0.95) -> tuple[Any, Any, Any]:
    """Newcombe's interval for the difference of paired proportions, (difference, low, high).

    Newcombe (1998), "Improved confidence intervals for the difference between binomial
    proportions based on paired data", Statistics in Medicine 17: 2635-2650, method 10: the
    Wilson score intervals (l1, u1), (l2, u2) of p1 = (both + a_only)/n and p2 = (both + b_only)/n
    combined with the phi correlation of the 2x2 table,

        low  = d - sqrt((p1 - l1)^2 - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)^2)
        high = d + sqrt((u1 - p1)^2 - 2 phi (u1 - p1)(p2 - l2) + (p2 - l2)^2)

    with phi = (AD - BC) / sqrt(EFGH) over the cells A = both, B = a_only, C = b_only, D = neither
    and margins E, F, G, H, where AD - BC > 0 is first reduced by n/2 (and floored at 0), and
    phi = 0 when a margin is 0. Vectorised over tables.

    The worked example of Fagerland, Lydersen & Laake (2017), "Statistical Analysis of
    Contingency Tables", ch. 8 (Cavo et al. 2012):

    >>> d, lo, hi = newcombe_paired(59, 6, 16, 80)
    >>> round(d, 4), round(lo, 4), round(hi, 4)
    (-0.0621, -0.1186, -0.0046)
    """
    from agenteval.statistical.estimators import wilson_interval

    level = check_level("ci_level", ci_level)
    cells = [np.asarray(x, dtype=float) for x in (both, a_only, b_only, neither)]
    scalar = all(x.ndim == 0 for x in cells)
    A, B, C, D = (np.atleast_1d(x) for x in np.broadcast_arrays(*cells))
    if np.any(np.concatenate([A, B, C, D]) < 0):
        raise ConfigError("cell counts must be >= 0")
    n = A + B + C + D
    if np.any(n == 0):
        raise ConfigError("a paired table needs at least one pair")
    p1, p2 = (A + B) / n, (A + C) / n
    l1, u1 = wilson_interval(A + B, n, level)
    l2, u2 = wilson_interval(A + C, n, level)
    margins = (A + B) * (C + D) * (A + C) * (B + D)
    cross = A * D - B * C
    cross = np.where(cross > 0, np.maximum(cross - n / 2.0, 0.0), cross)
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(margins > 0, cross / np.sqrt(margins), 0.0)
    d = p1 - p2
    low = d - np.sqrt(np.maximum((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0))
    high = d + np.sqrt(np.maximum((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0))
    if scalar:
        return float(d[0]), float(low[0]), float(high[0])
    return d, low, high


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Exact McNemar test (two-sided): the discordant pairs against Binomial(a_only + b_only, 1/2).

    >>> round(mcnemar_exact(6, 16), 4)
    0.0525
    """
    from scipy.stats import binomtest

    m = int(a_only) + int(b_only)
    if m == 0:
        return 1.0
    return float(binomtest(int(a_only), m, 0.5).pvalue)
