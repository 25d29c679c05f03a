"""Hierarchical Beta-Binomial: partial pooling of units (conversations or tasks) within each agent.

The model (DESIGN.md, "Bayesian, hierarchical"), per agent g with parameters (mu_g, kappa_g):

    c_u ~ BetaBinomial(n_u, mu_g kappa_g, (1 - mu_g) kappa_g)      for every unit u of agent g
    mu_g ~ Beta(mu_a, mu_b)                       default Beta(1, 1): any mean success rate
    log kappa_g ~ Normal(log_kappa_mean, log_kappa_sd)   default Normal(2, 1.5): kappa (the prior
                                                  "sample size" of a unit) between ~0.4 and ~140

p_u is integrated out, so the sampler sees only (mu, kappa); and units with the same (agent, n, c)
share one likelihood term, so the model runs over the *distinct* triples weighted by their counts
(a million conversations sample as fast as their few hundred distinct triples). Given each draw
of (mu, kappa), a unit's p_u has the exact conjugate posterior Beta(mu kappa + c_u, (1-mu) kappa
+ n_u - c_u): means of p_u, p_u^k and 1-(1-p_u)^k are averaged exactly over draws
(Rao-Blackwellised), intervals come from one p_u draw per (mu, kappa) draw. Population pass^k
(a new unit) per draw is B(a+k, b)/B(a, b) with a = mu kappa, b = (1-mu) kappa.

With ``share_across_agents=True`` the agents' logit mu_g and log kappa_g are themselves drawn
from a shared Normal hyperprior (non-centred), so agents borrow strength from each other.

Two ways to get the (mu, kappa) draws, with everything downstream identical:

* :func:`fit_mcmc`: PyMC NUTS over the marginal model; diagnostics (r_hat, ESS, divergences)
  are checked and returned, and a :class:`ConvergenceWarning` is raised when they fail.
* :func:`fit_empirical_bayes`: the same posterior of (mu, kappa) under the same hyperprior, computed
  by quadrature on a two-dimensional grid (:func:`agenteval.statistical.beta_binomial.hyperposterior`),
  then (mu, kappa) drawn from it. Exact to the grid's resolution, no sampler, no compilation.
  The name is historical: the population prior is learnt from the data (empirical Bayes), but
  its uncertainty is the full hyperposterior, neither a marginal-likelihood point estimate nor a
  Laplace approximation (far too short for kappa at a few attempts per unit).

PyTensor compiles C code into a cache folder: :func:`configure_pytensor` points it at
``$AGENTEVAL_PYTENSOR_DIR``, else at ``$XDG_CACHE_HOME/agenteval/pytensor`` (``~/.cache/...``),
unless ``PYTENSOR_FLAGS`` already names a ``base_compiledir``. It must run before PyTensor is
first imported in the process; agenteval calls it before it imports PyMC.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agenteval.errors import ConfigError
from agenteval.statistical import estimators as est
from agenteval.statistical.beta_binomial import HyperPrior, hyperposterior, log_marginal_likelihood
from agenteval.statistical.beta_sums import beta_sums

__all__ = [
    "ConvergenceWarning",
    "HyperPrior",
    "HierarchicalFit",
    "SamplerSettings",
    "configure_pytensor",
    "distinct_triples",
    "fit_empirical_bayes",
    "fit_mcmc",
    "log_marginal_likelihood",
]

#: Diagnostics thresholds (Vehtari et al. 2021, "Rank-normalization, folding, and localization").
RHAT_MAX = 1.01
ESS_MIN_PER_CHAIN = 100   # 400 with 4 chains


class ConvergenceWarning(UserWarning):
    """The sampler's diagnostics failed: r_hat too high, ESS too low, or divergent transitions."""


@dataclass(frozen=True)
class SamplerSettings:
    """NUTS settings (PyMC's ``pm.sample`` arguments of the same names)."""

    draws: int = 1000
    tune: int = 1000
    chains: int = 4
    cores: int = 1
    target_accept: float = 0.9
    nuts_sampler: str = "auto"
    """'pymc', 'nutpie', or 'auto' (nutpie when installed, else pymc)."""

    def __post_init__(self) -> None:
        for name in ("draws", "tune", "chains", "cores"):
            value = getattr(self, name)
            low = 0 if name == "tune" else 1
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ConfigError(f"{name} must be an integer >= {low}, got {value!r}")
        if not (isinstance(self.target_accept, float) and 0.5 <= self.target_accept < 1.0):
            raise ConfigError(f"target_accept must be a float in [0.5, 1), got {self.target_accept!r}")
        if self.nuts_sampler not in ("auto", "pymc", "nutpie"):
            raise ConfigError(f"nuts_sampler must be 'auto', 'pymc' or 'nutpie', got {self.nuts_sampler!r}")

    def resolved_sampler(self) -> str:
        if self.nuts_sampler != "auto":
            return self.nuts_sampler
        import importlib.util

        return "nutpie" if importlib.util.find_spec("nutpie") is not None else "pymc"


