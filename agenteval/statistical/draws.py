"""The posterior draws of a judged suite, once: what the NetCDF holds and the figures show.

:func:`posterior_draws` turns the table of counts, the mode and its fits into plain arrays with
their dimensions (an ArviZ-shaped record, but numpy only): per conversation ``p_conversation``,
per task ``p_task``, per agent the ``share`` of fully correct conversations (on the summary
row's basis: complete cases, or post-stratified by length), ``task_pass_at_k`` /
``task_pass_pow_k`` (the suite's tasks), ``new_task_pass_at_k`` / ``new_task_pass_pow_k`` (a
new task: the summary's one estimator, :func:`agenteval.statistical.new_task.new_task_draws`),
each also for the whole suite (``share_all``, ``task_pass_at_k_all``, ...: the summary's
"all" row, no dims),
and in the hierarchical methods ``mu`` / ``kappa`` (of tasks) and
``mu_conversation`` / ``kappa_conversation``; the prior; the observed counts. Conjugate draws
are seeded from the mode's ``rng_seed`` (four streams spawned from it); hierarchical ones
follow the fit. The results compute this once and hold it; every posterior figure reads it, and
:mod:`agenteval.statistical.idata_layout` arranges it for ArviZ (``to_inference_data`` and the
NetCDF files).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agenteval.statistical import suite
from agenteval.statistical.counts import SuiteCounts

__all__ = ["PosteriorDraws", "posterior_draws"]


@dataclass(frozen=True)
class PosteriorDraws:
    """Arrays of (chain, draw, *dims) draws per variable, with their dims and coordinates."""

    posterior: dict[str, np.ndarray]
    prior: dict[str, np.ndarray]
    observed_data: dict[str, np.ndarray]
    constant_data: dict[str, np.ndarray]
    sample_stats: dict[str, np.ndarray] | None
    coords: dict[str, Any]
    dims: dict[str, list[str]]
    attrs: dict[str, Any] = field(default_factory=dict)

    def agent_values(self, var: str) -> dict[str, np.ndarray]:
        """Per agent, the flat draws of a per-agent variable (NaN-only agents left out)."""
        x = self.posterior[var]
        flat = x.reshape(-1, x.shape[-1])
        return {a: flat[:, g] for g, a in enumerate(self.coords["agent"])
                if np.isfinite(flat[:, g]).any()}


_ROWS = 256
"""Draws per block in :func:`_group_power_draws` (a few MB per block at thousands of tasks)."""


_BLOCK_VALUES = 4_000_000
"""Values per block of p_task draws (32 MB of float64), whatever the number of tasks."""


def _unit_draws(fit: Any) -> np.ndarray:
    """``fit.unit_draws()`` filled a block of draws at a time (the same numbers without its
    two (draws, units) parameter temporaries: 1.3 GB at 20,000 conversations)."""
    chains, per_chain = fit.mu.shape[:2]
    units = fit.inverse.size
    out = np.empty((chains * per_chain, units))
    rows = max(1, min(_ROWS, _BLOCK_VALUES // max(units, 1)))
    start = 0
    for block in fit.unit_draw_blocks(rows):
        out[start:start + block.shape[0]] = block
        start += block.shape[0]
    return out.reshape(chains, per_chain, units)


def _group_power_draws(p: np.ndarray, groups: np.ndarray, n_groups: int, k: int, *,
                       bootstrap_seed: int | None = None) -> dict[str, np.ndarray]:
    """``suite.group_power_draws`` in blocks of draws: the same numbers (the bootstrap weights
    come from one generator, read block after block in the same order), without holding
    several (draws, units) temporaries at once (at 10,000 conversations they were ~0.4 GB)."""
    draws, units = p.shape
    rng = None if bootstrap_seed is None else np.random.default_rng(bootstrap_seed)
    out_at = np.full((draws, n_groups), np.nan)
    out_pw = np.full((draws, n_groups), np.nan)
    order = np.argsort(groups, kind="stable")
    present, starts = np.unique(groups[order], return_index=True)
    for start in range(0, draws, _ROWS):
        block = p[start:start + _ROWS]
        w = (np.ones_like(block) if rng is None
             else rng.standard_exponential(size=block.shape))
        with np.errstate(divide="ignore", invalid="ignore"):
            at = -np.expm1(k * np.log1p(-block)) + 0.0
        pw = block ** k
        wo = w[:, order]
        total = np.add.reduceat(wo, starts, axis=1)
        out_at[start:start + _ROWS, present] = np.add.reduceat((w * at)[:, order], starts,
                                                               axis=1) / total
        out_pw[start:start + _ROWS, present] = np.add.reduceat((w * pw)[:, order], starts,
                                                               axis=1) / total
    return {"pass_at_k": out_at, "pass_pow_k": out_pw}


def _agent_columns(v: np.ndarray, order: list[int | None], total: int, groups: int) -> np.ndarray:
    out = np.full((total, groups), np.nan)
    for g, j in enumerate(order):
        if j is not None:
            out[:, g] = v[:, j]
    return out


def posterior_draws(counts: SuiteCounts, mode: Any, k: int, fits: Any, *,
                    conversation_ids: list[str] | None = None, draws: int | None = None,
                    max_conversations: int = 20_000, attrs: dict[str, Any] | None = None
                    ) -> PosteriorDraws:
    """Every posterior draw the views need (see the module docstring).

    ``fits``: the results' fits (``summarise.Fits``); ``draws``: conjugate draws (default the
    mode's ``mc_samples``); ``p_conversation`` is left out above ``max_conversations``
    conversations and ``p_task`` above ``max_conversations`` tasks (drawn in blocks either way:
    the per-agent task means are the same numbers).
    """
    from agenteval.statistical.new_task import new_task_draws
    from agenteval.statistical.summarise import share_draws

    names = list(counts.agents)
    tasks = counts.tasks
    conv_fit, task_fit = fits.conversations, fits.tasks
    fit = task_fit or conv_fit
    seeds = np.random.SeedSequence(mode.rng_seed).spawn(4)
    if fit is not None:
        chains, per_chain = fit.mu.shape[:2]
    else:
        chains, per_chain = 1, int(draws or mode.mc_samples)
    total = chains * per_chain

    def shaped(x: np.ndarray) -> np.ndarray:
        return x.reshape(chains, per_chain, *x.shape[1:])

    a0, b0 = mode.beta_prior_a, mode.beta_prior_b
    n = counts.n
    c = counts.c
    posterior: dict[str, np.ndarray] = {}
    dims: dict[str, list[str]] = {}
    if counts.size <= max_conversations:
        posterior["p_conversation"] = (_unit_draws(conv_fit) if conv_fit is not None else shaped(
            suite.conjugate_unit_draws(n, c, a=a0, b=b0, draws=total, seed=seeds[0])))
        dims["p_conversation"] = ["conversation"]
    share = np.empty((total, len(names)))
    base = int(seeds[1].generate_state(1)[0])
    for g in range(len(names)):
        share[:, g] = share_draws(counts, counts.agent == g, mode, draws=total, seed=base + g)
    posterior["share"] = shaped(share)
    dims["share"] = ["agent"]
    # the suite ("all") row: every conversation, on its row's basis
    posterior["share_all"] = shaped(share_draws(counts, np.ones(counts.size, dtype=bool), mode,
                                                draws=total, seed=base + len(names)))
    dims["share_all"] = []
    ids = conversation_ids if conversation_ids is not None else [str(i) for i in range(counts.size)]
    coords: dict[str, Any] = {"conversation": list(ids), "agent": names}
    observed = {"n_conversation": n, "c_conversation": c,
                "fully_correct": counts.fully.astype(np.int64)}
    dims.update({"n_conversation": ["conversation"], "c_conversation": ["conversation"],
                 "fully_correct": ["conversation"], "agent_of_conversation": ["conversation"]})
    constant = {"agent_of_conversation": counts.agent}
    if tasks.size:
        coords["task"] = [f"{a}/{t}" for a, t in tasks.keys]
        # p_task in blocks of draws (the same numbers as one call): held only up to
        # max_conversations tasks, like p_conversation; the per-agent means from every block
        rows = max(1, min(_ROWS, _BLOCK_VALUES // max(tasks.size, 1)))
        blocks = (task_fit.unit_draw_blocks(rows) if task_fit is not None else
                  suite.conjugate_unit_draw_blocks(tasks.n, tasks.c, a=a0, b=b0, draws=total,
                                                   seed=seeds[2], rows=rows))
        kept: list[np.ndarray] = []
        every = np.zeros(tasks.size, dtype=np.int64)
        means: dict[str, list[np.ndarray]] = {
            f"task_{key}{suffix}": [] for suffix in ("", "_all")
            for key in ("pass_at_k", "pass_pow_k")}
        for block in blocks:
            if tasks.size <= max_conversations:
                kept.append(block)
            for key, v in _group_power_draws(block, tasks.agent, len(names), k).items():
                means[f"task_{key}"].append(v)
            for key, v in _group_power_draws(block, every, 1, k).items():
                means[f"task_{key}_all"].append(v[:, 0])
        if kept:
            posterior["p_task"] = shaped(np.concatenate(kept))
            dims["p_task"] = ["task"]
        for name in ("task_pass_at_k", "task_pass_pow_k", "task_pass_at_k_all",
                     "task_pass_pow_k_all"):
            posterior[name] = shaped(np.concatenate(means[name]))
            dims[name] = [] if name.endswith("_all") else ["agent"]
        if task_fit is not None:
            mu, kappa = task_fit.flat
            order = [task_fit.names.index(a) if a in task_fit.names else None for a in names]
            for name, v in (("mu", mu), ("kappa", kappa)):
                posterior[name] = shaped(_agent_columns(v, order, total, len(names)))
                dims[name] = ["agent"]
        # a new task: the one estimator of every mode (statistical.new_task), per agent
        new_seed = int(seeds[3].generate_state(1)[0])
        for key in ("pass_at_k", "pass_pow_k"):
            posterior[f"new_task_{key}"] = np.empty((total, len(names)))
        for g in range(len(names)):
            sel = tasks.agent == g
            nd = new_task_draws(tasks.n[sel], tasks.c[sel], k, draws=total, seed=new_seed + g)
            for key, v in nd.items():
                posterior[f"new_task_{key}"][:, g] = v
        for key, v in new_task_draws(tasks.n, tasks.c, k, draws=total,
                                     seed=new_seed + len(names)).items():
            posterior[f"new_task_{key}_all"] = shaped(v)
            dims[f"new_task_{key}_all"] = []
        for key in ("pass_at_k", "pass_pow_k"):
            posterior[f"new_task_{key}"] = shaped(posterior[f"new_task_{key}"])
        dims["new_task_pass_pow_k"] = dims["new_task_pass_at_k"] = ["agent"]
        observed.update({"n_task": tasks.n, "c_task": tasks.c})
        dims.update({"n_task": ["task"], "c_task": ["task"], "agent_of_task": ["task"]})
        constant["agent_of_task"] = tasks.agent
    if conv_fit is not None:
        order_c = [conv_fit.names.index(a) for a in names]
        posterior["mu_conversation"] = conv_fit.mu[..., order_c]
        posterior["kappa_conversation"] = conv_fit.kappa[..., order_c]
        dims["mu_conversation"] = dims["kappa_conversation"] = ["agent"]
    rng = np.random.default_rng(seeds[3])
    if fit is not None:
        pr = fit.prior
        size = (1, total, len(names))   # each agent's (independent) prior
        log_kappa = rng.normal(pr.log_kappa_mean, pr.log_kappa_sd, size=size)
        prior = {"mu": rng.beta(pr.mu_a, pr.mu_b, size=size), "log_kappa": log_kappa,
                 "kappa": np.exp(log_kappa)}
        dims["log_kappa"] = ["agent"]
    else:
        prior = {"p": rng.beta(a0, b0, size=(1, total))}
    stats = None
    if fit is not None and fit.idata is not None and "sample_stats" in fit.idata.groups():
        ss = fit.idata.sample_stats
        stats = {key: np.asarray(ss[key].values) for key in ("diverging", "tree_depth", "energy")
                 if key in ss}
    return PosteriorDraws(posterior=posterior, prior=prior, observed_data=observed,
                          constant_data=constant, sample_stats=stats, coords=coords, dims=dims,
                          attrs=dict(attrs or {}))
