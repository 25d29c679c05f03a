"""The spread of task difficulty: per-task rates p_t ~ Beta(mu * kappa, (1 - mu) * kappa).

Comparisons and planning both need it. ``mu`` is the mean task success rate, ``kappa`` the
concentration; the intra-class correlation of attempts within a task is ``icc = 1 / (kappa + 1)``
(the share of an attempt's outcome variance that is between tasks), so ``kappa -> inf`` means all
tasks are alike and ``icc -> 1`` means every task is always solved or always failed.

:func:`fit_beta_binomial` (a point estimate for planning) and :func:`hyperposterior_draws` (the
pooled default's posterior) are the one Beta-Binomial fit of
:mod:`agenteval.statistical.beta_binomial`, the same model as the hierarchical one. With one
attempt per task kappa is not identified (Bernoulli outcomes carry no information on it); the
point fit then says so and returns ``kappa = nan``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from agenteval.errors import ConfigError
from agenteval.statistical.beta_binomial import HyperPrior, fit_mle, hyperposterior

__all__ = ["Difficulty", "fit_beta_binomial", "hyperposterior_draws"]


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

    :func:`agenteval.statistical.beta_binomial.fit_mle`: tasks with n == 0 are ignored; kappa is
    searched in [0.01, 1e6], a maximum at the upper bound (no detectable spread) is ``inf``; with
    no task attempted twice kappa is ``nan`` (not identified) and mu the pooled rate.

    >>> mu, kappa = fit_beta_binomial([4, 4, 4, 4], [0, 4, 0, 4])
    >>> round(mu, 3), kappa < 0.05
    (0.5, True)
    """
    return fit_mle(n, c)


def hyperposterior_draws(n: Any, c: Any, size: int, rng: np.random.Generator, *,
                         prior: HyperPrior = HyperPrior()) -> tuple[np.ndarray, np.ndarray, str]:
    """Posterior draws of (mu, kappa) under ``prior``: the pooled default's population prior
    (:func:`agenteval.statistical.beta_binomial.hyperposterior`, exact grid quadrature).

    This carries the uncertainty of the population into every task's posterior (a plug-in prior
    would count the data twice and make the mean over tasks too certain). Where kappa is not
    identified (one attempt per task) its draws follow the hyperprior and the note says so.
    Returns (mu, kappa, note).
    """
    n = np.asarray(n, dtype=float).ravel()
    c = np.asarray(c, dtype=float).ravel()
    keep = n > 0
    if not keep.any():
        raise ConfigError("no task has an attempt: nothing to fit")
    note = ""
    if np.all(n[keep] < 2):
        note = ("one attempt per task: the spread of task difficulty is not identified; kappa "
                "follows its prior")
    mu, kappa = hyperposterior(n[keep], c[keep], prior=prior).draws(size, rng)
    return mu, kappa, note
