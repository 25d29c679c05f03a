"""Posterior figures: pass@k / pass^k per agent, a forest plot, shrinkage, prior against posterior.

Each helper takes Bayesian results (``AgenticResults`` from a ``BayesianMode`` run) and draws
what they already hold: the summary rows and the draws of ``results.to_inference_data()`` (pass
``idata=`` to reuse one). ``ax=None`` makes a new figure in the paper style; the figure is
returned. Densities are Gaussian kernel estimates of the posterior draws (scipy), cut at [0, 1].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agenteval.plots import COLUMN, FULL_WIDTH, PALETTE, figure_axes, paper_style

__all__ = ["plot_pass_posterior", "plot_forest", "plot_shrinkage", "plot_prior_posterior"]

_GRID = np.linspace(0.0, 1.0, 401)


def _idata(results: Any, idata: Any) -> Any:
    return results.to_inference_data() if idata is None else idata


def _posterior(idata: Any) -> Any:
    from agenteval import _arviz

    return _arviz.group(idata, "posterior")


def _density(draws: np.ndarray, grid: np.ndarray = _GRID) -> np.ndarray:
    """Kernel density of draws on [0, 1], reflected at the edges so mass is not lost there."""
    from scipy.stats import gaussian_kde

    x = np.asarray(draws, dtype=float).ravel()
    x = x[np.isfinite(x)]
    if x.size < 2 or np.ptp(x) < 1e-12:
        return np.zeros_like(grid)
    kde = gaussian_kde(x)
    return kde(grid) + kde(-grid) + kde(2.0 - grid)


def _interval(draws: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(np.asarray(draws).ravel(), [tail, 1.0 - tail])
    return float(lo), float(hi)


def _level(results: Any) -> float:
    return float(results.settings.mode.ci_level)


def plot_pass_posterior(results: Any, *, quantity: str = "both", new_task: bool = False,
                        idata: Any = None, ax: Any = None) -> Any:
    """Posterior density of pass@k and pass^k per agent (the suite's tasks, or a new task).

    Falls back to the pooled plug-in of the share of fully correct conversations when the data
    have no repeated tasks. ``quantity``: "both" (two panels), "pass_at_k" or "pass_pow_k".
    """
    if quantity not in ("both", "pass_at_k", "pass_pow_k"):
        raise ValueError(f"quantity must be 'both', 'pass_at_k' or 'pass_pow_k', got {quantity!r}")
    if quantity == "both" and ax is not None:
        raise ValueError("quantity='both' draws two panels: pass ax=None, or one quantity")
    k = results.k
    post = _posterior(_idata(results, idata))
    prefix = "new_task_" if new_task else "task_"
    which = ["pass_at_k", "pass_pow_k"] if quantity == "both" else [quantity]
    level = _level(results)
    with paper_style():
        if quantity == "both":
            fig, axes = figure_axes(None, size=FULL_WIDTH, ncols=2)
        else:
            fig, single = figure_axes(ax)
            axes = [single]
        for axis, q in zip(np.ravel(axes), which):
            label = f"pass@{k}" if q == "pass_at_k" else f"pass^{k}"
            var = f"{prefix}{q}"
            basis = "new task" if new_task else "suite's tasks"
            if var not in post:   # no repeated tasks: the pooled plug-in from the share
                share = post["share"]
                values = {a: (share.sel(agent=a).values ** k if q == "pass_pow_k"
                              else 1 - (1 - share.sel(agent=a).values) ** k)
                          for a in share["agent"].values}
                basis = "pooled plug-in"
            else:
                values = {a: post[var].sel(agent=a).values for a in post[var]["agent"].values}
            densities = {agent: _density(draws) for agent, draws in values.items()}
            top = max([d.max() for d in densities.values()] + [1e-9])
            for i, (agent, draws) in enumerate(values.items()):
                colour = PALETTE[i % len(PALETTE)]
                dens = densities[agent]
                axis.plot(_GRID, dens, color=colour, lw=1.2, label=str(agent))
                axis.fill_between(_GRID, dens, color=colour, alpha=0.18, lw=0)
                lo, hi = _interval(draws, level)
                mean = float(np.mean(draws))
                axis.plot([mean, mean], [0, top * 1.02], color=colour, lw=0.8, ls="--")
                y = -top * 0.07 * (i + 1)
                axis.plot([lo, hi], [y, y], color=colour, lw=2.0, solid_capstyle="butt")
                axis.plot([mean], [y], "o", color=colour, ms=3)
            axis.set_ylim(-top * 0.07 * (len(values) + 1), top * 1.08)
            axis.axhline(0, color="0.6", lw=0.5)
            axis.set_xlim(0, 1)
            axis.set_xlabel(f"{label} ({basis})")
            axis.set_ylabel("posterior density")
            axis.set_yticks([])
            axis.set_title(f"{label}: mean (dashed), {level * 100:g}% interval (bar)")
        np.ravel(axes)[0].legend(frameon=False, loc="upper left")
    return fig


def plot_forest(results: Any, *, idata: Any = None, ax: Any = None, max_tasks: int = 40) -> Any:
    """Forest plot of success rates: each agent's mean over its tasks (bold), then each task's
    p_t, with posterior means and intervals (tasks beyond ``max_tasks`` per agent left out).

    Without repeated tasks the agents' shares of fully correct conversations are shown instead.
    """
    post = _posterior(_idata(results, idata))
    level = _level(results)
    labels, draws_list, colours, bold = [], [], [], []
    tasks = list(post["task"].values) if "p_task" in post else []
    for i, agent in enumerate(post["agent"].values):
        colour = PALETTE[i % len(PALETTE)]
        mine = [t for t in tasks if str(t).startswith(f"{agent}/")]
        if mine:
            agent_draws = post["p_task"].sel(task=mine).mean(dim="task").values
            labels.append(f"{agent} (mean of {len(mine)} tasks)")
        else:
            agent_draws = post["share"].sel(agent=agent).values
            labels.append(f"{agent} (share fully correct)")
        draws_list.append(agent_draws)
        colours.append(colour)
        bold.append(True)
        for t in mine[:max_tasks]:
            labels.append(str(t).split("/", 1)[1])
            draws_list.append(post["p_task"].sel(task=t).values)
            colours.append(colour)
            bold.append(False)
    height = max(COLUMN[1], 0.16 * len(labels) + 0.7)
    with paper_style():
        fig, axis = figure_axes(ax, size=(COLUMN[0] + 1.2, height))
        y = np.arange(len(labels))[::-1]
        for yi, d, col, b in zip(y, draws_list, colours, bold):
            lo, hi = _interval(d, level)
            axis.plot([lo, hi], [yi, yi], color=col, lw=2.4 if b else 1.2, solid_capstyle="butt")
            axis.plot([float(np.mean(d))], [yi], "D" if b else "o", color=col, ms=4.5 if b else 3.0)
        axis.set_yticks(y)
        axis.set_yticklabels(labels)
        for tick, b in zip(axis.get_yticklabels(), bold):
            tick.set_fontweight("bold" if b else "normal")
        axis.set_xlim(0, 1)
        axis.set_ylim(-0.7, len(labels) - 0.3)
        axis.grid(axis="x", color="0.9", lw=0.5)
        axis.set_axisbelow(True)
        axis.set_xlabel(f"task success rate (posterior mean, {level * 100:g}% interval)")
    return fig


def plot_shrinkage(results: Any, *, idata: Any = None, ax: Any = None) -> Any:
    """Raw per-task success rates c_t/n_t against the partially pooled posterior means.

    Each line joins a task's raw rate (left) to its posterior mean (right); markers scale with
    the number of attempts, so small tasks visibly move further toward their agent's mean.
    """
    from matplotlib.collections import LineCollection

    from agenteval import _arviz

    data = _idata(results, idata)
    post = _posterior(data)
    obs, const = _arviz.group(data, "observed_data"), _arviz.group(data, "constant_data")
    if "p_task" not in post:
        from agenteval.errors import ConfigError

        raise ConfigError("plot_shrinkage needs repeated tasks (task_id): these results have none")
    n = obs["n_task"].values.astype(float)
    c = obs["c_task"].values.astype(float)
    agent_of = const["agent_of_task"].values
    pooled = post["p_task"].mean(dim=("chain", "draw")).values
    agents = list(post["agent"].values)
    with paper_style():
        fig, axis = figure_axes(ax, size=(COLUMN[0], COLUMN[1] + 0.4))
        with np.errstate(invalid="ignore", divide="ignore"):
            raw = c / n
        for i, agent in enumerate(agents):
            colour = PALETTE[i % len(PALETTE)]
            sel = (agent_of == i) & np.isfinite(raw)
            # one collection per agent, not three artists per task: linear in tasks (issue 18.12)
            r0, r1, size = raw[sel], pooled[sel], 8 + 6 * n[sel]
            axis.add_collection(LineCollection(np.stack([np.stack([np.zeros_like(r0), r0], 1),
                                                         np.stack([np.ones_like(r1), r1], 1)], 1),
                                               colors=colour, linewidths=0.7, alpha=0.7))
            axis.scatter(np.r_[np.zeros_like(r0), np.ones_like(r1)], np.r_[r0, r1],
                         s=np.r_[size, size], color=colour, alpha=0.8, lw=0)
            if "mu" in post:
                axis.axhline(float(post["mu"].sel(agent=agent).mean()), color=colour, lw=0.8,
                             ls=":", label=f"{agent}: population mean mu")
            else:
                axis.plot([], [], color=colour, label=str(agent))
        axis.set_xticks([0, 1])
        axis.set_xticklabels(["raw c_t / n_t", "posterior mean"])
        axis.set_xlim(-0.25, 1.25)
        axis.set_ylim(-0.03, 1.03)
        axis.set_ylabel("task success rate p_t")
        axis.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=1)
        axis.set_title("shrinkage toward " + ("each agent's mean" if "mu" in post
                                              else "the prior mean") + " (marker area ~ attempts)")
    return fig


def plot_prior_posterior(results: Any, *, idata: Any = None, ax: Any = None) -> Any:
    """Prior against posterior. Hierarchical methods: each agent's mu and log kappa (two panels;
    with ``ax`` given, mu only); conjugate: each agent's share of fully correct conversations
    against its Beta(a, b) prior. Prior curves are the exact densities."""
    from scipy import stats

    post = _posterior(_idata(results, idata))
    mode = results.settings.mode
    hierarchical = "mu" in post
    with paper_style():
        if hierarchical and ax is None:
            fig, axes = figure_axes(None, size=FULL_WIDTH, ncols=2)
        else:
            fig, single = figure_axes(ax)
            axes = [single]
        panels = [("mu" if hierarchical else "share", _GRID)]
        if hierarchical and len(axes) > 1:
            pr = mode.prior
            lo = pr.log_kappa_mean - 3.5 * pr.log_kappa_sd
            panels.append(("log_kappa", np.linspace(lo, pr.log_kappa_mean + 3.5 * pr.log_kappa_sd, 401)))
        for axis, (var, grid) in zip(axes, panels):
            if var == "mu":
                prior_pdf = stats.beta(mode.prior.mu_a, mode.prior.mu_b).pdf(grid)
                label = "population mean task success rate mu"
            elif var == "log_kappa":
                prior_pdf = stats.norm(mode.prior.log_kappa_mean, mode.prior.log_kappa_sd).pdf(grid)
                label = "log kappa (spread: small = tasks differ a lot)"
            else:
                prior_pdf = stats.beta(mode.beta_prior_a, mode.beta_prior_b).pdf(grid)
                label = "share of fully correct conversations p"
            axis.plot(grid, prior_pdf, color="0.35", lw=1.0, ls="--", label="prior")
            for i, agent in enumerate(post["agent"].values):
                colour = PALETTE[i % len(PALETTE)]
                values = (np.log(post["kappa"].sel(agent=agent).values) if var == "log_kappa"
                          else post[var].sel(agent=agent).values)
                if var == "log_kappa":
                    from scipy.stats import gaussian_kde

                    d = gaussian_kde(values.ravel())(grid)
                else:
                    d = _density(values, grid)
                axis.plot(grid, d, color=colour, lw=1.2, label=f"{agent}")
                axis.fill_between(grid, d, color=colour, alpha=0.18, lw=0)
            axis.set_xlim(grid[0], grid[-1])
            axis.set_ylim(bottom=0)
            axis.set_yticks([])
            axis.set_ylabel("density")
            axis.set_xlabel(label)
        if len(axes) > 1:
            axes[-1].legend(frameon=False, loc="upper right")
        else:   # headroom above the curves for a one-row legend
            axes[0].set_ylim(0, axes[0].get_ylim()[1] * 1.3)
            axes[0].legend(frameon=False, loc="upper center", ncol=3, handlelength=1.5,
                           columnspacing=1.0)
        axes[0].set_title("prior (dashed) and posterior per agent")
    return fig
