"""Agents compared on judge-corrected outcomes, and the PyMC form of the correction.

Checked against independent computations: simulations in which the judge makes the raw
comparison pick the wrong winner (its errors compound over longer conversations, or it is more
lenient with one agent), exact enumeration of every truth on a small case, and numerical
integration of the misclassification model's posterior on a grid (for PyMC).
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

from agenteval.statistical import judge_error as je
from agenteval.statistical.compare import compare_corrected


def _suite(rng, *, n_tasks=60, attempts=3, lengths=(1, 5), thetas=(0.7, 0.95),
           se=(0.9, 0.9), sp=(0.5, 0.5), n_labels=300):
    """Two agents on the same task_ids; per agent its conversation length, per-interaction rate
    and the judge's sensitivity/specificity on it."""
    group, task, length = [], [], []
    for t in range(n_tasks):
        for g, m in enumerate(lengths):
            for _ in range(attempts):
                group.append(g)
                task.append(t)
                length.append(m)
    group, task, length = map(np.array, (group, task, length))
    conv = np.repeat(np.arange(group.size), length)
    g_i = group[conv]
    truth = (rng.random(conv.size) < np.asarray(thetas)[g_i]).astype(float)
    u = rng.random(conv.size)
    judge = np.where(truth == 1, u < np.asarray(se)[g_i], u > np.asarray(sp)[g_i]).astype(float)
    human = np.full(conv.size, np.nan)
    pick = rng.choice(conv.size, size=n_labels, replace=False)
    human[pick] = truth[pick]
    return conv, judge, human, group, task


def _names(group):
    return ["a" if g == 0 else "b" for g in group]


@pytest.mark.parametrize("case", ["compounding", "lenient"])
@pytest.mark.parametrize("bayesian", [False, True])
def test_corrected_comparison_picks_the_true_winner_where_the_raw_one_does_not(case, bayesian):
    # compounding: one judge (se .9, sp .5); agent a answers in 1 interaction at .7, agent b in
    # 5 at .95: truly b is better (.774 vs .7), but the judge's errors compound over b's five
    # verdicts (judged fully correct .88^5 = .53 vs a's .78), so raw picks a.
    # lenient: the judge passes agent a's wrong answers far more often (sp .3 vs .9).
    if case == "compounding":
        kw, pooled = {"n_labels": 400}, True
        true_a, true_b = 0.7, 0.95 ** 5
    else:
        kw = dict(lengths=(2, 2), thetas=(0.7, 0.8), se=(0.95, 0.85), sp=(0.3, 0.9),
                  n_labels=400)
        pooled = False
        true_a, true_b = 0.7 ** 2, 0.8 ** 2
    true_d = true_a - true_b
    cover = right = raw_wrong = raw_cover = best_b = 0
    reps = 40
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(reps):
            conv, judge, human, group, task = _suite(np.random.default_rng(100 + r), **kw)
            full = np.ones(group.size, bool)
            np.logical_and.at(full, conv, judge == 1)
            raw = full[group == 0].mean() - full[group == 1].mean()
            # the raw paired bootstrap over tasks (judge-only), the same estimator uncorrected
            raw_tab = compare_corrected(np.tile(full, (1000, 1)).astype(float), _names(group), task.astype(str).tolist(),
                                        k=1, bayesian=bayesian, point=full.astype(float),
                                        seed=r)
            d_raw = raw_tab.comparisons[0].differences[0]
            cc = je.conversation_correction(conv, judge, human, group, bayesian=bayesian,
                                            pooled=pooled, draws=1000, seed=r)
            tab = compare_corrected(cc.prob, _names(group), task.astype(str).tolist(), k=1,
                                    bayesian=bayesian, point=cc.point, seed=r)
            d = tab.comparisons[0].differences[0]
            assert tab.comparisons[0].method == "paired" and d.scope == "new task"
            assert tab.comparisons[0].detail.startswith("judge-corrected")
            cover += d.low <= true_d <= d.high
            right += d.difference < 0
            raw_wrong += raw > 0
            raw_cover += d_raw.low <= true_d <= d_raw.high
            best_b += tab.ranking.prob_best[1] > 0.5
    assert raw_wrong / reps >= 0.9          # the judge reverses the order
    assert raw_cover / reps <= 0.05         # and the judge-only interval misses the truth
    assert cover / reps >= 0.85             # the corrected interval covers it (nominal .95)
    assert right / reps >= 0.65        # power, not correctness: 0.70-1.00 measured
    assert best_b / reps >= 0.7


