"""The judge's own error: agreement with human labels, corrected rates and their intervals.

Pure numpy/scipy over 0/1 arrays and counts; no I/O, no pandas. ``human`` is the human label
(1 = correct), ``judge`` the judge's verdict on the same items; "labelled" items have both,
"unlabelled" items only the verdict. Sensitivity ``se`` = P(judge 1 | human 1), specificity ``sp`` =
P(judge 0 | human 0), ``D = se + sp - 1`` (Youden's J: 0 for a judge that cannot tell right from
wrong). The model behind every correction: the judge's errors depend only on the item's truth
(non-differential), independently across items, and the labelled items were chosen at random or
by things the data shows (verdict, agent, task, length), never by their truth.

* :func:`rogan_gladen` corrects a judge-positive rate q: theta = (q + sp - 1) / D (Rogan & Gladen
  1978), with a Fieller interval for that ratio, so it never divides by a D near 0: when D is
  not significantly above 0 the interval is [0, 1], ``identified`` is False and
  :data:`NOT_IDENTIFIED` is warned.
* :func:`ppi_mean` / :func:`stratified_ppi_mean`: prediction-powered inference (Angelopoulos et
  al. 2023, Science 382:669; power tuning, PPI++, Angelopoulos, Duchi & Zrnic 2023; strata,
  Fisch et al. 2024) where the labelled items are a random subset (of each stratum).
* :func:`latent_truth_draws`: the Bayesian misclassification model (Beta posteriors for se, sp
  and each group's theta, every unlabelled item's truth latent), by a seeded data-augmentation
  Gibbs sampler; :func:`corrected_suite` turns parameter draws into conversation-level shares,
  pass@k and pass^k, where a conversation is correct only if every interaction is, so the
  judge's errors compound with length exactly (a product per conversation).
* :func:`conversation_correction`: per draw, each conversation's probability of being truly
  fully correct (Gibbs, PyMC NUTS in :mod:`agenteval.statistical.judge_error_pymc`, or the
  Rogan-Gladen bootstrap, optionally resampling whole conversations or tasks); the comparisons
  and the ranking of agents on those draws are
  :func:`agenteval.statistical.compare.compare_corrected`.
* :func:`cohen_kappa`, :func:`krippendorff_alpha`: agreement, with intervals;
  :func:`error_clustering`: whether the judge's errors cluster within tasks.
* :func:`plan_labels`: which strata to label next, the expected width after.

Correlated errors (benchmarks/bench_judge_error.py): a judge that fails whole tasks whatever
their truth leaves coverage at nominal (the labels carry the failure); one that fails exactly
the hard tasks breaks the independence the compounding rests on, and coverage slips to
0.80-0.90 as labels grow. The cluster bootstrap widens the intervals a little, it cannot remove
that bias; :data:`CORRELATED_ERRORS` says so where the labels show clustered errors.

Intervals are two-sided at ``level``; undefined values are ``nan`` with a warning, never 0.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special

from agenteval.errors import ConfigError, check_level, check_unit

__all__ = [
    "NOT_IDENTIFIED",
    "NOT_IDENTIFIED_BAYES",
    "JudgeNotIdentifiedWarning",
    "Confusion",
    "confusion",
    "Agreement",
    "agreement",
    "CorrectedRate",
    "rogan_gladen",
    "ppi_mean",
    "stratified_ppi_mean",
    "cohen_kappa",
    "krippendorff_alpha",
    "LatentTruthDraws",
    "latent_truth_draws",
    "conversation_truth_probability",
    "CorrectedSuite",
    "corrected_suite",
    "correct_conversations",
    "ConversationCorrection",
    "conversation_correction",
    "elementary_symmetric",
    "compare_draws",
    "LabelPlan",
    "plan_labels",
    "CORRELATED_ERRORS",
    "CorrelatedJudgeErrorsWarning",
    "error_clustering",
]

NOT_IDENTIFIED = ("this judge barely tells right from wrong (sensitivity + specificity - 1 is not "
                  "clearly above 0): the corrected rate is not identified; the interval is the "
                  "bounds the labels allow")
"""The warning (and note) when the correction is not identified."""

NOT_IDENTIFIED_BAYES = ("this judge barely tells right from wrong (sensitivity + specificity - 1 "
                        "is not clearly above 0): the corrected posterior rests on the labelled "
                        "items and the prior, not on the judge")
"""The Bayesian model's version: its posterior stays proper, and wide."""


class JudgeNotIdentifiedWarning(UserWarning):
    """The labels cannot tell the judge from a coin: corrected values are not identified."""


class CorrelatedJudgeErrorsWarning(UserWarning):
    """The judge's disagreements with the labels cluster within tasks: the correction's
    independence assumption is doubtful (see :data:`CORRELATED_ERRORS`)."""


CORRELATED_ERRORS = ("the judge's errors cluster within tasks (its disagreements with the labels "
                     "are correlated within a task): the correction assumes independent errors "
                     "given the truth, so its intervals may be too narrow and, for conversation "
                     "values, biased when the judge fails exactly the hard tasks (benchmark: "
                     "coverage 0.80-0.90 instead of 0.95); resample whole tasks with "
                     "calibrate(..., cluster='task') and label more items per task")
"""The note (and warning) when :func:`error_clustering` finds the errors clustered."""


# --------------------------------------------------------------------------- validation


def _binary(name: str, value: Any, *, allow_nan: bool = False) -> np.ndarray:
    """A 1-d array of 0/1 (bools too); NaN marks a missing value where ``allow_nan``."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be an array of 0/1 values, got {value!r}") from None
    if arr.ndim != 1:
        raise ConfigError(f"{name} must be one-dimensional, got shape {arr.shape}")
    bad = ~np.isin(arr, (0.0, 1.0))
    if allow_nan:
        bad &= ~np.isnan(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ConfigError(f"{name} must hold only 0 and 1, got {arr[i]!r} at index {i}")
    return arr


def _same_length(**arrays: np.ndarray) -> None:
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise ConfigError(f"{', '.join(lengths)} must have the same length, got {lengths}")


def _count(name: str, value: Any) -> int:
    try:
        if isinstance(value, bool):
            raise TypeError
        v = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be an integer >= 0, got {value!r}") from None
    if not math.isfinite(v) or v < 0 or v != int(v):
        raise ConfigError(f"{name} must be an integer >= 0, got {value!r}")
    return int(v)


def _z(level: float) -> float:
    return float(special.ndtri(0.5 + check_level("level", level) / 2))


def _wilson(x: Any, n: Any, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for x successes in n (nan where n == 0)."""
    x, n = np.asarray(x, float), np.asarray(n, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = x / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # exactly 0 at x = 0 and 1 at x = n (rounding would leave 1e-17 above the estimate)
    low = np.where(x == 0, 0.0, np.clip(centre - half, 0, 1))
    high = np.where(x == n, 1.0, np.clip(centre + half, 0, 1))
    return np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan)


# --------------------------------------------------------------------------- agreement


@dataclass(frozen=True)
class Confusion:
    """Counts of (human, judge) pairs: tp = (1, 1), fn = (1, 0), fp = (0, 1), tn = (0, 0)."""

    tp: int
    fn: int
    fp: int
    tn: int

    @property
    def n(self) -> int:
        """Labelled items."""
        return self.tp + self.fn + self.fp + self.tn

    def as_array(self) -> np.ndarray:
        """[[tn, fp], [fn, tp]]: rows human 0/1, columns judge 0/1 (scikit-learn's layout)."""
        return np.array([[self.tn, self.fp], [self.fn, self.tp]])


def confusion(human: Any, judge: Any) -> Confusion:
    """The 2x2 table of human labels against judge verdicts on the same items."""
    h, j = _binary("human", human), _binary("judge", judge)
    _same_length(human=h, judge=j)
    return Confusion(tp=int(np.sum((h == 1) & (j == 1))), fn=int(np.sum((h == 1) & (j == 0))),
                     fp=int(np.sum((h == 0) & (j == 1))), tn=int(np.sum((h == 0) & (j == 0))))


