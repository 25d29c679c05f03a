"""Agents compared and ranked on judge-corrected outcomes (the judge's errors taken out).

Input: ``prob`` (draws, C), per draw of the judge correction's parameters (posterior draws of
the latent-truth model, or bootstrap replicates of Rogan-Gladen's), the probability that each of
C conversations is *truly* fully correct (the exact product over its interactions,
:func:`agenteval.statistical.judge_error.conversation_correction`); ``agent`` and ``task``
(None: a conversation that is its own one-attempt task) per conversation. Every draw uses one
sensitivity/specificity for every agent (the same judge), so the judge's uncertainty moves both
agents of a pair together and is not counted twice.

Per draw: each conversation's true outcome z ~ Bernoulli(prob) (seeded), so per task (n_t,
c_t); per task the unbiased estimates (c/n; pass@k 1 - C(n - c, k)/C(n, k), Chen et al. 2021;
pass^k C(c, k)/C(n, k), tau-bench); then the mean over tasks with bootstrap task weights:
Dirichlet(1, ..., 1) in the Bayesian modes (the Bayesian bootstrap, Rubin 1981), multinomial in
the frequentist one (the cluster bootstrap over tasks). **Paired** (shared task_ids): the same
weights for both agents over their shared tasks, as the judge-only paired comparison;
**independent**: each agent's own weights over its own tasks. The scope is the new task (the
population the suite's tasks sample), or the pooled conversations when no task repeats.
Frequentist estimates are exact at the plug-in correction (``point``): the expectation of the
unbiased estimators over the latent truths, by elementary symmetric polynomials; intervals are
percentiles of the draws, p-values by percentile inversion, adjusted over pairs (Holm / BH).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import special

from agenteval.errors import ConfigError, check_k, check_level
from agenteval.statistical.compare.bootstrap import percentile_p
from agenteval.statistical.compare.common import prob_greater, seed_stream, tails
from agenteval.statistical.compare.multiplicity import adjust_comparisons
from agenteval.statistical.compare.ranking import rank_from_draws
from agenteval.statistical.compare.types import Comparison, ComparisonTable, Difference, Ranking
from agenteval.statistical.judge_error import elementary_symmetric

__all__ = ["compare_corrected"]


def _log_comb(n: np.ndarray, k: int) -> np.ndarray:
    n = np.asarray(n, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)
    return np.where(n >= k, out, -np.inf)


def _per_task(name: str, n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Unbiased per-task estimates; c (..., T), n (T,)."""
    if name == "success":
        return c / n
    if name.startswith("pass^"):
        return np.exp(_log_comb(c, k) - _log_comb(n, k))
    return 1 - np.exp(_log_comb(n - c, k) - _log_comb(n, k))


def _expected(name: str, p_cells: list[np.ndarray], k: int) -> np.ndarray:
    """E[unbiased estimate] per task when its attempts are independent Bernoulli(p_i):
    mean p (success), e_k(p) / C(n, k) (pass^k), 1 - e_k(1 - p) / C(n, k) (pass@k)."""
    n = np.array([p.size for p in p_cells], float)
    if name == "success":
        return np.array([p.mean() for p in p_cells])
    mat = np.full((len(p_cells), int(n.max())), np.nan)
    for i, p in enumerate(p_cells):
        mat[i, :p.size] = p
    comb = np.exp(_log_comb(n, k))
    with np.errstate(invalid="ignore", divide="ignore"):
        if name.startswith("pass^"):
            out = elementary_symmetric(mat, k) / comb
        else:
            out = 1 - elementary_symmetric(1 - mat, k) / comb
    return np.where(n >= k, out, np.nan)


def _weights(rng: np.random.Generator, shape: tuple[int, int], bayesian: bool) -> np.ndarray:
    if bayesian:
        return rng.standard_gamma(1.0, size=shape)
    rows, t = shape
    return rng.multinomial(t, np.full(t, 1 / t), size=rows).astype(float)


