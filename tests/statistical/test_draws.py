"""Posterior draws from the table of counts: shapes, seeds, and means against closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from agenteval.statistical.counts import build_counts
from agenteval.statistical.draws import posterior_draws
from agenteval.statistical.modes import BayesianMode
from agenteval.statistical.summarise import Fits


def _table():
    agent = ["a"] * 6 + ["b"] * 6
    task = ["t1", "t1", "t1", "t2", "t2", "t2"] * 2
    n = [2] * 12
    c = [2, 2, 1, 0, 2, 0, 0, 0, 2, 2, 2, 1]
    return build_counts(agent=agent, task=task, n=n, c=c)


def test_conjugate_draws_have_the_exact_means() -> None:
    t = _table()
    mode = BayesianMode(mc_samples=40_000, rng_seed=3)
    d = posterior_draws(t, mode, 3, Fits())
    p_task = d.posterior["p_task"].reshape(-1, t.tasks.size)
    a, b = 1 + t.tasks.c, 1 + t.tasks.n - t.tasks.c
    se = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)) / p_task.shape[0])
    assert np.all(np.abs(p_task.mean(axis=0) - a / (a + b)) < 5 * se)
    share = d.posterior["share"].reshape(-1, 2)
    full = [1 + 3, 1 + 3]            # prior 1 + fully correct conversations (3 of 6 each)
    for g in range(2):
        assert share[:, g].mean() == pytest.approx(full[g] / 8, abs=0.01)
    assert d.dims["p_task"] == ["task"] and d.coords["task"] == ["a/t1", "a/t2", "b/t1", "b/t2"]
    assert d.observed_data["n_task"].tolist() == [3, 3, 3, 3]
    # task_pass_pow_k per agent: the mean over its tasks of p_t^3, per draw
    tp = d.posterior["task_pass_pow_k"].reshape(-1, 2)
    assert np.allclose(tp[:, 0], (p_task[:, :2] ** 3).mean(axis=1))


def test_draws_are_seeded_and_reproducible() -> None:
    t = _table()
    one = posterior_draws(t, BayesianMode(rng_seed=5), 2, Fits())
    two = posterior_draws(t, BayesianMode(rng_seed=5), 2, Fits())
    other = posterior_draws(t, BayesianMode(rng_seed=6), 2, Fits())
    assert np.array_equal(one.posterior["p_task"], two.posterior["p_task"])
    assert not np.array_equal(one.posterior["p_task"], other.posterior["p_task"])
    few = posterior_draws(t, BayesianMode(), 2, Fits(), max_conversations=5)
    assert "p_conversation" not in few.posterior and "p_conversation" in one.posterior


def test_blocked_group_means_are_the_suite_functions() -> None:
    from agenteval.statistical import suite
    from agenteval.statistical.draws import _group_power_draws

    rng = np.random.default_rng(0)
    p = rng.beta(2, 3, size=(700, 9))
    groups = np.array([0, 2, 0, 1, 2, 2, 0, 1, 2])
    for seed in (None, 11):
        want = suite.group_power_draws(p, groups, 4, 3, bootstrap_seed=seed)
        got = _group_power_draws(p, groups, 4, 3, bootstrap_seed=seed)
        for key in want:
            assert np.allclose(got[key], want[key], rtol=1e-12, atol=1e-15, equal_nan=True)