@dataclass(frozen=True)
class Agreement:
    """How well a judge agrees with humans on the labelled items (Wilson intervals; kappa's is
    the Fleiss-Cohen-Everitt large-sample interval)."""

    confusion: Confusion
    sensitivity: float
    sensitivity_low: float
    sensitivity_high: float
    specificity: float
    specificity_low: float
    specificity_high: float
    accuracy: float
    accuracy_low: float
    accuracy_high: float
    kappa: float
    kappa_low: float
    kappa_high: float
    youden: float
    """se + sp - 1: 0 for a judge no better than a coin, 1 for a perfect one."""


def agreement(human: Any, judge: Any, *, level: float = 0.95) -> Agreement:
    """Sensitivity, specificity, accuracy and Cohen's kappa of ``judge`` against ``human``.

    >>> a = agreement([1, 1, 1, 0, 0], [1, 1, 0, 0, 1])
    >>> round(a.sensitivity, 3), round(a.specificity, 3)
    (0.667, 0.5)
    """
    z = _z(level)
    t = confusion(human, judge)
    pos, neg = t.tp + t.fn, t.tn + t.fp
    (se_lo, sp_lo, ac_lo), (se_hi, sp_hi, ac_hi) = _wilson([t.tp, t.tn, t.tp + t.tn],
                                                           [pos, neg, t.n], z)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = t.tp / pos if pos else math.nan
        sp = t.tn / neg if neg else math.nan
        acc = (t.tp + t.tn) / t.n if t.n else math.nan
    kap = k_lo = k_hi = math.nan
    if t.n:
        kap, k_lo, k_hi = cohen_kappa(human, judge, level=level)
    return Agreement(confusion=t, sensitivity=se, sensitivity_low=float(se_lo),
                     sensitivity_high=float(se_hi), specificity=sp, specificity_low=float(sp_lo),
                     specificity_high=float(sp_hi), accuracy=acc, accuracy_low=float(ac_lo),
                     accuracy_high=float(ac_hi), kappa=kap, kappa_low=k_lo, kappa_high=k_hi,
                     youden=se + sp - 1)


def cohen_kappa(a: Any, b: Any, *, level: float = 0.95) -> tuple[float, float, float]:
    """Cohen's kappa of two raters over the same items, with its large-sample interval.

    Variance from Fleiss, Cohen & Everitt (1969), Psychological Bulletin 72:323, eq. 13:
    [sum_i p_ii (1 - (p_i. + p_.i)(1 - k))^2 + (1 - k)^2 sum_{i!=j} p_ij (p_.i + p_j.)^2
    - (k - p_e (1 - k))^2] / (n (1 - p_e)^2). Categories are whatever values occur. Returns
    (kappa, low, high); nan (with a warning) when chance agreement is 1 (one category only).
    """
    z = _z(level)
    x, y = np.asarray(a), np.asarray(b)
    if x.ndim != 1 or x.shape != y.shape or x.size == 0:
        raise ConfigError(f"a and b must be non-empty 1-d arrays of one length, got shapes "
                          f"{x.shape} and {y.shape}")
    cats, inv = np.unique(np.concatenate([x, y]), return_inverse=True)
    m, n = cats.size, x.size
    table = np.zeros((m, m))
    np.add.at(table, (inv[:n], inv[n:]), 1)
    p = table / n
    row, col = p.sum(1), p.sum(0)
    po, pe = float(np.trace(p)), float(row @ col)
    if pe >= 1 - 1e-12:
        warnings.warn("Cohen's kappa is undefined: both raters use one category only",
                      RuntimeWarning, stacklevel=2)
        return math.nan, math.nan, math.nan
    k = (po - pe) / (1 - pe)
    diag = np.diag(p)
    term_a = float(np.sum(diag * (1 - (row + col) * (1 - k)) ** 2))
    off = p.copy()
    np.fill_diagonal(off, 0)
    term_b = (1 - k) ** 2 * float(np.sum(off * (col[:, None] + row[None, :]) ** 2))
    var = max(term_a + term_b - (k - pe * (1 - k)) ** 2, 0.0) / (n * (1 - pe) ** 2)
    half = z * math.sqrt(var)
    return float(k), max(k - half, -1.0), min(k + half, 1.0)


def krippendorff_alpha(ratings: Any, *, level: float = 0.95, n_boot: int = 2000,
                       seed: int = 0) -> tuple[float, float, float]:
    """Krippendorff's alpha for nominal ratings, with a bootstrap interval over items.

    ``ratings``: (raters, items), NaN where a rater did not rate an item (judges, or repeats of
    one judge, and humans alike). alpha = 1 - D_o / D_e from the coincidence matrix
    (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"); items with fewer than two
    ratings are left out. The interval resamples items (seeded percentile bootstrap).
    """
    check_level("level", level)
    r = np.asarray(ratings, dtype=float)
    if r.ndim != 2:
        raise ConfigError(f"ratings must be (raters, items), got shape {r.shape}")
    ok = ~np.isnan(r)
    cats = np.unique(r[ok])
    onehot = (r[None, :, :] == cats[:, None, None]) & ok[None]      # (cat, rater, item)
    counts = onehot.sum(1).T.astype(float)                          # (item, cat)
    m_u = counts.sum(1)
    keep = m_u >= 2
    counts, m_u = counts[keep], m_u[keep]
    if counts.shape[0] == 0 or cats.size == 0:
        warnings.warn("Krippendorff's alpha is undefined: no item has two ratings",
                      RuntimeWarning, stacklevel=2)
        return math.nan, math.nan, math.nan

    def alpha(c: np.ndarray, m: np.ndarray) -> np.ndarray:
        # c: (..., items, cat). Observed disagreement / expected, pairs within items.
        w = 1.0 / (m - 1)
        o_diag = np.sum(c * (c - 1) * w[..., None], axis=-2)        # coincidences o_cc
        n_c = np.sum(c, axis=-2)
        n_tot = n_c.sum(-1)
        d_o = n_tot - o_diag.sum(-1)                                # sum of o_ck, c != k
        d_e = (n_tot ** 2 - np.sum(n_c ** 2, -1)) / (n_tot - 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return 1 - d_o / d_e

    point = float(alpha(counts, m_u))
    if not math.isfinite(point):
        warnings.warn("Krippendorff's alpha is undefined: every rating is the same value",
                      RuntimeWarning, stacklevel=2)
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, counts.shape[0], size=(int(n_boot), counts.shape[0]))
    boot = alpha(counts[idx], m_u[idx])
    lo, hi = np.nanquantile(boot, [(1 - level) / 2, (1 + level) / 2])
    return point, float(lo), float(hi)