# --------------------------------------------------------------------------- data


def distinct_triples(n: Any, c: Any, groups: Any = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (group, n, c) triples: (g_j, n_j, c_j, weight_j, inverse) with units = triples[inverse].

    >>> g, n, c, w, inv = distinct_triples([2, 2, 3], [1, 1, 0], [0, 0, 0])
    >>> n.tolist(), c.tolist(), w.tolist(), inv.tolist()
    ([2, 3], [1, 0], [2, 1], [0, 0, 1])
    """
    n_arr, c_arr, _, _ = est.check_counts(n, c)
    n_arr, c_arr = n_arr.ravel().astype(np.int64), c_arr.ravel().astype(np.int64)
    g_arr = (np.zeros(n_arr.size, dtype=np.int64) if groups is None
             else np.asarray(groups, dtype=np.int64).ravel())
    if g_arr.size != n_arr.size:
        raise ConfigError(f"groups must have one entry per unit ({n_arr.size}), got {g_arr.size}")
    if g_arr.size and g_arr.min() < 0:
        raise ConfigError("groups must be integer codes >= 0")
    top = int(n_arr.max()) + 1 if n_arr.size else 1
    groups_top = int(g_arr.max()) + 1 if g_arr.size else 1
    if float(groups_top) * top * top < 2.0 ** 62:   # one int64 key per unit: a fast 1-D unique
        key = (g_arr * top + n_arr) * top + c_arr
        uniq, inverse, weights = np.unique(key, return_inverse=True, return_counts=True)
        rest, c_j = np.divmod(uniq, top)
        g_j, n_j = np.divmod(rest, top)
        return g_j, n_j, c_j, weights, inverse.ravel()
    rows, inverse, weights = np.unique(np.stack([g_arr, n_arr, c_arr], axis=1), axis=0,
                                       return_inverse=True, return_counts=True)
    return rows[:, 0], rows[:, 1], rows[:, 2], weights, inverse.ravel()


# --------------------------------------------------------------------------- fits


@dataclass
class HierarchicalFit:
    """Draws of each group's (mu, kappa) and the data they were fitted to.

    ``mu`` and ``kappa`` have shape (chains, draws, groups). Summaries (:meth:`unit_summary`,
    :meth:`task_summary`, :meth:`population`) are seeded and exact given the draws.
    """

    method: str
    mu: np.ndarray
    kappa: np.ndarray
    triples: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    inverse: np.ndarray
    groups: int
    prior: HyperPrior
    seed: int | None
    diagnostics: dict[str, Any] = field(default_factory=dict)
    idata: Any = None
    """PyMC's InferenceData (MCMC only); :mod:`agenteval._util.arviz` builds a full one."""
    names: list[str] = field(default_factory=list)
    """Group (agent) names, in code order."""

    @property
    def flat(self) -> tuple[np.ndarray, np.ndarray]:
        """(mu, kappa) with chains and draws merged: shape (samples, groups)."""
        g = self.mu.shape[-1]
        return self.mu.reshape(-1, g), self.kappa.reshape(-1, g)

    def _rng(self, stream: int) -> np.random.Generator:
        return np.random.default_rng(np.random.SeedSequence(self.seed).spawn(stream + 1)[stream])

    def _posterior_params(self) -> tuple[np.ndarray, np.ndarray]:
        """Per draw and distinct triple j: the conjugate posterior Beta(a_sj, b_sj) of p."""
        mu, kappa = self.flat
        g, n, c, _ = self.triples
        a = mu[:, g] * kappa[:, g] + c
        b = (1.0 - mu[:, g]) * kappa[:, g] + (n - c)
        return a, b

    def triple_draws(self) -> np.ndarray:
        """One p draw per (mu, kappa) draw and distinct triple: shape (samples, triples)."""
        a, b = self._posterior_params()
        return self._rng(0).beta(a, b)

    def unit_draws(self) -> np.ndarray:
        """Independent p_u draws for every unit, one per (mu, kappa) draw: (chains, draws, units)."""
        a, b = self._posterior_params()
        p = self._rng(2).beta(a[:, self.inverse], b[:, self.inverse])
        return p.reshape(*self.mu.shape[:2], -1)

    def unit_draw_blocks(self, rows: int = 256) -> Iterator[np.ndarray]:
        """:meth:`unit_draws` as (draws, units), ``rows`` draws at a time: the same numbers
        (one generator read in the same order), never all of them at once."""
        a, b = self._posterior_params()
        rng = self._rng(2)
        for start in range(0, a.shape[0], rows):
            yield rng.beta(a[start:start + rows][:, self.inverse],
                           b[start:start + rows][:, self.inverse])

    def unit_summary(self, k: int, level: float) -> dict[str, np.ndarray]:
        """Per unit: partially pooled rate, pass@k, pass^k (exact means) and intervals."""
        a, b = self._posterior_params()
        rate = (a / (a + b)).mean(axis=0)
        at = est.beta_pass_at_k_mean(a, b, k).mean(axis=0)
        pw = est.beta_pass_pow_k_mean(a, b, k).mean(axis=0)
        p = self.triple_draws()
        tail = (1.0 - level) / 2.0
        lo, hi = np.quantile(p, [tail, 1.0 - tail], axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            at_lo, at_hi = -np.expm1(k * np.log1p(-lo)), -np.expm1(k * np.log1p(-hi))
        out = {"rate": rate, "rate_low": lo, "rate_high": hi, "pass_at_k": at,
               "pass_at_k_low": at_lo, "pass_at_k_high": at_hi, "pass_pow_k": pw,
               "pass_pow_k_low": lo ** k, "pass_pow_k_high": hi ** k}
        return {key: v[self.inverse] for key, v in out.items()}

    def population(self, k: int, level: float, weights: np.ndarray | None = None
                   ) -> dict[str, float]:
        """A new unit from the population: mu, pass@k, pass^k (means and intervals).

        Per draw, pass^k = B(a+k, b)/B(a, b) and pass@k = 1 - B(a, b+k)/B(a, b) with a = mu kappa,
        b = (1-mu) kappa; several groups are mixed with ``weights`` (default: equal).
        """
        mu, kappa = self.flat
        a, b = mu * kappa, (1.0 - mu) * kappa
        pw = est.beta_pass_pow_k_mean(a, b, k)
        at = est.beta_pass_at_k_mean(a, b, k)
        w = np.full(mu.shape[1], 1.0 / mu.shape[1]) if weights is None else weights / weights.sum()
        tail = (1.0 - level) / 2.0
        out = {}
        for name, x in (("mu", mu), ("pass_at_k", at), ("pass_pow_k", pw), ("kappa", kappa)):
            v = x @ w
            lo, hi = np.quantile(v, [tail, 1.0 - tail])
            out[name], out[f"{name}_low"], out[f"{name}_high"] = float(v.mean()), float(lo), float(hi)
        return out

    def task_summary(self, k: int, level: float, units: np.ndarray | None = None) -> dict[str, float]:
        """The suite's units (``units``: boolean mask or indices; default all): mean over them of
        p_u^k and 1-(1-p_u)^k, exact mean, interval from independent per-unit draws (beyond
        ``beta_sums.EXACT_GROUP`` units, the skew-corrected normal sum, ``beta_sums``)."""
        a, b = self._posterior_params()
        idx = np.arange(self.inverse.size) if units is None else np.flatnonzero(
            np.asarray(units)) if np.asarray(units).dtype == bool else np.asarray(units)
        tri = self.inverse[idx]
        counts = np.bincount(tri, minlength=a.shape[1]).astype(float)
        t = idx.size
        mean_at = float((est.beta_pass_at_k_mean(a, b, k) @ counts).mean() / t)
        mean_pw = float((est.beta_pass_pow_k_mean(a, b, k) @ counts).mean() / t)
        rng = self._rng(1)
        sums = beta_sums(a, b, counts, k, ("at", "pow"), rng)  # independent units, per draw
        sum_at, sum_pw = sums["at"], sums["pow"]
        tail = (1.0 - level) / 2.0
        at_lo, at_hi = np.quantile(sum_at / t, [tail, 1.0 - tail])
        pw_lo, pw_hi = np.quantile(sum_pw / t, [tail, 1.0 - tail])
        return {"pass_at_k": mean_at, "pass_at_k_low": float(at_lo), "pass_at_k_high": float(at_hi),
                "pass_pow_k": mean_pw, "pass_pow_k_low": float(pw_lo), "pass_pow_k_high": float(pw_hi)}


def _check_inputs(n: Any, c: Any, groups: Any) -> tuple[tuple[np.ndarray, ...], np.ndarray, int]:
    g, n_j, c_j, w, inverse = distinct_triples(n, c, groups)
    n_groups = int(g.max()) + 1 if g.size else 0
    if n_groups == 0:
        raise ConfigError("the hierarchical model needs at least one unit")
    return (g, n_j, c_j, w), inverse, n_groups


def fit_empirical_bayes(n: Any, c: Any, groups: Any = None, *, prior: HyperPrior = HyperPrior(),
                        draws: int = 4000, seed: int | None = 42) -> HierarchicalFit:
    """Each group's (mu, kappa) posterior by grid quadrature, and ``draws`` seeded draws from it.

    The posterior is the hierarchical model's (same likelihood, same hyperprior) computed exactly
    on a grid over (logit mu, log kappa) (:func:`agenteval.statistical.beta_binomial.hyperposterior`),
    so intervals of mu, kappa and everything downstream carry the hyperparameters' uncertainty
    and agree with :func:`fit_mcmc` up to its Monte Carlo error. ``diagnostics["groups"]`` holds
    each group's posterior mode and 95% intervals of mu and kappa (from the grid, no sampling).
    """
    (g, n_j, c_j, w), inverse, n_groups = _check_inputs(n, c, groups)
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 1:
        raise ConfigError(f"draws must be an integer >= 1, got {draws!r}")
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(3)[2])
    mu_draws = np.empty((1, draws, n_groups))
    kappa_draws = np.empty((1, draws, n_groups))
    summaries = []
    for grp in range(n_groups):
        sel = g == grp
        post = hyperposterior(n_j[sel], c_j[sel], w[sel], prior=prior)
        mu_draws[0, :, grp], kappa_draws[0, :, grp] = post.draws(draws, rng)
        mode_mu, mode_kappa = post.mode()
        summaries.append({"mu": mode_mu, "kappa": mode_kappa, "mu_interval": post.mu_interval(),
                          "kappa_interval": post.kappa_interval(), "units": post.units})
    # no wall time here: the default mode's summary stays the same from run to run
    diagnostics = {"method": "empirical_bayes", "modes": summaries, "converged": True,
                   "integration": "2-D grid quadrature over (logit mu, log kappa)", "draws": draws}
    return HierarchicalFit(method="pooled: Beta-Binomial population prior per agent, "
                           "(mu, kappa) posterior by grid quadrature",
                           mu=mu_draws, kappa=kappa_draws, triples=(g, n_j, c_j, w),
                           inverse=inverse, groups=n_groups, prior=prior, seed=seed,
                           diagnostics=diagnostics)


# --------------------------------------------------------------------------- PyMC


def pytensor_compiledir() -> Path:
    """Where PyTensor's compile cache goes: $AGENTEVAL_PYTENSOR_DIR, else the user cache dir."""
    env = os.environ.get("AGENTEVAL_PYTENSOR_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agenteval" / "pytensor"


def configure_pytensor() -> str:
    """Point PyTensor's ``base_compiledir`` at :func:`pytensor_compiledir` (before it is imported).

    Leaves an explicit ``base_compiledir`` in ``PYTENSOR_FLAGS`` alone, and cannot change the
    folder once PyTensor is imported. Returns the folder in use.
    """
    flags = os.environ.get("PYTENSOR_FLAGS", "")
    if "pytensor" in sys.modules:
        from pytensor import config

        return str(config.base_compiledir)
    if "base_compiledir" not in flags:
        path = pytensor_compiledir()
        path.mkdir(parents=True, exist_ok=True)
        os.environ["PYTENSOR_FLAGS"] = ",".join(f for f in (flags, f"base_compiledir={path}") if f)
        return str(path)
    return flags.split("base_compiledir=", 1)[1].split(",", 1)[0]


class _DropBlasNotice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "BLAS" not in record.getMessage()


def import_pymc() -> Any:
    """Import PyMC with the compile cache configured and two import-time notices silenced:
    PyTensor's "Using NumPy C-API based implementation for BLAS functions" and ArviZ's daily
    FutureWarning about its refactor (neither is actionable for an agenteval user)."""
    configure_pytensor()
    logging.getLogger("pytensor.tensor.blas").addFilter(_DropBlasNotice())
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=FutureWarning, module="arviz")
        warnings.filterwarnings("ignore", message=".*ArviZ is undergoing a major refactor.*")
        try:
            import pymc as pm
        except ImportError as exc:  # pragma: no cover - part of the dev install
            raise ImportError("BayesianMode(method='hierarchical') needs PyMC: "
                              "pip install 'agenteval[bayes]'") from exc
    return pm


def quiet_sample(model: Any, sampler: SamplerSettings, *, seed: int | None,
                 progressbar: bool = False, callback: Any = None,
                 also_ignore: tuple[type[Warning], ...] = ()) -> Any:
    """``pm.sample`` of ``model`` with ``sampler``'s settings, without PyMC's chatter: its logger
    at ERROR, FutureWarnings and PyMC's UserWarnings (plus ``also_ignore``) silenced, and no
    convergence checks of its own (the callers check r_hat, ESS and divergences themselves and
    say what to change). ``callback`` is PyMC's per-draw callback (the pymc sampler only).
    Returns the InferenceData."""
    import pymc as pm

    log = logging.getLogger("pymc")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=FutureWarning)
            warnings.filterwarnings("ignore", category=UserWarning, module="pymc")
            for category in also_ignore:
                warnings.filterwarnings("ignore", category=category)
            return pm.sample(draws=sampler.draws, tune=sampler.tune, chains=sampler.chains,
                             cores=sampler.cores, target_accept=sampler.target_accept,
                             random_seed=seed, nuts_sampler=sampler.resolved_sampler(),
                             progressbar=progressbar, callback=callback,
                             compute_convergence_checks=False, model=model)
    finally:
        log.setLevel(level)


