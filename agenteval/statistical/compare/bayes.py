"""Bayesian comparisons on tasks: the paired model, the unpaired one, the Bayesian bootstrap."""

from __future__ import annotations

from typing import Any

import numpy as np

from agenteval.errors import check_k, check_level
from agenteval.statistical.beta_binomial import HyperPrior
from agenteval.statistical.compare.common import (check_paired, check_task_counts, drop_unidentified,
                                                  quantities)
from agenteval.statistical.compare.draws import difference_from_draws, suite_mean_draws
from agenteval.statistical.compare.types import Difference
from agenteval.statistical.new_task import collapse, per_task, weighted_means

__all__ = ["bayesian_bootstrap", "paired_bayes", "unpaired_bayes"]


def bayesian_bootstrap(n_a: Any, c_a: Any, n_b: Any, c_b: Any, *, k: int, paired: bool,
                       ci_level: float = 0.95, draws: int = 5000, seed: int | None = 0
                       ) -> tuple[list[Difference], list[str]]:
    """New-task differences by the Bayesian bootstrap over tasks (Rubin 1981).

    Each task's unbiased estimate U_t (c/n; Chen et al. 2021; tau-bench) has population mean
    equal to the population mean of the quantity, so the posterior of that mean under
    Dirichlet(1, ..., 1) task weights is the posterior for a new task. Paired: the same weights
    for both agents on their shared tasks (aligned inputs), which is what removes the
    difficulty both agents share. Unpaired: independent weights over each agent's own tasks.
    """
    k = check_k(k)
    level = check_level("ci_level", ci_level)
    if paired:
        n_a, c_a, n_b, c_b = check_paired(n_a, c_a, n_b, c_b)
    else:
        n_a, c_a = check_task_counts("a", n_a, c_a)
        n_b, c_b = check_task_counts("b", n_b, c_b)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    out, notes = [], []
    for name, _ in quantities(k):
        ua, ub = per_task(name, n_a, c_a, k), per_task(name, n_b, c_b, k)
        if paired:
            keep = ~np.isnan(ua) & ~np.isnan(ub)
            ka = kb = keep
        else:
            ka, kb = ~np.isnan(ua), ~np.isnan(ub)
        if not (ka.any() and kb.any()):
            notes.append(f"{name} for a new task: no task with >= {k} attempts by both agents; "
                         "left out")
            continue
        if name != "success" and not (ka.all() and kb.all()):
            notes.append(f"{name} for a new task: tasks with fewer than {k} attempts left out")
        if paired:
            rows, counts = collapse(ua[ka], ub[kb])
            means = weighted_means(rows, counts, draws, rng, bayesian=True)
            va, vb = means[:, 0], means[:, 1]
        else:
            rows, counts = collapse(ua[ka])
            va = weighted_means(rows, counts, draws, rng, bayesian=True)[:, 0]
            rows, counts = collapse(ub[kb])
            vb = weighted_means(rows, counts, draws, rng, bayesian=True)[:, 0]
        out.append(difference_from_draws(name, "new task", va, vb, ci_level=level,
                                         tasks=int(ka.sum()) if paired else 0))
    return out, notes


def paired_bayes(n_a: Any, c_a: Any, n_b: Any, c_b: Any, *, k: int, ci_level: float = 0.95,
                 draws: int = 5000, seed: int | None = 0,
                 priors: tuple[tuple[float, float], tuple[float, float]] | None = None,
                 hyper: tuple[Any, Any] | None = None,
                 hyperprior: HyperPrior = HyperPrior()) -> tuple[list[Difference], list[str]]:
    """The paired model on shared tasks (module doc): suite-task posteriors and, for a new task,
    the Bayesian bootstrap with shared task weights.

    ``n_*``/``c_*``: attempts and successes per shared task, aligned. ``priors``: fixed task
    priors ((a_A, b_A), (a_B, b_B)) instead of the fitted population priors. ``hyper``: the
    two agents' posterior (mu, kappa) draws from a hierarchical fit, ((mu_A, kappa_A), (mu_B,
    kappa_B)), used instead of fitting each agent's tasks here (the same number of draws each);
    ``hyperprior``: the prior of (mu, kappa) when they are fitted here.
    Returns (differences, notes).
    """
    k = check_k(k)
    level = check_level("ci_level", ci_level)
    n_a, c_a, n_b, c_b = check_paired(n_a, c_a, n_b, c_b)
    ss = np.random.SeedSequence(seed).spawn(3)
    va, note_a = suite_mean_draws(n_a, c_a, k, draws, np.random.default_rng(ss[0]),
                                  prior=None if priors is None else priors[0],
                                  hyper=None if hyper is None else hyper[0], hyperprior=hyperprior)
    vb, note_b = suite_mean_draws(n_b, c_b, k, draws, np.random.default_rng(ss[1]),
                                  prior=None if priors is None else priors[1],
                                  hyper=None if hyper is None else hyper[1], hyperprior=hyperprior)
    notes = sorted({x for x in (note_a, note_b) if x})
    diffs = [difference_from_draws(name, "suite tasks", va[name], vb[name], ci_level=level,
                                   tasks=n_a.size) for name, _ in quantities(k)]
    diffs, notes = drop_unidentified(diffs, notes, k, n_a, n_b)
    new, new_notes = bayesian_bootstrap(n_a, c_a, n_b, c_b, k=k, paired=True, ci_level=level,
                                        draws=draws, seed=int(ss[2].generate_state(1)[0]))
    return diffs + new, notes + new_notes


def unpaired_bayes(n_a: Any, c_a: Any, n_b: Any, c_b: Any, *, k: int, ci_level: float = 0.95,
                   draws: int = 5000, seed: int | None = 0,
                   priors: tuple[tuple[float, float], tuple[float, float]] | None = None,
                   hyperprior: HyperPrior = HyperPrior()) -> tuple[list[Difference], list[str]]:
    """As :func:`paired_bayes` for agents on different tasks: each agent's own tasks, and
    independent Bayesian-bootstrap weights for a new task. Returns (differences, notes)."""
    k = check_k(k)
    level = check_level("ci_level", ci_level)
    n_a, c_a = check_task_counts("a", n_a, c_a)
    n_b, c_b = check_task_counts("b", n_b, c_b)
    ss = np.random.SeedSequence(seed).spawn(3)
    va, note_a = suite_mean_draws(n_a, c_a, k, draws, np.random.default_rng(ss[0]),
                                  prior=None if priors is None else priors[0], hyperprior=hyperprior)
    vb, note_b = suite_mean_draws(n_b, c_b, k, draws, np.random.default_rng(ss[1]),
                                  prior=None if priors is None else priors[1], hyperprior=hyperprior)
    notes = sorted({x for x in (note_a, note_b) if x})
    diffs = [difference_from_draws(name, "suite tasks", va[name], vb[name], ci_level=level)
             for name, _ in quantities(k)]
    diffs, notes = drop_unidentified(diffs, notes, k, n_a, n_b)
    new, new_notes = bayesian_bootstrap(n_a, c_a, n_b, c_b, k=k, paired=False, ci_level=level,
                                        draws=draws, seed=int(ss[2].generate_state(1)[0]))
    return diffs + new, notes + new_notes
