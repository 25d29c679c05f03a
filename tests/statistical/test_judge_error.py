"""Judge-error math against references nobody here wrote, closed forms, enumeration, quadrature
and simulation."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import special, stats

from agenteval.errors import ConfigError
from agenteval.statistical import judge_error as je

sys.path.insert(0, str(Path(__file__).parent))
from judge_sim import make_suite  # noqa: E402


def _data(seed: int, n: int = 300, se: float = 0.85, sp: float = 0.7, theta: float = 0.6):
    rng = np.random.default_rng(seed)
    h = (rng.random(n) < theta).astype(int)
    j = np.where(h == 1, rng.random(n) < se, rng.random(n) > sp).astype(int)
    return h, j


# --------------------------------------------------------------------------- agreement


def test_confusion_and_rates_match_sklearn_and_statsmodels() -> None:
    from sklearn.metrics import confusion_matrix, recall_score
    from statsmodels.stats.proportion import proportion_confint

    h, j = _data(1)
    t = je.confusion(h, j)
    assert (t.as_array() == confusion_matrix(h, j, labels=[0, 1])).all()
    a = je.agreement(h, j, level=0.9)
    assert a.sensitivity == pytest.approx(recall_score(h, j))
    assert a.specificity == pytest.approx(recall_score(1 - h, 1 - j))
    lo, hi = proportion_confint(t.tp, t.tp + t.fn, alpha=0.1, method="wilson")
    assert (a.sensitivity_low, a.sensitivity_high) == pytest.approx((lo, hi))
    lo, hi = proportion_confint(t.tp + t.tn, t.n, alpha=0.1, method="wilson")
    assert (a.accuracy_low, a.accuracy_high) == pytest.approx((lo, hi))
    assert a.youden == pytest.approx(a.sensitivity + a.specificity - 1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cohen_kappa_matches_sklearn_and_statsmodels_variance(seed: int) -> None:
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import cohens_kappa

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, 200)
    b = np.where(rng.random(200) < 0.7, a, rng.integers(0, 3, 200))
    k, lo, hi = je.cohen_kappa(a, b, level=0.95)
    assert k == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    table = np.zeros((3, 3))
    np.add.at(table, (a, b), 1)
    ref = cohens_kappa(table)
    assert (hi - lo) / 2 == pytest.approx(stats.norm.ppf(0.975) * ref.std_kappa, rel=1e-9)


def test_cohen_kappa_one_category_is_nan_with_a_warning() -> None:
    with pytest.warns(RuntimeWarning, match="one category"):
        assert math.isnan(je.cohen_kappa([1, 1, 1], [1, 1, 1])[0])


@pytest.mark.parametrize("seed", [0, 3])
def test_krippendorff_alpha_matches_the_krippendorff_package(seed: int) -> None:
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, 80)
    r = np.where(rng.random((4, 80)) < 0.8, truth, 1 - truth).astype(float)
    r[rng.random(r.shape) < 0.25] = np.nan
    alpha, lo, hi = je.krippendorff_alpha(r, n_boot=500)
    ref = krippendorff.alpha(reliability_data=r, level_of_measurement="nominal")
    assert alpha == pytest.approx(ref, abs=1e-12)
    assert lo < alpha < hi


def test_krippendorff_two_raters_no_missing_is_close_to_scotts_pi() -> None:
    # alpha = 1 - (n - 1) D_o / D_e; with two raters and no gaps it tends to Scott's pi
    h, j = _data(5, n=2000)
    alpha = je.krippendorff_alpha(np.vstack([h, j]).astype(float), n_boot=50)[0]
    po = np.mean(h == j)
    pbar = (h.mean() + j.mean()) / 2
    pe = pbar ** 2 + (1 - pbar) ** 2
    assert alpha == pytest.approx((po - pe) / (1 - pe), abs=1e-3)


# --------------------------------------------------------------------------- PPI


@pytest.mark.parametrize("lam", [None, 1.0, 0.0])
def test_ppi_mean_matches_ppi_py(lam: float | None) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    h, j = _data(2, n=1200)
    y, yh, yu = h[:150].astype(float), j[:150].astype(float), j[150:].astype(float)
    est, lo, hi = je.ppi_mean(y, yh, yu, level=0.9, lam=lam)
    ref_lo, ref_hi = ppi_py.ppi_mean_ci(y, yh, yu, alpha=0.1, lam=lam)
    assert (lo, hi) == pytest.approx((float(ref_lo[0]), float(ref_hi[0])), abs=1e-12)
    if lam is None:
        assert est == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, yh, yu)[0]))


def test_stratified_ppi_with_verdict_strata_is_the_ppv_npv_estimator() -> None:
    h, j = _data(3, n=2000)
    rng = np.random.default_rng(0)
    lab = np.zeros(h.size, bool)
    for v, size in ((1, 60), (0, 90)):   # labels drawn by judge verdict
        lab[rng.choice(np.flatnonzero(j == v), size, replace=False)] = True
    est, lo, hi = je.stratified_ppi_mean(h[lab], j[lab], j[lab], j[~lab], j[~lab])
    w1 = np.mean(j == 1)
    ppv, fom = h[lab & (j == 1)].mean(), h[lab & (j == 0)].mean()
    assert est == pytest.approx(w1 * ppv + (1 - w1) * fom)
    var = w1 ** 2 * ppv * (1 - ppv) / 60 + (1 - w1) ** 2 * fom * (1 - fom) / 90
    assert (hi - lo) / 2 == pytest.approx(stats.norm.ppf(0.975) * math.sqrt(var))


# --------------------------------------------------------------------------- Rogan-Gladen


def test_rogan_gladen_point_matches_judgy_and_its_interval_when_the_suite_is_huge() -> None:
    judgy = pytest.importorskip("judgy")
    h, j = _data(4, n=400, se=0.9, sp=0.8)
    rng = np.random.default_rng(9)
    big = 1_000_000
    truth = rng.random(big) < 0.6
    unl = np.where(truth, rng.random(big) < 0.9, rng.random(big) > 0.8).astype(int)
    np.random.seed(0)  # judgy draws from the global generator
    ref, ref_lo, ref_hi = judgy.estimate_success_rate(h, j, unl, bootstrap_iterations=4000)
    r = je.rogan_gladen(int(unl.sum()), big, je.confusion(h, j))
    assert r.identified and r.estimate == pytest.approx(ref, abs=1e-12)
    # judgy resamples only the labelled items; with a huge suite so does the Fieller interval
    assert r.low == pytest.approx(ref_lo, abs=0.012)
    assert r.high == pytest.approx(ref_hi, abs=0.012)


def test_rogan_gladen_by_hand() -> None:
    t = je.Confusion(tp=45, fn=5, fp=10, tn=40)
    r = je.rogan_gladen(600, 1000, t)
    assert r.estimate == pytest.approx((0.6 + 0.8 - 1) / (0.9 + 0.8 - 1))
    assert r.low < r.estimate < r.high and r.judge_only == 0.6


def test_a_coin_judge_is_not_identified_warns_and_never_divides_by_zero() -> None:
    t = je.Confusion(tp=25, fn=25, fp=25, tn=25)          # se + sp - 1 = 0 exactly
    with pytest.warns(je.JudgeNotIdentifiedWarning, match="barely tells right from wrong"):
        r = je.rogan_gladen(500, 1000, t)
    assert not r.identified and math.isnan(r.estimate)
    assert r.low == pytest.approx(0.0) and r.high == pytest.approx(1.0)


def test_identified_exactly_when_youden_is_significantly_positive() -> None:
    z = stats.norm.ppf(0.975)
    for tp, tn in itertools.product(range(20, 41, 4), range(20, 41, 4)):
        t = je.Confusion(tp=tp, fn=40 - tp, fp=40 - tn, tn=tn)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = je.rogan_gladen(300, 600, t)
        z2 = z * z
        pa, pb = (tp + z2 / 2) / (40 + z2), (tn + z2 / 2) / (40 + z2)
        d = pa + pb - 1
        sd = math.sqrt(pa * (1 - pa) / (40 + z2) + pb * (1 - pb) / (40 + z2))
        assert r.identified == (d / sd > z), (tp, tn)


def test_bad_input_names_the_parameter() -> None:
    with pytest.raises(ConfigError, match="human must hold only 0 and 1"):
        je.confusion([0, 2], [0, 1])
    with pytest.raises(ConfigError, match="judge_positive must be <= judge_total"):
        je.rogan_gladen(5, 3, je.Confusion(1, 1, 1, 1))
    with pytest.raises(ConfigError, match="same length"):
        je.confusion([0, 1], [0])


# --------------------------------------------------------------------------- Bayesian


def _all_correct_by_enumeration(se: float, sp: float, th: float, verdicts: tuple) -> float:
    """P(every truth is 1 | the verdicts), summing the joint over every truth vector (0 when
    the verdicts are impossible)."""
    total = allc = 0.0
    for truth in itertools.product((0, 1), repeat=len(verdicts)):
        like = 1.0
        for y, v in zip(truth, verdicts, strict=True):
            like *= (th if y else 1 - th) * ((se if v else 1 - se) if y
                                             else ((1 - sp) if v else sp))
        total += like
        allc += like * all(truth)
    return allc / total if total else 0.0


def test_conversation_probability_matches_enumeration_of_every_truth() -> None:
    se, sp, th = 0.8, 0.7, 0.6
    verdicts = (1, 1, 0, 1)
    d = je.LatentTruthDraws(np.array([[se]]), np.array([[sp]]), np.array([[th]]), "")
    p = je.conversation_truth_probability(d.ppv(), d.false_omission(), d.theta, [0], [3], [1],
                                          [0], [False])
    assert p[0, 0] == pytest.approx(_all_correct_by_enumeration(se, sp, th, verdicts))


@pytest.mark.parametrize("se, sp", [(1.0, 0.7), (0.8, 1.0), (1.0, 1.0)])
def test_a_judge_that_is_never_wrong_one_way_leaves_other_conversations_alone(se, sp) -> None:
    """se = 1 gives fom = 0 (a "wrong" verdict is surely wrong), sp = 1 gives ppv = 1. A
    conversation with no verdict of that kind keeps its probability (0 log 0 is 0); it once
    came out 0, and every judge-corrected share and pass^k of the demo with it (0.000 [0, 0])."""
    th = 0.6
    for verdicts in ((1, 1), (0, 1), (0, 0), (1, 0, 1)):
        d = je.LatentTruthDraws(np.array([[se]]), np.array([[sp]]), np.array([[th]]), "")
        p = je.conversation_truth_probability(d.ppv(), d.false_omission(), d.theta, [0],
                                              [sum(verdicts)], [len(verdicts) - sum(verdicts)],
                                              [0], [False])
        assert p[0, 0] == pytest.approx(_all_correct_by_enumeration(se, sp, th, verdicts)), verdicts


def test_latent_truth_posterior_matches_numerical_integration() -> None:
    lab = np.array([[6, 2, 2, 5]])     # tp, fn, fp, tn
    unl = np.array([[12, 6]])          # judged 1, judged 0, unlabelled
    g = (np.arange(120) + 0.5) / 120
    th, se, sp = np.meshgrid(g, g, g, indexing="ij")
    q = th * se + (1 - th) * (1 - sp)
    logp = (8 * np.log(th) + 7 * np.log(1 - th) + 6 * np.log(se) + 2 * np.log(1 - se)
            + 5 * np.log(sp) + 2 * np.log(1 - sp) + 12 * np.log(q) + 6 * np.log(1 - q))
    w = np.exp(logp - logp.max())
    w /= w.sum()
    ppv = th * se / q
    fom = th * (1 - se) / (1 - q)
    conv = ppv ** 2 * fom              # a conversation judged (1, 1, 0)
    post = je.latent_truth_draws(lab, unl, draws=60_000, chains=200, burn=400, seed=1)
    mc_conv = je.conversation_truth_probability(post.ppv(), post.false_omission(), post.theta,
                                                [0], [2], [1], [0], [False])[:, 0]
    for exact, draws in ((th, post.theta[:, 0]), (se, post.se[:, 0]), (sp, post.sp[:, 0]),
                         (conv, mc_conv)):
        assert np.mean(draws) == pytest.approx(float((w * exact).sum()), abs=0.006)
        assert np.std(draws) == pytest.approx(math.sqrt(float((w * exact ** 2).sum())
                                                        - float((w * exact).sum()) ** 2),
                                              abs=0.006)


def test_labelled_items_use_the_human_label_as_truth() -> None:
    d = je.LatentTruthDraws(np.array([[0.9]]), np.array([[0.9]]), np.array([[0.5]]), "")
    p = je.conversation_truth_probability(d.ppv(), d.false_omission(), d.theta, [0, 0],
                                          [0, 0], [0, 0], [0, 0], [True, False])
    assert p[0].tolist() == [0.0, 1.0]   # a labelled wrong interaction; all labelled correct


# --------------------------------------------------------------------------- compounding


def test_frequentist_point_is_the_exact_expectation_of_the_unbiased_estimators() -> None:
    rng = np.random.default_rng(0)
    pi = rng.random(7)
    task = np.array([0, 0, 0, 0, 1, 1, 1])
    out = je.corrected_suite(np.tile(pi, (2, 1)), task, k=2, bayesian=False, point=pi)
    exp_pow = exp_at = 0.0
    for tk in (0, 1):
        p = pi[task == tk]
        n = p.size
        e_pow = e_at = 0.0
        for z in itertools.product((0, 1), repeat=n):
            pr = np.prod(np.where(np.array(z) == 1, p, 1 - p))
            c = sum(z)
            e_pow += pr * special.comb(c, 2) / special.comb(n, 2)
            e_at += pr * (1 - special.comb(n - c, 2) / special.comb(n, 2))
        exp_pow += e_pow / 2
        exp_at += e_at / 2
    assert out.basis == "tasks"
    assert out.pass_pow_k[0] == pytest.approx(exp_pow)
    assert out.pass_at_k[0] == pytest.approx(exp_at)
    assert out.share[0] == pytest.approx(pi.mean())


# --------------------------------------------------------------------------- simulation


def _naive(s, g):
    full = np.ones(s.group.size, bool)
    np.logical_and.at(full, s.conversation, s.judge == 1)
    f = full[s.group == g]
    p = f.mean()
    sd = math.sqrt(p * (1 - p) / f.size)
    return p - 1.96 * sd, p + 1.96 * sd


@pytest.mark.parametrize("bayesian", [False, True])
def test_corrected_intervals_cover_and_judge_only_ones_do_not(bayesian: bool) -> None:
    reps, hits, naive = 40, np.zeros(4), 0
    widths = {}
    for n_labels in (60, 300):
        w = []
        for r in range(reps if n_labels == 300 else 12):
            s = make_suite(np.random.default_rng(1000 + r), n_labels=n_labels)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", je.JudgeNotIdentifiedWarning)
                out = je.correct_conversations(s.conversation, s.judge, s.human, s.group,
                                               s.task, k=2, bayesian=bayesian, draws=600,
                                               seed=r)[0]
            w.append(out.share[2] - out.share[1])
            if n_labels != 300:
                continue
            for i, (iv, true) in enumerate(((out.interaction_rate, s.true_rate[0]),
                                            (out.share, s.true_share[0]),
                                            (out.pass_pow_k, s.true_pass_pow[0]),
                                            (out.pass_at_k, s.true_pass_at[0]))):
                hits[i] += iv[1] <= true <= iv[2]
            lo, hi = _naive(s, 0)
            naive += lo <= s.true_share[0] <= hi
        widths[n_labels] = np.mean(w)
    cover = hits / reps
    assert (cover >= 0.85).all(), cover        # nominal 0.95; 40 runs: 0.85 is 3 sd below
    assert naive / reps <= 0.7                 # the judge-only interval misses (about 0.5)
    assert widths[300] < widths[60]            # more labels, a narrower interval


# --------------------------------------------------------------------------- planning


def test_plan_greedy_is_optimal_against_brute_force() -> None:
    rng = np.random.default_rng(0)
    judge = (rng.random(400) < 0.7).astype(float)
    strata = rng.integers(0, 2, 400)
    human = np.full(400, np.nan)
    for key in range(4):
        idx = np.flatnonzero((judge * 2 + strata) == key)[:3]
        human[idx] = rng.integers(0, 2, idx.size)
    plan = je.plan_labels(judge, human, strata, add=10)
    w = np.array(plan.weight)
    n = np.array(plan.labelled, float)
    pos = np.array([np.nansum(human[(judge == s[0]) & (strata == s[1])]) for s in plan.strata])
    mu = (pos + 1) / (n + 2)
    best = min(np.sum(w * w * mu * (1 - mu) / (n + np.array(a)))
               for a in itertools.product(range(11), repeat=4) if sum(a) == 10)
    got = np.sum(w * w * mu * (1 - mu) / (n + np.array(plan.add)))
    assert sum(plan.add) == 10 and got == pytest.approx(best)
    assert plan.width_after <= plan.width_proportional + 1e-12
    assert plan.width_after == pytest.approx(2 * stats.norm.ppf(0.975) * math.sqrt(got))


def test_plan_expected_width_is_checked_by_simulation() -> None:
    rng = np.random.default_rng(1)
    size = 5000
    judge = (rng.random(size) < 0.8).astype(float)
    ppv, fom = 0.9, 0.35
    truth = np.where(judge == 1, rng.random(size) < ppv, rng.random(size) < fom).astype(float)
    human = np.full(size, np.nan)
    first = rng.choice(size, 300, replace=False)  # enough that the planning guess of mu holds
    human[first] = truth[first]
    plan = je.plan_labels(judge, human, add=300)
    widths = []
    for r in range(200):
        sim = np.random.default_rng(r)
        h2 = human.copy()
        for (v, _), extra in zip(plan.strata, plan.add, strict=True):
            cand = np.flatnonzero((judge == v) & np.isnan(h2))
            pick = sim.choice(cand, extra, replace=False)
            h2[pick] = truth[pick]
        lab = ~np.isnan(h2)
        _, lo, hi = je.stratified_ppi_mean(h2[lab], judge[lab], judge[lab], judge[~lab],
                                           judge[~lab])
        widths.append(hi - lo)
    assert plan.width_after == pytest.approx(np.mean(widths), rel=0.08)
    assert plan.width_after < plan.width_now


def test_plan_target_width_and_errors() -> None:
    judge = np.r_[np.ones(300), np.zeros(100)]
    human = np.full(400, np.nan)
    human[[0, 1, 300, 301]] = [1, 0, 0, 1]
    plan = je.plan_labels(judge, human, target_width=0.2)
    assert plan.width_after <= 0.2 and plan.total_add > 0
    with pytest.raises(ConfigError, match="exactly one of add"):
        je.plan_labels(judge, human)


def test_judge_error_imports_nothing_heavy() -> None:
    out = subprocess.run([sys.executable, "-c", "import agenteval.statistical.judge_error, sys;"
                          "print(sorted(sys.modules))"], capture_output=True, text=True,
                         check=True).stdout
    for banned in ("pandas", "matplotlib", "pymc", "agenteval.judge", "agenteval.core"):
        assert f"'{banned}'" not in out


def test_a_group_with_every_interaction_labelled_keeps_the_others_identified() -> None:
    s = make_suite(np.random.default_rng(3), n_labels=300)
    s.human[s.group[s.conversation] == 1] = s.truth[s.group[s.conversation] == 1]
    out = je.correct_conversations(s.conversation, s.judge, s.human, s.group, s.task, k=2,
                                   bayesian=False, draws=300)
    assert out[0].identified and out[1].identified
    # agent 1 is fully labelled: its share is the labels' own, with the task bootstrap only
    full = np.ones(s.group.size, bool)
    np.logical_and.at(full, s.conversation, s.truth == 1)
    assert out[1].share[0] == pytest.approx(full[s.group == 1].mean())


def test_agreement_on_no_items_is_nan_not_an_error() -> None:
    a = je.agreement([], [])
    assert a.confusion.n == 0 and math.isnan(a.sensitivity) and math.isnan(a.kappa)
