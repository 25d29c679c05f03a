"""Posterior figures: pass@k / pass^k per agent, a forest plot, shrinkage, prior against posterior.

Each helper takes Bayesian results (``AgenticResults`` from a ``BayesianMode`` run) and draws
what they already hold: the summary rows (means and intervals: the numbers every other view
prints) and the posterior draws the results computed once (``results.posterior_draws()``; an
``idata=`` InferenceData is read instead when given). Nothing is sampled here. ``ax=None`` makes
a new figure in the paper style; the figure is returned with the values it drew in
``fig.agenteval_values`` (sklearn's Display habit: a test or a caption reads the numbers, not
the pixels). Densities are Gaussian kernel estimates of the draws (Scott's bandwidth, binned),
reflected at the edges of [0, 1]. Colours follow one agent-to-colour map per run
(``results.colours()``). An agent with nothing judged gets no curve (its "posterior" would be
the prior): the figure says so.

For papers: ``width="column"`` (3.3 in) or ``"double"`` (6.9 in) sizes the figure (panels stack
at column width), ``style=`` applies a journal's rcParams (:func:`agenteval.plots.paper_style`),
labels use mathtext for the library's symbols and escape the data's text, legends sit below the
panels (outside the data), and ``fig.agenteval_caption`` is a caption sentence saying what is
drawn and what the intervals are (all equal-tailed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agenteval.plots import (
    MATH,
    agent_colours,
    data_label,
    figure_axes,
    interval_label,
    legend_outside,
    no_data,
    paper_style,
    pass_label,
)
from agenteval.plots.layout import panel_size

__all__ = ["plot_pass_posterior", "plot_forest", "plot_shrinkage", "plot_prior_posterior"]

_GRID = np.linspace(0.0, 1.0, 401)


class _Draws:
    """The arrays a figure reads: per variable (chain, draw, *dims) draws, coords, counts."""

    def __init__(self, posterior: dict[str, np.ndarray], coords: dict[str, Any],
                 observed: dict[str, np.ndarray], constant: dict[str, np.ndarray]) -> None:
        self.posterior, self.coords = posterior, coords
        self.observed, self.constant = observed, constant

    def __contains__(self, var: str) -> bool:
        return var in self.posterior

    def flat(self, var: str) -> np.ndarray:
        """(samples, *dims): chains and draws merged."""
        x = np.asarray(self.posterior[var])
        return x.reshape(-1, *x.shape[2:])

    def agent(self, var: str, name: str) -> np.ndarray:
        return self.flat(var)[:, list(self.coords["agent"]).index(name)]


def _draws(results: Any, idata: Any) -> _Draws:
    if idata is None:
        d = results.posterior_draws()
        return _Draws(d.posterior, d.coords, d.observed_data, d.constant_data)
    from agenteval._util import arviz as _arviz

    def arrays(name: str) -> dict[str, np.ndarray]:
        try:
            ds = _arviz.group(idata, name)
        except (AttributeError, KeyError):
            return {}
        return {v: np.asarray(ds[v].values) for v in ds.data_vars}

    post = _arviz.group(idata, "posterior")
    coords = {c: [str(x) for x in post[c].values] for c in ("agent", "task", "conversation")
              if c in post.coords}
    posterior, observed = arrays("posterior"), arrays("observed_data")
    constant = arrays("constant_data")
    if "p_task" in post and "task_id" in post["p_task"].dims:   # ArviZ layout: (agent, task_id)
        obs = _arviz.group(idata, "observed_data")              # back to one column per task
        agents, ids = list(post["agent"].values), list(post["task_id"].values)
        ai = [agents.index(a) for a in obs["agent"].values]
        ti = [ids.index(t) for t in obs["task_id"].values]
        posterior["p_task"] = posterior["p_task"][:, :, ai, ti]
        coords["task"] = [str(x) for x in obs["task"].values]
        observed = {**observed, "n_task": constant.get("n_task")}
    return _Draws(posterior, coords, observed, constant)


def _density(draws: np.ndarray, grid: np.ndarray = _GRID, *, reflect: bool = True) -> np.ndarray:
    """Gaussian kernel density of the draws on the evenly spaced ``grid``.

    Scott's bandwidth h = sd n^(-1/5) (as ``scipy.stats.gaussian_kde``); the draws are binned
    onto the grid (extended by 4h each side) and the histogram convolved with the kernel, which
    moves each draw by at most half a grid step (1/800 on the default grid). With ``reflect``,
    the density is reflected at 0 and 1 (the grid's ends) so no mass is lost there.
    """
    x = np.asarray(draws, dtype=float).ravel()
    x = x[np.isfinite(x)]
    if x.size < 2 or np.ptp(x) < 1e-12 or grid.size < 2:
        return np.zeros_like(grid)
    h = float(np.std(x, ddof=1)) * x.size ** (-0.2)
    dx = float(grid[1] - grid[0])
    pad = int(np.ceil(4.0 * h / dx)) + 1
    size = grid.size + 2 * pad
    index = np.rint((x - grid[0]) / dx).astype(np.int64) + pad
    index = index[(index >= 0) & (index < size)]
    hist = np.bincount(index, minlength=size).astype(float)
    offsets = np.arange(-pad, pad + 1) * dx / h
    kernel = np.exp(-0.5 * offsets * offsets) / (h * np.sqrt(2.0 * np.pi) * x.size)
    smooth = np.convolve(hist, kernel, mode="same")
    i = np.arange(grid.size)
    out = smooth[pad + i]
    if reflect:
        for mirror in (pad - i, pad + 2 * (grid.size - 1) - i):   # -g and 2 - g
            ok = (mirror >= 0) & (mirror < size)
            out = out + np.where(ok, smooth[np.clip(mirror, 0, size - 1)], 0.0)
    return out


def _interval(draws: np.ndarray, level: float) -> tuple[float, float]:
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(np.asarray(draws).ravel(), [tail, 1.0 - tail])
    return float(lo), float(hi)


def _level(results: Any) -> float:
    return float(results.settings.mode.ci_level)


def _rows(results: Any) -> dict[str, Any]:
    """The summary row of each agent (the 'all' row when there is one agent)."""
    rows = results.summary().rows
    if len(rows) == 1:
        agents = results.agents if hasattr(results, "agents") else [m.assistant_id for m in results[:1]]
        return {str(agents[0]): rows[0]} if len(agents) else {}
    return {r.group: r for r in rows[1:]}


def _value(row: Any, field: str) -> tuple[float, float, float]:
    return (float(getattr(row, field)), float(getattr(row, f"{field}_low")),
            float(getattr(row, f"{field}_high")))


def _colours(results: Any, post: _Draws) -> dict[str, str]:
    """The run's one agent-to-colour map (the same in every figure and widget of the run)."""
    colours = results.colours() if callable(getattr(results, "colours", None)) else {}
    return {**agent_colours(post.coords["agent"]), **colours}


def plot_pass_posterior(results: Any, *, quantity: str = "both", new_task: bool = False,
                        idata: Any = None, ax: Any = None, width: Any = None,
                        style: Any = None) -> Any:
    """Posterior density of pass@k and pass^k per agent (the suite's tasks, or a new task).

    Falls back to the pooled plug-in of the share of fully correct conversations when the data
    have no repeated tasks. ``quantity``: "both" (two panels), "pass_at_k" or "pass_pow_k". The
    mean (dashed) and interval (bar) are the summary row's; the density is of the stored draws.
    ``width``: 'column', 'double' (default for two panels) or inches.
    """
    if quantity not in ("both", "pass_at_k", "pass_pow_k"):
        raise ValueError(f"quantity must be 'both', 'pass_at_k' or 'pass_pow_k', got {quantity!r}")
    if quantity == "both" and ax is not None:
        raise ValueError("quantity='both' draws two panels: pass ax=None, or one quantity")
    k = results.k
    post = _draws(results, idata)
    rows = _rows(results)
    colours = _colours(results, post)
    prefix = "new_task_" if new_task else "task_"
    which = ["pass_at_k", "pass_pow_k"] if quantity == "both" else [quantity]
    level = _level(results)
    shown: dict[str, dict[str, tuple[float, float, float]]] = {}
    bases: set[str] = set()
    with paper_style(style):
        size, grid = panel_size(width, "double" if quantity == "both" else "column", len(which))
        if quantity == "both":
            fig, axes = figure_axes(None, size=size, **grid)
        else:
            fig, single = figure_axes(ax, size=size)
            axes = [single]
        for axis, q in zip(np.ravel(axes), which):
            label = pass_label(q, k)
            var = f"{prefix}{q}"
            basis = "new task" if new_task else "suite's tasks"
            field = var
            values: dict[str, np.ndarray] = {}
            for agent in post.coords["agent"]:
                row = rows.get(agent)
                if row is None or row.complete == 0:
                    continue                       # nothing judged: no posterior to show
                if var not in post:   # no repeated tasks: the pooled plug-in from the share
                    share = post.agent("share", agent)
                    values[agent] = share ** k if q == "pass_pow_k" else 1 - (1 - share) ** k
                    basis, field = "pooled plug-in", f"pooled_{q}"
                else:
                    values[agent] = post.agent(var, agent)
            shown[q] = {}
            bases.add(basis)
            axis.set_xlabel(f"{label} ({basis})", **MATH)
            axis.set_xlim(0, 1)
            if not values:
                no_data(axis, "nothing was judged: no posterior to show")
                continue
            densities = {agent: _density(draws) for agent, draws in values.items()}
            top = max([d.max() for d in densities.values()] + [1e-9])
            for i, agent in enumerate(values):
                colour = colours[agent]
                dens = densities[agent]
                mean, lo, hi = _value(rows[agent], field)
                shown[q][agent] = (mean, lo, hi)
                axis.plot(_GRID, dens, color=colour, lw=1.2, label=data_label(agent))
                axis.fill_between(_GRID, dens, color=colour, alpha=0.18, lw=0)
                axis.plot([mean, mean], [0, top * 1.02], color=colour, lw=0.8, ls="--")
                y = -top * 0.07 * (i + 1)
                axis.plot([lo, hi], [y, y], color=colour, lw=2.0, solid_capstyle="butt")
                axis.plot([mean], [y], "o", color=colour, ms=3)
            axis.set_ylim(-top * 0.07 * (len(values) + 1), top * 1.08)
            axis.axhline(0, color="0.6", lw=0.5)
            axis.set_ylabel("posterior density")
            axis.set_yticks([])
        first = np.ravel(axes)[0]
        if first.get_legend_handles_labels()[0]:  # what the marks are: the interval kind named
            first.plot([], [], color="0.4", lw=0.8, ls="--", label="posterior mean")
            first.plot([], [], color="0.4", lw=2.0, solid_capstyle="butt",
                       label=interval_label(level))
        legend_outside(fig, first, own_figure=ax is None,
                       ncol=4 if fig.get_size_inches()[0] >= 5.0 else 2)
    names = " and ".join(f"pass@{k}" if q == "pass_at_k" else f"pass^{k}" for q in which)
    fig.agenteval_values = shown
    fig.agenteval_caption = (
        f"Posterior densities of {names} per agent ({', '.join(sorted(bases))}); dashed line: "
        f"posterior mean; bar below: {interval_label(level)} (the summary's values).")
    return fig


def plot_forest(results: Any, *, idata: Any = None, ax: Any = None, max_tasks: int = 40,
                width: Any = None, style: Any = None) -> Any:
    """Forest plot of success rates: each agent's mean over its tasks (bold), then each task's
    p_t, with posterior means and equal-tailed intervals of the stored draws (tasks beyond
    ``max_tasks`` per agent left out).

    Without repeated tasks the agents' shares of fully correct conversations are shown instead,
    with the summary row's mean and interval.
    """
    post = _draws(results, idata)
    rows = _rows(results)
    colours = _colours(results, post)
    level = _level(results)
    labels, values, cols, bold = [], [], [], []
    tasks = list(post.coords.get("task", [])) if "p_task" in post else []
    p_task = post.flat("p_task") if tasks else None
    agent_of = np.asarray(post.constant["agent_of_task"]) if tasks else []
    for index, agent in enumerate(post.coords["agent"]):
        colour = colours[agent]
        # a task's agent from the data, not its label: an agent id may hold "/" or prefix another
        mine = [j for j, a in enumerate(agent_of) if a == index]
        row = rows.get(agent)
        if mine:
            d = p_task[:, mine].mean(axis=1)
            values.append((float(np.mean(d)), *_interval(d, level)))
            labels.append(f"{agent} (mean of {len(mine)} tasks)")
        elif row is not None and row.complete > 0:
            values.append(_value(row, "rate"))
            labels.append(f"{agent} (share fully correct)")
        else:
            values.append((np.nan, np.nan, np.nan))
            labels.append(f"{agent} (nothing judged)")
        cols.append(colour)
        bold.append(True)
        for j in mine[:max_tasks]:
            d = p_task[:, j]
            labels.append(str(tasks[j])[len(str(agent)) + 1:])  # "<agent>/<task>" -> the task
            values.append((float(np.mean(d)), *_interval(d, level)))
            cols.append(colour)
            bold.append(False)
    with paper_style(style):
        size, _ = panel_size(width, "column", height=max(2.0, 0.13 * len(labels) + 0.75))
        fig, axis = figure_axes(ax, size=size)
        y = np.arange(len(labels))[::-1]
        for yi, (mean, lo, hi), col, b in zip(y, values, cols, bold):
            if np.isnan(mean):
                continue
            axis.plot([lo, hi], [yi, yi], color=col, lw=2.4 if b else 1.2, solid_capstyle="butt")
            axis.plot([mean], [yi], "D" if b else "o", color=col, ms=4.5 if b else 3.0)
        axis.set_yticks(y)
        room = int(size[0] * 12)  # characters: the labels take at most about 55% of the width
        axis.set_yticklabels([data_label(t, room) for t in labels])
        for tick, b in zip(axis.get_yticklabels(), bold):
            tick.set_fontweight("bold" if b else "normal")
        axis.set_xlim(0, 1)
        axis.set_ylim(-0.7, len(labels) - 0.3)
        axis.grid(axis="x", color="0.9", lw=0.5)
        axis.set_axisbelow(True)
        symbol = "$p_t$" if tasks else "$p$"
        axis.set_xlabel(f"success rate {symbol}:\nposterior mean, {interval_label(level)}",
                        loc="right", **MATH)  # right-aligned: stays inside beside long row labels
        if all(np.isnan(v[0]) for v in values):
            no_data(axis, "nothing was judged: no posterior to show")
    fig.agenteval_values = {"rows": dict(zip(labels, values))}  # full labels (ticks may be cut)
    fig.agenteval_caption = (
        ("Per-task success rates p_t (posterior mean and " if tasks else
         "Shares of fully correct conversations p (posterior mean and ")
        + f"{interval_label(level)}); bold: each agent's mean over its tasks.")
    return fig


def plot_shrinkage(results: Any, *, idata: Any = None, ax: Any = None, width: Any = None,
                   style: Any = None) -> Any:
    """Raw per-task success rates c_t/n_t against their posterior means.

    Each line joins a task's raw rate (left) to its posterior mean (right); markers scale with
    the number of attempts. Where tasks are pooled (a fitted population: hierarchical or
    empirical Bayes) this is shrinkage toward each agent's mean mu; where nothing is pooled
    (independent per-task posteriors under a fixed prior) the move is the prior's pull toward
    its mean, and the figure is titled and labelled so (``fig.agenteval_values['pooled']``).
    """
    from matplotlib.collections import LineCollection

    post = _draws(results, idata)
    if "p_task" not in post:
        from agenteval.errors import ConfigError

        raise ConfigError("plot_shrinkage needs repeated tasks (task_id): these results have none")
    n = np.asarray(post.observed["n_task"], dtype=float)
    c = np.asarray(post.observed["c_task"], dtype=float)
    agent_of = np.asarray(post.constant["agent_of_task"])
    posterior_mean = post.flat("p_task").mean(axis=0)
    agents = list(post.coords["agent"])
    colours = _colours(results, post)
    pooled = "mu" in post
    mode = results.settings.mode
    a, b = float(getattr(mode, "beta_prior_a", 1.0)), float(getattr(mode, "beta_prior_b", 1.0))
    with paper_style(style):
        size, _ = panel_size(width, "column", height=2.6)
        fig, axis = figure_axes(ax, size=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            raw = c / n
        for i, agent in enumerate(agents):
            colour = colours[agent]
            sel = (agent_of == i) & np.isfinite(raw)
            # one collection per agent, not three artists per task: linear in tasks (issue 18.12)
            r0, r1, size_ = raw[sel], posterior_mean[sel], 6 + 5 * n[sel]
            axis.add_collection(LineCollection(np.stack([np.stack([np.zeros_like(r0), r0], 1),
                                                         np.stack([np.ones_like(r1), r1], 1)], 1),
                                               colors=colour, linewidths=0.7, alpha=0.7))
            axis.scatter(np.r_[np.zeros_like(r0), np.ones_like(r1)], np.r_[r0, r1],
                         s=np.r_[size_, size_], color=colour, alpha=0.8, lw=0)
            if pooled:
                axis.axhline(float(np.nanmean(post.agent("mu", agent))), color=colour, lw=0.8,
                             ls=":")
            axis.plot([], [], color=colour, label=data_label(agent))
        mu_label = r"dotted: each agent's $\mu$"
        if pooled:
            axis.plot([], [], color="0.35", lw=0.8, ls=":", label=mu_label)
        else:
            axis.axhline(a / (a + b), color="0.35", lw=0.8, ls=":",
                         label=f"prior mean of Beta({a:g}, {b:g})")
        axis.set_xticks([0, 1])
        axis.set_xticklabels([r"raw $c_t / n_t$", "posterior mean"], **MATH)
        axis.set_xlim(-0.25, 1.25)
        axis.set_ylim(-0.03, 1.03)
        axis.set_ylabel("task success rate $p_t$", **MATH)
        axis.set_title(r"shrinkage toward each agent's $\mu$ (pooled)" if pooled
                       else "prior pull, nothing pooled", **MATH)
        legend_outside(fig, axis, own_figure=ax is None, ncol=2, math=[mu_label])
        if not np.isfinite(raw).any():
            no_data(axis, "nothing was judged: no task has a complete attempt")
    fig.agenteval_values = {"raw": raw, "posterior_mean": posterior_mean, "pooled": pooled}
    fig.agenteval_caption = (
        "Each task's raw success rate c_t/n_t joined to its posterior mean (marker area grows "
        "with attempts); " + ("tasks are pooled within each agent, dotted: the agent's "
                              "population mean mu." if pooled else
                              f"nothing is pooled: each task has its own Beta({a:g}, {b:g}) "
                              "prior, so the move is the prior's pull toward its mean (dotted)."))
    return fig


def beta_pdf(grid: np.ndarray, a: float, b: float) -> np.ndarray:
    from scipy.special import betaln, xlogy

    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.exp(xlogy(a - 1, grid) + xlogy(b - 1, 1 - grid) - betaln(a, b))
    return np.where((grid < 0) | (grid > 1), 0.0, out)


def plot_prior_posterior(results: Any, *, idata: Any = None, ax: Any = None, width: Any = None,
                         style: Any = None) -> Any:
    """Prior against posterior. Hierarchical methods: each agent's mu and log kappa (two panels;
    with ``ax`` given, mu only); conjugate: each agent's share of fully correct conversations
    against its Beta(a, b) prior. Prior curves are the exact densities; an agent with nothing
    judged has no posterior curve (it would repeat the prior)."""
    post = _draws(results, idata)
    rows = _rows(results)
    mode = results.settings.mode
    hierarchical = "mu" in post
    colours = _colours(results, post)
    shown: dict[str, Any] = {}
    with paper_style(style):
        panels_n = 2 if hierarchical and ax is None else 1
        size, grid_ = panel_size(width, "double" if panels_n == 2 else "column", panels_n)
        if panels_n == 2:
            fig, axes = figure_axes(None, size=size, **grid_)
            axes = list(np.ravel(axes))
        else:
            fig, single = figure_axes(ax, size=size)
            axes = [single]
        panels = [("mu" if hierarchical else "share", _GRID)]
        if hierarchical and len(axes) > 1:
            pr = mode.prior
            lo = pr.log_kappa_mean - 3.5 * pr.log_kappa_sd
            panels.append(("log_kappa", np.linspace(lo, pr.log_kappa_mean + 3.5 * pr.log_kappa_sd, 401)))
        for axis, (var, grid) in zip(axes, panels):
            if var == "mu":
                prior_pdf = beta_pdf(grid, mode.prior.mu_a, mode.prior.mu_b)
                label = r"population mean task success rate $\mu$"
            elif var == "log_kappa":
                pr = mode.prior
                z = (grid - pr.log_kappa_mean) / pr.log_kappa_sd
                prior_pdf = np.exp(-0.5 * z * z) / (pr.log_kappa_sd * np.sqrt(2 * np.pi))
                label = r"$\log\kappa$ (small: tasks differ a lot)"
            else:
                prior_pdf = beta_pdf(grid, mode.beta_prior_a, mode.beta_prior_b)
                label = "share of fully correct conversations $p$"
            axis.plot(grid, prior_pdf, color="0.35", lw=1.0, ls="--", label="prior")
            drawn = 0
            for agent in post.coords["agent"]:
                row = rows.get(agent)
                if row is None or row.complete == 0:
                    continue
                colour = colours[agent]
                values = (np.log(post.agent("kappa", agent)) if var == "log_kappa"
                          else post.agent(var, agent))
                d = _density(values, grid, reflect=var != "log_kappa")
                axis.plot(grid, d, color=colour, lw=1.2, label=data_label(agent))
                axis.fill_between(grid, d, color=colour, alpha=0.18, lw=0)
                shown.setdefault(var, {})[agent] = float(np.nanmean(values))
                drawn += 1
            if not drawn:
                no_data(axis, "nothing was judged: only the prior")
            axis.set_xlim(grid[0], grid[-1])
            axis.set_ylim(bottom=0)
            axis.set_yticks([])
            axis.set_ylabel("density")
            axis.set_xlabel(label, **MATH)
        legend_outside(fig, axes[0], own_figure=ax is None, ncol=3)
    fig.agenteval_values = shown
    what = "mu and log kappa" if hierarchical else "the share of fully correct conversations p"
    fig.agenteval_caption = (f"Prior (dashed, exact density) and posterior per agent of {what} "
                             "(kernel density of the stored draws).")
    return fig
