"""Statistical modes (compat with Fair Forge): turn per-conversation counts into estimates.

``FrequentistMode`` gives plug-in pass@k / pass^k with a Wilson or Clopper-Pearson interval;
``BayesianMode`` gives the exact conjugate Beta-binomial posterior summaries (no sampling) and
seeded Monte Carlo only where there is no closed form (posterior samples, agent comparisons).

Both are vectorised over conversations: ``n`` (interactions), ``c`` (correct ones) and ``k``
broadcast; identical (n, c, k) triples are computed once and scattered back.
"""

from __future__ import annotations

import math
import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from agenteval.errors import ConfigError, check_level
from agenteval.statistical import estimators as est
from agenteval.statistical import suite
from agenteval.statistical.new_task import new_task_estimate
from agenteval.statistical.suite import TaskEstimate

__all__ = ["PassEstimate", "StatisticalMode", "FrequentistMode", "BayesianMode",
           "UninformativeFitWarning", "level_text"]


class UninformativeFitWarning(UserWarning):
    """A model was not fitted because the data carry no information on its parameters."""


@dataclass(frozen=True)
class PassEstimate:
    """Per-conversation estimates with intervals; arrays (one entry per conversation) or floats.

    Bounds are always ordered (low <= high, inside [0, 1]). The frequentist point estimates lie
    inside their intervals; a Bayesian posterior *mean* of a skewed quantity need not (under
    Beta(1, 1), E[p^1000] = 1/1001 exceeds the 97.5% quantile 0.975^1000), which is correct.
    """

    rate: Any
    """Estimate of the per-interaction success rate p (c/n, or the posterior mean)."""
    rate_low: Any
    """Lower bound of the rate interval."""
    rate_high: Any
    """Upper bound of the rate interval."""
    pass_at_k: Any
    """Estimate of pass@k = 1 - (1-p)^k."""
    pass_at_k_low: Any
    """Lower bound of pass@k (the rate bound mapped through the increasing map)."""
    pass_at_k_high: Any
    """Upper bound of pass@k."""
    pass_pow_k: Any
    """Estimate of pass^k = p^k."""
    pass_pow_k_low: Any
    """Lower bound of pass^k."""
    pass_pow_k_high: Any
    """Upper bound of pass^k."""
    method: str
    """How the numbers were computed, e.g. "plug-in + wilson 95%"."""


def _prob_greater(a1: float, b1: float, a2: float, b2: float) -> float:
    """P(p1 > p2) for independent p1 ~ Beta(a1, b1), p2 ~ Beta(a2, b2), by 1-D quadrature.

    P = int_0^1 F2(Q1(u)) du = int_0^1 S1(Q2(u)) du (F the CDF, S the survival function, Q the
    quantile function). The integral runs over the quantiles of the *narrower* posterior: there
    the other posterior's CDF barely changes, so the integrand is smooth; over the wider one it
    would be a narrow step that quadrature can miss entirely (an agent with 20 conversations
    against one with a million). Each integral is also split at the quantiles of the other
    posterior's bulk so no step hides between nodes.
    """
    from scipy import integrate
    from scipy.special import betainc, betaincinv

    var1 = a1 * b1 / ((a1 + b1) ** 2 * (a1 + b1 + 1))
    var2 = a2 * b2 / ((a2 + b2) ** 2 * (a2 + b2 + 1))
    if var1 <= var2:   # integrate over p1's quantiles: F2 at Q1(u)
        def integrand(u: float) -> float:
            return float(betainc(a2, b2, betaincinv(a1, b1, u)))
        edges = betainc(a1, b1, betaincinv(a2, b2, _SPLIT_QUANTILES))
    else:              # over p2's quantiles: S1 at Q2(u)
        def integrand(u: float) -> float:
            return float(1.0 - betainc(a1, b1, betaincinv(a2, b2, u)))
        edges = betainc(a2, b2, betaincinv(a1, b1, _SPLIT_QUANTILES))
    # split points within float resolution of 0 or 1 leave quad an interval it cannot resolve
    points = sorted({float(x) for x in edges if 1e-12 < x < 1.0 - 1e-12})
    with warnings.catch_warnings():  # accuracy is tested against Evan Miller's closed form
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        value, _ = integrate.quad(integrand, 0.0, 1.0, points=points or None, limit=500,
                                  epsabs=1e-13, epsrel=1e-10)
    return min(max(value, 0.0), 1.0)


