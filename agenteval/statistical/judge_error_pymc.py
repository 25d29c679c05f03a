"""The latent-truth misclassification model in PyMC (the hierarchical mode's form).

The same model as :func:`agenteval.statistical.judge_error.latent_truth_draws` (whose Gibbs
sampler serves the conjugate and empirical-Bayes modes), sampled with NUTS, with every
interaction's truth **marginalised** rather than drawn: per group g (agent),

    se ~ Beta(1, 1), sp ~ Beta(1, 1)     one pair for all groups (pooled), else one per group
    theta_g ~ Beta(1, 1)                 the group's per-interaction success rate
    labelled:   (tp + fn)_g ~ Binomial(labelled_g, theta_g)      the human truths
                tp_g ~ Binomial(tp_g + fn_g, se),  tn_g ~ Binomial(fp_g + tn_g, sp)
    unlabelled: judged-1_g ~ Binomial(judged_g, q_g),  q_g = se theta_g + (1 - sp)(1 - theta_g)

which is the exact marginal likelihood of the augmented model (the latent truths summed out
item by item), so its posterior over (se, sp, theta) is the Gibbs sampler's. Conversation
correctness then compounds exactly per draw: P(all true | verdicts) = ppv^m1 fom^m0 theta^mu
(:func:`~agenteval.statistical.judge_error.conversation_truth_probability`). The sampler's
r_hat, ESS and divergences are checked and returned, as the hierarchical fit's are.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

from agenteval.errors import ConfigError

__all__ = ["latent_truth_pymc"]


def latent_truth_pymc(labelled: Any, unlabelled: Any, *, pooled: bool = True,
                      sampler: Any = None, seed: int | None = 0,
                      prior_se: tuple[float, float] = (1.0, 1.0),
                      prior_sp: tuple[float, float] = (1.0, 1.0),
                      prior_theta: tuple[float, float] = (1.0, 1.0)
                      ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Posterior draws of (se, sp, theta_g) by PyMC NUTS, and the sampler's diagnostics.

    ``labelled`` (groups, 4) counts (tp, fn, fp, tn); ``unlabelled`` (groups, 2) counts (judged
    1, judged 0); ``sampler``: :class:`~agenteval.statistical.hierarchical.SamplerSettings`
    (draws, tune, chains, cores, target_accept, nuts_sampler). Returns (draws, diagnostics):
    draws {'se', 'sp', 'theta': (chains x draws, groups) arrays, 'method': text} (the fields of
    :class:`~agenteval.statistical.judge_error.LatentTruthDraws`, which this module does not
    import: judge_error imports it lazily).
    """
    from agenteval._util import arviz as _arviz
    from agenteval.statistical.hierarchical import (
        ConvergenceWarning,
        SamplerSettings,
        import_pymc,
        quiet_sample,
    )

    lab = np.asarray(labelled, float).reshape(-1, 4)
    unl = np.asarray(unlabelled, float).reshape(-1, 2)
    if lab.shape[0] != unl.shape[0] or (lab < 0).any() or (unl < 0).any():
        raise ConfigError("labelled must be (groups, 4) and unlabelled (groups, 2) non-negative "
                          f"counts, got shapes {lab.shape} and {unl.shape}")
    s = sampler or SamplerSettings()
    g = lab.shape[0]
    tp, fn, fp, tn = (lab[:, i].astype(np.int64) for i in range(4))
    u1, u0 = (unl[:, i].astype(np.int64) for i in range(2))
    pm = import_pymc()
    t0 = time.perf_counter()
    with pm.Model() as model:
        size = None if pooled else g
        se = pm.Beta("se", *prior_se, shape=size)
        sp = pm.Beta("sp", *prior_sp, shape=size)
        theta = pm.Beta("theta", *prior_theta, shape=g)
        q = se * theta + (1 - sp) * (1 - theta)
        pm.Binomial("human_correct", n=tp + fn + fp + tn, p=theta, observed=tp + fn)
        pm.Binomial("judge_on_correct", n=tp + fn, p=se, observed=tp)
        pm.Binomial("judge_on_wrong", n=fp + tn, p=sp, observed=tn)
        pm.Binomial("judged_correct", n=u1 + u0, p=q, observed=u1)
        name = s.resolved_sampler()
        idata = quiet_sample(model, s, seed=seed, also_ignore=(RuntimeWarning,))
    seconds = time.perf_counter() - t0
    post = idata.posterior

    def flat(var: str) -> np.ndarray:
        x = np.asarray(post[var].values, float)
        x = x.reshape(x.shape[0] * x.shape[1], -1)
        return np.broadcast_to(x, (x.shape[0], g)).copy()

    draws = dict(se=flat("se"), sp=flat("sp"), theta=flat("theta"),
                 method=f"latent-truth misclassification model, PyMC NUTS ({name}), "
                 "truths marginalised, "
                 + ("se/sp pooled over groups" if pooled else "se/sp per group"))
    names = ["se", "sp", "theta"]
    rhat = _arviz.max_over(_arviz.rhat(idata, names))
    ess_bulk = _arviz.min_over(_arviz.ess(idata, names, method="bulk"))
    ess_tail = _arviz.min_over(_arviz.ess(idata, names, method="tail"))
    stats = idata.sample_stats
    divergences = int(np.asarray(stats["diverging"].values).sum()) if "diverging" in stats else 0
    problems = []
    if s.chains > 1 and not rhat <= 1.01:
        problems.append(f"max r_hat {rhat:.3f} > 1.01")
    if not min(ess_bulk, ess_tail) >= 100 * s.chains:
        problems.append(f"min ESS {min(ess_bulk, ess_tail):.0f} < {100 * s.chains} (100 per chain)")
    if divergences:
        problems.append(f"{divergences} divergent transitions")
    diagnostics = {"level": "judge correction", "method": "mcmc", "sampler": name,
                   "chains": s.chains, "draws": s.draws, "tune": s.tune,
                   "target_accept": s.target_accept, "r_hat_max": rhat,
                   "ess_bulk_min": ess_bulk, "ess_tail_min": ess_tail,
                   "divergences": divergences, "seconds": seconds, "problems": problems,
                   "ok": not problems}
    if problems:
        warnings.warn("agenteval: the judge-correction model did not pass its diagnostics: "
                      + "; ".join(problems) + " (more draws/tune, or a higher target_accept)",
                      ConvergenceWarning, stacklevel=2)
    return draws, diagnostics