def error_clustering(disagree: Any, cluster: Any, *, permutations: int = 999,
                     seed: int = 0) -> tuple[float, float]:
    """How much the judge's errors cluster: (ICC, permutation p-value).

    ``disagree`` (N,) 0/1, judge != human on the labelled items; ``cluster`` (N,) each item's
    cluster (task, conversation). ICC is the one-way ANOVA estimator (MSB - MSW) / (MSB + (n0 -
    1) MSW), n0 = (N - sum n_i^2 / N) / (K - 1) (Donner 1986, Int. Stat. Rev. 54:67); the
    p-value shuffles the disagreements over the items (seeded), (1 + #{ICC* >= ICC}) / (1 + B).
    (nan, nan) when no cluster has two items or every item agrees alike.
    """
    d = _binary("disagree", disagree)
    keys = np.asarray(cluster)
    if keys.shape != d.shape:
        raise ConfigError(f"cluster must have one key per item, got {keys.shape} for {d.shape}")
    _, c = np.unique(keys, return_inverse=True)
    c = c.ravel()
    n_i = np.bincount(c).astype(float)
    big_n, k = float(d.size), n_i.size
    if d.size == 0 or n_i.max() < 2 or k < 2 or d.min() == d.max():
        return math.nan, math.nan
    n0 = (big_n - np.sum(n_i ** 2) / big_n) / (k - 1)
    onehot = np.zeros((d.size, k))
    onehot[np.arange(d.size), c] = 1.0

    def icc(x: np.ndarray) -> np.ndarray:          # x: (..., N)
        sums = x @ onehot
        mean = x.mean(-1, keepdims=True)
        ssb = np.sum(sums ** 2 / n_i, -1) - big_n * mean[..., 0] ** 2
        ssw = np.sum(x * x, -1) - np.sum(sums ** 2 / n_i, -1)
        msb, msw = ssb / (k - 1), ssw / max(big_n - k, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (msb - msw) / (msb + (n0 - 1) * msw)

    obs = float(icc(d[None])[0])
    rng = np.random.default_rng(seed)
    perm = rng.permuted(np.broadcast_to(d, (int(permutations), d.size)), axis=1)
    null = icc(perm)
    p = (1 + float(np.sum(null >= obs - 1e-12))) / (1 + int(permutations))
    return obs, p


# --------------------------------------------------------------------------- Rogan-Gladen


@dataclass(frozen=True)
class CorrectedRate:
    """A judge-corrected rate with its interval (always inside [0, 1])."""

    estimate: float
    """The corrected rate (clipped to [0, 1]); nan when not identified."""
    low: float
    high: float
    identified: bool
    """False when the labels cannot separate the judge from a coin (see NOT_IDENTIFIED)."""
    method: str
    judge_only: float = math.nan
    """The uncorrected judge-positive rate, for comparison."""


def rogan_gladen(judge_positive: int, judge_total: int, conf: Confusion, *,
                 level: float = 0.95, warn: bool = True) -> CorrectedRate:
    """Rogan-Gladen corrected rate with a Fieller interval over both samples.

    ``judge_positive`` of ``judge_total`` unlabelled items were judged correct; ``conf`` is the
    labelled items' table, independent of them (the calibration sample). theta = (q + sp - 1) / D
    (Rogan & Gladen 1978, Am. J. Epidemiol. 107:71). The interval is the Fieller set
    {theta : (A - theta D)^2 <= z^2 (V_q + theta^2 V_se + (1 - theta)^2 V_sp)} with A = q + sp - 1,
    the delta-method variance of Lee et al. (2025, "How to correctly report LLM-as-a-judge
    evaluations") as a quadratic in theta, and Agresti-Coull adjusted proportions (x + z^2/2) /
    (n + z^2) inside it, intersected with [0, 1]. It is bounded exactly when D is significantly
    above 0; else (an unbounded set: D may be 0, and then any rate fits) the interval is [0, 1],
    the estimate nan, ``identified=False``, with a warning.

    >>> t = Confusion(tp=90, fn=10, fp=20, tn=80)
    >>> r = rogan_gladen(700, 1000, t)
    >>> round(r.estimate, 4), r.identified
    (0.7143, True)
    """
    z = _z(level)
    x, n = _count("judge_positive", judge_positive), _count("judge_total", judge_total)
    if x > n:
        raise ConfigError(f"judge_positive must be <= judge_total, got {x} > {n}")
    pos, neg = conf.tp + conf.fn, conf.tn + conf.fp
    q_raw = x / n if n else math.nan
    if n == 0 or pos == 0 or neg == 0:
        if warn:
            warnings.warn(f"the correction needs judged items and labelled items of both kinds "
                          f"(got {n} judged, {pos} labelled correct, {neg} labelled wrong)",
                          JudgeNotIdentifiedWarning, stacklevel=2)
        return CorrectedRate(math.nan, 0.0, 1.0, False, "Rogan-Gladen (not identified)", q_raw)
    se, sp, q = conf.tp / pos, conf.tn / neg, x / n
    d = se + sp - 1
    z2 = z * z

    def adj(k: int, m: int) -> tuple[float, float]:
        p = (k + z2 / 2) / (m + z2)
        return p, p * (1 - p) / (m + z2)

    qa, vq = adj(x, n)
    sea, vse = adj(conf.tp, pos)
    spa, vsp = adj(conf.tn, neg)
    a_, d_ = qa + spa - 1, sea + spa - 1
    # f(theta) = qa2 theta^2 + qb theta + qc <= 0
    qa2 = d_ * d_ - z2 * (vse + vsp)
    qb = -2 * a_ * d_ + 2 * z2 * vsp
    qc = a_ * a_ - z2 * (vq + vsp)
    identified = qa2 > 0 and d_ > 0
    disc = qb * qb - 4 * qa2 * qc
    if identified:
        root = math.sqrt(max(disc, 0.0))
        lo, hi = sorted(((-qb - root) / (2 * qa2), (-qb + root) / (2 * qa2)))
        lo, hi = min(max(lo, 0.0), 1.0), min(max(hi, 0.0), 1.0)
        est = min(max((q + sp - 1) / d, 0.0), 1.0) if d > 0 else math.nan
        return CorrectedRate(est, lo, hi, True, "Rogan-Gladen, Fieller interval", q)
    # An unbounded Fieller set: D may be 0, so every rate is possible. Its pieces inside
    # [0, 1] are what a coin-like judge happens to allow, not information: report [0, 1].
    if warn:
        warnings.warn(NOT_IDENTIFIED, JudgeNotIdentifiedWarning, stacklevel=2)
    return CorrectedRate(math.nan, 0.0, 1.0, False, "Rogan-Gladen (not identified)", q)


# --------------------------------------------------------------------------- PPI


def ppi_mean(y: Any, yhat: Any, yhat_unlabelled: Any, *, level: float = 0.95,
             lam: float | None = None) -> tuple[float, float, float]:
    """Prediction-powered mean and its interval (Angelopoulos et al. 2023).

    ``y`` / ``yhat``: human labels and judge verdicts (or scores) on the labelled items, a
    uniformly random subset; ``yhat_unlabelled``: the judge on the rest. Estimate
    lam mean(yhat_U) + mean(y - lam yhat) with normal interval from var(lam yhat_U)/N +
    var(y - lam yhat)/n; ``lam=None`` tunes lam (PPI++, Angelopoulos, Duchi & Zrnic 2023,
    clipped to [0, 1]; lam = 0 is the labels alone, 1 is classic PPI), with the variances and
    tuning of the authors' ``ppi_py.ppi_mean_ci``. Returns (estimate, low, high), low/high
    clipped to [0, 1] for 0/1 data.
    """
    z = _z(level)
    y, yh, yu = (np.asarray(v, float) for v in (y, yhat, yhat_unlabelled))
    if y.ndim != 1 or y.shape != yh.shape or y.size < 2 or yu.ndim != 1 or yu.size < 1:
        raise ConfigError("ppi_mean needs y and yhat of one length >= 2 and yhat_unlabelled "
                          f"non-empty, got {y.shape}, {yh.shape}, {yu.shape}")
    n, big_n = y.size, yu.size
    if lam is None:
        allhat = np.concatenate([yh, yu])
        var_hat = float(np.var(allhat, ddof=1))
        if var_hat <= 0:
            lam = 0.0
        else:
            cov = float(np.mean((y - y.mean()) * (yh - yh.mean())))
            lam = min(max(cov / ((1 + n / big_n) * var_hat), 0.0), 1.0)
    est = lam * yu.mean() + np.mean(y - lam * yh)
    sd = math.sqrt(np.var(lam * yu) / big_n + np.var(y - lam * yh) / n)
    bounded = np.isin(np.concatenate([y, yh, yu]), (0.0, 1.0)).all()
    lo, hi = est - z * sd, est + z * sd
    if bounded:
        lo, hi = max(lo, 0.0), min(hi, 1.0)
    return float(est), float(lo), float(hi)


def stratified_ppi_mean(y: Any, yhat: Any, strata: Any, yhat_unlabelled: Any,
                        strata_unlabelled: Any, *, level: float = 0.95,
                        lam: float | None = None) -> tuple[float, float, float]:
    """Stratified prediction-powered mean (Fisch et al. 2024, "Stratified prediction-powered
    inference for hybrid language model evaluation").

    Each stratum's PPI estimate (its own tuned lam) weighted by its share of all items
    (labelled + unlabelled), variances summed with the squared weights. Labels must be a random
    subset within each stratum (e.g. sampled by judge verdict). A stratum with no labels makes
    the estimate undefined (nan, warned); one with a single label uses its label alone.
    """
    z = _z(level)
    y, yh, yu = (np.asarray(v, float) for v in (y, yhat, yhat_unlabelled))
    s, su = np.asarray(strata), np.asarray(strata_unlabelled)
    if not (y.shape == yh.shape == s.shape and yu.shape == su.shape):
        raise ConfigError("y, yhat, strata (and yhat_unlabelled, strata_unlabelled) must have "
                          "matching shapes")
    keys = np.unique(np.concatenate([s, su]))
    total = s.size + su.size
    est, var = 0.0, 0.0
    for key in keys:
        lab, unl = s == key, su == key
        w = (lab.sum() + unl.sum()) / total
        if lab.sum() == 0:
            warnings.warn(f"stratum {key!r} has no labelled item: the stratified estimate is "
                          "undefined", RuntimeWarning, stacklevel=2)
            return math.nan, math.nan, math.nan
        yk, yhk, yuk = y[lab], yh[lab], yu[unl]
        if yk.size < 2 or yuk.size == 0:
            e_k, v_k = float(yk.mean()), float(np.var(yk)) / yk.size
        else:
            e_k, lo_k, hi_k = ppi_mean(yk, yhk, yuk, level=level, lam=lam)
            # recover the unclipped sd from the same formula
            lam_k = lam
            if lam_k is None:
                allhat = np.concatenate([yhk, yuk])
                vh = float(np.var(allhat, ddof=1))
                cov = float(np.mean((yk - yk.mean()) * (yhk - yhk.mean())))
                lam_k = 0.0 if vh <= 0 else min(max(cov / ((1 + yk.size / yuk.size) * vh), 0), 1)
            v_k = np.var(lam_k * yuk) / yuk.size + np.var(yk - lam_k * yhk) / yk.size
        est += w * e_k
        var += w * w * v_k
    sd = math.sqrt(var)
    return float(est), max(est - z * sd, 0.0), min(est + z * sd, 1.0)


# --------------------------------------------------------------------------- Bayesian


@dataclass(frozen=True)
class LatentTruthDraws:
    """Posterior draws of the misclassification model: arrays (draws,) or (draws, groups)."""

    se: np.ndarray
    """Sensitivity, (draws, groups) (identical columns when pooled)."""
    sp: np.ndarray
    theta: np.ndarray
    """Each group's per-interaction success rate, (draws, groups)."""
    method: str

    def ppv(self) -> np.ndarray:
        """P(truth 1 | judge 1) per draw and group."""
        a = self.se * self.theta
        return a / (a + (1 - self.sp) * (1 - self.theta))

    def false_omission(self) -> np.ndarray:
        """P(truth 1 | judge 0) per draw and group."""
        a = (1 - self.se) * self.theta
        return a / (a + self.sp * (1 - self.theta))


def latent_truth_draws(labelled: np.ndarray, unlabelled: np.ndarray, *, pooled: bool = True,
                       prior_se: tuple[float, float] = (1.0, 1.0),
                       prior_sp: tuple[float, float] = (1.0, 1.0),
                       prior_theta: tuple[float, float] = (1.0, 1.0), draws: int = 4000,
                       chains: int = 64, burn: int = 300, seed: int = 0) -> LatentTruthDraws:
    """Posterior draws of (se, sp, theta_g) with every unlabelled item's truth latent.

    ``labelled``: (groups, 4) counts (tp, fn, fp, tn) of (human, judge) on labelled items;
    ``unlabelled``: (groups, 2) counts (judge 1, judge 0) of items without a label. Model:
    truth ~ Bernoulli(theta_g), judge | truth 1 ~ Bernoulli(se), judge | truth 0 ~
    Bernoulli(1 - sp); se and sp shared by all groups when ``pooled`` (the judge's own
    property), else each group's own. Labelled items enter with their human label as the truth
    (valid when the labelled items were chosen at random or by what the data shows).
    Seeded Gibbs sampler with data augmentation (Tanner & Wong 1987; Joseph, Gyorkos & Coupal
    1995, Am. J. Epidemiol. 141:263): the latent truths among each group's judged-1 and judged-0
    items are binomial given the parameters, the parameters Beta given the truths. ``chains``
    independent chains run side by side (vectorised), each ``burn`` steps, then
    ``draws / chains`` kept.
    """
    lab = np.asarray(labelled, float).reshape(-1, 4)
    unl = np.asarray(unlabelled, float).reshape(-1, 2)
    if lab.shape[0] != unl.shape[0] or (lab < 0).any() or (unl < 0).any():
        raise ConfigError("labelled must be (groups, 4) and unlabelled (groups, 2) non-negative "
                          f"counts, got shapes {lab.shape} and {unl.shape}")
    for name, pr in (("prior_se", prior_se), ("prior_sp", prior_sp), ("prior_theta", prior_theta)):
        if len(pr) != 2 or min(pr) <= 0:
            raise ConfigError(f"{name} must be two numbers > 0, got {pr!r}")
    g = lab.shape[0]
    tp, fn, fp, tn = lab.T
    u1, u0 = unl.T.astype(np.int64)
    rng = np.random.default_rng(seed)
    keep = max(1, -(-int(draws) // int(chains)))
    shape = (int(chains), g)
    se = rng.beta(*prior_se, size=shape) * 0.5 + 0.5   # start above chance, the usual mode
    sp = rng.beta(*prior_sp, size=shape) * 0.5 + 0.5
    th = rng.beta(*prior_theta, size=shape)
    out_se, out_sp, out_th = [], [], []
    for step in range(burn + keep):
        a = th * se
        ppv = a / (a + (1 - sp) * (1 - th))
        b = th * (1 - se)
        fom = b / (b + sp * (1 - th))
        t1 = rng.binomial(u1, ppv)           # truly correct among judged correct
        t0 = rng.binomial(u0, fom)           # truly correct among judged wrong
        th = rng.beta(prior_theta[0] + tp + fn + t1 + t0,
                      prior_theta[1] + fp + tn + (u1 - t1) + (u0 - t0))
        se_a, se_b = tp + t1, fn + t0                      # (chains, g)
        sp_a, sp_b = tn + (u0 - t0), fp + (u1 - t1)
        if pooled:
            se_a, se_b = se_a.sum(1, keepdims=True), se_b.sum(1, keepdims=True)
            sp_a, sp_b = sp_a.sum(1, keepdims=True), sp_b.sum(1, keepdims=True)
        se = np.broadcast_to(rng.beta(prior_se[0] + se_a, prior_se[1] + se_b), shape).copy()
        sp = np.broadcast_to(rng.beta(prior_sp[0] + sp_a, prior_sp[1] + sp_b), shape).copy()
        if step >= burn:
            out_se.append(se)
            out_sp.append(sp)
            out_th.append(th)
    cat = lambda xs: np.concatenate(xs, axis=0)[: int(draws)]  # noqa: E731
    return LatentTruthDraws(se=cat(out_se), sp=cat(out_sp), theta=cat(out_th),
                            method="latent-truth misclassification model (Gibbs, "
                            + ("se/sp pooled over groups" if pooled else "se/sp per group") + ")")


# --------------------------------------------------------------------------- conversations


def conversation_truth_probability(ppv: np.ndarray, fom: np.ndarray, theta: np.ndarray,
                                   group: np.ndarray, judged_correct: np.ndarray,
                                   judged_wrong: np.ndarray, unjudged: np.ndarray,
                                   labelled_wrong: np.ndarray) -> np.ndarray:
    """P(every interaction of a conversation is truly correct), exactly, per parameter draw.

    ``ppv``, ``fom``, ``theta``: (draws, groups); per conversation (length C): its group, the
    counts of its unlabelled interactions judged correct / wrong / not judged (judge error), and
    whether a labelled interaction is wrong. Under the model the truths are independent given
    the verdicts, so the probability is the product ppv^m1 fom^m0 theta^m_unjudged (0 when a
    label says wrong; a labelled correct interaction contributes 1). Returns (draws, C).
    """
    g = np.asarray(group, np.int64)
    # xlogy: 0 * log(0) is 0, so a conversation with no interaction of a kind is not touched by
    # it (a judge that is never wrong on its "wrong" verdicts has fom = 0, and a conversation
    # with no such verdict must keep its probability); m log(0) with m > 0 is -inf, probability 0
    logp = (special.xlogy(np.asarray(judged_correct)[None], ppv[:, g])
            + special.xlogy(np.asarray(judged_wrong)[None], fom[:, g])
            + special.xlogy(np.asarray(unjudged)[None], theta[:, g]))
    return np.where(np.asarray(labelled_wrong, bool)[None], 0.0, np.exp(logp))


def elementary_symmetric(p: np.ndarray, k: int) -> np.ndarray:
    """Elementary symmetric polynomial e_k over the last axis (NaN-padded entries skipped):
    e_k(p) / C(n, k) is the expectation of C(c, k) / C(n, k) for independent Bernoulli(p_i)."""
    e = np.zeros(p.shape[:-1] + (k + 1,))
    e[..., 0] = 1.0
    for j in range(p.shape[-1]):
        pj = np.nan_to_num(p[..., j:j + 1], nan=0.0)
        live = ~np.isnan(p[..., j:j + 1])
        upd = e[..., 1:] + pj * e[..., :-1]
        e[..., 1:] = np.where(live, upd, e[..., 1:])
    return e[..., k]


_esp = elementary_symmetric


@dataclass(frozen=True)
class CorrectedSuite:
    """Judge-corrected conversation-level values for one group, each with its interval."""

    share: tuple[float, float, float]
    """Share of fully correct conversations (estimate, low, high)."""
    pass_at_k: tuple[float, float, float]
    pass_pow_k: tuple[float, float, float]
    basis: str
    """'tasks' (mean over tasks with >= k attempts) or 'pooled' (p^k from the share)."""
    interaction_rate: tuple[float, float, float]
    identified: bool
    method: str
    note: str = ""
    draws: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    """Per parameter draw: 'share', 'pass_at_k', 'pass_pow_k' (aligned across the groups of one
    :func:`correct_conversations` call, so differences between groups are per draw; the draws
    the intervals are quantiles of, and the quality labels' probabilities shares of)."""
    tasks_used: int = 0
    """Tasks with >= k attempts the task-level values average over (0 when ``basis`` is
    'pooled')."""


def compare_draws(a: np.ndarray, b: np.ndarray, *, level: float = 0.95,
                  bayesian: bool = True) -> dict[str, float]:
    """a - b from aligned draws: mean, equal-tailed interval, and P(a > b) (Bayesian) or the
    bootstrap's two-sided p-value (2 min(share <= 0, share >= 0), frequentist)."""
    d = np.asarray(a, float) - np.asarray(b, float)
    d = d[np.isfinite(d)]
    if d.size == 0:
        return {"difference": math.nan, "low": math.nan, "high": math.nan,
                "p_greater": math.nan, "p_value": math.nan}
    lo, hi = np.quantile(d, [(1 - level) / 2, (1 + level) / 2])
    p_gt = float(np.mean(d > 0))
    p_val = float(min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0))))
    return {"difference": float(d.mean()), "low": float(lo), "high": float(hi),
            "p_greater": p_gt if bayesian else math.nan, "p_value": math.nan if bayesian else p_val}


