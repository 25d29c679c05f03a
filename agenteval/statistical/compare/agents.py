"""Every pair of agents: paired on shared tasks, else independent; the table with the ranking."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from agenteval.errors import ConfigError, check_k
from agenteval.statistical.compare.bayes import paired_bayes, unpaired_bayes
from agenteval.statistical.compare.bootstrap import paired_bootstrap, unpaired_bootstrap
from agenteval.statistical.compare.common import seed_stream
from agenteval.statistical.compare.grouping import Agent, group_agents, is_bayes, task_arrays
from agenteval.statistical.compare.multiplicity import adjust_comparisons
from agenteval.statistical.compare.proportions import mcnemar_exact, newcombe_paired
from agenteval.statistical.compare.ranking import rank_agents
from agenteval.statistical.compare.types import Comparison, ComparisonTable, Difference

__all__ = ["compare_agents", "conjugate_priors", "independent_pooled", "prior_source"]


def independent_pooled(n_a: int, c_a: int, n_b: int, c_b: int, mode: Any, bayes: bool
                 ) -> tuple[Difference, str]:
    """Success of two agents with no task in common, as pooled shares of their conversations
    (``mode.compare``; frequentist: with a two-proportion z-test). Returns (difference, method)."""
    out = mode.compare(n_a, c_a, n_b, c_b)
    if bayes:
        ea = (mode.beta_prior_a + c_a) / (mode.beta_prior_a + mode.beta_prior_b + n_a)
        eb = (mode.beta_prior_a + c_b) / (mode.beta_prior_a + mode.beta_prior_b + n_b)
        diff = Difference("success", "conversations", ea, eb, out["mean_diff"], out["ci_low"],
                          out["ci_high"], prob_a_better=out["prob_greater"],
                          draws=np.asarray(out["samples"]))
    else:
        from scipy.special import ndtr

        pa, pb = c_a / n_a, c_b / n_b
        pool = (c_a + c_b) / (n_a + n_b)
        se = math.sqrt(pool * (1 - pool) * (1 / n_a + 1 / n_b))
        p = 1.0 if se == 0 else float(2 * ndtr(-abs(pa - pb) / se))
        diff = Difference("success", "conversations", pa, pb, out["mean_diff"], out["ci_low"],
                          out["ci_high"], p_value=p)
        out["method"] += "; two-proportion z-test"
    return diff, out["method"]


def _compare_pair(a: Agent, b: Agent, *, k: int, mode: Any, bayes: bool,
                  resamples: int, hyper: Any = None) -> Comparison:
    if a.conversations == 0 or b.conversations == 0:
        nan = math.nan
        return Comparison(a.name, b.name, "independent", "nothing judged for one agent", 0,
                          (Difference("success", "conversations", nan, nan, nan, nan, nan),),
                          ("an agent has no complete conversation: nothing to compare",))
    shared = [t for t in a.tasks if t in b.tasks]
    level = mode.ci_level
    seed = getattr(mode, "rng_seed", 0)
    stream = seed_stream(seed, a.name, b.name)
    if not shared:
        repeats = any(n > 1 for n, _ in a.tasks.values()) or any(n > 1 for n, _ in b.tasks.values())
        if not repeats:
            diff, detail = independent_pooled(a.conversations, a.successes, b.conversations,
                                        b.successes, mode, bayes)
            return Comparison(a.name, b.name, "independent",
                              "no shared task_id: pooled share of fully correct conversations; "
                              + detail, 0, (diff,))
        n_a, c_a = task_arrays(a)
        n_b, c_b = task_arrays(b)
        sub = int(stream.generate_state(1)[0])
        if bayes:
            diffs, notes = unpaired_bayes(n_a, c_a, n_b, c_b, k=k, ci_level=level,
                                          draws=mode.mc_samples, seed=sub,
                                          priors=conjugate_priors(mode, hyper),
                                          hyperprior=mode.prior)
            detail = ("no shared task_id: each agent on its own tasks, per-task Beta posteriors "
                      f"under {prior_source(mode, hyper)}, independent Bayesian-bootstrap task "
                      "weights; "
                      f"{level * 100:g}% intervals from {mode.mc_samples} seeded draws")
        else:
            diffs, notes = unpaired_bootstrap(n_a, c_a, n_b, c_b, k=k, ci_level=level,
                                              resamples=resamples, seed=sub)
            detail = ("no shared task_id: each agent's tasks resampled on their own "
                      f"({resamples} seeded resamples), {level * 100:g}% percentile interval")
        return Comparison(a.name, b.name, "independent", detail, 0, tuple(diffs), tuple(notes))
    n_a, c_a = (np.array([a.tasks[t][i] for t in shared], dtype=float) for i in (0, 1))
    n_b, c_b = (np.array([b.tasks[t][i] for t in shared], dtype=float) for i in (0, 1))
    if bayes:
        draws = mode.mc_samples
        pair_hyper = None
        if hyper and a.name in hyper and b.name in hyper:
            size = min(len(hyper[a.name][0]), len(hyper[b.name][0]))
            pair_hyper = tuple((np.asarray(hyper[x.name][0])[:size],
                                np.asarray(hyper[x.name][1])[:size]) for x in (a, b))
            draws = size
        priors = None if pair_hyper else conjugate_priors(mode, hyper)
        diffs, notes = paired_bayes(n_a, c_a, n_b, c_b, k=k, ci_level=level, draws=draws,
                                    seed=int(stream.generate_state(1)[0]), hyper=pair_hyper,
                                    priors=priors, hyperprior=mode.prior)
        source = (f"each agent's population prior (the {getattr(mode, 'method', 'hierarchical')} "
                  "fit's (mu, kappa) draws)" if pair_hyper else prior_source(mode, hyper))
        detail = (f"paired model on {len(shared)} shared tasks: per-task Beta posteriors under "
                  f"{source}; new task by the Bayesian bootstrap "
                  f"over tasks (Rubin 1981); {level * 100:g}% equal-tailed intervals from "
                  f"{draws} seeded draws")
        return Comparison(a.name, b.name, "paired", detail, len(shared), tuple(diffs), tuple(notes))
    if np.all(n_a == 1) and np.all(n_b == 1):
        A = float(np.sum((c_a == 1) & (c_b == 1)))
        B = float(np.sum((c_a == 1) & (c_b == 0)))
        C = float(np.sum((c_a == 0) & (c_b == 1)))
        D = float(np.sum((c_a == 0) & (c_b == 0)))
        d, lo, hi = newcombe_paired(A, B, C, D, ci_level=level)
        diff = Difference("success", "new task", (A + B) / len(shared), (A + C) / len(shared),
                          d, lo, hi, p_value=mcnemar_exact(int(B), int(C)), tasks=len(shared))
        notes = ((f"pass@{k} / pass^{k}: not identified with one attempt per task; left out",)
                 if k > 1 else ())
        detail = (f"paired on {len(shared)} shared tasks, one attempt each: Newcombe (1998) method 10 "
                  f"{level * 100:g}% interval; exact McNemar test")
        return Comparison(a.name, b.name, "paired", detail, len(shared), (diff,), notes)
    diffs, notes = paired_bootstrap(n_a, c_a, n_b, c_b, k=k, ci_level=level, resamples=resamples,
                                    seed=int(stream.generate_state(1)[0]))
    detail = (f"paired on {len(shared)} shared tasks: bootstrap over tasks ({resamples} seeded "
              f"resamples), {level * 100:g}% percentile interval of the mean per-task difference "
              "of unbiased estimates")
    return Comparison(a.name, b.name, "paired", detail, len(shared), tuple(diffs), tuple(notes))


def conjugate_priors(mode: Any, hyper: Any) -> tuple[tuple[float, float], ...] | None:
    """The run's own Beta(a, b) task prior in the conjugate mode, so the comparison rests on the
    same per-task posteriors as the suite headline; None (fit the population) otherwise."""
    if hyper or getattr(mode, "method", "conjugate") != "conjugate":
        return None
    a, b = float(mode.beta_prior_a), float(mode.beta_prior_b)
    return ((a, b), (a, b))


def prior_source(mode: Any, hyper: Any) -> str:
    """How the per-task priors of a Bayesian comparison were chosen, in words."""
    priors = conjugate_priors(mode, hyper)
    if priors is not None:
        a, b = priors[0]
        return f"the run's Beta({a:g}, {b:g}) prior (as the suite headline)"
    return "each agent's pooled population prior ((mu, kappa) posterior by grid quadrature)"


def compare_agents(agent: Sequence[str], task: Sequence[str | None], success: Any, *, k: int,
                   mode: Any, adjust: str = "holm", resamples: int | None = None,
                   names: Sequence[str] | None = None,
                   hyper: dict[str, tuple[Any, Any]] | None = None) -> ComparisonTable:
    """Every pair of agents (in order of first appearance), a ranking and adjusted p-values.

    ``agent``, ``task`` (None for none) and ``success`` describe complete conversations, one
    entry each. ``mode`` is the run's :class:`~agenteval.statistical.modes.BayesianMode` (paired
    model) or :class:`~agenteval.statistical.modes.FrequentistMode` (bootstrap / Newcombe).
    ``names``: every agent in order, including any with no complete conversation (their
    comparisons are NaN and they are left out of the ranking). ``resamples``: bootstrap
    resamples (default: the mode's ``bootstrap_samples``, else 4000). ``hyper``: per agent, the
    (mu, kappa) posterior draws of a hierarchical fit over its tasks, for the paired model.
    """
    if resamples is None:
        resamples = int(getattr(mode, "bootstrap_samples", 4000))
    k = check_k(k)
    if adjust not in ("holm", "bh", "none"):
        raise ConfigError(f"adjust must be one of 'holm', 'bh', 'none', got {adjust!r}")
    grouped = {a.name: a for a in group_agents(agent, task, success)}
    order = list(dict.fromkeys([*(names or []), *grouped]))
    agents = [grouped.get(name, Agent(name, {})) for name in order]
    bayes = is_bayes(mode)
    comps = [_compare_pair(agents[i], agents[j], k=k, mode=mode, bayes=bayes, resamples=resamples,
                           hyper=hyper)
             for i in range(len(agents)) for j in range(i + 1, len(agents))]
    if not bayes and comps:
        comps = adjust_comparisons(comps, adjust)
    ranking = rank_agents([a for a in agents if a.conversations > 0], mode=mode, bayes=bayes,
                       resamples=resamples)
    return ComparisonTable(tuple(comps), ranking, adjust if not bayes else "none")