def fit_mcmc(n: Any, c: Any, groups: Any = None, *, prior: HyperPrior = HyperPrior(),
             sampler: SamplerSettings = SamplerSettings(), share_across_agents: bool = False,
             seed: int | None = 42, group_names: list[str] | None = None,
             progress: bool | None = False) -> HierarchicalFit:
    """Sample the marginal model with NUTS; check r_hat, ESS and divergences.

    ``progress``: a bar over chains x (tune + draws) with the stage (importing PyMC, compiling,
    tuning or sampling which chain); None shows it once the fit takes more than a second
    (:mod:`agenteval._util.progress`), False never.

    The likelihood is one ``pm.Potential``: sum over distinct (group, n, c) triples of
    count x log BetaBinomial(c | n, mu_g kappa_g, (1 - mu_g) kappa_g). Raises a
    :class:`ConvergenceWarning` when max r_hat > 1.01, min bulk/tail ESS < 100 per chain or any
    transition diverged; the numbers are in ``fit.diagnostics``.
    """
    (g, n_j, c_j, w), inverse, n_groups = _check_inputs(n, c, groups)
    bar = _sampling_bar(inverse.size, n_groups, sampler, progress)
    bar.stage("importing PyMC", slow="pymc" not in sys.modules)
    pm = import_pymc()
    import pytensor.tensor as pt
    from scipy.special import gammaln

    log_choose = gammaln(n_j + 1.0) - gammaln(c_j + 1.0) - gammaln(n_j - c_j + 1.0)
    names = group_names or [str(i) for i in range(n_groups)]
    coords = {"agent": names[:n_groups]}
    t0 = time.perf_counter()
    with pm.Model(coords=coords) as model:
        if share_across_agents and n_groups > 1:
            mu_loc = pm.Normal("mu_loc", 0.0, 1.5)
            mu_scale = pm.HalfNormal("mu_scale", 1.0)
            lk_loc = pm.Normal("log_kappa_loc", prior.log_kappa_mean, prior.log_kappa_sd)
            lk_scale = pm.HalfNormal("log_kappa_scale", 1.0)
            z_mu = pm.Normal("z_mu", 0.0, 1.0, dims="agent")
            z_lk = pm.Normal("z_log_kappa", 0.0, 1.0, dims="agent")
            mu = pm.Deterministic("mu", pm.math.sigmoid(mu_loc + mu_scale * z_mu), dims="agent")
            log_kappa = pm.Deterministic("log_kappa", lk_loc + lk_scale * z_lk, dims="agent")
        else:
            mu = pm.Beta("mu", prior.mu_a, prior.mu_b, dims="agent")
            log_kappa = pm.Normal("log_kappa", prior.log_kappa_mean, prior.log_kappa_sd, dims="agent")
        kappa = pm.Deterministic("kappa", pt.exp(log_kappa), dims="agent")
        a, b = mu[g] * kappa[g], (1.0 - mu[g]) * kappa[g]

        def betaln(x: Any, y: Any) -> Any:
            return pt.gammaln(x) + pt.gammaln(y) - pt.gammaln(x + y)

        terms = log_choose + betaln(c_j + a, n_j - c_j + b) - betaln(a, b)
        pm.Potential("log_likelihood", pt.sum(w * terms))
        name = sampler.resolved_sampler()
        bar.stage("compiling the model")
        try:
            idata = quiet_sample(model, sampler, seed=seed,
                                 progressbar=name != "pymc" and progress is not False,
                                 callback=_draw_counter(bar, sampler) if name == "pymc" else None)
        finally:
            bar.close()
    seconds = time.perf_counter() - t0
    post = idata.posterior
    mu_draws = np.asarray(post["mu"].values, dtype=float)
    kappa_draws = np.asarray(post["kappa"].values, dtype=float)
    diagnostics = _diagnostics(idata, sampler, name, seconds)
    fit = HierarchicalFit(method=f"hierarchical Beta-Binomial, PyMC NUTS ({name})", mu=mu_draws,
                          kappa=kappa_draws, triples=(g, n_j, c_j, w), inverse=inverse,
                          groups=n_groups, prior=prior, seed=seed, diagnostics=diagnostics,
                          idata=idata)
    problems = diagnostics["problems"]
    if problems:
        warnings.warn("agenteval: hierarchical fit did not pass its diagnostics: "
                      + "; ".join(problems) + " (more draws/tune, or a higher target_accept)",
                      ConvergenceWarning, stacklevel=2)
    return fit


