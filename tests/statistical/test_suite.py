"""Suite math (agenteval.statistical.suite) against enumeration, quadrature and simulation."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import integrate, stats

from agenteval.errors import ConfigError
from agenteval.statistical import suite
from agenteval.statistical.modes import BayesianMode, FrequentistMode

TASKS = [(4, 1), (3, 3), (2, 2), (5, 0), (6, 4), (1, 1)]   # (attempts, successes) per task


def _subset_mean(n: int, c: int, k: int, all_ok: bool) -> float:
    """Share of k-subsets of n attempts (c successes) that are all / at least one success."""
    attempts = [1] * c + [0] * (n - c)
    subsets = list(itertools.combinations(attempts, k))
    return float(np.mean([all(s) if all_ok else any(s) for s in subsets]))


def test_frequentist_task_means_are_subset_enumeration() -> None:
    k = 2
    r = suite.frequentist_task_estimate(*zip(*TASKS), k)
    ok = [(n, c) for n, c in TASKS if n >= k]
    assert (r.tasks, r.tasks_with_k, r.max_attempts) == (6, 5, 6)
    assert r.task_pass_pow_k == pytest.approx(np.mean([_subset_mean(n, c, k, True) for n, c in ok]))
    assert r.task_pass_at_k == pytest.approx(np.mean([_subset_mean(n, c, k, False) for n, c in ok]))
    assert r.unbiased_pass_pow_k == r.task_pass_pow_k == r.new_task_pass_pow_k
    for lo, mid, hi in [(r.task_pass_pow_k_low, r.task_pass_pow_k, r.task_pass_pow_k_high),
                        (r.new_task_pass_at_k_low, r.new_task_pass_at_k, r.new_task_pass_at_k_high)]:
        assert 0 <= lo <= mid <= hi <= 1


def test_frequentist_new_task_bootstrap_against_a_direct_resampling() -> None:
    k = 2
    n, c = map(np.array, zip(*[t for t in TASKS if t[0] >= k]))
    r = suite.frequentist_task_estimate(n, c, k, bootstrap=4000, seed=3)
    u = np.array([_subset_mean(a, b, k, True) for a, b in zip(n, c)])
    rng = np.random.default_rng(99)
    boot = [u[rng.integers(0, u.size, u.size)].mean() for _ in range(20000)]
    lo, hi = np.quantile(boot, [0.025, 0.975])
    assert (r.new_task_pass_pow_k_low, r.new_task_pass_pow_k_high) == pytest.approx((lo, hi), abs=0.03)


@pytest.mark.parametrize("k", [1, 3])
def test_conjugate_task_means_against_quadrature(k: int) -> None:
    a, b = 1.5, 0.7
    r = suite.conjugate_task_estimate(*zip(*TASKS), k, a=a, b=b, draws=20000, seed=1)
    pw, at = [], []
    for n, c in TASKS:   # every task counts, also those with fewer than k attempts
        post = stats.beta(a + c, b + n - c)
        pw.append(integrate.quad(lambda p: p ** k * post.pdf(p), 0, 1)[0])
        at.append(integrate.quad(lambda p: (1 - (1 - p) ** k) * post.pdf(p), 0, 1)[0])
    assert r.tasks == len(TASKS) and r.identified
    assert r.task_pass_pow_k == pytest.approx(np.mean(pw), rel=1e-8)
    assert r.task_pass_at_k == pytest.approx(np.mean(at), rel=1e-8)
    # intervals against an independent Monte Carlo (scipy's sampler, another seed)
    draws = np.stack([stats.beta(a + c, b + n - c).rvs(40000, random_state=7 + i)
                      for i, (n, c) in enumerate(TASKS)], axis=1)
    mean_pw = (draws ** k).mean(axis=1)
    assert (r.task_pass_pow_k_low, r.task_pass_pow_k_high) == pytest.approx(
        tuple(np.quantile(mean_pw, [0.025, 0.975])), abs=0.01)
    # new task: the one estimator of every mode (no task prior): the mean of the per-task
    # unbiased estimates over tasks with >= k attempts, Bayesian bootstrap over those tasks
    ok = [(n, c) for n, c in TASKS if n >= k]
    u = np.array([_subset_mean(n, c, k, True) for n, c in ok])
    w = np.random.default_rng(5).dirichlet(np.ones(len(ok)), size=40000)
    assert r.new_task_pass_pow_k == pytest.approx(u.mean(), rel=1e-12)
    assert (r.new_task_pass_pow_k_low, r.new_task_pass_pow_k_high) == pytest.approx(
        tuple(np.quantile(w @ u, [0.025, 0.975])), abs=0.015)


def test_conjugate_task_estimate_is_seeded() -> None:
    one = suite.conjugate_task_estimate([3, 4], [1, 4], 2, seed=11)
    two = suite.conjugate_task_estimate([3, 4], [1, 4], 2, seed=11)
    other = suite.conjugate_task_estimate([3, 4], [1, 4], 2, seed=12)
    assert one == two and one.task_pass_pow_k_low != other.task_pass_pow_k_low


def test_one_attempt_per_task_is_not_identified_for_k_above_one() -> None:
    n, c = [1] * 10, [1, 0] * 5
    for mode in (BayesianMode(), FrequentistMode()):
        r = mode.task_estimate(n, c, 3)
        assert not r.identified and math.isnan(r.task_pass_pow_k) and math.isnan(r.new_task_pass_at_k)
        r1 = mode.task_estimate(n, c, 1)
        assert r1.identified and r1.task_pass_pow_k == pytest.approx(
            0.5 if isinstance(mode, FrequentistMode) else np.mean([2 / 3, 1 / 3]))
    assert "not identified" in suite.not_identified_note(3)


def test_jensen_pooled_plug_in_understates_pass_pow_k_when_tasks_differ() -> None:
    from agenteval import Agentic

    def conv(sid: str, task: str, ok: bool) -> dict:
        return {"session_id": sid, "assistant_id": "a", "task_id": task, "conversation": [
            {"qa_id": "q", "query": "q?", "assistant": "8" if ok else "9", "ground_truth_assistant": "8"}]}

    # easy task: 4/4, hard task: 0/4 -> pooled p = 1/2, pooled p^2 = 1/4; per task mean p_t^2 = 1/2
    data = [conv(f"e{i}", "easy", True) for i in range(4)] + [conv(f"h{i}", "hard", False) for i in range(4)]
    row = Agentic.run(data, k=2).summary().rows[0]
    assert row.headline == "tasks"
    assert row.pass_pow_k == pytest.approx(0.5) and row.pooled_pass_pow_k == pytest.approx(0.25)
    assert row.pass_at_k == pytest.approx(0.5) and row.pooled_pass_at_k == pytest.approx(0.75)


def test_summary_warns_and_says_so_with_one_attempt_per_task() -> None:
    from agenteval import Agentic
    from agenteval.results import NotIdentifiedWarning

    data = [{"session_id": f"s{i}", "assistant_id": "a", "task_id": f"t{i}", "conversation": [
        {"qa_id": "q", "query": "q?", "assistant": "8", "ground_truth_assistant": "8"}]} for i in range(5)]
    with pytest.warns(NotIdentifiedWarning, match="not identified"):
        summary = Agentic.run(data, k=3, statistical_mode=BayesianMode()).summary()
    row = summary.rows[0]
    assert not row.identified and row.headline == "pooled" and math.isnan(row.task_pass_pow_k)
    assert "not identified" in summary.to_text() and "not identified" in summary._repr_html_()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Agentic.run(data, k=1).summary()   # k = 1 is identified: no warning


# --------------------------------------------------------------------------- missing data


def test_length_strata_and_stratified_means() -> None:
    L, N, M, C = suite.length_strata([1, 1, 1, 10, 10, 10, 10], [1, 1, 0, 1, 0, 0, 1],
                                     [1, 0, 0, 1, 0, 0, 0])
    assert (L.tolist(), N.tolist(), M.tolist(), C.tolist()) == ([1, 10], [3, 4], [2, 2], [1, 1])
    f = suite.frequentist_stratified_rate(N, M, C, 2)
    assert f["rate"] == pytest.approx(3 / 7 * 1 / 2 + 4 / 7 * 1 / 2)
    assert f["pass_pow_k"] == pytest.approx(f["rate"] ** 2)
    b = suite.bayes_stratified_rate(N, M, C, 2, a=1, b=1)
    assert b["rate"] == pytest.approx(3 / 7 * 2 / 4 + 4 / 7 * 2 / 4)
    assert b["rate_low"] < b["rate"] < b["rate_high"]


def _simulated_suite(rng: np.random.Generator, conversations: int, q: float, fail: float):
    """Lengths 1 or 10 (even odds); each interaction correct w.p. q, unjudged w.p. fail."""
    length = np.where(rng.random(conversations) < 0.5, 1, 10)
    correct = [rng.random(n) < q for n in length]
    judged = [rng.random(n) >= fail for n in length]
    complete = np.array([j.all() for j in judged])
    full = np.array([cr.all() for cr in correct]) & complete
    return suite.length_strata(length, complete, full), complete, full


@pytest.mark.parametrize("mode", [BayesianMode(mc_samples=2000), FrequentistMode()],
                         ids=["bayes", "frequentist"])
def test_missing_data_interval_covers_truth_at_nominal_rate(mode) -> None:
    """Mixed lengths 1 and 10, 20% judge failures unrelated to correctness: the complete-case
    share is biased (short conversations are complete more often and correct more often); the
    post-stratified interval covers the truth in about 95% of simulated suites."""
    q, fail, reps, size = 0.9, 0.2, 300, 1000
    truth = 0.5 * q + 0.5 * q ** 10
    rng = np.random.default_rng(2026)
    cover = naive_cover = 0
    for _ in range(reps):
        (L, N, M, C), complete, full = _simulated_suite(rng, size, q, fail)
        r = mode.stratified_rate(N, M, C, 1)
        cover += r["rate_low"] <= truth <= r["rate_high"]
        est = mode.estimate(int(complete.sum()), int(full.sum()), 1)
        naive_cover += est.rate_low <= truth <= est.rate_high
    se = math.sqrt(0.95 * 0.05 / reps)
    assert abs(cover / reps - 0.95) < 4 * se
    assert naive_cover / reps < 0.05   # the complete-case interval misses the truth


def test_missing_data_end_to_end_through_agentic_run() -> None:
    """The judge fails 20% of calls at random; the summary's share stays near the truth."""
    from agenteval import Agentic
    from agenteval.judge.base import Judge, JudgeFailure, Verdict

    rng = np.random.default_rng(4)

    class Flaky(Judge):
        name = "flaky-random"

        async def ajudge_answers(self, items):
            return [JudgeFailure("HTTP 500") if rng.random() < 0.2
                    else Verdict(float(i.answer == i.ground_truth)) for i in items]

    q, data = 0.9, []
    for i in range(1200):
        n = 1 if i % 2 == 0 else 10
        data.append({"session_id": f"s{i}", "assistant_id": "a", "conversation": [
            {"qa_id": f"q{j}", "query": "q?", "assistant": "8" if rng.random() < q else "9",
             "ground_truth_assistant": "8"} for j in range(n)]})
    truth = 0.5 * q + 0.5 * q ** 10
    row = Agentic.run(data, Flaky(), k=1, statistical_mode=BayesianMode()).summary().rows[0]
    assert row.rate_method.startswith("post-stratified")
    assert row.rate_low <= truth <= row.rate_high
    assert row.fully_correct / row.complete > truth + 0.1   # what complete cases would say