_SPLIT_QUANTILES = np.array([1e-9, 1e-6, 1e-3, 0.05, 0.25, 0.5, 0.75, 0.95, 1 - 1e-3, 1 - 1e-6,
                             1 - 1e-9])


def level_text(level: float) -> str:
    """'95%' for 0.95: how intervals are labelled in method strings."""
    return f"{level * 100:g}%"


_level_text = level_text


def _check_ci_level(ci_level: object) -> float:
    return check_level("ci_level", ci_level)


def _check_positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ConfigError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def _group_codes(groups: Any, size: int) -> tuple[np.ndarray, list[str]]:
    """Integer codes (order of first appearance) and names for per-unit group labels."""
    if groups is None:
        return np.zeros(size, dtype=np.int64), ["all"]
    labels = [str(x) for x in groups]
    if len(labels) != size:
        raise ConfigError(f"groups must have one label per unit ({size}), got {len(labels)}")
    names: dict[str, int] = {}
    codes = np.array([names.setdefault(x, len(names)) for x in labels], dtype=np.int64)
    return codes, list(names)


def _check_seed(value: object) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer))
                              or value < 0):
        raise ConfigError(f"rng_seed must be an integer >= 0 or None, got {value!r}")
    return None if value is None else int(value)


def _at_k(p: np.ndarray, k: np.ndarray) -> np.ndarray:
    """p -> 1 - (1-p)^k, accurate for small p (increasing in p)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.expm1(k * np.log1p(-p)) + 0.0


def _pow_k(p: np.ndarray, k: np.ndarray) -> np.ndarray:
    return p ** k


def _grouped(n: np.ndarray, c: np.ndarray, k: np.ndarray,
             fn: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, ...]]
             ) -> tuple[np.ndarray, ...]:
    """Apply fn once per unique (n, c, k) triple and scatter the results back.

    Conversations usually have few interactions, so a million of them hold a few dozen unique
    triples; fn (Beta quantiles, mostly) then runs on those only.
    """
    shape = n.shape
    n, c, k = n.ravel(), c.ravel(), k.ravel()
    if n.size <= 64:
        return tuple(r.reshape(shape) for r in fn(n, c, k))
    # One int64 key per triple when it fits (fast 1-D unique), else the row-wise unique.
    n_top, k_top = float(n.max()) + 1.0, float(k.max()) + 1.0
    if n_top * n_top * k_top < 2.0 ** 62:
        key = (n.astype(np.int64) * int(n_top) + c.astype(np.int64)) * int(k_top) + k.astype(np.int64)
        uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        un, uc, uk = n[first], c[first], k[first]
    else:
        rows, inverse = np.unique(np.stack([n, c, k], axis=1), axis=0, return_inverse=True)
        un, uc, uk = rows[:, 0], rows[:, 1], rows[:, 2]
    inverse = inverse.ravel()
    return tuple(np.asarray(r)[inverse].reshape(shape) for r in fn(un, uc, uk))


def _scalar(v: Any) -> float:
    return float(np.asarray(v).reshape(-1)[0])


def _finish(values: tuple[np.ndarray, ...], scalar: bool, method: str) -> PassEstimate:
    vals = [_scalar(v) if scalar else v for v in values]
    return PassEstimate(*vals, method=method)


class StatisticalMode(ABC):
    """How counts become estimates; subclasses are the frequentist and Bayesian modes (compat)."""

    ci_level: float

    @abstractmethod
    def estimate(self, n: Any, c: Any, k: Any) -> PassEstimate:
        """Rate, pass@k and pass^k with intervals, vectorised over conversations."""

    @abstractmethod
    def rate_estimation(self, successes: Any, trials: Any) -> Any:
        """Estimate a success rate from counts (compat with Fair Forge)."""

    @abstractmethod
    def compare(self, n1: Any, c1: Any, n2: Any, c2: Any) -> dict[str, Any]:
        """p1 - p2 for two independent rates: prob_greater, mean_diff, ci_low, ci_high, method."""

    @abstractmethod
    def get_result_type(self) -> str:
        """"point_estimate" or "distribution" (compat with Fair Forge)."""

    def estimate_units(self, n: Any, c: Any, k: Any, *, groups: Any = None) -> PassEstimate:
        """:meth:`estimate` for units that belong to ``groups`` (agents); only the hierarchical
        methods use the groups, the others estimate every unit on its own."""
        return self.estimate(n, c, k)

    def stratified_rate(self, n: Any, m: Any, c: Any, k: int) -> dict[str, float]:
        """Share of fully correct conversations post-stratified by length (see ``suite``).

        ``n``, ``m``, ``c``: per length, conversations, complete ones, fully correct ones.
        """
        return suite.frequentist_stratified_rate(n, m, c, k, level=self.ci_level)

    def task_estimate(self, n: Any, c: Any, k: int) -> TaskEstimate:
        """Task-level pass@k / pass^k from per-task complete attempts n and successes c."""
        return suite.frequentist_task_estimate(n, c, k, level=self.ci_level)

    def task_estimates(self, n: Any, c: Any, k: int, *, groups: Any,
                       names: list[str]) -> list[TaskEstimate]:
        """[all tasks, then one per group in ``names`` order]; ``groups`` are indices into names."""
        n, c, g = np.asarray(n), np.asarray(c), np.asarray(groups, dtype=np.int64)
        return [self.task_estimate(n, c, k)] + [self.task_estimate(n[g == i], c[g == i], k)
                                                for i in range(len(names))]

    def fit(self, n: Any, c: Any, *, groups: Any = None) -> Any:
        """The hierarchical fit behind the estimates (None for the modes that have none)."""
        return None

    def conversation_fit(self, n: Any, c: Any, *, groups: Any = None) -> Any:
        """The fit behind pooled per-conversation fields (None: each conversation on its own)."""
        return None


class FrequentistMode(StatisticalMode):
    """Plug-in estimates c/n, 1-(1-c/n)^k, (c/n)^k with a binomial confidence interval.

    The pass@k and pass^k intervals are the rate interval mapped through the increasing maps
    p -> 1-(1-p)^k and p -> p^k, which keeps its coverage. ``n == 0`` gives ``nan`` everywhere.
    """

    _INTERVALS = {"wilson": est.wilson_interval, "clopper-pearson": est.clopper_pearson_interval}

    def __init__(self, *, ci_level: float = 0.95, interval: str = "wilson",
                 bootstrap_samples: int = 2000, rng_seed: int | None = 42) -> None:
        self.ci_level = _check_ci_level(ci_level)
        if interval not in self._INTERVALS:
            raise ConfigError(f"interval must be one of {sorted(self._INTERVALS)}, got {interval!r}")
        self.interval = interval
        self.bootstrap_samples = _check_positive_int("bootstrap_samples", bootstrap_samples)
        self.rng_seed = _check_seed(rng_seed)

    def get_params(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this mode (for the results' manifest)."""
        return {"ci_level": self.ci_level, "interval": self.interval,
                "bootstrap_samples": self.bootstrap_samples, "rng_seed": self.rng_seed}

    def __repr__(self) -> str:
        return (f"FrequentistMode(ci_level={self.ci_level!r}, interval={self.interval!r}, "
                f"bootstrap_samples={self.bootstrap_samples}, rng_seed={self.rng_seed!r})")

    def stratified_rate(self, n: Any, m: Any, c: Any, k: int) -> dict[str, float]:
        """Post-stratified share with a Korn-Graubard effective-sample-size interval."""
        return suite.frequentist_stratified_rate(n, m, c, k, level=self.ci_level,
                                                 interval=self.interval)

    def task_estimate(self, n: Any, c: Any, k: int) -> TaskEstimate:
        """Unbiased estimators averaged over tasks, seeded percentile-bootstrap intervals."""
        return suite.frequentist_task_estimate(n, c, k, level=self.ci_level,
                                               bootstrap=self.bootstrap_samples, seed=self.rng_seed)

    def estimate(self, n: Any, c: Any, k: Any) -> PassEstimate:
        """Plug-in rate, pass@k, pass^k and their intervals per conversation."""
        n, c, k, scalar = est.check_counts(n, c, k)
        interval = self._INTERVALS[self.interval]
        level = self.ci_level

        def compute(n: np.ndarray, c: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, ...]:
            with np.errstate(divide="ignore", invalid="ignore"):
                rate = c / n
            lo, hi = interval(c, n, level)
            return (rate, lo, hi, _at_k(rate, k), _at_k(lo, k), _at_k(hi, k),
                    _pow_k(rate, k), _pow_k(lo, k), _pow_k(hi, k))

        values = _grouped(n, c, k, compute)
        return _finish(values, scalar, f"plug-in + {self.interval} {_level_text(level)}")

    def compare(self, n1: Any, c1: Any, n2: Any, c2: Any) -> dict[str, Any]:
        """Difference of two independent rates p1 - p2 with a square-and-add interval.

        Newcombe (1998), method 10: with each rate's interval (l_i, u_i) at ``ci_level``,
        low = d - sqrt((p1 - l1)^2 + (u2 - p2)^2), high = d + sqrt((u1 - p1)^2 + (p2 - l2)^2).
        With Wilson intervals this is Newcombe's hybrid score interval. ``prob_greater`` has no
        frequentist meaning and is ``nan``; keys match :meth:`BayesianMode.compare`.

        >>> r = FrequentistMode().compare(70, 56, 80, 48)
        >>> round(r["mean_diff"], 4), round(r["ci_low"], 4), round(r["ci_high"], 4)
        (0.2, 0.0524, 0.3339)
        """
        n1, c1, _, s1 = est.check_counts(n1, c1)
        n2, c2, _, s2 = est.check_counts(n2, c2)
        interval = self._INTERVALS[self.interval]
        with np.errstate(divide="ignore", invalid="ignore"):
            p1, p2 = c1 / n1, c2 / n2
        l1, u1 = interval(c1, n1, self.ci_level)
        l2, u2 = interval(c2, n2, self.ci_level)
        diff = p1 - p2
        low = diff - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
        high = diff + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
        out: dict[str, Any] = {"prob_greater": np.full(np.shape(diff), np.nan), "mean_diff": diff,
                               "ci_low": low, "ci_high": high}
        if s1 and s2:
            out = {key: _scalar(v) for key, v in out.items()}
        out["method"] = (f"difference of plug-in rates, Newcombe square-and-add {self.interval} "
                         f"{_level_text(self.ci_level)} interval")
        return out

    def rate_estimation(self, successes: Any, trials: Any) -> Any:
        """successes / trials (compat); ``nan`` where trials == 0."""
        n, c, _, scalar = est.check_counts(trials, successes)
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = c / n
        return _scalar(rate) if scalar else rate

    def get_result_type(self) -> str:
        return "point_estimate"