def _sampling_bar(units: int, groups: int, sampler: SamplerSettings, progress: bool | None) -> Any:
    from agenteval._util.progress import Progress

    return Progress(sampler.chains * (sampler.tune + sampler.draws),
                    f"NUTS fit ({units} units, {groups} group{'s' * (groups != 1)}): "
                    f"{sampler.chains} chains x {sampler.draws} draws + {sampler.tune} tune",
                    # an MCMC fit is always a slow phase: shown unless switched off (as PyMC's own)
                    enabled=progress is not False, unit="draw")


def _draw_counter(bar: Any, sampler: SamplerSettings) -> Any:
    """PyMC's ``callback``: one tick per draw, and the stage when chain or phase changes (the
    PyMC sampler calls it for every chain, also with cores > 1)."""
    seen: set[tuple[int, bool]] = set()

    def callback(trace: Any = None, draw: Any = None) -> None:
        if draw is not None:
            stage = (int(draw.chain), bool(draw.tuning))
            if not seen:
                bar.restart()   # the rate and time left of sampling, not of compiling
            if stage not in seen:
                seen.add(stage)
                bar.stage(f"{'tuning' if stage[1] else 'sampling'} chain {stage[0] + 1} of "
                          f"{sampler.chains}")
        bar.update()

    return callback


