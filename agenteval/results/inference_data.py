"""The results as ArviZ data: one InferenceData per fit level, rendered from the held draws.

Nothing here samples the posterior: the layout (:mod:`agenteval.statistical.idata_layout`) is
made once per level from ``results.posterior_draws()`` and ``results.fits()`` (the draws every
figure shows), kept on the results, and both :func:`to_inference_data` (through the ArviZ
adapter, :mod:`agenteval._util.arviz`) and the NetCDF writer (``_util.netcdf.write_draws``: h5py alone, no
arviz; ``AgenticResults.to_netcdf`` and ``--out``) read it, so ``posterior.nc`` reloads with ``az.from_netcdf`` as exactly what
``to_inference_data`` returns. A PyMC user's calls work on either::

    idata = results.to_inference_data()            # level="task": the suite headline's fit
    az.summary(idata, var_names=["mu", "log_kappa", "task_pass_pow_k"], hdi_prob=0.95)
    idata.posterior.sel(agent="agent-gpt-small")
    az.loo(idata); az.plot_ppc(idata)
    az.compare({"pooled": idata, "independent": other.to_inference_data()})

Levels: ``"task"`` (units: agent x task_id; posterior ``mu``, ``log_kappa``, ``kappa`` per agent
in the hierarchical methods, ``p_task`` over (agent, task_id), per agent ``share``,
``task_pass_at_k`` / ``task_pass_pow_k`` (the suite's tasks), ``new_task_pass_at_k`` /
``new_task_pass_pow_k`` (a new task), each also as ``*_all`` for the whole suite; data groups
over ``task``) and ``"conversation"`` (units: conversations; ``p_conversation`` over (agent,
task_id, attempt), ``mu`` / ``log_kappa`` / ``kappa`` where the mode pools conversations; data
groups over ``conversation``). Intervals in agenteval are equal-tailed at the mode's
``ci_level`` (95% by default); ArviZ's default is a 94% HDI (attrs ``interval``, ``ci_level``,
``interval_note``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["inference_layout", "levels", "to_inference_data"]


def _check(results: Any) -> None:
    from agenteval.errors import ConfigError

    if results.settings.mode.get_result_type() != "distribution":
        raise ConfigError("to_inference_data needs a Bayesian mode (BayesianMode(...)); "
                          "frequentist results have no posterior")


def inference_layout(results: Any, *, level: str | None = None, draws: int | None = None,
                     max_conversations: int = 20_000) -> Any:
    """The level's groups as arrays (``idata_layout.Layout``), made once and kept."""
    from agenteval.statistical import idata_layout

    _check(results)
    level = level or idata_layout.default_level(results.counts)
    key = ("layout", level, draws, max_conversations)
    held = results._idata
    if key not in held:
        d = results.posterior_draws(draws=draws, max_conversations=max_conversations)
        held[key] = idata_layout.inference_layout(d, results.counts, results.fits(), level=level,
                                                  seed=results.settings.mode.rng_seed)
    return held[key]


def to_inference_data(results: Any, *, level: str | None = None, draws: int | None = None,
                      max_conversations: int = 20_000) -> Any:
    """InferenceData (arviz 0.x) or DataTree (1.x) of one level (default: ``"task"`` where
    conversations have task_ids, else ``"conversation"``), built once (a second call returns
    the same object). See the module docstring for the variables."""
    from agenteval.statistical import idata_layout

    _check(results)
    level = level or idata_layout.default_level(results.counts)
    key = ("idata", level, draws, max_conversations)
    held = results._idata
    if key not in held:
        from agenteval._util import arviz as _arviz

        held[key] = _arviz.from_layout(inference_layout(
            results, level=level, draws=draws, max_conversations=max_conversations))
    return held[key]


def levels(results: Any) -> list[str]:
    """The levels the results can render: 'task' (with task_ids) and 'conversation' (unless
    the tasks or conversations were too many for their draws)."""
    held = results.posterior_draws().posterior   # p_task / p_conversation: left out of huge suites
    out = ["task"] if results.counts.tasks.size and "p_task" in held else []
    if "p_conversation" in held:
        out.append("conversation")
    return out