class BayesianMode(StatisticalMode):
    """Bayesian estimates: per conversation the conjugate Beta(a + c, b + n - c) (Fair Forge's
    fields), per task the agent's pooled population prior by default.

    Per-conversation fields (:meth:`estimate`, :meth:`rate_estimation`, :meth:`compare`,
    :meth:`posterior_samples`) are the exact conjugate posterior under Beta(beta_prior_a,
    beta_prior_b), as in Fair Forge, in every method but ``"hierarchical"``: means and
    equal-tailed intervals exact (Beta functions and Beta quantiles mapped through the
    increasing maps p -> 1-(1-p)^k and p -> p^k). Monte Carlo is used only for returned samples
    and comparisons, seeded per call from ``rng_seed``. ``n == 0`` gives the prior.

    ``method`` chooses the basis of the task-level suite estimates, the comparisons, the ranking
    and the quality labels:

    - ``"empirical_bayes"`` (default; "pooled"): each agent's tasks share a population prior
      Beta(mu kappa, (1 - mu) kappa) learnt from them, with the uncertainty of (mu, kappa) from
      its exact posterior under the hyperprior ``mu ~ Beta(*prior_mu)``, ``log kappa ~
      Normal(*prior_log_kappa)`` (2-D grid quadrature,
      :func:`agenteval.statistical.beta_binomial.hyperposterior`). A posterior under the
      hyperprior, not a marginal-likelihood point estimate: the name says the prior is learnt
      from the data. In simulation on tau-bench-like suites (50 tasks x 4 attempts) its suite
      headline has |bias| <= 0.02 and 95% coverage 0.92-0.98 (README, "Estimators by simulation").
    - ``"conjugate"`` (the flat prior, by name): each task on its own under Beta(beta_prior_a,
      beta_prior_b). With Beta(1, 1) and a few attempts it pulls every task toward 0.5: pass@k
      biased up, pass^k down, coverage far below nominal (simulation: +0.10 on pass@4).
    - ``"hierarchical"``: the same pooled model sampled with PyMC NUTS (``draws``, ``tune``,
      ``chains``, ``cores``, ``target_accept``, ``nuts_sampler``; seeded by ``rng_seed``, for
      which ``random_seed`` is an alias); ``share_across_agents=True`` puts the agents'
      logit mu and log kappa under a shared Normal hyperprior (then ``prior_mu`` is not used).
      The full fit: it also pools the per-conversation fields within each agent, except where
      every conversation has one interaction (no information on the spread: not fitted, an
      :class:`UninformativeFitWarning` says so, and the conjugate posterior is used).

    "New task" values are one estimator in every method (:mod:`agenteval.statistical.new_task`).
    The share of fully correct conversations (one rate per group) stays conjugate in every method.
    """

    METHODS = ("conjugate", "empirical_bayes", "hierarchical")

    def __init__(self, mc_samples: int = 5000, ci_level: float = 0.95, beta_prior_a: float = 1.0,
                 beta_prior_b: float = 1.0, rng_seed: int | None = 42, *,
                 method: str = "empirical_bayes", draws: int = 1000, tune: int = 1000, chains: int = 4,
                 cores: int = 1, target_accept: float = 0.9, nuts_sampler: str = "auto",
                 random_seed: int | None = None, prior_mu: tuple[float, float] = (1.0, 1.0),
                 prior_log_kappa: tuple[float, float] = (2.0, 1.5),
                 share_across_agents: bool = False) -> None:
        if isinstance(mc_samples, bool) or not isinstance(mc_samples, (int, np.integer)) or mc_samples < 1:
            raise ConfigError(f"mc_samples must be an integer >= 1, got {mc_samples!r}")
        self.mc_samples = int(mc_samples)
        self.ci_level = _check_ci_level(ci_level)
        for name, value in (("beta_prior_a", beta_prior_a), ("beta_prior_b", beta_prior_b)):
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise ConfigError(f"{name} must be a finite number > 0, got {value!r}") from None
            if not (math.isfinite(v) and v > 0):
                raise ConfigError(f"{name} must be a finite number > 0, got {value!r}")
        self.beta_prior_a = float(beta_prior_a)
        self.beta_prior_b = float(beta_prior_b)
        if rng_seed is not None and (isinstance(rng_seed, bool)
                                     or not isinstance(rng_seed, (int, np.integer)) or rng_seed < 0):
            raise ConfigError(f"rng_seed must be an integer >= 0 or None, got {rng_seed!r}")
        self.rng_seed = None if rng_seed is None else int(rng_seed)
        if random_seed is not None:
            self.rng_seed = _check_seed(random_seed)
        if method not in self.METHODS:
            raise ConfigError(f"method must be one of {list(self.METHODS)}, got {method!r}")
        self.method = method
        from agenteval.statistical.hierarchical import HyperPrior, SamplerSettings

        try:
            mu_a, mu_b = (float(x) for x in prior_mu)
            lk_mean, lk_sd = (float(x) for x in prior_log_kappa)
        except (TypeError, ValueError):
            raise ConfigError("prior_mu and prior_log_kappa must be pairs of numbers: (a, b) of "
                              "mu's Beta prior and (mean, sd) of log kappa's Normal prior") from None
        self.prior = HyperPrior(mu_a, mu_b, lk_mean, lk_sd)
        self.sampler = SamplerSettings(draws=draws, tune=tune, chains=chains, cores=cores,
                                       target_accept=float(target_accept)
                                       if isinstance(target_accept, (int, float)) else target_accept,
                                       nuts_sampler=nuts_sampler)
        self.share_across_agents = bool(share_across_agents)
        self.progress: bool | None = None
        """The MCMC fits' progress bar: None shows it once a fit takes a second, False never
        (``Agentic.run(progress=...)`` and ``--quiet`` set it); not a statistical setting."""
        self._fits: dict[bytes, Any] = {}

    def get_params(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this mode exactly (for the results' manifest)."""
        s, p = self.sampler, self.prior
        return {"mc_samples": self.mc_samples, "ci_level": self.ci_level,
                "beta_prior_a": self.beta_prior_a, "beta_prior_b": self.beta_prior_b,
                "rng_seed": self.rng_seed, "method": self.method, "draws": s.draws,
                "tune": s.tune, "chains": s.chains, "cores": s.cores,
                "target_accept": s.target_accept, "nuts_sampler": s.nuts_sampler,
                "prior_mu": (p.mu_a, p.mu_b), "prior_log_kappa": (p.log_kappa_mean, p.log_kappa_sd),
                "share_across_agents": self.share_across_agents}

    def __repr__(self) -> str:
        extra = ""
        if self.method != "conjugate":
            s = self.sampler
            extra = (f", method={self.method!r}, prior_mu=({self.prior.mu_a:g}, {self.prior.mu_b:g}), "
                     f"prior_log_kappa=({self.prior.log_kappa_mean:g}, {self.prior.log_kappa_sd:g})")
            if self.method == "hierarchical":
                extra += (f", draws={s.draws}, tune={s.tune}, chains={s.chains}, cores={s.cores}, "
                          f"target_accept={s.target_accept}, nuts_sampler={s.nuts_sampler!r}, "
                          f"share_across_agents={self.share_across_agents}")
        return (f"BayesianMode(mc_samples={self.mc_samples}, ci_level={self.ci_level!r}, "
                f"beta_prior_a={self.beta_prior_a!r}, beta_prior_b={self.beta_prior_b!r}, "
                f"rng_seed={self.rng_seed!r}{extra})")

    # ------------------------------------------------------------------ hierarchical methods

    def fit(self, n: Any, c: Any, *, groups: Any = None) -> Any:
        """The empirical-Bayes or MCMC fit of (mu, kappa) per group, cached per data set.

        ``groups``: one label per unit (e.g. assistant_id) or None (one group). Returns None in
        the conjugate method.
        """
        if self.method == "conjugate":
            return None
        from agenteval.statistical import hierarchical as hier

        n_arr, c_arr, _, _ = est.check_counts(n, c)
        codes, names = _group_codes(groups, n_arr.size)
        key = b"|".join([self.method.encode(), n_arr.tobytes(), c_arr.tobytes(), codes.tobytes(),
                         "\x00".join(names).encode()])
        if key not in self._fits:
            if self.method == "empirical_bayes":
                fit = hier.fit_empirical_bayes(n_arr, c_arr, codes, prior=self.prior,
                                               seed=self.rng_seed)
            else:
                fit = hier.fit_mcmc(n_arr, c_arr, codes, prior=self.prior, sampler=self.sampler,
                                    share_across_agents=self.share_across_agents,
                                    seed=self.rng_seed, group_names=names,
                                    progress=getattr(self, "progress", None))
            fit.names = names
            while len(self._fits) >= 4:
                self._fits.pop(next(iter(self._fits)))
            self._fits[key] = fit
        return self._fits[key]

    def estimate_units(self, n: Any, c: Any, k: Any, *, groups: Any = None) -> PassEstimate:
        """Per-conversation fields: :meth:`estimate` (Fair Forge's conjugate posterior), except in
        the ``"hierarchical"`` method, which pools conversations within each agent (groups)."""
        if self.conversation_fit(n, c, groups=groups) is None:
            return self.estimate(n, c, k)
        from agenteval.errors import check_k

        k_int = check_k(int(np.asarray(k).reshape(-1)[0]) if np.ndim(k) else k)
        fit = self.fit(n, c, groups=groups)
        out = fit.unit_summary(k_int, self.ci_level)
        return PassEstimate(**out, method=f"{fit.method}, partially pooled per agent "
                            f"({_level_text(self.ci_level)} intervals)")

    def conversation_fit(self, n: Any, c: Any, *, groups: Any = None) -> Any:
        """The fit behind pooled per-conversation fields: only in the ``"hierarchical"`` method,
        and None (with a :class:`UninformativeFitWarning`) when every conversation has at most
        one interaction: the spread between conversations is then not identified, so the
        per-conversation model would only return its prior (and cost half a run's time)."""
        if self.method != "hierarchical":
            return None
        n_arr = np.asarray(n)
        if n_arr.size and np.all(n_arr <= 1):
            warnings.warn("agenteval: every conversation has at most one judged interaction, so "
                          "the per-conversation hierarchical model has no information on the "
                          "spread between conversations; not fitted (per-conversation fields "
                          f"use the conjugate Beta({self.beta_prior_a:g}, {self.beta_prior_b:g}) "
                          "posterior; the task level is still fitted)", UninformativeFitWarning,
                          stacklevel=3)
            return None
        return self.fit(n, c, groups=groups)

    def _hier_task_estimate(self, fit: Any, n: np.ndarray, c: np.ndarray, k: int,
                            mask: np.ndarray) -> TaskEstimate:
        n_sel, c_sel = n[mask], c[mask]
        max_attempts = int(n_sel.max()) if n_sel.size else 0
        identified = k == 1 or max_attempts >= 2
        ub = suite.mean_unbiased(n_sel, c_sel, k)
        method = (f"{fit.method}: suite's tasks = mean over tasks of the partially pooled p_t^k "
                  f"(exact mean, {_level_text(self.ci_level)} interval from per-task draws); "
                  f"{suite.NEW_TASK_METHOD}")
        common = {"tasks": int(n_sel.size), "tasks_with_k": int(np.sum(n_sel >= k)),
                  "max_attempts": max_attempts, "identified": identified, "method": method}
        if not n_sel.size or not identified:
            return TaskEstimate.empty(**common, unbiased_pass_at_k=ub[0], unbiased_pass_pow_k=ub[1])
        t = fit.task_summary(k, self.ci_level, mask)
        new = new_task_estimate(n_sel, c_sel, k, level=self.ci_level, draws=self.mc_samples,
                                seed=self.rng_seed)
        new.pop("tasks")
        return TaskEstimate(**common, **{f"task_{key}": v for key, v in t.items()}, **new,
                            unbiased_pass_at_k=ub[0], unbiased_pass_pow_k=ub[1])

    def task_estimates(self, n: Any, c: Any, k: int, *, groups: Any,
                       names: list[str]) -> list[TaskEstimate]:
        """One fit over every task (units = tasks, groups = agents), summarised per group."""
        if self.method == "conjugate":  # one set of draws for all tasks and every group
            return suite.conjugate_task_estimates(
                n, c, k, groups=groups, n_groups=len(names), a=self.beta_prior_a,
                b=self.beta_prior_b, level=self.ci_level, draws=self.mc_samples, seed=self.rng_seed)
        n, c = np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64)
        g = np.asarray(groups, dtype=np.int64)
        if n.size == 0:
            return [self.task_estimate(n, c, k) for _ in range(len(names) + 1)]
        fit = self.fit(n, c, groups=[names[i] for i in g])
        out = [self._hier_task_estimate(fit, n, c, k, np.ones(n.size, bool))]
        if len(names) == 1 and np.all(g == 0):   # the one agent's tasks are all the tasks
            return out + out
        out += [self._hier_task_estimate(fit, n, c, k, g == i) for i in range(len(names))]
        return out

    def _posterior(self, n: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.beta_prior_a + c, self.beta_prior_b + (n - c)

    def stratified_rate(self, n: Any, m: Any, c: Any, k: int) -> dict[str, float]:
        """Post-stratified posterior share: exact mean, seeded Monte Carlo interval."""
        return suite.bayes_stratified_rate(n, m, c, k, a=self.beta_prior_a, b=self.beta_prior_b,
                                           level=self.ci_level, draws=self.mc_samples,
                                           seed=self.rng_seed)

    def task_estimate(self, n: Any, c: Any, k: int) -> TaskEstimate:
        """Independent per-task conjugate posteriors: exact means, seeded MC intervals."""
        return suite.conjugate_task_estimate(n, c, k, a=self.beta_prior_a, b=self.beta_prior_b,
                                             level=self.ci_level, draws=self.mc_samples,
                                             seed=self.rng_seed)

    def estimate(self, n: Any, c: Any, k: Any) -> PassEstimate:
        """Exact posterior means and equal-tailed intervals of p, pass@k and pass^k."""
        n, c, k, scalar = est.check_counts(n, c, k)
        level = self.ci_level

        def compute(n: np.ndarray, c: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, ...]:
            a, b = self._posterior(n, c)
            lo, hi = est.beta_interval(a, b, level)
            return (a / (a + b), lo, hi,
                    est.beta_pass_at_k_mean(a, b, k), _at_k(lo, k), _at_k(hi, k),
                    est.beta_pass_pow_k_mean(a, b, k), _pow_k(lo, k), _pow_k(hi, k))

        values = _grouped(n, c, k, compute)
        method = (f"beta-binomial exact {_level_text(level)} "
                  f"(prior Beta({self.beta_prior_a:g}, {self.beta_prior_b:g}))")
        return _finish(values, scalar, method)

    def _uniforms(self, size: int, rng: np.random.Generator | None = None) -> np.ndarray:
        rng = np.random.default_rng(self.rng_seed) if rng is None else rng
        return rng.random(size)

    def _check_size(self, size: int | None) -> int:
        if size is None:
            return self.mc_samples
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise ConfigError(f"size must be an integer >= 1, got {size!r}")
        return int(size)

    @staticmethod
    def _draw(a: np.ndarray, b: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Inverse-CDF draws: column j depends only on (a[j], b[j], u); shape (len(u), *a.shape)."""
        from scipy.special import betaincinv

        flat_a, flat_b = a.ravel(), b.ravel()
        # compute once per unique (a, b) column, then scatter
        pairs, inverse = np.unique(np.stack([flat_a, flat_b], axis=1), axis=0, return_inverse=True)
        cols = betaincinv(pairs[:, 0][None, :], pairs[:, 1][None, :], u[:, None])
        return cols[:, inverse.ravel()].reshape((u.size, *a.shape))

    def posterior_samples(self, n: Any, c: Any, *, size: int | None = None) -> np.ndarray:
        """Draws of p from each conversation's posterior, shape (size or mc_samples, *shape).

        One common uniform vector U from ``default_rng(rng_seed)`` (created inside the call) is
        mapped through each Beta inverse CDF, so a conversation's draws depend only on
        (rng_seed, posterior), never on its position, other conversations or earlier calls.
        Draws for different conversations are therefore comonotone, not independent: use
        :meth:`compare` for differences between them.
        """
        size = self._check_size(size)
        n, c, _, scalar = est.check_counts(n, c)
        a, b = self._posterior(n, c)
        draws = self._draw(a, b, self._uniforms(size))
        return draws.reshape(size) if scalar else draws

    def rate_estimation(self, successes: Any, trials: Any) -> dict[str, Any]:
        """Posterior of the rate (compat): dict(mean, ci_low, ci_high, samples).

        mean and bounds are exact; ``samples`` come from :meth:`posterior_samples`.
        """
        n, c, _, scalar = est.check_counts(trials, successes)
        a, b = self._posterior(n, c)
        lo, hi = est.beta_interval(a, b, self.ci_level)
        mean = a / (a + b)
        samples = self.posterior_samples(trials, successes)
        if scalar:
            return {"mean": _scalar(mean), "ci_low": _scalar(lo), "ci_high": _scalar(hi),
                    "samples": samples}
        return {"mean": mean, "ci_low": lo, "ci_high": hi, "samples": samples}

    def compare(self, n1: Any, c1: Any, n2: Any, c2: Any) -> dict[str, Any]:
        """Compare two independent rates p1 (n1, c1) and p2 (n2, c2) under their posteriors.

        Returns dict with
        - ``prob_greater``: P(p1 > p2), exact up to quadrature error (see ``_prob_greater``);
        - ``mean_diff``: E[p1 - p2], exact (difference of Beta means);
        - ``ci_low``, ``ci_high``: equal-tailed ``ci_level`` interval of p1 - p2 by seeded
          Monte Carlo with two independent streams spawned from ``rng_seed``;
        - ``samples``: the Monte Carlo draws of p1 - p2, shape (mc_samples, *shape);
        - ``method``: a short description.
        Inputs broadcast; the integral runs once per unique pair (meant for a handful of agents).
        """
        n1, c1, _, s1 = est.check_counts(n1, c1)
        n2, c2, _, s2 = est.check_counts(n2, c2)
        try:
            n1, c1, n2, c2 = np.broadcast_arrays(n1, c1, n2, c2)
        except ValueError:
            raise ConfigError(f"(n1, c1) and (n2, c2) must broadcast to one shape, got "
                              f"{n1.shape} and {n2.shape}") from None
        scalar = s1 and s2
        a1, b1 = self._posterior(n1, c1)
        a2, b2 = self._posterior(n2, c2)
        mean_diff = a1 / (a1 + b1) - a2 / (a2 + b2)

        rows, inverse = np.unique(np.stack([a1.ravel(), b1.ravel(), a2.ravel(), b2.ravel()], axis=1),
                                  axis=0, return_inverse=True)
        probs = np.array([_prob_greater(*row) for row in rows])
        prob = probs[inverse.ravel()].reshape(a1.shape)

        seeds = np.random.SeedSequence(self.rng_seed).spawn(2)
        u1 = self._uniforms(self.mc_samples, np.random.default_rng(seeds[0]))
        u2 = self._uniforms(self.mc_samples, np.random.default_rng(seeds[1]))
        diff = self._draw(a1, b1, u1) - self._draw(a2, b2, u2)
        tail = (1.0 - self.ci_level) / 2.0
        lo, hi = np.quantile(diff, [tail, 1.0 - tail], axis=0)
        out = {"prob_greater": prob, "mean_diff": mean_diff, "ci_low": lo, "ci_high": hi}
        if scalar:
            out = {key: _scalar(v) for key, v in out.items()}
            diff = diff.reshape(-1)
        out["samples"] = diff
        out["method"] = ("P(p1 > p2) by 1-D quadrature (exact); mean difference exact; "
                         f"{_level_text(self.ci_level)} interval of p1 - p2 by seeded Monte Carlo "
                         f"({self.mc_samples} draws)")
        return out

    def get_result_type(self) -> str:
        return "distribution"