def compare_corrected(prob: Any, agent: Sequence[str], task: Sequence[Any], *, k: int,
                      bayesian: bool, ci_level: float = 0.95, seed: int | None = 0,
                      point: Any = None, names: Sequence[str] | None = None,
                      adjust: str = "holm", method: str = "") -> ComparisonTable:
    """Every pair of agents and the ranking on judge-corrected outcomes (module docstring).

    ``method``: how ``prob`` was made (it goes into every comparison's detail). Returns the
    same :class:`ComparisonTable` as :func:`~agenteval.statistical.compare.compare_agents`.
    """
    k = check_k(k)
    level = check_level("ci_level", ci_level)
    if adjust not in ("holm", "bh", "none"):
        raise ConfigError(f"adjust must be one of 'holm', 'bh', 'none', got {adjust!r}")
    pr = np.asarray(prob, float)
    if pr.ndim != 2 or pr.shape[1] != len(agent) or len(agent) != len(task):
        raise ConfigError(f"prob must be (draws, conversations) with one agent and task per "
                          f"conversation, got {pr.shape}, {len(agent)}, {len(task)}")
    if np.any((pr < 0) | (pr > 1)) or np.isnan(pr).any():
        raise ConfigError("prob must hold probabilities in [0, 1]")
    pt = None if point is None else np.asarray(point, float)
    # cells: (agent, task_id); a conversation without task_id is its own one-attempt task
    cell_of: dict[tuple[str, Any], int] = {}
    cell = np.empty(len(agent), np.int64)
    for i, (a, t) in enumerate(zip(agent, task, strict=True)):
        key = (str(a), ("", i) if t is None or t != t else str(t))
        cell[i] = cell_of.setdefault(key, len(cell_of))
    keys = list(cell_of)
    n_cell = np.bincount(cell, minlength=len(keys)).astype(float)
    order = list(dict.fromkeys([*(names or []), *(a for a, _ in keys)]))
    cells_of = {a: [i for i, (b, _) in enumerate(keys) if b == a] for a in order}
    task_of = [t for _, t in keys]
    rng = np.random.default_rng(seed_stream(seed, "judge-corrected", *order))
    # draws of every cell's true successes
    srt = np.argsort(cell, kind="stable")
    starts = np.concatenate([[0], np.cumsum(n_cell)[:-1]]).astype(np.int64)
    c_cell = np.empty((pr.shape[0], len(keys)))
    chunk = max(1, 2_000_000 // max(pr.shape[1], 1))
    for s in range(0, pr.shape[0], chunk):
        block = pr[s:s + chunk]
        z = (rng.random(block.shape) < block)[:, srt].astype(float)
        c_cell[s:s + chunk] = np.add.reduceat(z, starts, axis=1) if z.shape[1] else 0.0
    p_cells = None
    if pt is not None and not bayesian:
        p_cells = [pt[srt][starts[i]:starts[i] + int(n_cell[i])] for i in range(len(keys))]
    qnames = ["success"] + ([f"pass@{k}", f"pass^{k}"] if k > 1 else [])
    lo_q, hi_q = tails(level)
    prefix = (f"judge-corrected ({method}): " if method else "judge-corrected: ")
    comps = []
    for ia in range(len(order)):
        for ib in range(ia + 1, len(order)):
            a, b = order[ia], order[ib]
            ca_all, cb_all = cells_of[a], cells_of[b]
            if not ca_all or not cb_all:
                comps.append(Comparison(a, b, "independent", prefix + "nothing to compare", 0,
                                        (Difference("success", "conversations", *(math.nan,) * 5),),
                                        ("an agent has no conversation: nothing to compare",)))
                continue
            tb = {task_of[i]: i for i in cb_all if not isinstance(task_of[i], tuple)}
            shared = [(i, tb[task_of[i]]) for i in ca_all
                      if not isinstance(task_of[i], tuple) and task_of[i] in tb]
            paired = bool(shared)
            if paired:
                sa = np.array([x for x, _ in shared])
                sb = np.array([y for _, y in shared])
            else:
                sa, sb = np.array(ca_all), np.array(cb_all)
            repeats = n_cell[sa].max() >= 2 or n_cell[sb].max() >= 2
            scope = "new task" if (paired or repeats) else "conversations"
            diffs, notes = [], []
            sub = np.random.default_rng(seed_stream(seed, "judge-corrected", a, b))
            w_a = _weights(sub, (pr.shape[0], sa.size), bayesian)
            w_b = w_a if paired else _weights(sub, (pr.shape[0], sb.size), bayesian)
            for q in qnames:
                if q != "success":
                    if not (n_cell[sa] >= 2).any() or not (n_cell[sb] >= 2).any():
                        notes.append(f"{q}: not identified with one attempt per task; left out")
                        continue
                    ka, kb = n_cell[sa] >= k, n_cell[sb] >= k
                    if paired:
                        ka = kb = ka & kb
                    if not (ka.any() and kb.any()):
                        notes.append(f"{q}: no task with >= {k} attempts "
                                     + ("by both agents" if paired else "by each agent")
                                     + "; left out")
                        continue
                    if not (ka.all() and kb.all()):
                        notes.append(f"{q}: tasks with fewer than {k} attempts left out")
                else:
                    ka, kb = np.ones(sa.size, bool), np.ones(sb.size, bool)
                ua = _per_task(q, n_cell[sa][ka], c_cell[:, sa][:, ka], k)
                ub = _per_task(q, n_cell[sb][kb], c_cell[:, sb][:, kb], k)
                wa, wb = w_a[:, ka], w_b[:, kb]
                with np.errstate(invalid="ignore", divide="ignore"):
                    va = (wa * ua).sum(1) / wa.sum(1)
                    vb = (wb * ub).sum(1) / wb.sum(1)
                d = va - vb
                ok = np.isfinite(d)
                d, va, vb = d[ok], va[ok], vb[ok]
                lo, hi = np.quantile(d, [lo_q, hi_q])
                if p_cells is not None:
                    ea = float(np.mean(_expected(q, [p_cells[i] for i in sa[ka]], k)))
                    eb = float(np.mean(_expected(q, [p_cells[i] for i in sb[kb]], k)))
                else:
                    ea, eb = float(va.mean()), float(vb.mean())
                diffs.append(Difference(
                    q, scope, ea, eb, ea - eb, float(lo), float(hi),
                    prob_a_better=prob_greater(d) if bayesian else math.nan,
                    p_value=math.nan if bayesian else percentile_p(d),
                    tasks=int(ka.sum()) if paired else 0, draws=d))
            weights = ("the same Bayesian-bootstrap (Dirichlet) task weights for both agents"
                       if bayesian else "the same task resamples for both agents")
            if not paired:
                weights = ("each agent's own Bayesian-bootstrap task weights" if bayesian
                           else "each agent's tasks resampled on their own")
            detail = (prefix + "every conversation's true outcome drawn per draw of the "
                      "correction from its exact probability (compounded over its "
                      "interactions); "
                      + (f"paired on {len(shared)} shared tasks, " if paired
                         else "no shared task_id, ")
                      + f"{weights}; {level * 100:g}% equal-tailed intervals from "
                      f"{pr.shape[0]} draws")
            comps.append(Comparison(a, b, "paired" if paired else "independent", detail,
                                    len(shared), tuple(diffs), tuple(notes)))
    if not bayesian and comps:
        comps = adjust_comparisons(comps, adjust)
    ranking = _rank(order, cells_of, task_of, n_cell, c_cell, rng, bayesian=bayesian,
                    prefix=prefix)
    return ComparisonTable(tuple(comps), ranking, adjust if not bayesian else "none")


def _rank(order: list[str], cells_of: dict[str, list[int]], task_of: list[Any],
          n_cell: np.ndarray, c_cell: np.ndarray, rng: np.random.Generator, *, bayesian: bool,
          prefix: str) -> Ranking | None:
    """Rank on corrected success: over the union of task_ids with one set of task weights
    per draw for every agent when every agent has task_ids, else each agent's pooled share
    (its own weights over its conversations)."""
    agents = [a for a in order if cells_of[a]]
    if len(agents) < 2:
        return None
    draws = c_cell.shape[0]
    rate = c_cell / n_cell
    with_ids = all(any(not isinstance(task_of[i], tuple) for i in cells_of[a]) for a in agents)
    cols = []
    if with_ids:
        union = sorted({task_of[i] for a in agents for i in cells_of[a]
                        if not isinstance(task_of[i], tuple)})
        index = {t: u for u, t in enumerate(union)}
        w = _weights(rng, (draws, len(union)), bayesian)
        for a in agents:
            idx = [i for i in cells_of[a] if not isinstance(task_of[i], tuple)]
            wa = w[:, [index[task_of[i]] for i in idx]]
            with np.errstate(invalid="ignore", divide="ignore"):
                cols.append((wa * rate[:, idx]).sum(1) / wa.sum(1))
        scope = "new task"
        how = ("Bayesian bootstrap over task_ids, the same task weights for every agent" if bayesian
               else "bootstrap over task_ids (share of resamples, not a probability)")
    else:
        for a in agents:
            idx = cells_of[a]
            wa = _weights(rng, (draws, len(idx)), bayesian) * n_cell[idx]
            cols.append((wa * rate[:, idx]).sum(1) / wa.sum(1))
        scope = "conversations"
        how = ("each agent's pooled share, Bayesian bootstrap over its conversations" if bayesian
               else "each agent's pooled share, bootstrap over its conversations (share of "
               "resamples, not a probability)")
    x = np.stack(cols, axis=1)
    x = x[np.isfinite(x).all(1)]
    mean, best, rank, lo, hi, gt = rank_from_draws(x)
    return Ranking(tuple(agents), "success", scope, prefix + how, mean, best, rank, lo, hi, gt)
