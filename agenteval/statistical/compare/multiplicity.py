"""Adjusting p-values for the number of agent pairs (Holm, Benjamini-Hochberg)."""

from __future__ import annotations

from typing import Any

import numpy as np

from agenteval.errors import ConfigError

__all__ = ["adjust_pvalues", "adjust_comparisons"]


def adjust_pvalues(p: Any, method: str = "holm") -> np.ndarray:
    """Adjust p-values for multiple comparisons; NaN entries are left out of the family.

    - ``"holm"``: Holm (1979), "A simple sequentially rejective multiple test procedure", Scand.
      J. Statist. 6: step-down Bonferroni, controls the family-wise error rate.
    - ``"bh"``: Benjamini & Hochberg (1995), J. R. Statist. Soc. B 57: step-up, controls the
      false discovery rate (independent or positively dependent tests).
    - ``"none"``: unchanged.

    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    if method not in ("holm", "bh", "none"):
        raise ConfigError(f"adjust must be one of 'holm', 'bh', 'none', got {method!r}")
    p = np.asarray(p, dtype=float)
    out = p.copy()
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0 or method == "none":
        return out
    if np.any((q < 0) | (q > 1)):
        raise ConfigError("p-values must be in [0, 1]")
    order = np.argsort(q, kind="stable")
    ranked = q[order]
    if method == "holm":
        adj = np.maximum.accumulate((m - np.arange(m)) * ranked)
    else:
        adj = np.minimum.accumulate((m / np.arange(m, 0, -1)) * ranked[::-1])[::-1]
    res = np.empty(m)
    res[order] = np.minimum(adj, 1.0)
    out[ok] = res
    return out


def adjust_comparisons(comps: list[Any], method: str) -> list[Any]:
    """``comps`` (``Comparison`` records) with each difference's ``p_adjusted`` set: p-values
    adjusted by ``method`` within each quantity's family of agent pairs."""
    import math
    from dataclasses import replace

    families: dict[str, list[tuple[int, int]]] = {}  # one family per quantity
    for ci, cmp in enumerate(comps):
        for di, d in enumerate(cmp.differences):
            families.setdefault(d.quantity, []).append((ci, di))
    adjusted: dict[tuple[int, int], float] = {}
    for members in families.values():
        p = [comps[ci].differences[di].p_value for ci, di in members]
        for key, value in zip(members, adjust_pvalues(p, method), strict=True):
            adjusted[key] = float(value)
    return [replace(c, differences=tuple(replace(d, p_adjusted=adjusted.get((ci, di), math.nan))
                                         for di, d in enumerate(c.differences)))
            for ci, c in enumerate(comps)]