def _diagnostics(idata: Any, sampler: SamplerSettings, name: str, seconds: float) -> dict[str, Any]:
    """Max r_hat, min bulk and tail ESS over mu and log kappa, and the divergence count."""
    from agenteval._util import arviz as _arviz

    var_names = ["mu", "log_kappa"]
    rhat = _arviz.max_over(_arviz.rhat(idata, var_names))
    ess_bulk = _arviz.min_over(_arviz.ess(idata, var_names, method="bulk"))
    ess_tail = _arviz.min_over(_arviz.ess(idata, var_names, method="tail"))
    stats = idata.sample_stats
    divergences = int(np.asarray(stats["diverging"].values).sum()) if "diverging" in stats else 0
    problems = []
    if sampler.chains > 1 and not rhat <= RHAT_MAX:
        problems.append(f"max r_hat {rhat:.3f} > {RHAT_MAX}")
    ess_min = ESS_MIN_PER_CHAIN * sampler.chains
    if not min(ess_bulk, ess_tail) >= ess_min:
        problems.append(f"min ESS {min(ess_bulk, ess_tail):.0f} < {ess_min} (100 per chain)")
    if divergences:
        problems.append(f"{divergences} divergent transitions")
    return {"method": "mcmc", "sampler": name, "chains": sampler.chains, "draws": sampler.draws,
            "tune": sampler.tune, "target_accept": sampler.target_accept, "r_hat_max": rhat,
            "ess_bulk_min": ess_bulk, "ess_tail_min": ess_tail, "divergences": divergences,
            "seconds": seconds, "problems": problems, "ok": not problems}
