"""Agent comparisons: paired vs unpaired on correlated suites, Newcombe, McNemar, Holm/BH, ranking.

Numbers are checked against published examples, statsmodels, brute force, or simulation with a
known truth.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.special import betaincinv, ndtr

from agenteval.errors import ConfigError
from agenteval.statistical import BayesianMode, FrequentistMode
from agenteval.statistical.compare import (
    adjust_pvalues,
    bayesian_bootstrap,
    compare_agents,
    mcnemar_exact,
    newcombe_paired,
    paired_bayes,
    paired_bootstrap,
    paired_from_draws,
    rank_from_draws,
    unpaired_bayes,
    unpaired_bootstrap,
)
from agenteval.statistical.difficulty import Difficulty
from agenteval.statistical.plan import copula_correlation

# --------------------------------------------------------------------------- correlated suites

# 50 tasks x 4 attempts; both agents find the same tasks hard: per-task rates Beta with icc 0.3,
# Pearson correlation 0.6 between agents; the population difference of success is 0.7 - 0.6.
TASKS, ATTEMPTS, TRUE_DIFF = 50, 4, 0.1


def _suites(reps: int, seed: int) -> tuple[np.ndarray, ...]:
    da, db = Difficulty.from_icc(0.7, 0.3), Difficulty.from_icc(0.6, 0.3)
    r = copula_correlation(da, db, 0.6)
    rng = np.random.default_rng(seed)
    z1 = rng.standard_normal((reps, TASKS))
    z2 = r * z1 + math.sqrt(1 - r * r) * rng.standard_normal((reps, TASKS))
    pa, pb = betaincinv(da.a, da.b, ndtr(z1)), betaincinv(db.a, db.b, ndtr(z2))
    return pa, pb, rng.binomial(ATTEMPTS, pa), rng.binomial(ATTEMPTS, pb)


def _covers(lo: np.ndarray, hi: np.ndarray, truth: np.ndarray | float) -> float:
    return float(np.mean((lo <= truth) & (truth <= hi)))


def test_frequentist_paired_interval_is_narrower_and_covers() -> None:
    reps = 400
    _, _, ca, cb = _suites(reps, seed=11)
    n = np.full(TASKS, float(ATTEMPTS))
    paired, unpaired, pooled = [], [], []
    for i in range(reps):
        (d,), _ = paired_bootstrap(n, ca[i], n, cb[i], k=1, resamples=1000, seed=i)
        paired.append((d.low, d.high))
        (u,), _ = unpaired_bootstrap(n, ca[i], n, cb[i], k=1, resamples=1000, seed=i)
        unpaired.append((u.low, u.high))
        out = FrequentistMode().compare(TASKS * ATTEMPTS, int(ca[i].sum()), TASKS * ATTEMPTS,
                                        int(cb[i].sum()))
        pooled.append((out["ci_low"], out["ci_high"]))
    paired, unpaired, pooled = (np.array(x) for x in (paired, unpaired, pooled))
    w_paired = np.mean(paired[:, 1] - paired[:, 0])
    w_unpaired = np.mean(unpaired[:, 1] - unpaired[:, 0])
    # Var per task: paired 0.133 vs unpaired 0.213 (planner's closed form): ratio sqrt = 0.79
    assert w_paired < 0.85 * w_unpaired
    assert np.mean(paired[:, 1] - paired[:, 0] < unpaired[:, 1] - unpaired[:, 0]) > 0.9
    # nominal 95%: MC s.e. 0.011 over 400 suites; the percentile bootstrap runs a little liberal
    assert 0.915 <= _covers(paired[:, 0], paired[:, 1], TRUE_DIFF) <= 0.985
    assert 0.915 <= _covers(unpaired[:, 0], unpaired[:, 1], TRUE_DIFF) <= 0.99
    # the pooled-conversation interval ignores that attempts cluster within tasks: it under-covers
    assert _covers(pooled[:, 0], pooled[:, 1], TRUE_DIFF) < _covers(paired[:, 0], paired[:, 1], TRUE_DIFF)


def test_bayesian_paired_interval_is_narrower_and_covers() -> None:
    reps = 200
    pa, pb, ca, cb = _suites(reps, seed=23)
    n = np.full(TASKS, float(ATTEMPTS))
    rows = {"suite": [], "new": [], "unpaired": [], "pass3": []}
    for i in range(reps):
        diffs, _ = paired_bayes(n, ca[i], n, cb[i], k=3, draws=1000, seed=i)
        by = {(d.quantity, d.scope): d for d in diffs}
        rows["suite"].append((by["success", "suite tasks"].low, by["success", "suite tasks"].high))
        rows["new"].append((by["success", "new task"].low, by["success", "new task"].high))
        rows["pass3"].append((by["pass^3", "suite tasks"].low, by["pass^3", "suite tasks"].high))
        u, _ = unpaired_bayes(n, ca[i], n, cb[i], k=1, draws=1000, seed=i)
        (new_u,) = [x for x in u if x.scope == "new task"]
        rows["unpaired"].append((new_u.low, new_u.high))
    suite, new, unpaired, pass3 = (np.array(rows[k]) for k in ("suite", "new", "unpaired", "pass3"))
    assert np.mean(new[:, 1] - new[:, 0]) < 0.85 * np.mean(unpaired[:, 1] - unpaired[:, 0])
    # 200 suites: MC s.e. 0.015 around 0.95
    assert 0.90 <= _covers(new[:, 0], new[:, 1], TRUE_DIFF) <= 0.99
    assert 0.90 <= _covers(unpaired[:, 0], unpaired[:, 1], TRUE_DIFF) <= 0.995
    # suite scope: the difference over the suite's own tasks, known in the simulation
    assert 0.89 <= _covers(suite[:, 0], suite[:, 1], (pa - pb).mean(axis=1)) <= 0.99
    assert 0.89 <= _covers(pass3[:, 0], pass3[:, 1], (pa ** 3 - pb ** 3).mean(axis=1)) <= 0.99
    # and the suite-scope interval is the narrower one (it does not carry the sampling of tasks)
    assert np.mean(suite[:, 1] - suite[:, 0]) < np.mean(new[:, 1] - new[:, 0])


def test_paired_from_draws_against_direct_computation() -> None:
    rng = np.random.default_rng(4)
    pa = rng.beta(3, 2, size=(3000, 7))
    pb = rng.beta(2, 3, size=(3000, 7))
    diffs = paired_from_draws(pa, pb, k=2, ci_level=0.9)
    by = {(d.quantity, d.scope): d for d in diffs}
    d = by["pass^2", "suite tasks"]
    direct = (pa ** 2).mean(axis=1) - (pb ** 2).mean(axis=1)
    assert d.difference == pytest.approx(direct.mean())
    assert (d.low, d.high) == pytest.approx(tuple(np.quantile(direct, [0.05, 0.95])))
    assert d.prob_a_better == pytest.approx(np.mean(direct > 0))
    # shared task weights: a constant shift per task gives exactly that difference, no spread
    (shifted,) = paired_from_draws(pb + 0.1, pb, k=1)
    assert shifted.low == pytest.approx(0.1) and shifted.high == pytest.approx(0.1)
    # Bayesian bootstrap with shared weights: a constant per-task shift has no spread either
    n = np.full(6, 4.0)
    c_b = np.array([0, 1, 2, 3, 2, 1.0])
    (new,), _ = bayesian_bootstrap(n, c_b + 1, n, c_b, k=1, paired=True, seed=2)
    assert new.low == pytest.approx(0.25) and new.high == pytest.approx(0.25)


def test_bootstrap_point_estimates_are_unbiased_estimators() -> None:
    n_a, c_a = np.array([4, 5, 3]), np.array([3, 5, 1])
    n_b, c_b = np.array([4, 5, 3]), np.array([1, 2, 0])
    diffs, notes = paired_bootstrap(n_a, c_a, n_b, c_b, k=4, seed=0)
    by = {d.quantity: d for d in diffs}
    keep = n_a >= 4
    def tau(n, c):  # tau-bench's C(c, k) / C(n, k), written out
        return np.array([math.comb(int(ci), 4) / math.comb(int(ni), 4) for ni, ci in zip(n, c)])

    want = np.mean(tau(n_a[keep], c_a[keep]) - tau(n_b[keep], c_b[keep]))
    assert by["pass^4"].difference == pytest.approx(want) and by["pass^4"].tasks == 2
    assert any("fewer than 4" in n for n in notes)
    assert by["success"].difference == pytest.approx(np.mean(c_a / n_a - c_b / n_b))


# --------------------------------------------------------------------------- Newcombe, McNemar


def test_newcombe_paired_published_example() -> None:
    # Fagerland, Lydersen & Laake (2017), Statistical Analysis of Contingency Tables, ch. 8:
    # Cavo et al. (2012), 59 / 6 / 16 / 80 -> -0.0621 (95% CI -0.1186 to -0.0046)
    d, lo, hi = newcombe_paired(59, 6, 16, 80)
    assert (round(d, 4), round(lo, 4), round(hi, 4)) == (-0.0621, -0.1186, -0.0046)
    # vectorised over tables, and antisymmetric when A and B swap roles
    ds, los, his = newcombe_paired([59, 59], [6, 16], [16, 6], [80, 80])
    assert ds[0] == pytest.approx(-ds[1]) and los[0] == pytest.approx(-his[1])


def test_mcnemar_exact_against_statsmodels() -> None:
    from statsmodels.stats.contingency_tables import mcnemar

    for b, c in [(6, 16), (0, 5), (3, 3), (12, 2)]:
        want = mcnemar(np.array([[10, b], [c, 10]]), exact=True).pvalue
        assert mcnemar_exact(b, c) == pytest.approx(want, rel=1e-12)


def test_one_attempt_per_task_uses_newcombe_and_mcnemar() -> None:
    rng = np.random.default_rng(2)
    ids = [f"t{i}" for i in range(40)]
    a = rng.random(40) < 0.7
    b = rng.random(40) < 0.5
    table = compare_agents(["A"] * 40 + ["B"] * 40, ids + ids, np.r_[a, b], k=3,
                           mode=FrequentistMode())
    (cmp,) = table.comparisons
    (d,) = cmp.differences
    want = newcombe_paired(np.sum(a & b), np.sum(a & ~b), np.sum(~a & b), np.sum(~a & ~b))
    assert (d.difference, d.low, d.high) == pytest.approx(want)
    assert d.p_value == pytest.approx(mcnemar_exact(np.sum(a & ~b), np.sum(~a & b)))
    assert "Newcombe" in cmp.detail and any("not identified" in n for n in cmp.notes)


# --------------------------------------------------------------------------- multiplicity


@pytest.mark.parametrize("method,sm", [("holm", "holm"), ("bh", "fdr_bh")])
def test_adjustment_against_statsmodels(method: str, sm: str) -> None:
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(9)
    for size in (1, 2, 5, 17):
        p = rng.random(size) ** 3
        if size > 2:
            p[1] = p[2]  # ties
        want = multipletests(p, method=sm)[1]
        np.testing.assert_allclose(adjust_pvalues(p, method), want, rtol=1e-12)
    p = np.array([0.01, np.nan, 0.04, 0.03])
    got = adjust_pvalues(p, method)
    assert np.isnan(got[1])
    np.testing.assert_allclose(got[[0, 2, 3]], multipletests(p[[0, 2, 3]], method=sm)[1])
    with pytest.raises(ConfigError):
        adjust_pvalues([0.1], "bonferroni-ish")


def test_many_agents_adjust_p_values_per_quantity() -> None:
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(5)
    agent, task, success = [], [], []
    for name, p in [("A", 0.8), ("B", 0.6), ("C", 0.55), ("D", 0.5)]:
        for t in range(20):
            for _ in range(3):
                agent.append(name)
                task.append(f"t{t}")
                success.append(rng.random() < p)
    table = compare_agents(agent, task, success, k=2, mode=FrequentistMode(), adjust="bh")
    assert len(table.comparisons) == 6
    for quantity in ("success", "pass@2", "pass^2"):
        ds = [d for c in table.comparisons for d in c.differences if d.quantity == quantity]
        raw = [d.p_value for d in ds]
        np.testing.assert_allclose([d.p_adjusted for d in ds], multipletests(raw, method="fdr_bh")[1])


# --------------------------------------------------------------------------- ranking


def test_rank_from_draws_against_brute_force() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal([0.5, 0.55, 0.3], 0.05, size=(500, 3))
    mean, best, rank, lo, hi, gt = rank_from_draws(x)
    want_best = np.bincount(np.argmax(x, axis=1), minlength=3) / 500
    want_rank = np.array([[1 + sum(row[j] > row[i] for j in range(3)) for i in range(3)] for row in x]).mean(0)
    np.testing.assert_allclose(best, want_best)
    np.testing.assert_allclose(rank, want_rank)
    for i, j in itertools.permutations(range(3), 2):
        assert gt[i, j] == pytest.approx(np.mean(x[:, i] > x[:, j]))
        assert gt[i, j] + gt[j, i] == pytest.approx(1.0)
    assert best.sum() == pytest.approx(1.0) and rank.sum() == pytest.approx(6.0)


def test_compare_agents_routes_by_shared_tasks() -> None:
    mode = BayesianMode(mc_samples=2000)
    # A and B share tasks t0..t9 with 3 attempts; C only has its own tasks, D has no task_id
    agent, task, success = [], [], []
    rng = np.random.default_rng(1)
    for name, tasks, p in [("A", range(10), 0.7), ("B", range(10), 0.4), ("C", range(20, 30), 0.5)]:
        for t in tasks:
            for _ in range(3):
                agent.append(name)
                task.append(f"t{t}")
                success.append(rng.random() < p)
    for name, wins in (("D", 4), ("E", 9)):
        for i in range(12):
            agent.append(name)
            task.append(None)
            success.append(i < wins)
    table = compare_agents(agent, task, success, k=2, mode=mode)
    by = {(c.agent_a, c.agent_b): c for c in table.comparisons}
    assert by["A", "B"].method == "paired" and by["A", "B"].shared_tasks == 10
    assert {d.scope for d in by["A", "B"].differences} == {"suite tasks", "new task"}
    # no shared task, but C repeats its tasks: each agent on its own tasks, clustered
    assert by["A", "C"].method == "independent" and "own tasks" in by["A", "C"].detail
    assert by["C", "D"].method == "independent" and by["C", "D"].differences[0].scope == "suite tasks"
    # D and E: one conversation per "task": the run's mode compares pooled conversations
    (d,) = by["D", "E"].differences
    want = mode.compare(12, 4, 12, 9)
    assert d.scope == "conversations" and d.prob_a_better == pytest.approx(want["prob_greater"])
    assert d.difference == pytest.approx(want["mean_diff"])
    assert table.ranking is not None and table.ranking.scope == "conversations"


def test_agents_without_complete_conversations_get_nan() -> None:
    table = compare_agents(["A", "A"], ["t1", "t2"], [True, False], k=1, mode=BayesianMode(),
                           names=["A", "B"])
    (cmp,) = table.comparisons
    assert math.isnan(cmp.differences[0].difference) and cmp.notes


def test_grouped_suite_means_match_per_task_draws() -> None:
    from agenteval.statistical.compare import suite_mean_draws

    # 300 tasks but 4 distinct (n, c): groups beyond 24 tasks are summed by their Beta moments
    n = np.repeat([4.0, 4.0, 4.0, 2.0], [120, 90, 60, 30])
    c = np.repeat([4.0, 2.0, 0.0, 1.0], [120, 90, 60, 30])
    got, _ = suite_mean_draws(n, c, 3, 20000, np.random.default_rng(0), prior=(1.5, 1.0))
    rng = np.random.default_rng(1)
    p = rng.beta(1.5 + c, 1.0 + n - c, size=(4000, n.size))
    want = {"success": p.mean(1), "pass@3": (1 - (1 - p) ** 3).mean(1), "pass^3": (p ** 3).mean(1)}
    for name, w in want.items():
        assert got[name].mean() == pytest.approx(w.mean(), abs=3 * w.std() / math.sqrt(4000))
        assert got[name].std() == pytest.approx(w.std(), rel=0.05)


def test_rank_from_draws_with_ties_against_scipy_rankdata() -> None:
    from scipy.stats import rankdata

    rng = np.random.default_rng(3)
    for agents in (1, 2, 3, 6):
        x = rng.integers(0, 4, size=(400, agents)) / 4  # many ties
        mean, best, rank, lo, hi, gt = rank_from_draws(x)
        ranks = rankdata(-x, axis=1, method="average")
        np.testing.assert_array_equal(rank, ranks.mean(axis=0))
        np.testing.assert_array_equal(lo, np.quantile(ranks, 0.025, axis=0))
        np.testing.assert_array_equal(hi, np.quantile(ranks, 0.975, axis=0))
        for i, j in itertools.permutations(range(agents), 2):
            assert gt[i, j] == pytest.approx(np.mean(x[:, i] > x[:, j]) + 0.5 * np.mean(x[:, i] == x[:, j]))