def corrected_suite(prob: np.ndarray, task: np.ndarray, *, k: int, bayesian: bool,
                    level: float = 0.95, a: float = 1.0, b: float = 1.0, seed: int = 0,
                    point: np.ndarray | None = None,
                    interaction_rate: np.ndarray | None = None,
                    identified: bool = True, bounds: tuple[np.ndarray, np.ndarray] | None = None,
                    method: str = "") -> CorrectedSuite:
    """Share fully correct, pass@k and pass^k from per-draw truth probabilities.

    ``prob``: (draws, C) P(conversation truly fully correct) per parameter draw (posterior draws,
    or a bootstrap over both samples); ``task``: (C,) task index (attempts of one task share it;
    all distinct when tasks do not repeat). Each draw draws every conversation's latent truth
    (seeded). The share: Bayesian, p ~ Beta(a + full, b + C - full); frequentist, the share of
    true full conversations with the tasks resampled (a bootstrap over tasks with their
    attempts). Task level, over tasks with >= k attempts, the unbiased C(c_t, k)/C(n_t, k)
    (tau-bench) and 1 - C(n_t - c_t, k)/C(n_t, k) (Chen et al. 2021) of each task averaged with
    bootstrap weights: multinomial (frequentist) or Dirichlet(1, ..., 1), the Bayesian bootstrap
    (Rubin 1981), in the Bayesian modes. (A plug-in Beta population prior per draw, tried
    first, covered pass^k only 0.85 of the time at 400 labels: it ignores the prior's own
    uncertainty.) ``point``
    (C,), the plug-in probabilities, gives the frequentist estimate exactly (the expectation of
    the unbiased estimators over the latent truths, by elementary symmetric polynomials).
    ``basis`` is 'tasks' when some task has >= 2 attempts (and >= k), else 'pooled'.
    ``bounds``, per conversation (low, high) truth, replace the interval when not identified.
    """
    k = int(k)
    lo_q, hi_q = (1 - level) / 2, (1 + level) / 2
    prob = np.asarray(prob, float)
    t = np.asarray(task, np.int64)
    _, t = np.unique(t, return_inverse=True)
    n_tasks = int(t.max()) + 1 if t.size else 0
    n_t = np.bincount(t, minlength=n_tasks)
    repeats = bool(n_tasks) and n_t.max() >= 2
    use = n_t >= k
    basis = "tasks" if repeats and use.any() else "pooled"
    rng = np.random.default_rng(seed)
    draws, c_n = prob.shape
    order = np.argsort(t, kind="stable")
    starts = np.concatenate([[0], np.cumsum(n_t)[:-1]]).astype(np.int64)
    full = np.empty(draws)
    at = np.empty(draws)
    pw = np.empty(draws)
    nt_f = n_t.astype(float)
    chunk = max(1, 2_000_000 // max(c_n, 1))
    for s in range(0, draws, chunk):
        pr = prob[s:s + chunk]
        rows = pr.shape[0]
        zt = (rng.random(pr.shape) < pr)[:, order].astype(float)
        c_t = np.add.reduceat(zt, starts, axis=1) if c_n else np.zeros((rows, 0))
        if bayesian:
            f = c_t.sum(1)
            p = rng.beta(a + f, b + c_n - f)
        else:
            # the bootstrap also resamples tasks (with their attempts): the suite's own noise
            wt = rng.multinomial(n_tasks, np.full(n_tasks, 1 / n_tasks), size=rows).astype(float)
            p = (wt * c_t).sum(1) / (wt @ nt_f)
        full[s:s + chunk] = p
        if basis == "pooled":
            at[s:s + chunk] = 1 - (1 - p) ** k
            pw[s:s + chunk] = p ** k
            continue
        nt = nt_f[use][None]
        ct = c_t[:, use]
        if bayesian:
            # Bayesian bootstrap over the tasks (Rubin 1981): Dirichlet(1, ..., 1) weights
            wu = rng.standard_gamma(1.0, size=ct.shape)
        else:
            wu = wt[:, use]
        den = np.where(wu.sum(1) > 0, wu.sum(1), np.nan)
        pw[s:s + chunk] = (wu * np.exp(_log_comb(ct, k) - _log_comb(nt, k))).sum(1) / den
        at[s:s + chunk] = (wu * (1 - np.exp(_log_comb(nt - ct, k) - _log_comb(nt, k)))
                           ).sum(1) / den

    def summary(x: np.ndarray, exact: float | None) -> tuple[float, float, float]:
        lo, hi = np.quantile(x, [lo_q, hi_q])
        return (float(np.mean(x)) if exact is None else exact, float(lo), float(hi))

    ex_share = ex_at = ex_pw = None
    if point is not None and not bayesian:
        pt_ = np.asarray(point, float)
        ex_share = float(pt_.mean())
        if basis == "pooled":
            # plug-in on the expected share, as the judge-only frequentist pooled row does
            ex_at, ex_pw = 1 - (1 - ex_share) ** k, ex_share ** k
        else:
            width = int(n_t.max())
            mat = np.full((n_tasks, width), np.nan)
            order = np.argsort(t, kind="stable")
            pos = np.arange(t.size) - np.repeat(np.cumsum(n_t) - n_t, n_t)
            mat[t[order], pos] = pt_[order]
            comb = np.exp(_log_comb(n_t.astype(float), k))
            ex_pw = float(np.mean((_esp(mat, k) / comb)[use]))
            ex_at = float(np.mean((1 - _esp(np.where(np.isnan(mat), np.nan, 1 - mat), k)
                                   / comb)[use]))
    share, at_k, pw_k = summary(full, ex_share), summary(at, ex_at), summary(pw, ex_pw)
    rate = (math.nan, math.nan, math.nan)
    if interaction_rate is not None:
        ir = np.asarray(interaction_rate, float)
        rate = (float(ir.mean()), *map(float, np.quantile(ir, [lo_q, hi_q])))
    note = ""
    if not identified:
        note = NOT_IDENTIFIED if bounds is not None else NOT_IDENTIFIED_BAYES
        if bounds is not None:
            low_c, high_c = (np.asarray(v, float) for v in bounds)
            share = (math.nan, float(low_c.mean()), float(high_c.mean()))
            if basis == "pooled":
                at_k = (math.nan, 1 - (1 - share[1]) ** k, 1 - (1 - share[2]) ** k)
                pw_k = (math.nan, share[1] ** k, share[2] ** k)
            else:
                lo_t = np.bincount(t, weights=low_c, minlength=n_tasks)
                hi_t = np.bincount(t, weights=high_c, minlength=n_tasks)
                nt = n_t.astype(float)

                def frac(c: np.ndarray) -> np.ndarray:
                    return np.exp(_log_comb(c[use], k) - _log_comb(nt[use], k))

                pw_k = (math.nan, float(frac(lo_t).mean()), float(frac(hi_t).mean()))
                at_k = (math.nan, float(np.mean(1 - frac(nt - lo_t))),
                        float(np.mean(1 - frac(nt - hi_t))))
    return CorrectedSuite(share=share, pass_at_k=at_k, pass_pow_k=pw_k, basis=basis,
                          interaction_rate=rate, identified=identified, method=method, note=note,
                          draws={"share": full, "pass_at_k": at, "pass_pow_k": pw},
                          tasks_used=int(use.sum()) if basis == "tasks" else 0)


def _log_comb(n: np.ndarray, k: int) -> np.ndarray:
    """log C(n, k), -inf where n < k."""
    n = np.asarray(n, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)
    return np.where(n >= k, out, -np.inf)


@dataclass(frozen=True)
class ConversationCorrection:
    """Per draw of the correction's parameters, every conversation's P(truly fully correct)."""

    prob: np.ndarray
    """(draws, C): posterior draws (Bayesian) or bootstrap replicates (frequentist)."""
    point: np.ndarray | None
    """(C,) at the plug-in parameters (frequentist, identified), else None."""
    theta: np.ndarray
    """(draws, groups) per-interaction success rate of each group."""
    identified: bool
    method: str
    low: np.ndarray
    """(C,) the conversation's truth if every unlabelled interaction is wrong (the bounds)."""
    high: np.ndarray
    """(C,) ... if every unlabelled interaction is right."""
    interactions: np.ndarray
    """(groups,) interactions per group (weights of the 'all' rate)."""
    diagnostics: dict[str, Any] = field(default_factory=dict)
    """The PyMC sampler's diagnostics (backend 'pymc'), else empty."""


def conversation_correction(conversation: Any, judge: Any, human: Any, group: Any, *,
                            bayesian: bool, level: float = 0.95, pooled: bool = True,
                            draws: int = 4000, seed: int = 0, cluster: Any = False,
                            backend: str = "gibbs", sampler: Any = None
                            ) -> ConversationCorrection:
    """The judge-corrected probability that each conversation is truly fully correct, per draw.

    Inputs as :func:`correct_conversations`. Bayesian: posterior draws of the latent-truth model,
    ``backend`` 'gibbs' (:func:`latent_truth_draws`) or 'pymc' (the same model in PyMC NUTS with
    every truth marginalised, :func:`agenteval.statistical.judge_error_pymc.latent_truth_pymc`,
    ``sampler`` its :class:`~agenteval.statistical.hierarchical.SamplerSettings`). Frequentist:
    a parametric bootstrap of (se, sp, q_g) from the labelled table and each group's judged
    rate, or with ``cluster`` a bootstrap that resamples clusters of conversations with all their
    items, labelled and judged (``True``: each conversation its own cluster; else one cluster key
    per conversation, e.g. the task index), so judge errors correlated within a conversation or
    task widen the interval instead of being taken for independent evidence (they do not remove
    the bias such errors put into the compounding; see the benchmark). Each draw's conversation
    probability is the exact product of :func:`conversation_truth_probability`.
    """
    if backend not in ("gibbs", "pymc"):
        raise ConfigError(f"backend must be 'gibbs' or 'pymc', got {backend!r}")
    conv = np.asarray(conversation, np.int64)
    j = _binary("judge", judge, allow_nan=True)
    h = _binary("human", human, allow_nan=True)
    grp = np.asarray(group, np.int64)
    _same_length(conversation=conv, judge=j, human=h)
    if conv.size and (conv.min() < 0 or conv.max() >= grp.size):
        raise ConfigError("conversation indices must point into group/task")
    n_g = int(grp.max()) + 1 if grp.size else 0
    ig = grp[conv]
    lab, judged = ~np.isnan(h), ~np.isnan(j)
    both, unl = lab & judged, ~lab & judged

    def per_group(mask: np.ndarray) -> np.ndarray:
        return np.bincount(ig[mask], minlength=n_g)

    tp = per_group(both & (h == 1) & (j == 1))
    fn = per_group(both & (h == 1) & (j == 0))
    fp = per_group(both & (h == 0) & (j == 1))
    tn = per_group(both & (h == 0) & (j == 0))
    u1 = per_group(unl & (j == 1))
    u0 = per_group(unl & (j == 0))
    conf = Confusion(int(tp.sum()), int(fn.sum()), int(fp.sum()), int(tn.sum()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeNotIdentifiedWarning)
        rg = rogan_gladen(int(u1.sum()), int((u1 + u0).sum()), conf, level=level, warn=False)
    c_n = grp.size
    m1 = np.bincount(conv[unl & (j == 1)], minlength=c_n)
    m0 = np.bincount(conv[unl & (j == 0)], minlength=c_n)
    mu = np.bincount(conv[~lab & ~judged], minlength=c_n)
    lwrong = np.bincount(conv[lab & (h == 0)], minlength=c_n) > 0
    lall = (m1 + m0 + mu) == 0                       # every interaction labelled
    low_b = (lall & ~lwrong).astype(float)
    high_b = (~lwrong).astype(float)
    rng = np.random.default_rng(seed)
    seeds = rng.integers(0, 2**63 - 1, size=3)
    point = None
    diagnostics: dict[str, Any] = {}
    if bayesian:
        counts_l, counts_u = np.stack([tp, fn, fp, tn], 1), np.stack([u1, u0], 1)
        if backend == "pymc":
            from agenteval.statistical.judge_error_pymc import latent_truth_pymc

            fields, diagnostics = latent_truth_pymc(counts_l, counts_u, pooled=pooled,
                                                    sampler=sampler, seed=int(seeds[0]))
            post = LatentTruthDraws(**fields)
        else:
            post = latent_truth_draws(counts_l, counts_u, pooled=pooled, draws=draws,
                                      seed=int(seeds[0]))
        se, sp, th = post.se, post.sp, post.theta
        method = post.method
        d_lo = float(np.quantile(se[:, 0] + sp[:, 0] - 1, (1 - level) / 2))
        identified = d_lo > 0
    else:
        # one (se, sp) for every group (pooled), else each group's own from its labels
        pos_g = (tp + fn).sum(keepdims=True) if pooled else tp + fn
        neg_g = (tn + fp).sum(keepdims=True) if pooled else tn + fp
        tp_g = tp.sum(keepdims=True) if pooled else tp
        tn_g = tn.sum(keepdims=True) if pooled else tn
        identified = rg.identified
        if not pooled:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", JudgeNotIdentifiedWarning)
                identified = all(rogan_gladen(int(u1[g]), int(u1[g] + u0[g]),
                                              Confusion(int(tp[g]), int(fn[g]), int(fp[g]),
                                                        int(tn[g])), level=level,
                                              warn=False).identified
                                 for g in range(n_g) if u1[g] + u0[g] > 0)
        b_rng = np.random.default_rng(seeds[1])
        nu = u1 + u0
        q_hat = np.divide(u1, nu, out=np.full(n_g, np.nan), where=nu > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            se_hat = np.where(pos_g > 0, tp_g / np.maximum(pos_g, 1), np.nan)
            sp_hat = np.where(neg_g > 0, tn_g / np.maximum(neg_g, 1), np.nan)
        clusters = _cluster_keys(cluster, grp.size)
        if clusters is not None:
            se, sp, q, nu_b = _cluster_bootstrap(conv, j, h, both, unl, clusters, grp, n_g,
                                                 draws, b_rng, pooled=pooled)
        else:
            ok = (pos_g > 0) & (neg_g > 0)
            size = (draws, pos_g.size)
            se = b_rng.binomial(pos_g, np.nan_to_num(se_hat), size=size) / np.maximum(pos_g, 1)
            sp = b_rng.binomial(neg_g, np.nan_to_num(sp_hat), size=size) / np.maximum(neg_g, 1)
            se, sp = np.where(ok, se, np.nan), np.where(ok, sp, np.nan)
            q = b_rng.binomial(nu.astype(np.int64), np.nan_to_num(q_hat), size=(draws, n_g))
            q = q / np.where(nu > 0, nu, 1)
            nu_b = np.broadcast_to(nu, (draws, n_g))

        def theta_of(q_: np.ndarray, se_: np.ndarray, sp_: np.ndarray,
                     nu_: np.ndarray) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                t_ = (q_ + sp_ - 1) / (se_ + sp_ - 1)
            t_ = np.where(se_ + sp_ - 1 > 1e-9, np.clip(t_, 0, 1), np.nan)
            return np.where(nu_ > 0, t_, np.nan)

        th = theta_of(q, se, sp, nu_b)
        se, sp = np.broadcast_to(se, th.shape), np.broadcast_to(sp, th.shape)
        keep = ~np.isnan(th[:, nu > 0]).any(1) if n_g else np.ones(draws, bool)
        # a group with no judged unlabelled item: its theta never enters a product; use 1/2
        th = np.where(nu[None] > 0, th, 0.5)
        se, sp, th = se[keep], sp[keep], th[keep]
        method = ("Rogan-Gladen, " + ("cluster bootstrap (" + ("conversations" if cluster is True
                                                               else "clusters of conversations")
                                      + " resampled, labelled and judged items alike)"
                                      if clusters is not None else
                                      "parametric bootstrap over the labelled table and the "
                                      "judged rates")
                  + ("" if pooled else "; se/sp per group"))
        live = nu > 0
        if identified and np.isfinite(np.broadcast_to(se_hat, (n_g,))[live]).all():
            th0 = theta_of(q_hat[None], se_hat[None], sp_hat[None], nu[None])
            th0 = np.where(nu[None] > 0, th0, 0.5)
            d0 = LatentTruthDraws(np.broadcast_to(se_hat[None], th0.shape),
                                  np.broadcast_to(sp_hat[None], th0.shape), th0, "")
            point = conversation_truth_probability(d0.ppv(), d0.false_omission(), th0, grp, m1,
                                                   m0, mu, lwrong)[0]
    if se.shape[0] == 0:                                 # every bootstrap draw degenerate
        identified = False
        se = sp = th = np.full((1, max(n_g, 1)), 0.5)
    d = LatentTruthDraws(se, sp, th, method)
    with np.errstate(invalid="ignore", divide="ignore"):
        prob = conversation_truth_probability(np.nan_to_num(d.ppv(), nan=0.5),
                                              np.nan_to_num(d.false_omission(), nan=0.5),
                                              th, grp, m1, m0, mu, lwrong)
    return ConversationCorrection(prob=prob, point=point, theta=th, identified=identified,
                                  method=method, low=low_b, high=high_b,
                                  interactions=np.bincount(ig, minlength=n_g).astype(float),
                                  diagnostics=diagnostics)


def _cluster_keys(cluster: Any, c_n: int) -> np.ndarray | None:
    """None (no clustering), or a cluster index per conversation."""
    if cluster is False or cluster is None:
        return None
    if cluster is True:
        return np.arange(c_n)
    keys = np.asarray(cluster)
    if keys.shape != (c_n,):
        raise ConfigError(f"cluster must be True or one key per conversation ({c_n}), got shape "
                          f"{keys.shape}")
    return np.unique(keys, return_inverse=True)[1].ravel()


def _cluster_bootstrap(conv: np.ndarray, j: np.ndarray, h: np.ndarray, both: np.ndarray,
                       unl: np.ndarray, clusters: np.ndarray, grp: np.ndarray, n_g: int,
                       draws: int,
                       rng: np.random.Generator, *, pooled: bool = True
                       ) -> tuple[np.ndarray, ...]:
    """(se, sp, q, n_unlabelled) per draw with clusters of conversations resampled (Davison &
    Hinkley 1997, s. 3.8), so the items of one cluster move together in se/sp and every q_g.
    Each cluster gets a Poisson(1) weight (the Poisson bootstrap, vectorised over draws)."""
    c_n = grp.size

    def per_conv(mask: np.ndarray) -> np.ndarray:
        return np.bincount(conv[mask], minlength=c_n).astype(float)

    tp_c = per_conv(both & (h == 1) & (j == 1))
    pos_c = per_conv(both & (h == 1))
    tn_c = per_conv(both & (h == 0) & (j == 0))
    neg_c = per_conv(both & (h == 0))
    u1_c = per_conv(unl & (j == 1))
    nu_c = per_conv(unl)
    width = 1 if pooled else n_g
    se = np.empty((draws, width))
    sp = np.empty((draws, width))
    q = np.empty((draws, n_g))
    nu = np.empty((draws, n_g))
    onehot = np.zeros((c_n, max(n_g, 1)))
    onehot[np.arange(c_n), grp] = 1.0
    chunk = max(1, 4_000_000 // max(c_n, 1))
    for s in range(0, draws, chunk):
        w = rng.poisson(1.0, size=(min(chunk, draws - s), int(clusters.max()) + 1))
        w = w[:, clusters].astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            if pooled:
                se[s:s + w.shape[0], 0] = (w @ tp_c) / (w @ pos_c)
                sp[s:s + w.shape[0], 0] = (w @ tn_c) / (w @ neg_c)
            else:
                se[s:s + w.shape[0]] = ((w * tp_c) @ onehot) / ((w * pos_c) @ onehot)
                sp[s:s + w.shape[0]] = ((w * tn_c) @ onehot) / ((w * neg_c) @ onehot)
            n_u = (w * nu_c) @ onehot
            q[s:s + w.shape[0]] = ((w * u1_c) @ onehot) / n_u
        nu[s:s + w.shape[0]] = n_u
    return se, sp, np.nan_to_num(q), nu


def correct_conversations(conversation: Any, judge: Any, human: Any, group: Any, task: Any, *,
                          k: int, bayesian: bool, level: float = 0.95, a: float = 1.0,
                          b: float = 1.0, pooled: bool = True, draws: int = 4000,
                          seed: int = 0, cluster: Any = False, backend: str = "gibbs",
                          sampler: Any = None,
                          correction: ConversationCorrection | None = None
                          ) -> dict[int, CorrectedSuite]:
    """Corrected share, pass@k and pass^k for every group (key g) and for all (key -1).

    Per interaction: ``conversation`` (index into the conversations), ``judge`` (0/1, NaN where
    the judge failed), ``human`` (0/1, NaN where unlabelled); per conversation: ``group`` (agent
    index) and ``task`` (task index, shared by the attempts of one task). Bayesian: posterior
    draws of :func:`latent_truth_draws` (Beta(1, 1) priors), the share's prior Beta(a, b).
    Frequentist: a parametric bootstrap over both samples (the labelled 2x2 table and each
    group's judged rate) of the Rogan-Gladen parameters, theta_g = (q_g + sp - 1) / D clipped to
    [0, 1] (one (se, sp) for all groups when ``pooled``, else each group's own from its labels);
    the estimate is exact at the plug-in parameters. Where the pooled correction is not
    identified (Fieller, see :func:`rogan_gladen`) the frequentist interval is the bounds the
    labels allow (unlabelled interactions all wrong / all right) and the estimate nan; the
    Bayesian posterior stays (it is proper) with the same warning in ``note``. ``cluster``,
    ``backend``, ``sampler``: see :func:`conversation_correction`; ``correction``: one already
    computed from the same inputs (its draws are reused).
    """
    grp, tsk = np.asarray(group, np.int64), np.asarray(task, np.int64)
    _same_length(group=grp, task=tsk)
    cc = correction or conversation_correction(
        conversation, judge, human, grp, bayesian=bayesian, level=level, pooled=pooled,
        draws=draws, seed=seed, cluster=cluster, backend=backend, sampler=sampler)
    seed2 = int(np.random.default_rng(seed).integers(0, 2**63 - 1, size=3)[2])
    n_g = cc.theta.shape[1] if grp.size else 0
    th, prob, point = cc.theta, cc.prob, cc.point
    out: dict[int, CorrectedSuite] = {}
    for key in [-1, *range(n_g)]:
        members = np.ones(grp.size, bool) if key < 0 else grp == key
        if not members.any():
            continue
        if key < 0:
            w_ = cc.interactions / max(cc.interactions.sum(), 1)
            rate = th @ w_
        else:
            rate = th[:, key]
        out[key] = corrected_suite(
            prob[:, members], tsk[members], k=k, bayesian=bayesian, level=level, a=a, b=b,
            seed=seed2 + key + 1, point=None if point is None else point[members],
            interaction_rate=rate, identified=cc.identified,
            bounds=None if bayesian else (cc.low[members], cc.high[members]), method=cc.method)
    return out


# --------------------------------------------------------------------------- planning


@dataclass(frozen=True)
class LabelPlan:
    """How many more labels, from which strata, and the interval width expected after."""

    strata: list[Any]
    """Stratum keys (judge verdict first, then the caller's key)."""
    weight: list[float]
    """Each stratum's share of all items."""
    labelled: list[int]
    available: list[int]
    """Unlabelled items left in each stratum."""
    add: list[int]
    """Labels to add per stratum."""
    width_now: float
    width_after: float
    width_proportional: float
    """Expected width after the same number of labels allocated in proportion to stratum size."""
    level: float
    total_add: int = 0
    notes: list[str] = field(default_factory=list)


def _stratified_var(w: np.ndarray, mu: np.ndarray, n: np.ndarray) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(w > 0, w * w * mu * (1 - mu) / n, 0.0)
    return float(np.sum(v))


def plan_labels(judge: Any, human: Any, strata: Any = None, *, add: int | None = None,
                target_width: float | None = None, level: float = 0.95,
                max_add: int = 100_000) -> LabelPlan:
    """Which items to label next to narrow the corrected interaction rate most.

    ``judge`` (N,) verdicts of every item; ``human`` (N,) the label or NaN where unlabelled;
    ``strata`` (N,) an optional key per item (agent, task, length bucket), crossed with the
    verdict. The planned estimator is the verdict-stratified mean sum_s w_s mean(human in s)
    (stratified PPI with the verdict as predictor, Fisch et al. 2024; the Bayesian model's
    posterior has the same large-sample width), variance sum_s w_s^2 mu_s (1 - mu_s) / n_s with
    mu_s from the labels (Beta(1, 1) smoothed, so an unlabelled stratum counts as 1/2). Labels
    go one by one to the stratum whose variance falls most (greedy, optimal for this separable
    convex objective), capped by the items left in it: ``add`` labels, or as many as reach
    ``target_width`` (at most ``max_add``). Every stratum gets at least 2 labels first when it
    can, since a stratum without labels leaves the estimate undefined.
    """
    z = _z(level)
    j = _binary("judge", judge)
    h = _binary("human", human, allow_nan=True)
    _same_length(judge=j, human=h)
    if (add is None) == (target_width is None):
        raise ConfigError("give exactly one of add (labels to add) or target_width")
    if add is not None:
        add = _count("add", add)
    if target_width is not None:
        check_unit("target_width", target_width)
    extra = np.zeros(j.size, dtype=object) if strata is None else np.asarray(strata, dtype=object)
    if extra.shape != j.shape:
        raise ConfigError(f"strata must have one key per item, got {extra.shape} for {j.shape}")
    keys = [(int(v), e) for v, e in zip(j, extra, strict=True)]
    uniq = list(dict.fromkeys(keys))
    index = {key: i for i, key in enumerate(uniq)}
    sid = np.array([index[key] for key in keys])
    m = len(uniq)
    size = np.bincount(sid, minlength=m).astype(float)
    lab = ~np.isnan(h)
    n = np.bincount(sid[lab], minlength=m).astype(float)
    pos = np.bincount(sid[lab], weights=h[lab], minlength=m)
    mu = (pos + 1) / (n + 2)
    w = size / size.sum()
    avail = size - n
    var_now = _stratified_var(w, mu, n)
    notes = []
    if (n == 0).any():
        notes.append(f"{int((n == 0).sum())} stratum(s) have no label yet: the estimate is "
                     "undefined until they do")
    budget = add if add is not None else max_add
    plus = np.zeros(m)
    # first, 2 labels in every stratum that has fewer and items to spare
    for i in range(m):
        need = min(max(0.0, 2 - n[i]), avail[i])
        take = min(need, budget - plus.sum())
        plus[i] += max(take, 0)

    def width(extra_n: np.ndarray) -> float:
        return 2 * z * math.sqrt(_stratified_var(w, mu, np.maximum(n + extra_n, 1e-300)))

    while plus.sum() < budget:
        if target_width is not None and width(plus) <= target_width:
            break
        room = avail - plus > 0
        if not room.any():
            notes.append("every item is labelled in the plan: no stratum has items left")
            break
        cur = n + plus
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = np.where(room, w * w * mu * (1 - mu) * (1 / np.maximum(cur, 1e-300)
                                                           - 1 / (cur + 1)), -np.inf)
        best = int(np.argmax(gain))
        plus[best] += 1
    total = int(plus.sum())
    prop = np.zeros(m)
    if total:
        share = np.minimum(avail, np.floor(total * size / size.sum()))
        prop = share
        rest = total - int(prop.sum())
        order = np.argsort(-(total * size / size.sum() - np.floor(total * size / size.sum())))
        for i in order:
            if rest <= 0:
                break
            if prop[i] < avail[i]:
                prop[i] += 1
                rest -= 1
    if target_width is not None and width(plus) > target_width:
        notes.append(f"the target width {target_width} is not reached within the plan")
    return LabelPlan(strata=uniq, weight=w.tolist(), labelled=n.astype(int).tolist(),
                     available=avail.astype(int).tolist(), add=plus.astype(int).tolist(),
                     width_now=2 * z * math.sqrt(var_now) if np.all(n > 0) else math.inf,
                     width_after=width(plus), width_proportional=width(prop), level=level,
                     total_add=total, notes=notes)
