"""Quality assessment (Fair Forge's table) with the probability of each label.

Fair Forge documents three labels from pass@k and pass^k:

=================  ===============================================
Reliable           pass@k > 0.95 and pass^k > 0.70
Inconsistent       pass@k > 0.95 and pass^k < 0.50
Needs improvement  pass@k < 0.70
=================  ===============================================

Everything else is ``Unlabelled`` here (the table names no label for it). Thresholds are
configurable (:class:`Thresholds`). A label from point estimates hides how sure it is: in the
Bayesian modes each label also gets its posterior probability, so a "Reliable" that rests on five
conversations says how likely it really is.

- One rate p with posterior Beta(a, b) (a conversation, or an agent's pooled conversations):
  pass@k = 1 - (1 - p)^k and pass^k = p^k are increasing in p, so each label is an interval of p
  and its probability is exact (Beta CDF differences, :func:`label_probabilities_beta`).
- Task-level quantities (means over tasks): from posterior draws (:func:`label_probabilities`).

The per-conversation table (:func:`assess_conversations`) is a pure function of the table of
counts (``statistical.counts.SuiteCounts``: each conversation's n judged interactions, c
correct), the mode and the per-conversation point estimates; the results compute it once and
their views only turn it into rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agenteval.errors import ConfigError, check_k, check_unit

__all__ = ["LABELS", "ConversationAssessment", "QualityRow", "Thresholds", "assess",
           "assess_agents", "assess_conversations", "label_probabilities",
           "label_probabilities_beta"]

LABELS = ("Reliable", "Inconsistent", "Needs improvement", "Unlabelled")


@dataclass(frozen=True)
class Thresholds:
    """Cut-offs of the assessment table (Fair Forge's defaults)."""

    reliable_pass_at_k: float = 0.95
    """Reliable and Inconsistent need pass@k above this."""
    reliable_pass_pow_k: float = 0.70
    """Reliable needs pass^k above this."""
    inconsistent_pass_pow_k: float = 0.50
    """Inconsistent needs pass^k below this."""
    needs_improvement_pass_at_k: float = 0.70
    """Needs improvement: pass@k below this."""

    def __post_init__(self) -> None:
        for name in ("reliable_pass_at_k", "reliable_pass_pow_k", "inconsistent_pass_pow_k",
                     "needs_improvement_pass_at_k"):
            check_unit(name, getattr(self, name))
        if self.inconsistent_pass_pow_k > self.reliable_pass_pow_k:
            raise ConfigError("inconsistent_pass_pow_k must not exceed reliable_pass_pow_k")
        if self.needs_improvement_pass_at_k > self.reliable_pass_at_k:
            raise ConfigError("needs_improvement_pass_at_k must not exceed reliable_pass_at_k")


def _masks(at: np.ndarray, pw: np.ndarray, t: Thresholds) -> list[np.ndarray]:
    reliable = (at > t.reliable_pass_at_k) & (pw > t.reliable_pass_pow_k)
    inconsistent = (at > t.reliable_pass_at_k) & (pw < t.inconsistent_pass_pow_k)
    needs = at < t.needs_improvement_pass_at_k
    return [reliable, inconsistent, needs, ~(reliable | inconsistent | needs)]


def assess(pass_at_k: Any, pass_pow_k: Any, *, thresholds: Thresholds | None = None) -> Any:
    """The label of each (pass@k, pass^k) pair; ``None`` where either is NaN.

    >>> assess([0.99, 0.99, 0.5, 0.9], [0.8, 0.3, 0.1, 0.6]).tolist()
    ['Reliable', 'Inconsistent', 'Needs improvement', 'Unlabelled']
    """
    t = thresholds or Thresholds()
    at, pw = (np.asarray(x, dtype=float) for x in (pass_at_k, pass_pow_k))
    at, pw = np.broadcast_arrays(at, pw)
    out = np.select(_masks(at, pw, t), np.array(LABELS, dtype=object), default=None)
    out = np.where(np.isnan(at) | np.isnan(pw), None, out)
    return out.item() if out.ndim == 0 else out


def label_probabilities(pass_at_k_draws: Any, pass_pow_k_draws: Any, *,
                        thresholds: Thresholds | None = None) -> dict[str, np.ndarray]:
    """Share of joint posterior draws (axis 0) that fall under each label."""
    t = thresholds or Thresholds()
    at, pw = (np.asarray(x, dtype=float) for x in (pass_at_k_draws, pass_pow_k_draws))
    if at.shape != pw.shape or at.ndim == 0:
        raise ConfigError("pass@k and pass^k draws must be arrays of one shape, draws first")
    return {label: m.mean(axis=0) for label, m in zip(LABELS, _masks(at, pw, t))}


def label_probabilities_beta(a: Any, b: Any, k: int, *, thresholds: Thresholds | None = None
                             ) -> dict[str, np.ndarray]:
    """Exact label probabilities for one rate p ~ Beta(a, b) (vectorised over a, b).

    With q_at(x) = 1 - (1 - x)^(1/k) (pass@k > x iff p > q_at(x)) and q_pow(x) = x^(1/k):
    Reliable is p > max(q_at(ra), q_pow(rp)); Inconsistent q_at(ra) < p < q_pow(ip);
    Needs improvement p < q_at(na).

    >>> {k: round(float(v), 4) for k, v in label_probabilities_beta(1, 1, 1).items()}
    {'Reliable': 0.05, 'Inconsistent': 0.0, 'Needs improvement': 0.7, 'Unlabelled': 0.25}
    """
    from scipy.special import betainc

    k = check_k(k)
    t = thresholds or Thresholds()
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    if np.any(~(a > 0)) or np.any(~(b > 0)):
        raise ConfigError("Beta parameters must be > 0")
    q_at = lambda x: 1.0 - (1.0 - x) ** (1.0 / k)  # noqa: E731
    q_pow = lambda x: x ** (1.0 / k)  # noqa: E731
    cdf = lambda x: betainc(a, b, min(max(x, 0.0), 1.0))  # noqa: E731
    rel = 1.0 - cdf(max(q_at(t.reliable_pass_at_k), q_pow(t.reliable_pass_pow_k)))
    lo, hi = q_at(t.reliable_pass_at_k), q_pow(t.inconsistent_pass_pow_k)
    inc = np.maximum(cdf(hi) - cdf(lo), 0.0) if hi > lo else np.zeros(a.shape)
    needs = cdf(q_at(t.needs_improvement_pass_at_k))
    # the regions are disjoint given the threshold checks; the rest is unlabelled
    rest = np.clip(1.0 - rel - inc - needs, 0.0, 1.0)
    return {"Reliable": rel, "Inconsistent": inc, "Needs improvement": needs, "Unlabelled": rest}


@dataclass(frozen=True)
class QualityRow:
    """One agent's assessment."""

    agent: str
    pass_at_k: float
    pass_pow_k: float
    label: str | None
    """Label of the point estimates (None when undefined)."""
    prob_reliable: float
    prob_inconsistent: float
    prob_needs_improvement: float
    prob_unlabelled: float
    """Posterior probability of each label (NaN in frequentist mode)."""
    basis: str
    """What the estimates are: task-level means, or the pooled conversation rate."""


def assess_agents(agent: Sequence[str], task: Sequence[str | None], success: Any, *, k: int,
                  mode: Any, thresholds: Thresholds | None = None,
                  hyper: dict[str, tuple[Any, Any]] | None = None) -> list[QualityRow]:
    """The table per agent from complete conversations (as :func:`compare_agents` takes them).

    Where an agent attempted tasks more than once: task-level pass@k / pass^k (mean over its
    tasks; Bayesian: the paired model's per-task posteriors, labels from draws; frequentist: the
    unbiased estimators over tasks with >= k attempts). Otherwise: the pooled conversation rate
    (Bayesian: exact Beta label probabilities). ``hyper``: per agent, (mu, kappa) draws of a
    hierarchical fit over its tasks, used for the task-level posterior.
    """
    from agenteval.statistical.compare.agents import conjugate_priors
    from agenteval.statistical.compare.common import seed_stream
    from agenteval.statistical.compare.draws import suite_mean_draws
    from agenteval.statistical.compare.grouping import group_agents, is_bayes
    from agenteval.statistical.estimators import pass_at_k_unbiased, pass_pow_k_unbiased

    k = check_k(k)
    t = thresholds or Thresholds()
    bayes = is_bayes(mode)
    rows = []
    nan = math.nan
    for ag in group_agents(agent, task, success):
        n = np.array([v[0] for v in ag.tasks.values()], dtype=float)
        c = np.array([v[1] for v in ag.tasks.values()], dtype=float)
        repeated = n.size > 0 and np.any(n > 1)
        if repeated and bayes:
            rng = np.random.default_rng(seed_stream(mode.rng_seed, "quality", ag.name))
            agent_hyper = (hyper or {}).get(ag.name)
            priors = conjugate_priors(mode, agent_hyper)  # the headline's per-task posteriors
            v, _ = suite_mean_draws(n, c, max(k, 2), mode.mc_samples, rng, hyper=agent_hyper,
                                    prior=None if priors is None else priors[0],
                                    hyperprior=mode.prior)
            at, pw = v[f"pass@{max(k, 2)}"], v[f"pass^{max(k, 2)}"]
            if k == 1:
                at = pw = v["success"]
            probs = label_probabilities(at, pw, thresholds=t)
            vals = (float(at.mean()), float(pw.mean()))
            basis = f"task-level, {n.size} tasks (posterior draws)"
        elif repeated:
            keep = n >= k
            if keep.any():
                vals = (float(np.mean(pass_at_k_unbiased(n[keep], c[keep], k))),
                        float(np.mean(pass_pow_k_unbiased(n[keep], c[keep], k))))
            else:
                vals = (nan, nan)
            probs = {label: np.array(nan) for label in LABELS}
            basis = f"task-level, {int(keep.sum())} tasks with >= {k} attempts (unbiased)"
        else:
            nc, cc = ag.conversations, ag.successes
            if bayes:
                a0, b0 = mode.beta_prior_a + cc, mode.beta_prior_b + nc - cc
                from agenteval.statistical.estimators import beta_pass_at_k_mean, beta_pass_pow_k_mean

                vals = (float(beta_pass_at_k_mean(a0, b0, k)), float(beta_pass_pow_k_mean(a0, b0, k)))
                probs = label_probabilities_beta(a0, b0, k, thresholds=t)
                basis = f"pooled rate of {nc} conversations (exact Beta)"
            else:
                p0 = cc / nc
                vals = (1.0 - (1.0 - p0) ** k, p0 ** k)
                probs = {label: np.array(nan) for label in LABELS}
                basis = f"pooled rate of {nc} conversations (plug-in)"
        rows.append(QualityRow(ag.name, vals[0], vals[1],
                               assess(vals[0], vals[1], thresholds=t),
                               *(float(probs[label]) for label in LABELS), basis))
    return rows


@dataclass(frozen=True, eq=False)
class ConversationAssessment:
    """Fair Forge's table per conversation, as arrays in the counts' order."""

    pass_at_k: np.ndarray
    pass_pow_k: np.ndarray
    label: np.ndarray
    """Label of each conversation's point estimates (object array; None where undefined)."""
    probabilities: dict[str, np.ndarray]
    """Per label (``LABELS``), each conversation's posterior probability (NaN in frequentist
    mode and where nothing was judged)."""
    basis: str
    """What the probabilities rest on."""

    @property
    def size(self) -> int:
        return int(self.pass_at_k.size)


def assess_conversations(counts: Any, mode: Any, k: int, *, pass_at_k: Any, pass_pow_k: Any,
                         thresholds: Thresholds | None = None) -> ConversationAssessment:
    """The quality table per conversation (Fair Forge's unit) from the table of counts.

    ``counts``: a ``SuiteCounts`` (its ``n`` judged and ``c`` correct interactions per
    conversation); ``pass_at_k`` / ``pass_pow_k``: the conversations' point estimates (the
    per-conversation fields, as the metrics computed them under ``mode``), which the labels are
    read from. In a Bayesian mode each label also gets its exact probability under the
    per-conversation Beta(a + c, b + n - c) posterior (the mode's prior; NaN where n = 0, a
    prior is not a result); in the frequentist mode the probabilities are NaN.
    """
    k = check_k(k)
    n = np.asarray(counts.n, dtype=float)
    c = np.asarray(counts.c, dtype=float)
    at = np.asarray(pass_at_k, dtype=float).ravel()
    pw = np.asarray(pass_pow_k, dtype=float).ravel()
    if not (at.size == pw.size == n.size):
        raise ConfigError(f"pass_at_k and pass_pow_k need one value per conversation "
                          f"({n.size}), got {at.size} and {pw.size}")
    labels = assess(at, pw, thresholds=thresholds)
    labels = np.asarray(labels, dtype=object).reshape(n.size)
    from agenteval.statistical.modes import BayesianMode

    if isinstance(mode, BayesianMode) and n.size:
        probs = label_probabilities_beta(mode.beta_prior_a + c, mode.beta_prior_b + n - c, k,
                                         thresholds=thresholds)
        probs = {key: np.where(n == 0, np.nan, v) for key, v in probs.items()}
        basis = "per-conversation Beta posterior (exact)"
    else:
        probs = {key: np.full(n.size, np.nan) for key in LABELS}
        basis = "per-conversation plug-in"
    return ConversationAssessment(at, pw, labels, probs, basis)