def _enumerate(p: np.ndarray, cells: list[list[int]], k: int, name: str) -> float:
    """E[mean over tasks of the unbiased estimate] by enumerating every truth of the
    conversations (independent Bernoulli(p_i))."""
    total = 0.0
    for z in itertools.product((0, 1), repeat=p.size):
        z = np.array(z)
        like = float(np.prod(np.where(z == 1, p, 1 - p)))
        vals = []
        for idx in cells:
            n, c = len(idx), int(z[idx].sum())
            if name == "success":
                vals.append(c / n)
            elif name.startswith("pass^"):
                vals.append(math.comb(c, k) / math.comb(n, k))
            else:
                vals.append(1 - math.comb(n - c, k) / math.comb(n, k))
        total += like * float(np.mean(vals))
    return total


def test_frequentist_point_difference_matches_enumeration_of_every_truth():
    p = np.array([0.9, 0.2, 0.6, 0.5, 0.7, 0.4, 0.3, 0.8, 0.65, 0.1])
    agent = ["a", "a", "a", "a", "a", "b", "b", "b", "b", "b"]
    task = ["t1", "t1", "t1", "t2", "t2", "t1", "t1", "t2", "t2", "t2"]
    tab = compare_corrected(np.tile(p, (200, 1)), agent, task, k=2, bayesian=False, point=p)
    cells_a, cells_b = [[0, 1, 2], [3, 4]], [[5, 6], [7, 8, 9]]
    for d in tab.comparisons[0].differences:
        ea, eb = (_enumerate(p, cells, 2, d.quantity) for cells in (cells_a, cells_b))
        assert d.value_a == pytest.approx(ea, abs=1e-12)
        assert d.value_b == pytest.approx(eb, abs=1e-12)
        assert d.difference == pytest.approx(ea - eb, abs=1e-12)
    assert [d.quantity for d in tab.comparisons[0].differences] == ["success", "pass@2", "pass^2"]


def test_one_attempt_per_task_leaves_pass_k_out_and_independent_agents_are_pooled():
    rng = np.random.default_rng(0)
    p = rng.random((500, 8))
    tab = compare_corrected(p, ["a"] * 4 + ["b"] * 4, [None] * 8, k=3, bayesian=True)
    cmp = tab.comparisons[0]
    assert cmp.method == "independent" and [d.quantity for d in cmp.differences] == ["success"]
    assert cmp.differences[0].scope == "conversations"
    assert any("not identified" in n for n in cmp.notes)
    assert tab.ranking.scope == "conversations"