def test_grouped_conjugate_task_estimates_against_independent_monte_carlo_per_group() -> None:
    """One set of draws for all tasks and each agent: every estimate against scipy's own
    sampler run separately on that group's tasks (exact means against quadrature)."""
    k, a, b = 2, 1.0, 1.0
    groups = {0: [(4, 1), (3, 3), (5, 2), (6, 6), (2, 0)],   # agent 0
              2: [(1, 1), (1, 0), (1, 1)],                     # agent 2: one attempt per task
              3: [(5, 5), (4, 0), (3, 2), (6, 1)]}             # agent 1 has no tasks at all
    n, c, g = [], [], []
    for agent, tasks in groups.items():
        for nt, ct in tasks:
            n.append(nt), c.append(ct), g.append(agent)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(n))   # the groups' tasks interleaved
    n, c, g = (np.array(x)[order] for x in (n, c, g))
    out = suite.conjugate_task_estimates(n, c, k, groups=g, n_groups=4, a=a, b=b, draws=20000, seed=3)
    assert len(out) == 5
    assert out[2].tasks == 0 and math.isnan(out[2].task_pass_pow_k)          # agent 1: no tasks
    assert out[3].tasks == 3 and not out[3].identified and math.isnan(out[3].task_pass_pow_k)
    for j, sel in [(0, np.ones(n.size, bool)), (1, g == 0), (4, g == 3)]:
        r, tasks = out[j], list(zip(n[sel], c[sel]))
        assert r.tasks == len(tasks) and r.identified
        exact = [integrate.quad(lambda p: p ** k * stats.beta(a + ct, b + nt - ct).pdf(p), 0, 1)[0]
                 for nt, ct in tasks]
        assert r.task_pass_pow_k == pytest.approx(np.mean(exact), rel=1e-8)
        draws = np.stack([stats.beta(a + ct, b + nt - ct).rvs(40000, random_state=11 + i)
                          for i, (nt, ct) in enumerate(tasks)], axis=1)
        suite_at = (1 - (1 - draws) ** k).mean(axis=1)
        assert (r.task_pass_at_k_low, r.task_pass_at_k_high) == pytest.approx(
            tuple(np.quantile(suite_at, [0.025, 0.975])), abs=0.012)
        # new task: Bayesian bootstrap of the per-task unbiased estimates (tasks with n >= k)
        u = np.array([_subset_mean(nt, ct, k, True) for nt, ct in tasks if nt >= k])
        w = np.random.default_rng(5).dirichlet(np.ones(u.size), size=40000)
        assert (r.new_task_pass_pow_k_low, r.new_task_pass_pow_k_high) == pytest.approx(
            tuple(np.quantile(w @ u, [0.025, 0.975])), abs=0.015)
    with pytest.raises(ConfigError, match="groups"):
        suite.conjugate_task_estimates(n, c, k, groups=g, n_groups=3)
