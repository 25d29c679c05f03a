"""The spread of task difficulty: per-task rates p_t ~ Beta(mu * kappa, (1 - mu) * kappa).

Comparisons and planning both need it. ``mu`` is the mean task success rate, ``kappa`` the
concentration; the intra-class correlation of attempts within a task is ``icc = 1 / (kappa + 1)``
(the share of an attempt's outcome variance that is between tasks), so ``kappa -> inf`` means all
tasks are alike and ``icc -> 1`` means every task is always solved or always failed.

:func:`fit_beta_binomial` estimates (mu, kappa) from per-task counts by maximising the
Beta-Binomial marginal likelihood (empirical Bayes), the same likelihood as the hierarchical
model's. With one attempt per task kappa is not identified (Bernoulli outcomes carry no
information on it); the fit then says so and returns ``kappa = nan``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from agenteval.errors import ConfigError

__all__ = ["Difficulty", "fit_beta_binomial", "hyperposterior_draws"]

#: Bounds of the kappa search: below 0.01 the Beta is two spikes, above 1e6 tasks are alike.
_KAPPA_RANGE = (1e-2, 1e6)
#: kappa assumed when one attempt per task cannot identify it: Beta(1, 1)'s concentration.
_FALLBACK_KAPPA = 2.0


@dataclass(frozen=True)
class Difficulty:
    """Beta(mu * kappa, (1 - mu) * kappa) distribution of per-task success rates."""

    mu: float
    """Mean per-task success rate."""
    kappa: float
    """Concentration (larger: tasks more alike); ``inf`` for identical tasks."""

    def __post_init__(self) -> None:
        if not (isinstance(self.mu, (int, float)) and 0.0 < float(self.mu) < 1.0):
            raise ConfigError(f"mu must be a number in (0, 1), got {self.mu!r}")
        if not (isinstance(self.kappa, (int, float)) and float(self.kappa) > 0):
            raise ConfigError(f"kappa must be a number > 0 (or inf), got {self.kappa!r}")

    @classmethod
    def from_icc(cls, mu: float, icc: float) -> Difficulty:
        """From the intra-class correlation of attempts within a task, icc = 1 / (kappa + 1)."""
        if not (isinstance(icc, (int, float)) and 0.0 <= float(icc) < 1.0):
            raise ConfigError(f"icc must be a number in [0, 1), got {icc!r}")
        return cls(mu, math.inf if icc == 0 else 1.0 / icc - 1.0)

    @classmethod
    def from_counts(cls, n: Any, c: Any) -> Difficulty:
        """Empirical-Bayes fit to per-task counts (n attempts, c successes); see the module doc."""
        mu, kappa = fit_beta_binomial(n, c)
        if math.isnan(kappa):
            raise ConfigError("the spread of task difficulty is not identified from one attempt per "
                              "task: give kappa or icc as an assumption, or a pilot with >= 2 "
                              "attempts per task")
        return cls(mu, kappa)

    @property
    def icc(self) -> float:
        """Intra-class correlation of two attempts at the same task: 1 / (kappa + 1)."""
        return 0.0 if math.isinf(self.kappa) else 1.0 / (self.kappa + 1.0)

    @property
    def a(self) -> float:
        return self.mu * self.kappa

    @property
    def b(self) -> float:
        return (1.0 - self.mu) * self.kappa

    def sd(self) -> float:
        """Standard deviation of per-task rates: sqrt(mu (1 - mu) icc)."""
        return math.sqrt(self.mu * (1.0 - self.mu) * self.icc)


def fit_beta_binomial(n: Any, c: Any) -> tuple[float, float]:
    """Maximum marginal likelihood (mu, kappa) of c_t ~ BetaBinomial(n_t, mu kappa, (1-mu) kappa).

    Tasks with n == 0 are ignored. kappa is searched in [0.01, 1e6]; a maximum at the upper
    bound means no detectable spread (returned as ``inf``). With no task attempted twice,
    kappa is not identified and ``nan`` is returned with mu = the pooled rate.

    >>> mu, kappa = fit_beta_binomial([4, 4, 4, 4], [0, 4, 0, 4])
    >>> round(mu, 3), kappa < 0.05
    (0.5, True)
    """
    n = np.asarray(n, dtype=float).ravel()
    c = np.asarray(c, dtype=float).ravel()
    if n.shape != c.shape or np.any(c < 0) or np.any(c > n):
        raise ConfigError("n and c must have one shape with 0 <= c <= n")
    keep = n > 0
    n, c = n[keep], c[keep]
    if n.size == 0:
        raise ConfigError("no task has an attempt: nothing to fit")
    pooled = float(c.sum() / n.sum())
    if np.all(n < 2):
        return pooled, math.nan
    if pooled in (0.0, 1.0):
        return min(max(pooled, 1e-6), 1 - 1e-6), math.inf
    theta, _ = _optimum(_nll(n, c))
    mu = 1.0 / (1.0 + math.exp(-theta[0]))
    kappa = math.exp(theta[1])
    return float(mu), (math.inf if theta[1] >= math.log(_KAPPA_RANGE[1]) - 1e-3 else float(kappa))


def _nll(n: np.ndarray, c: np.ndarray) -> Any:
    """Negative Beta-Binomial log marginal likelihood in theta = (logit mu, log kappa)."""
    from scipy.special import betaln

    pairs, weight = np.unique(np.stack([n, c], axis=1), axis=0, return_counts=True)
    pn, pc = pairs[:, 0], pairs[:, 1]

    def nll(theta: np.ndarray) -> float:
        mu = 1.0 / (1.0 + math.exp(-theta[0]))
        kappa = math.exp(theta[1])
        a, b = mu * kappa, (1.0 - mu) * kappa
        return -float(np.sum(weight * (betaln(a + pc, b + pn - pc) - betaln(a, b))))

    nll.pooled = float(c.sum() / n.sum())  # type: ignore[attr-defined]
    return nll


def _optimum(nll: Any) -> tuple[np.ndarray, float]:
    from scipy import optimize

    pooled = min(max(nll.pooled, 1e-6), 1 - 1e-6)
    lo, hi = (math.log(x) for x in _KAPPA_RANGE)
    start = np.array([math.log(pooled / (1 - pooled)), math.log(10.0)])
    # Nelder-Mead: two parameters, no gradients, and no BLAS calls (L-BFGS-B's are slow when the
    # machine's cores are busy)
    res = optimize.minimize(nll, start, method="Nelder-Mead", bounds=[(-20, 20), (lo, hi)],
                            options={"xatol": 1e-7, "fatol": 1e-10, "maxiter": 2000})
    return res.x, float(res.fun)


def hyperposterior_draws(n: Any, c: Any, size: int, rng: np.random.Generator
                         ) -> tuple[np.ndarray, np.ndarray, str]:
    """Approximate posterior draws of (mu, kappa): a Laplace (normal) approximation in
    (logit mu, log kappa) around the maximum marginal likelihood, flat prior in those coordinates.

    This carries the uncertainty of the population mean into every task's posterior (a plug-in
    empirical-Bayes prior would count the data twice and make the mean over tasks too certain).
    Where kappa is at its upper bound (no detectable spread) only mu varies. Where kappa is not
    identified (one attempt per task, or every attempt succeeded or failed), mu comes from the
    pooled attempts under a flat prior and kappa is held at 2 (Beta(1, 1)'s); the note says so.
    Returns (mu, kappa, note).
    """
    n = np.asarray(n, dtype=float).ravel()
    c = np.asarray(c, dtype=float).ravel()
    keep = n > 0
    n, c = n[keep], c[keep]
    if n.size == 0:
        raise ConfigError("no task has an attempt: nothing to fit")
    nll = _nll(n, c)
    if np.all(n < 2) or nll.pooled in (0.0, 1.0):
        # kappa not identified: one attempt per task, or every attempt succeeded (or failed).
        # mu from the pooled attempts under a flat prior, kappa held at Beta(1, 1)'s 2.
        why = ("one attempt per task" if np.all(n < 2) else
               "every attempt succeeded" if nll.pooled == 1.0 else "every attempt failed")
        note = (f"{why}: the spread of task difficulty is not identified; kappa = "
                f"{_FALLBACK_KAPPA:g} assumed")
        mu = np.clip(rng.beta(1.0 + c.sum(), 1.0 + n.sum() - c.sum(), size=size), 1e-9, 1 - 1e-9)
        return mu, np.full(size, _FALLBACK_KAPPA), note
    note = ""
    theta, _ = _optimum(nll)
    fixed_kappa = theta[1] >= math.log(_KAPPA_RANGE[1]) - 1e-3
    h = 1e-4
    if fixed_kappa:
        e = np.array([h, 0.0])
        theta = np.array([_optimum_mu(nll, theta[1]), theta[1]])
        d2 = (nll(theta + e) - 2 * nll(theta) + nll(theta - e)) / h ** 2
        sd = 1.0 / math.sqrt(d2) if d2 > 0 else 0.0
        draws = np.stack([theta[0] + sd * rng.standard_normal(size), np.full(size, theta[1])], 1)
    else:
        hess = np.empty((2, 2))
        for i in range(2):
            for j in range(2):
                ei, ej = np.eye(2)[i] * h, np.eye(2)[j] * h
                hess[i, j] = (nll(theta + ei + ej) - nll(theta + ei - ej) - nll(theta - ei + ej)
                              + nll(theta - ei - ej)) / (4 * h * h)
        try:
            cov = np.linalg.inv(hess)
            chol = np.linalg.cholesky(cov)
        except np.linalg.LinAlgError:
            chol = np.zeros((2, 2))
        draws = theta + rng.standard_normal((size, 2)) @ chol.T
    # keep both Beta parameters mu kappa and (1 - mu) kappa strictly positive in floating point
    mu = np.clip(1.0 / (1.0 + np.exp(-np.clip(draws[:, 0], -20, 20))), 1e-9, 1 - 1e-9)
    kappa = np.exp(np.clip(draws[:, 1], *(math.log(x) for x in _KAPPA_RANGE)))
    return mu, kappa, note


def _optimum_mu(nll: Any, log_kappa: float) -> float:
    from scipy import optimize

    res = optimize.minimize_scalar(lambda x: nll(np.array([x, log_kappa])), bounds=(-20, 20),
                                   method="bounded")
    return float(res.x)