def test_pymc_form_matches_the_grid_posterior_and_the_gibbs_sampler():
    pytest.importorskip("pymc")
    from agenteval.statistical.hierarchical import SamplerSettings

    # one group: labelled tp 6, fn 2, fp 2, tn 5; unlabelled judged 1 x12, 0 x6; conversations
    # of the unlabelled items: (1, 1, 0) six times
    conv = np.concatenate([np.arange(15), np.repeat(np.arange(15, 21), 3)])
    human = np.concatenate([[1] * 8 + [0] * 7, [np.nan] * 18])
    judge = np.concatenate([[1] * 6 + [0] * 2 + [1] * 2 + [0] * 5, [1, 1, 0] * 6])
    group = np.zeros(21, np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cc = je.conversation_correction(conv, judge, human, group, bayesian=True, backend="pymc",
                                        sampler=SamplerSettings(draws=1000, tune=700, chains=2,
                                                                nuts_sampler="pymc"), seed=3)
    assert cc.diagnostics["r_hat_max"] < 1.02 and cc.diagnostics["divergences"] == 0
    assert "PyMC" in cc.method and "marginalised" in cc.method
    g = (np.arange(120) + 0.5) / 120
    th, se, sp = np.meshgrid(g, g, g, indexing="ij")
    q = th * se + (1 - th) * (1 - sp)
    logp = (8 * np.log(th) + 7 * np.log(1 - th) + 6 * np.log(se) + 2 * np.log(1 - se)
            + 5 * np.log(sp) + 2 * np.log(1 - sp) + 12 * np.log(q) + 6 * np.log(1 - q))
    w = np.exp(logp - logp.max())
    w /= w.sum()
    full = (th * se / q) ** 2 * (th * (1 - se) / (1 - q))   # P(all true | judged 1, 1, 0)
    for exact, draws in ((th, cc.theta[:, 0]), (full, cc.prob[:, 15])):
        mean = float((w * exact).sum())
        sd = math.sqrt(float((w * exact ** 2).sum()) - mean ** 2)
        assert np.mean(draws) == pytest.approx(mean, abs=0.25 * sd)
        assert np.std(draws) == pytest.approx(sd, rel=0.12)
    gibbs = je.conversation_correction(conv, judge, human, group, bayesian=True, draws=20_000,
                                       seed=3)
    assert np.mean(gibbs.prob[:, 15]) == pytest.approx(np.mean(cc.prob[:, 15]), abs=0.02)
    # labelled conversations keep their human truth
    assert np.all(cc.prob[:, :8] == 1) and np.all(cc.prob[:, 8:15] == 0)


def _sim_suite(seed, **kw):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from judge_sim import make_suite

    return make_suite(np.random.default_rng(seed), **kw)


def test_cluster_bootstrap_matches_resampling_whole_tasks_by_hand():
    # a judge that calls every interaction of a quarter of the tasks wrong: its errors are
    # correlated within a task, in the labelled and the judged items alike
    s = _sim_suite(0, n_labels=300, tasks_per_agent=30)
    bad = np.random.default_rng(50).random(s.task.max() + 1) < 0.25
    s.judge = np.where(bad[s.task[s.conversation]], 0.0, s.judge)
    cc = je.conversation_correction(s.conversation, s.judge, s.human, s.group, bayesian=False,
                                    draws=4000, seed=1, cluster=s.task)
    assert "cluster bootstrap" in cc.method
    # by hand: resample tasks with replacement (multinomial), Rogan-Gladen on each resample
    rng = np.random.default_rng(2)
    t_of_item = s.task[s.conversation]
    n_t = s.task.max() + 1
    lab = ~np.isnan(s.human)
    g_item = s.group[s.conversation]
    out = []
    for _ in range(4000):
        w = rng.multinomial(n_t, np.full(n_t, 1 / n_t))[t_of_item].astype(float)
        se = np.sum(w * (lab & (s.human == 1) & (s.judge == 1))) / np.sum(w * (lab & (s.human == 1)))
        sp = np.sum(w * (lab & (s.human == 0) & (s.judge == 0))) / np.sum(w * (lab & (s.human == 0)))
        u = ~lab & (g_item == 0)
        q = np.sum(w * u * s.judge) / np.sum(w * u)
        out.append(np.clip((q + sp - 1) / (se + sp - 1), 0, 1))
    out = np.array(out)
    assert np.std(cc.theta[:, 0]) == pytest.approx(np.std(out), rel=0.08)
    assert np.quantile(cc.theta[:, 0], 0.025) == pytest.approx(np.quantile(out, 0.025), abs=0.03)
    assert np.quantile(cc.theta[:, 0], 0.975) == pytest.approx(np.quantile(out, 0.975), abs=0.03)


def test_one_cluster_per_conversation_is_cluster_true():
    s = _sim_suite(0, n_labels=100)
    a, b = (je.conversation_correction(s.conversation, s.judge, s.human, s.group,
                                       bayesian=False, draws=300, seed=1, cluster=cl)
            for cl in (True, np.arange(s.group.size)))
    assert np.array_equal(a.prob, b.prob)
    with pytest.raises(Exception, match="cluster must be"):
        je.conversation_correction(s.conversation, s.judge, s.human, s.group, bayesian=False,
                                   cluster=[1, 2])


def _icc_by_hand(d, c):
    """One-way ANOVA ICC from group means, written out with loops (Donner 1986)."""
    groups = {}
    for x, g in zip(d, c):
        groups.setdefault(g, []).append(x)
    n_total, k = len(d), len(groups)
    grand = sum(d) / n_total
    ssb = sum(len(v) * (sum(v) / len(v) - grand) ** 2 for v in groups.values())
    ssw = sum((x - sum(v) / len(v)) ** 2 for v in groups.values() for x in v)
    msb, msw = ssb / (k - 1), ssw / (n_total - k)
    n0 = (n_total - sum(len(v) ** 2 for v in groups.values()) / n_total) / (k - 1)
    return (msb - msw) / (msb + (n0 - 1) * msw)


def test_error_clustering_icc_by_hand_and_its_permutation_test_has_its_size():
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 6, size=40)
    c = np.repeat(np.arange(40), sizes)
    d = (rng.random(c.size) < 0.25).astype(float)
    icc, p = je.error_clustering(d, c)
    assert icc == pytest.approx(_icc_by_hand(d.tolist(), c.tolist()), abs=1e-12)
    # independent errors: p-values roughly uniform (size of a 10% test about 10%)
    ps = [je.error_clustering((rng.random(c.size) < 0.25).astype(float), c,
                              permutations=199, seed=s)[1] for s in range(150)]
    assert 0.04 <= np.mean(np.array(ps) <= 0.10) <= 0.17
    # a judge that fails a fifth of the tasks wholesale: found
    bad = rng.random(40) < 0.2
    found = 0
    for s in range(20):
        r = np.random.default_rng(s)
        d2 = np.where(bad[c], r.random(c.size) < 0.9, r.random(c.size) < 0.1).astype(float)
        found += je.error_clustering(d2, c, seed=s)[1] < 0.01
    assert found >= 18
    assert math.isnan(je.error_clustering([0, 1], [0, 1])[0])
