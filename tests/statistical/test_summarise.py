"""Suite estimates from arrays, against closed forms, enumeration and scipy (not the old code)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import beta as B
from scipy.special import comb

from agenteval.statistical.counts import build_counts
from agenteval.statistical.modes import BayesianMode, FrequentistMode
from agenteval.statistical.summarise import quality_rows, share_draws, summarise

K = 3


def _pow_mean(a: float, b: float, k: int) -> float:
    return B(a + k, b) / B(a, b)


def _at_mean(a: float, b: float, k: int) -> float:
    return 1 - B(a, b + k) / B(a, b)


def test_complete_cases_conjugate_closed_forms() -> None:
    # 10 conversations of one agent, no task_id, all complete: 7 fully correct
    c = [2] * 7 + [1] * 3
    t = build_counts(agent=["a"] * 10, task=[None] * 10, n=[2] * 10, c=c)
    mode = BayesianMode(beta_prior_a=1, beta_prior_b=1)
    row = summarise(t, mode, K).rows[0]
    a, b = 1 + 7, 1 + 3
    assert row["rate"] == pytest.approx(a / (a + b), abs=1e-12)
    lo, hi = stats.beta(a, b).ppf([0.025, 0.975])
    assert row["rate_low"] == pytest.approx(lo, abs=1e-10)
    assert row["rate_high"] == pytest.approx(hi, abs=1e-10)
    assert row["headline"] == "pooled" and row["rate_method"] == "complete cases"
    assert row["pass_pow_k"] == pytest.approx(_pow_mean(a, b, K), abs=1e-12)
    assert row["pass_at_k"] == pytest.approx(_at_mean(a, b, K), abs=1e-12)
    assert row["pass_pow_k_high"] == pytest.approx(hi ** K, abs=1e-10)
    assert (row["conversations"], row["complete"], row["fully_correct"], row["known_failures"],
            row["unknown"]) == (10, 10, 7, 3, 0)


def test_post_stratified_frequentist_share_by_hand() -> None:
    # length 1: 4 conversations, all complete, 3 correct; length 3: 6 conversations,
    # 3 complete (1 correct), 2 known failures with an error, 1 unknown
    length = [1] * 4 + [3] * 6
    errors = [0] * 4 + [0, 0, 0, 1, 1, 1]
    n = [1] * 4 + [3, 3, 3, 2, 2, 2]
    c = [1, 1, 1, 0] + [3, 2, 0, 1, 0, 2]
    t = build_counts(agent=["a"] * 10, task=[None] * 10, n=n, c=c, length=length,
                     judge_errors=errors)
    row = summarise(t, FrequentistMode(), K).rows[0]
    p = 0.4 * 3 / 4 + 0.6 * 1 / 3
    assert row["rate"] == pytest.approx(p, abs=1e-12)
    assert row["rate_method"].startswith("post-stratified")
    assert row["pooled_pass_pow_k"] == pytest.approx(p ** K, abs=1e-12)
    assert row["pass_pow_k"] == row["pooled_pass_pow_k"]        # no task_id: headline pooled
    assert (row["known_failures"], row["unknown"]) == (1 + 2 + 2, 1)
    assert row["judge_errors"] == 3 and row["interactions_judged"] == sum(n)


def _task_suite() -> tuple:
    # agent a: tasks with (n, c) attempts; agent b: other tasks; every conversation complete
    a_tasks = {"t1": (4, 3), "t2": (3, 1), "t3": (5, 5)}
    b_tasks = {"t1": (3, 0), "t2": (4, 2), "t4": (3, 3)}
    agent, task, n, c = [], [], [], []
    for name, tasks in (("a", a_tasks), ("b", b_tasks)):
        for tid, (attempts, ok) in tasks.items():
            for i in range(attempts):
                agent.append(name)
                task.append(tid)
                n.append(1)
                c.append(1 if i < ok else 0)
    return build_counts(agent=agent, task=task, n=n, c=c), a_tasks, b_tasks


def test_task_level_unbiased_and_conjugate_means() -> None:
    t, a_tasks, b_tasks = _task_suite()
    values = summarise(t, BayesianMode(method="conjugate"), K)
    rows = {r["group"]: r for r in values.rows}
    assert list(rows) == ["all", "a", "b"]
    for name, tasks in (("a", a_tasks), ("b", b_tasks)):
        r = rows[name]
        assert r["headline"] == "tasks" and r["tasks"] == 3
        ub_pow = np.mean([comb(c, K) / comb(n, K) for n, c in tasks.values()])
        ub_at = np.mean([1 - comb(n - c, K) / comb(n, K) for n, c in tasks.values()])
        assert r["unbiased_pass_pow_k"] == pytest.approx(ub_pow, abs=1e-12)
        assert r["unbiased_pass_at_k"] == pytest.approx(ub_at, abs=1e-12)
        # the flat prior by name: per task Beta(1 + c, 1 + n - c), mean over tasks
        pw = np.mean([_pow_mean(1 + c, 1 + n - c, K) for n, c in tasks.values()])
        assert r["task_pass_pow_k"] == pytest.approx(pw, abs=1e-12)
        assert r["pass_pow_k"] == r["task_pass_pow_k"]       # the headline is task-level


def test_quality_is_the_headline() -> None:
    t, _, _ = _task_suite()
    mode = BayesianMode()
    values = summarise(t, mode, K)
    rows = {r["group"]: r for r in values.rows}
    for q in values.quality:
        r = rows[q["unit"]]
        assert (q["pass_at_k"], q["pass_pow_k"]) == (r["pass_at_k"], r["pass_pow_k"])
        at, pw = q["pass_at_k"], q["pass_pow_k"]
        label = ("Reliable" if at > 0.95 and pw > 0.7 else "Inconsistent"
                 if at > 0.95 and pw < 0.5 else "Needs improvement" if at < 0.7 else None)
        assert (q["label"] or None) in (label, "Unlabelled" if label is None else label)
        total = (q["prob_reliable"] + q["prob_inconsistent"] + q["prob_needs_improvement"]
                 + q["prob_unlabelled"])
        assert total == pytest.approx(1.0, abs=1e-9)


def test_quality_pooled_exact_beta_probabilities() -> None:
    # one agent, no tasks, complete: P(Needs improvement) = P(1-(1-p)^k < 0.7) under Beta
    t = build_counts(agent=["a"] * 12, task=[None] * 12, n=[1] * 12, c=[1] * 5 + [0] * 7)
    mode = BayesianMode()
    q = summarise(t, mode, K).quality[0]
    post = stats.beta(1 + 5, 1 + 7)
    assert q["prob_needs_improvement"] == pytest.approx(post.cdf(1 - 0.3 ** (1 / K)), abs=1e-9)
    row = summarise(t, mode, K).rows[0]
    assert q["pass_at_k"] == row["pass_at_k"]


def test_quality_post_stratified_probabilities_by_simulation() -> None:
    # the pooled basis with judge errors: the label probabilities are those of the stratified
    # share's posterior, checked by an independent simulation of that posterior
    length = [1] * 30 + [4] * 30
    errors = [0] * 30 + [0] * 20 + [1] * 10
    n = [1] * 30 + [4] * 20 + [3] * 10
    c = [1] * 27 + [0] * 3 + [4] * 8 + [0] * 12 + [3] * 10
    t = build_counts(agent=["a"] * 60, task=[None] * 60, n=n, c=c, length=length,
                     judge_errors=errors)
    mode = BayesianMode(mc_samples=20000)
    values = summarise(t, mode, K)
    row, q = values.rows[0], values.quality[0]
    assert row["rate_method"].startswith("post-stratified")
    assert (q["pass_at_k"], q["pass_pow_k"]) == (row["pass_at_k"], row["pass_pow_k"])
    rng = np.random.default_rng(123)
    w = rng.dirichlet([30, 30], size=200_000)
    p = w[:, 0] * rng.beta(1 + 27, 1 + 3, 200_000) + w[:, 1] * rng.beta(1 + 8, 1 + 12, 200_000)
    needs = np.mean(1 - (1 - p) ** K < 0.7)
    assert q["prob_needs_improvement"] == pytest.approx(needs, abs=0.015)
    assert row["rate"] == pytest.approx(0.5 * 28 / 32 + 0.5 * 9 / 22, abs=1e-12)  # exact mean


def test_independent_comparison_uses_the_stratified_share() -> None:
    # two agents, no task_id, judge errors on long conversations of agent b
    agent = ["a"] * 40 + ["b"] * 40
    length = [1] * 20 + [3] * 20 + [1] * 20 + [3] * 20
    errors = [0] * 40 + [0] * 20 + [0] * 8 + [1] * 12
    n = [L - e for L, e in zip(length, errors)]
    c = [1] * 15 + [0] * 5 + [3] * 10 + [0] * 10 + [1] * 10 + [0] * 10 + [3] * 6 + [0] * 2 + [2] * 12
    t = build_counts(agent=agent, task=[None] * 80, n=n, c=c, length=length, judge_errors=errors)
    for mode in (BayesianMode(mc_samples=20000), FrequentistMode()):
        values = summarise(t, mode, K)
        rows = {r["group"]: r for r in values.rows}
        (cmp,) = values.comparisons.comparisons
        (success,) = [d for d in cmp.differences if d.quantity == "success"]
        assert cmp.method == "independent"
        assert success.value_b == rows["b"]["rate"]
        assert success.difference == pytest.approx(rows["a"]["rate"] - rows["b"]["rate"], abs=1e-12)
        if isinstance(mode, BayesianMode):
            rng = np.random.default_rng(7)
            pa = rng.beta(1 + 25, 1 + 15, 200_000)       # a is complete: complete cases
            wb = rng.dirichlet([20, 20], size=200_000)    # b: post-stratified
            pb = wb[:, 0] * rng.beta(11, 11, 200_000) + wb[:, 1] * rng.beta(7, 3, 200_000)
            assert success.prob_a_better == pytest.approx(np.mean(pa > pb), abs=0.015)
        else:
            ra, rb = rows["a"], rows["b"]
            d = ra["rate"] - rb["rate"]
            low = d - math.hypot(ra["rate"] - ra["rate_low"], rb["rate_high"] - rb["rate"])
            assert success.low == pytest.approx(low, abs=1e-12)


def test_nothing_judged_is_nan_not_the_prior() -> None:
    t = build_counts(agent=["a", "a"], task=[None, None], n=[0, 0], c=[0, 0], length=[2, 2],
                     judge_errors=[2, 2])
    values = summarise(t, BayesianMode(), K)
    row = values.rows[0]
    assert math.isnan(row["rate"]) and math.isnan(row["pass_pow_k"])
    assert values.quality == []


def test_share_draws_are_the_rows_draws() -> None:
    length = [1] * 10 + [2] * 10
    errors = [0] * 10 + [0] * 5 + [1] * 5
    n = [L - e for L, e in zip(length, errors)]
    c = [1] * 6 + [0] * 4 + [2] * 3 + [0] * 2 + [1] * 5
    t = build_counts(agent=["a"] * 20, task=[None] * 20, n=n, c=c, length=length,
                     judge_errors=errors)
    mode = BayesianMode()
    row = summarise(t, mode, K).rows[0]
    s = share_draws(t, np.ones(20, bool), mode)
    lo, hi = np.quantile(s, [0.025, 0.975])
    assert (row["rate_low"], row["rate_high"]) == (pytest.approx(lo, abs=1e-12),
                                                   pytest.approx(hi, abs=1e-12))
    assert quality_rows(t, [row], mode, K)[0]["pass_at_k"] == row["pass_at_k"]


def test_nothing_complete_with_mixed_lengths_is_nan() -> None:
    # every conversation has a judge error and lengths differ: no stratum has data
    t = build_counts(agent=["a"] * 4, task=[None] * 4, n=[0, 1, 2, 0], c=[0, 1, 2, 0],
                     length=[1, 2, 3, 2], judge_errors=[1, 1, 1, 2])
    for mode in (BayesianMode(), FrequentistMode()):
        row = summarise(t, mode, K).rows[0]
        assert all(math.isnan(row[f]) for f in ("rate", "rate_low", "pass_at_k", "pass_pow_k"))
