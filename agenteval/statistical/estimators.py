"""Closed-form estimators for pass@k / pass^k, Beta posteriors and binomial intervals.

Pure functions over numpy arrays or scalars: ``n`` (attempts), ``c`` (successes) and ``k``
broadcast against each other; a scalar call returns a Python ``float``, an array call an
``ndarray``. Inputs are validated once, here, and bad ones raise
:class:`agenteval.errors.ConfigError` naming the parameter, the allowed range and the value.

Undefined results are ``nan`` (documented per function), never 0 and never a warning storm
over a million conversations: ``n == 0`` for the plug-in forms and intervals, ``k > n`` for the
unbiased forms.

Every ratio of binomial coefficients or Beta functions with an integer ``k`` is evaluated as a
sum of ``log1p`` terms (the "stable product form" of Chen et al. 2021), vectorised over all
elements with a loop over the *term index* only, never over conversations. Terms beyond
``_MAX_TERMS`` fall back to ``gammaln`` differences, whose cancellation costs accuracy: relative
error up to ~1e-6 when arguments reach ~1e6 with k > 4096 (exact products below that).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agenteval.errors import ConfigError, check_level

__all__ = [
    "pass_at_k",
    "pass_pow_k",
    "pass_at_k_unbiased",
    "pass_pow_k_unbiased",
    "beta_pass_at_k_mean",
    "beta_pass_pow_k_mean",
    "beta_interval",
    "wilson_interval",
    "clopper_pearson_interval",
    "check_counts",
]

# Products with more factors than this use gammaln differences instead of summing log1p terms.
_MAX_TERMS = 4096


# --------------------------------------------------------------------------- validation


def _where(arr: np.ndarray, bad: np.ndarray) -> tuple[str, Any]:
    """Describe the first offending element: ('' or ' at index i', value)."""
    if arr.ndim == 0:
        return "", arr.item()
    flat = int(np.flatnonzero(bad)[0])
    idx = np.unravel_index(flat, bad.shape)
    where = idx[0] if len(idx) == 1 else tuple(int(i) for i in idx)
    return f" at index {where}", arr[idx].item()


def _as_numeric(name: str, value: object) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except Exception:  # ragged lists and the like
        raise ConfigError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise ConfigError(f"{name} must be a number or an array of numbers, got {value!r}")
    return arr


def _check_integer(name: str, arr: np.ndarray, low: int, what: str) -> None:
    """Raise unless every element is a finite integer >= low."""
    if arr.dtype.kind in "iu":
        bad = arr < low
    else:
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(arr) | (arr != np.floor(arr)) | (arr < low)
    if np.any(bad):
        where, got = _where(arr, bad)
        raise ConfigError(f"{name} must be {what}, got {name}={got!r}{where}")


def _broadcast(**arrays: np.ndarray) -> list[np.ndarray]:
    try:
        return list(np.broadcast_arrays(*arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k}{v.shape}" for k, v in arrays.items())
        raise ConfigError(f"{', '.join(arrays)} must broadcast to one shape, got {shapes}") from None


def check_counts(n: object, c: object, k: object | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
    """Validate counts once: n, c integers with 0 <= c <= n; k an integer >= 1.

    Returns float64 arrays broadcast to one shape and whether every input was a scalar.
    """
    n_arr, c_arr = _as_numeric("n", n), _as_numeric("c", c)
    _check_integer("n", n_arr, 0, "an integer >= 0")
    _check_integer("c", c_arr, 0, "an integer in [0, n]")
    scalar = n_arr.ndim == 0 and c_arr.ndim == 0
    parts = {"n": n_arr, "c": c_arr}
    if k is not None:
        k_arr = _as_numeric("k", k)
        _check_integer("k", k_arr, 1, "an integer >= 1")
        scalar = scalar and k_arr.ndim == 0
        parts["k"] = k_arr
    raw = _broadcast(**parts)
    bad = raw[1] > raw[0]
    if np.any(bad):
        where, got = _where(raw[1], bad)
        _, n_got = _where(raw[0], bad)
        raise ConfigError(f"c must be an integer in [0, n], got c={got!r} with n={n_got!r}{where}")
    # at least 1-d: numpy's scalar and SIMD loops can differ in the last bit, so a scalar call
    # runs the same array code as an array call and both agree exactly
    out = [np.atleast_1d(a).astype(np.float64) for a in raw]
    return out[0], out[1], (out[2] if k is not None else None), scalar


def _check_level(level: object) -> float:
    return check_level("level", level)


def _check_beta(a: object, b: object, k: object | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
    """Validate Beta parameters (finite, > 0) and k (integer >= 1)."""
    arrays = {"a": _as_numeric("a", a), "b": _as_numeric("b", b)}
    for name, arr in arrays.items():
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(arr) | ~(arr > 0)
        if np.any(bad):
            where, got = _where(arr, bad)
            raise ConfigError(f"{name} must be a finite number > 0, got {name}={got!r}{where}")
    scalar = all(arr.ndim == 0 for arr in arrays.values())
    if k is not None:
        k_arr = _as_numeric("k", k)
        _check_integer("k", k_arr, 1, "an integer >= 1")
        scalar = scalar and k_arr.ndim == 0
        arrays["k"] = k_arr
    out = [np.atleast_1d(x).astype(np.float64) for x in _broadcast(**arrays)]
    return out[0], out[1], (out[2] if k is not None else None), scalar


def _out(x: np.ndarray, scalar: bool) -> Any:
    return float(x.reshape(-1)[0]) if scalar else x


# --------------------------------------------------------------------------- core product


def _log_rising_ratio(x: np.ndarray, s: np.ndarray, t: np.ndarray) -> np.ndarray:
    """log prod_{j=0}^{t-1} (1 - x / (s + j)) for s > x >= 0, integer t >= 0 (broadcast).

    Summed as log1p terms over the term index (vectorised over elements, sorted so each step
    touches only the elements still active); long products use gammaln differences.
    """
    x, s, t = (np.ravel(v) for v in np.broadcast_arrays(x, s, t))
    out = np.zeros(x.shape, dtype=np.float64)
    long = t > _MAX_TERMS
    if np.any(long):
        from scipy.special import gammaln

        xs, ss, ts = x[long], s[long], t[long]
        out[long] = gammaln(ss + ts - xs) + gammaln(ss) - gammaln(ss - xs) - gammaln(ss + ts)
    short = np.flatnonzero(~long & (t > 0))
    if short.size:
        order = short[np.argsort(-t[short], kind="stable")]
        xs, ss, ts = x[order], s[order], t[order]
        acc = np.zeros(order.size, dtype=np.float64)
        # active[j] = number of elements with more than j terms (prefix of the sorted order)
        neg_t = -ts
        for j in range(int(ts[0])):
            m = int(np.searchsorted(neg_t, -j, side="left"))
            acc[:m] += np.log1p(-xs[:m] / (ss[:m] + j))
        out[order] = acc
    return out


def _log_binom_ratio(n: np.ndarray, m: np.ndarray, k: np.ndarray) -> np.ndarray:
    """log C(n-m, k) / C(n, k) for 0 <= m <= n, 1 <= k <= n; -inf where n - m < k.

    Equals prod_{i=n-m+1}^{n} (1 - k/i) (m factors) = prod_{j=0}^{k-1} (1 - m/(n-j)) (k
    factors); the shorter product is used.
    """
    n, m, k = np.broadcast_arrays(n, m, k)
    shape = n.shape
    n, m, k = n.ravel(), m.ravel(), k.ravel()
    out = np.full(n.shape, -np.inf)
    ok = (n - m) >= k
    by_m = ok & (m <= k)
    by_k = ok & (m > k)
    if np.any(by_m):
        out[by_m] = _log_rising_ratio(k[by_m], n[by_m] - m[by_m] + 1.0, m[by_m])
    if np.any(by_k):
        out[by_k] = _log_rising_ratio(m[by_k], n[by_k] - k[by_k] + 1.0, k[by_k])
    return out.reshape(shape)


# --------------------------------------------------------------------------- pass@k / pass^k


def pass_at_k(n: Any, c: Any, k: Any) -> Any:
    """Plug-in pass@k, 1 - (1 - c/n)^k: chance that k independent tries at rate c/n succeed once.

    The Fair Forge (compat) per-conversation estimate; ``k`` may exceed ``n``. ``nan`` where
    ``n == 0``. Biased for small ``n`` (see :func:`pass_at_k_unbiased`).

    >>> pass_at_k(4, 2, 2)
    0.75
    """
    n, c, k, scalar = check_counts(n, c, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = c / n
        res = -np.expm1(k * np.log1p(-p))
    return _out(res, scalar)


def pass_pow_k(n: Any, c: Any, k: Any) -> Any:
    """Plug-in pass^k, (c/n)^k: chance that k independent tries at rate c/n all succeed.

    The Fair Forge (compat) per-conversation estimate; ``k`` may exceed ``n``. ``nan`` where
    ``n == 0``.

    >>> pass_pow_k(4, 2, 2)
    0.25
    """
    n, c, k, scalar = check_counts(n, c, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        res = (c / n) ** k
    return _out(res, scalar)


def pass_at_k_unbiased(n: Any, c: Any, k: Any) -> Any:
    """Unbiased pass@k from n attempts with c correct: 1 - C(n-c, k) / C(n, k).

    Chen et al. 2021, "Evaluating Large Language Models Trained on Code" (Codex), computed in
    their stable product form 1 - prod_{i=n-c+1}^{n} (1 - k/i) in log space. It is the share
    of k-subsets of the n attempts that contain at least one success. ``nan`` where ``k > n``.

    >>> round(pass_at_k_unbiased(4, 2, 2), 12)  # 5 of the 6 pairs contain a success
    0.833333333333
    """
    n, c, k, scalar = check_counts(n, c, k)
    defined = k <= n
    res = np.full(n.shape, np.nan)
    if np.any(defined):
        log_fail = _log_binom_ratio(n[defined], c[defined], k[defined])
        res[defined] = -np.expm1(log_fail) + 0.0  # + 0.0 turns -0.0 into 0.0
    return _out(res, scalar)


def pass_pow_k_unbiased(n: Any, c: Any, k: Any) -> Any:
    """Unbiased pass^k from n attempts with c correct: C(c, k) / C(n, k).

    tau-bench, Yao et al. 2024, "τ-bench: A Benchmark for Tool-Agent-User Interaction in
    Real-World Domains": the share of k-subsets of the attempts that are all successes. Stable
    product form prod_{i=c+1}^{n} (1 - k/i) in log space. ``nan`` where ``k > n``.

    >>> round(pass_pow_k_unbiased(4, 2, 2), 12)  # 1 of the 6 pairs is all successes
    0.166666666667
    """
    n, c, k, scalar = check_counts(n, c, k)
    defined = k <= n
    res = np.full(n.shape, np.nan)
    if np.any(defined):
        nd = n[defined]
        res[defined] = np.exp(_log_binom_ratio(nd, nd - c[defined], k[defined]))
    return _out(res, scalar)


# --------------------------------------------------------------------------- Beta posteriors


def beta_pass_at_k_mean(a: Any, b: Any, k: Any) -> Any:
    """E[1 - (1-p)^k] for p ~ Beta(a, b), exactly: 1 - B(a, b+k) / B(a, b).

    Posterior mean of pass@k under the conjugate Beta-binomial model. For integer k the ratio
    is prod_{j<k} (b+j)/(a+b+j), summed as log1p terms (betaln-style differences of large
    numbers lose digits when a + b is large).

    >>> beta_pass_at_k_mean(1, 1, 1)  # uniform p: E[p]
    0.5
    >>> round(beta_pass_at_k_mean(1, 1, 2), 12)  # 1 - E[(1-p)^2] = 1 - 1/3
    0.666666666667
    """
    a, b, k, scalar = _check_beta(a, b, k)
    res = -np.expm1(_log_rising_ratio(a, a + b, k).reshape(a.shape))
    return _out(res, scalar)


def beta_pass_pow_k_mean(a: Any, b: Any, k: Any) -> Any:
    """E[p^k] for p ~ Beta(a, b), exactly: B(a+k, b) / B(a, b) = prod_{j<k} (a+j)/(a+b+j).

    Posterior mean of pass^k under the conjugate Beta-binomial model.

    >>> round(beta_pass_pow_k_mean(1, 1, 2), 12)  # E[p^2] for uniform p
    0.333333333333
    """
    a, b, k, scalar = _check_beta(a, b, k)
    res = np.exp(_log_rising_ratio(b, a + b, k).reshape(a.shape))
    return _out(res, scalar)


def beta_interval(a: Any, b: Any, level: float = 0.95) -> tuple[Any, Any]:
    """Equal-tailed ``level`` credible interval (lo, hi) of Beta(a, b): its quantiles.

    Because p -> p^k and p -> 1-(1-p)^k are increasing, mapping these bounds gives the exact
    equal-tailed intervals of pass^k and pass@k too.

    >>> lo, hi = beta_interval(1, 1, 0.9)
    >>> round(lo, 12), round(hi, 12)
    (0.05, 0.95)
    """
    from scipy.special import betaincinv

    level = _check_level(level)
    a, b, _, scalar = _check_beta(a, b)
    tail = (1.0 - level) / 2.0
    lo = betaincinv(a, b, tail)
    hi = betaincinv(a, b, 1.0 - tail)
    return _out(lo, scalar), _out(hi, scalar)


# --------------------------------------------------------------------------- binomial intervals


def _normal_quantile(level: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(0.5 + level / 2.0))


def wilson_interval(c: Any, n: Any, level: float = 0.95) -> tuple[Any, Any]:
    """Wilson score interval (lo, hi) for a binomial rate c/n (Wilson 1927).

    Good coverage even for small n and rates near 0 or 1, unlike the Wald interval. ``nan``
    where ``n == 0``.

    >>> lo, hi = wilson_interval(0, 10, 0.95)
    >>> lo, round(hi, 4)
    (0.0, 0.2775)
    """
    level = _check_level(level)
    n, c, _, scalar = check_counts(n, c)
    z = _normal_quantile(level)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = c / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z / denom * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    lo = np.where(c == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    hi = np.where(c == n, 1.0, np.clip(centre + half, 0.0, 1.0))
    lo = np.where(n == 0, np.nan, lo)
    hi = np.where(n == 0, np.nan, hi)
    return _out(lo, scalar), _out(hi, scalar)


def clopper_pearson_interval(c: Any, n: Any, level: float = 0.95) -> tuple[Any, Any]:
    """Exact (Clopper & Pearson 1934) interval (lo, hi) for a binomial rate, via Beta quantiles.

    lo = Beta(c, n-c+1) quantile at (1-level)/2 (0 when c == 0); hi = Beta(c+1, n-c) quantile
    at (1+level)/2 (1 when c == n). Conservative: coverage >= level. ``nan`` where ``n == 0``.

    >>> lo, hi = clopper_pearson_interval(0, 10, 0.95)
    >>> lo, round(hi, 4)
    (0.0, 0.3085)
    """
    from scipy.special import betaincinv

    level = _check_level(level)
    n, c, _, scalar = check_counts(n, c)
    tail = (1.0 - level) / 2.0
    lo = np.where(c > 0, betaincinv(np.maximum(c, 1.0), n - c + 1.0, tail), 0.0)
    hi = np.where(c < n, betaincinv(c + 1.0, np.maximum(n - c, 1.0), 1.0 - tail), 1.0)
    lo = np.where(n == 0, np.nan, lo)
    hi = np.where(n == 0, np.nan, hi)
    return _out(lo, scalar), _out(hi, scalar)


_check_counts = check_counts  # the name code outside statistical/ still imports
