"""The judge calibrated against human labels: agreement, confusion, corrected headline rows.

Computed once from a run's results and its labels (``results.calibration()``) and held; the
views (text, DataFrames, JSON) only read it. The math is ``agenteval.statistical.judge_error``.

The judge's verdict on an interaction is the run's ``is_correct`` (judge score >= threshold,
and tool correctness where the data expects tools), so the corrected values are corrections of
the very quantities the judge-only headline reports. Interactions with a given outcome carry
their truth already; those the judge failed on have no verdict (their truth is modelled).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from agenteval.core.labels import Labels, as_labels
from agenteval.errors import DataError
from agenteval.results.comparisons import (
    JUDGE_CORRECTED,
    AgentComparison,
    QualityRow,
    RankRow,
    summary_fields,
)
from agenteval.statistical import judge_error as je

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AgreementRow", "CorrectedRow", "Calibration", "LABEL_CLUSTERS", "calibrate",
           "check_label_cluster", "judge_verdicts", "LabelPlanResult", "plan_labels"]

LABEL_CLUSTERS = (None, "conversation", "task")
"""What the frequentist correction's bootstrap may resample whole (:func:`calibrate`'s
``cluster``): None (the labelled and the judged items apart), conversations or tasks."""

CALIBRATION_VERSION = "3"


def _f(description: str, **kw: Any) -> Any:
    return Field(description=description, **kw)


class AgreementRow(BaseModel):
    """How the run's judge agrees with the human truth on one group's labelled items."""

    model_config = ConfigDict(extra="forbid")

    group: str = _f("'all' or an assistant_id.")
    labelled: int = _f("Labelled interactions with a judge verdict.")
    tp: int = _f("Human correct, judge correct.")
    fn: int = _f("Human correct, judge wrong.")
    fp: int = _f("Human wrong, judge correct.")
    tn: int = _f("Human wrong, judge wrong.")
    sensitivity: float = _f("P(judge correct | human correct), Wilson interval.")
    sensitivity_low: float
    sensitivity_high: float
    specificity: float = _f("P(judge wrong | human wrong), Wilson interval.")
    specificity_low: float
    specificity_high: float
    accuracy: float
    accuracy_low: float
    accuracy_high: float
    kappa: float = _f("Cohen's kappa (Fleiss-Cohen-Everitt interval); NaN with one class only.")
    kappa_low: float
    kappa_high: float
    youden: float = _f("sensitivity + specificity - 1: 0 = no better than a coin.")


class CorrectedRow(BaseModel):
    """One group's judge-only and judge-corrected headline."""

    model_config = ConfigDict(extra="forbid")

    group: str = _f("'all' or an assistant_id.")
    conversations: int
    interactions: int = _f("Interactions in the group.")
    labelled: int = _f("Interactions with a human truth.")
    judge_rate: float = _f("Judge-only share of interactions judged correct.")
    rate: float = _f("Corrected per-interaction success rate.")
    rate_low: float
    rate_high: float
    rate_method: str
    ppi_rate: float = _f("Prediction-powered rate (PPI++) from this group's labels; valid when "
                         "they are a random subset; NaN with fewer than 2.")
    ppi_rate_low: float
    ppi_rate_high: float
    share: float = _f("Corrected share of fully correct conversations (NaN: not identified).")
    share_low: float
    share_high: float
    judge_share: float = _f("Judge-only share of fully correct conversations (complete ones).")
    basis: str = _f("'tasks' (mean over the suite's tasks) or 'pooled' (from the share).")
    pass_at_k: float
    pass_at_k_low: float
    pass_at_k_high: float
    pass_pow_k: float
    pass_pow_k_low: float
    pass_pow_k_high: float
    identified: bool = _f("False: the labels cannot separate the judge from a coin.")
    method: str
    note: str = ""


class Calibration(BaseModel):
    """The judge against human labels for one run."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(default=CALIBRATION_VERSION)
    k: int
    level: float
    labels_source: str | None = _f("Where the labels came from.")
    ratings: int = _f("Ratings read (all raters, repeats, other judges).")
    matched: int = _f("Interactions of the run with a human truth.")
    unmatched: int = _f("Rated (session_id, qa_id) keys not in the run (left out).")
    ties: int = _f("Items whose human raters tied (left out).")
    agreement: list[AgreementRow] = _f("'all' first, then each agent with labels of both kinds.")
    alpha: float = _f("Krippendorff's alpha across the run's judge, human raters, other judges "
                      "and repeats (NaN when no item has two ratings).")
    alpha_low: float
    alpha_high: float
    raters: list[str] = _f("The raters alpha is computed over ('judge' = the run's judge).")
    disagreements: list[dict[str, Any]] = _f("Labelled items where judge and truth differ.")
    corrected: list[CorrectedRow]
    comparisons: list[AgentComparison] = _f(
        "Every pair of agents on judge-corrected outcomes (basis 'judge-corrected'); the "
        "summary's comparisons are these when they exist.", default_factory=list)
    ranking: list[RankRow] = _f("Agents ranked on judge-corrected success.",
                                default_factory=list)
    comparison_method: str = _f("How the corrected comparisons were computed.", default="")
    comparison_adjust: str = _f("p-value adjustment over pairs ('none' in Bayesian modes).",
                                default="none")
    comparison_notes: list[str] = Field(default_factory=list)
    quality: list[QualityRow] = _f(
        "Fair Forge's quality table per agent on the judge-corrected pass@k / pass^k (the "
        "corrected rows' values; Bayesian: P(label) = the share of the correction's posterior "
        "draws of (pass@k, pass^k) in each label's region; NaN in the frequentist mode and "
        "where the correction is not identified); the summary's quality is this where it is "
        "identified.", default_factory=list)
    error_icc: float = _f("Intraclass correlation of the judge's disagreements with the labels "
                          "within tasks (task_id across agents; NaN when no task has two "
                          "labelled items).", default=math.nan)
    error_icc_p: float = _f("Permutation p-value of error_icc (small: the errors cluster, see "
                            "judge_error.CORRELATED_ERRORS).", default=math.nan)
    diagnostics: dict[str, Any] = _f("The PyMC sampler's diagnostics of the correction "
                                     "(hierarchical mode), else empty.", default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    _quality_draws: dict[str, tuple[np.ndarray, np.ndarray]] = PrivateAttr(default_factory=dict)
    """Per agent, the correction's draws of (pass@k, pass^k) the quality probabilities are
    shares of (Bayesian modes; held, not saved: :meth:`quality_rows` with other thresholds)."""

    def quality_rows(self, thresholds: Any = None) -> list[QualityRow]:
        """The judge-corrected quality table per agent (:attr:`quality`) under ``thresholds``
        (``statistical.quality.Thresholds``; None: Fair Forge's, the table held). Other
        thresholds relabel the same values and, in the Bayesian modes, the same draws of the
        correction (not drawn again); a calibration read from a file has no draws, so its
        probabilities under other thresholds are NaN, and its basis says so."""
        if thresholds is None:
            return list(self.quality)
        out = []
        for q in self.quality:
            draws = self._quality_draws.get(q.unit)
            basis = q.basis
            if draws is None and math.isfinite(q.prob_reliable):
                basis += ("; P(label) n/a: the correction's draws are not saved (calibrate "
                          "the results again)")
            out.append(_corrected_quality_row(q.unit, q.pass_at_k, q.pass_pow_k, draws, basis,
                                             thresholds))
        return out

    def comparisons_dataframe(self) -> pd.DataFrame:
        """Judge-corrected comparisons, one row per pair and quantity."""
        import pandas as pd

        return pd.DataFrame([c.model_dump() for c in self.comparisons],
                            columns=list(AgentComparison.model_fields))

    def agreement_dataframe(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame([r.model_dump() for r in self.agreement]).set_index("group")

    def to_dataframe(self) -> pd.DataFrame:
        """The corrected headline, one row per group."""
        import pandas as pd

        return pd.DataFrame([r.model_dump() for r in self.corrected]).set_index("group")

    def disagreements_dataframe(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.disagreements, columns=["session_id", "qa_id", "assistant_id",
                                                         "score", "judge", "human"])

    def to_text(self) -> str:
        """Agreement, then the judge-only and corrected headline, for terminals."""
        k = self.k
        lines = [f"judge vs human labels ({self.matched} labelled interactions"
                 + (f", from {self.labels_source}" if self.labels_source else "") + "):"]
        head = (f"{'group':<22}{'n':>5}{'tp':>5}{'fn':>5}{'fp':>5}{'tn':>5}"
                f"{'sensitivity':>23}{'specificity':>23}{'kappa':>24}")
        lines += [head, "-" * len(head)]
        for a in self.agreement:
            lines.append(f"{a.group[:21]:<22}{a.labelled:>5}{a.tp:>5}{a.fn:>5}{a.fp:>5}{a.tn:>5}"
                         f"{iv(a.sensitivity, a.sensitivity_low, a.sensitivity_high):>23}"
                         f"{iv(a.specificity, a.specificity_low, a.specificity_high):>23}"
                         f"{iv(a.kappa, a.kappa_low, a.kappa_high):>24}")
        if math.isfinite(self.error_icc):
            lines.append(f"errors within tasks: ICC {self.error_icc:.3f} (permutation p "
                         f"{self.error_icc_p:.3f}; near 0 = independent, as the correction "
                         "assumes)")
        if math.isfinite(self.alpha):
            lines.append(f"Krippendorff's alpha over {', '.join(self.raters)}: "
                         f"{iv(self.alpha, self.alpha_low, self.alpha_high)}")
        lines += ["", "judge-corrected headline (intervals carry the suite and the labels):"]
        head = (f"{'group':<22}{'judge rate':>11}{'corrected rate':>24}{'judge share':>12}"
                f"{'corrected share':>24}{f'pass@{k}':>24}{f'pass^{k}':>24}  basis")
        lines += [head, "-" * len(head)]
        for r in self.corrected:
            lines.append(f"{r.group[:21]:<22}{r.judge_rate:>11.3f}"
                         f"{iv(r.rate, r.rate_low, r.rate_high):>24}{r.judge_share:>12.3f}"
                         f"{iv(r.share, r.share_low, r.share_high):>24}"
                         f"{iv(r.pass_at_k, r.pass_at_k_low, r.pass_at_k_high):>24}"
                         f"{iv(r.pass_pow_k, r.pass_pow_k_low, r.pass_pow_k_high):>24}  {r.basis}")
        methods = sorted({f"{r.rate_method}; {r.method}" for r in self.corrected})
        lines += [f"  method: {m}" for m in methods]
        d = self.diagnostics
        if d:
            status = "ok" if d.get("ok") else "CHECK: " + "; ".join(d.get("problems") or [])
            lines.append(f"  sampler: NUTS ({d.get('sampler')}) {d.get('chains')} chains x "
                         f"{d.get('draws')} draws, max r_hat {d.get('r_hat_max', math.nan):.3f}, "
                         f"min ESS bulk {d.get('ess_bulk_min', math.nan):.0f} tail "
                         f"{d.get('ess_tail_min', math.nan):.0f}, divergences "
                         f"{d.get('divergences')}: {status}")
        notes = list(dict.fromkeys([*self.notes, *(r.note for r in self.corrected if r.note)]))
        lines += [f"note: {n}" for n in notes]
        if self.comparisons:
            from agenteval.present.text import format_p  # the one format of a p-value (view)

            lines += ["", "judge-corrected comparisons (A - B; the summary's comparisons and "
                      "ranking are these):"]
            for c in self.comparisons:
                extra = (f"P(A>B) {format_p(c.prob_a_better)}" if math.isfinite(c.prob_a_better)
                         else f"p {format_p(c.p_value)} (adjusted {format_p(c.p_adjusted)})")
                lines.append(f"  {c.agent_a} - {c.agent_b}  {c.quantity:<9} {c.scope:<14}"
                             f"{iv(c.difference, c.difference_low, c.difference_high):>26}  "
                             f"{extra}")
            for r in sorted(self.ranking, key=lambda r: r.expected_rank):
                lines.append(f"  rank {r.expected_rank:.2f} [{r.rank_low:g}, {r.rank_high:g}]  "
                             f"{r.agent}  corrected {r.quantity} {r.mean:.3f}  P(best) "
                             f"{format_p(r.prob_best)}")
        if self.disagreements:
            lines.append(f"{len(self.disagreements)} labelled interaction(s) where the judge and "
                         "the human disagree (Calibration.disagreements_dataframe())")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(self.to_text())}</pre>"

    def __str__(self) -> str:
        return self.to_text()


def iv(value: float, low: float, high: float) -> str:
    """'0.712 [0.650, 0.770]'; a value that is not identified shows only its bounds."""
    def num(x: float) -> str:
        return "n/a" if not math.isfinite(x) else f"{x:.3f}"
    if not math.isfinite(low) and not math.isfinite(high):
        return num(value)
    return f"{num(value) if math.isfinite(value) else '?'} [{num(low)}, {num(high)}]"


def _corrected_quality_row(unit: str, pass_at_k: float, pass_pow_k: float,
                          draws: tuple[np.ndarray, np.ndarray] | None, basis: str,
                          thresholds: Any = None) -> QualityRow:
    """One agent's quality row on judge-corrected values: the label of (pass_at_k,
    pass_pow_k); with ``draws`` (the correction's aligned draws of pass@k and pass^k), each
    label's probability = the share of draws in its region
    (``statistical.quality.label_probabilities``), else NaN."""
    from agenteval.statistical.quality import LABELS, assess, label_probabilities

    finite = math.isfinite(pass_at_k) and math.isfinite(pass_pow_k)
    label = assess(pass_at_k, pass_pow_k, thresholds=thresholds) if finite else None
    probs = dict.fromkeys(LABELS, math.nan)
    if draws is not None and finite:
        probs = {key: float(v) for key, v in
                 label_probabilities(*draws, thresholds=thresholds).items()}
    return QualityRow(unit=unit, pass_at_k=pass_at_k, pass_pow_k=pass_pow_k, label=label,
                      prob_reliable=probs["Reliable"], prob_inconsistent=probs["Inconsistent"],
                      prob_needs_improvement=probs["Needs improvement"],
                      prob_unlabelled=probs["Unlabelled"], basis=basis)


def _corrected_quality(out: dict[int, je.CorrectedSuite], agents: list[str], k: int,
                       bayesian: bool) -> tuple[list[QualityRow], dict[str, Any]]:
    """The Calibration's quality rows (Fair Forge's thresholds) from each agent's corrected
    suite, and the draws they rest on (Bayesian): the very values and draws of the corrected
    rows' pass@k / pass^k, nothing drawn again."""
    rows, held = [], {}
    for g, name in enumerate(agents):
        c = out.get(g)
        if c is None:
            continue
        at, pw = c.pass_at_k[0], c.pass_pow_k[0]
        if not (math.isfinite(at) and math.isfinite(pw)):
            basis = f"{JUDGE_CORRECTED} headline: not identified"
        elif c.basis == "tasks":
            basis = (f"{JUDGE_CORRECTED} headline: task-level, {c.tasks_used} tasks with >= {k} "
                     f"attempt{'s' if k > 1 else ''}")
        else:
            basis = f"{JUDGE_CORRECTED} headline: pooled plug-in of the corrected share"
        if bayesian and math.isfinite(at):
            basis += ", posterior draws"
            if not c.identified:
                basis += " (resting on the labelled items and the prior: the judge barely " \
                         "tells right from wrong)"
        draws = (c.draws["pass_at_k"], c.draws["pass_pow_k"]) if bayesian else None
        if draws is not None:
            held[name] = draws
        rows.append(_corrected_quality_row(name, at, pw, draws, basis))
    return rows, held


def judge_verdicts(results: Sequence[Any]) -> list[tuple[Any, int, Any, float]]:
    """(metric, index, interaction, verdict) per interaction: 1/0 judged, NaN otherwise."""
    out = []
    for m in results:
        for i, r in enumerate(m.interactions):
            judged = r.source == "judged" and r.judge_error is None and r.is_correct is not None
            out.append((m, i, r, float(r.is_correct) if judged else math.nan))
    return out


def _agreement_row(group: str, h: np.ndarray, j: np.ndarray, level: float) -> AgreementRow:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        a = je.agreement(h, j, level=level)
    t = a.confusion
    return AgreementRow(group=group, labelled=t.n, tp=t.tp, fn=t.fn, fp=t.fp, tn=t.tn,
                        sensitivity=a.sensitivity, sensitivity_low=a.sensitivity_low,
                        sensitivity_high=a.sensitivity_high, specificity=a.specificity,
                        specificity_low=a.specificity_low, specificity_high=a.specificity_high,
                        accuracy=a.accuracy, accuracy_low=a.accuracy_low,
                        accuracy_high=a.accuracy_high, kappa=a.kappa, kappa_low=a.kappa_low,
                        kappa_high=a.kappa_high, youden=a.youden)


def _task_clusters(results: Any) -> np.ndarray:
    """One cluster per task_id across agents (a judge that fails a task fails it for every
    agent); a conversation without task_id is its own."""
    keys: dict[Any, int] = {}
    return np.array([keys.setdefault(m.task_id if m.task_id is not None else ("", i), len(keys))
                     for i, m in enumerate(results)], dtype=np.int64)


def _corrected_comparisons(results: Any, agents: list[str], cc: je.ConversationCorrection,
                           k: int, level: float, bayesian: bool, seed: int) -> dict[str, Any]:
    """The Calibration's comparison fields: every pair and the ranking on corrected outcomes
    (``statistical.compare.compare_corrected``); empty with one agent, and with a note when the
    frequentist correction is not identified (the summary then keeps its judge-only ones)."""
    if len(agents) < 2:
        return {}
    if not bayesian and (not cc.identified or cc.point is None):
        return {"comparison_notes": ["judge-corrected comparisons: not identified (the judge "
                                     "barely tells right from wrong); the summary's "
                                     "comparisons stay judge-only"]}
    from agenteval.statistical.compare import compare_corrected

    table = compare_corrected(cc.prob, [m.assistant_id for m in results],
                              [m.task_id for m in results], k=k, bayesian=bayesian,
                              ci_level=level, seed=seed, point=cc.point, names=agents,
                              adjust="holm", method=cc.method)
    fields = summary_fields(table, basis=JUDGE_CORRECTED)
    if not cc.identified:
        fields["comparison_notes"] = [*fields["comparison_notes"], je.NOT_IDENTIFIED_BAYES]
    return fields


def check_label_cluster(name: str, value: object, mode: Any = None) -> str | None:
    """Validate a ``cluster`` for :func:`calibrate` (``name``: the option as the caller spells
    it); with ``mode``, also that it is the frequentist mode's, whose bootstrap it changes (the
    Bayesian modes' latent-truth model resamples nothing, so it would be silently ignored)."""
    from agenteval.errors import ConfigError

    if value not in LABEL_CLUSTERS:
        raise ConfigError(f"{name} must be None, 'conversation' or 'task', got {value!r}")
    if value is not None and mode is not None and mode.get_result_type() == "distribution":
        raise ConfigError(f"{name} {value!r} makes the frequentist correction's bootstrap "
                          f"resample whole {value}s: it needs the frequentist mode (--mode "
                          "frequentist, FrequentistMode); a Bayesian mode's latent-truth model "
                          "resamples nothing")
    return value  # type: ignore[return-value]


def calibrate(results: Any, labels: Any, *, pooled: bool = True,
              cluster: str | None = None) -> Calibration:
    """Calibrate a run's judge against ``labels`` (a path, :class:`Labels`, records or a
    {(session_id, qa_id): 0/1} mapping) and correct its headline; see the module docstring.

    The mode of the run decides the correction: Bayesian modes the latent-truth model
    (posterior draws, the run's seed and Beta prior for the share), the frequentist mode
    Rogan-Gladen with a Fieller interval for the rate and a bootstrap over both samples for
    the conversation-level values; ``cluster='conversation'`` or ``'task'`` resamples whole
    conversations or tasks instead (labelled and judged items together: for judge errors that
    are correlated within a conversation or task, e.g. a judge that fails a whole hard task;
    the frequentist mode only: a Bayesian mode refuses it, as its model resamples nothing). In
    ``BayesianMode(method="hierarchical")`` the model is sampled with
    PyMC NUTS (:mod:`agenteval.statistical.judge_error_pymc`). ``pooled``: one
    sensitivity/specificity for all agents. Comparisons and the ranking are recomputed on the
    corrected outcomes (``Calibration.comparisons``), and the summary shows those.
    """
    check_label_cluster("cluster", cluster, results.settings.mode)  # not ignored in silence
    lab = as_labels(labels)
    settings = results.settings
    mode = settings.mode
    level = float(mode.ci_level)
    bayesian = mode.get_result_type() == "distribution"
    truth, ties = lab.truth(settings.threshold)
    rows = judge_verdicts(results)
    keys = {(m.session_id, r.qa_id) for m, _, r, _ in rows}
    unmatched = len(set(truth) - keys)
    agents = list(dict.fromkeys(m.assistant_id for m in results))
    a_idx = {a: g for g, a in enumerate(agents)}
    conv_of = {m.session_id: c for c, m in enumerate(results)}   # ids are unique in a run
    conv = np.array([conv_of[m.session_id] for m, _, _, _ in rows], dtype=np.int64)
    judge = np.array([v for *_, v in rows], dtype=float)
    human = np.array([truth.get((m.session_id, r.qa_id), math.nan) for m, _, r, _ in rows])
    given = np.array([r.source == "given" and r.is_correct is not None for _, _, r, _ in rows])
    given_truth = np.array([float(r.is_correct) if r.is_correct is not None else math.nan
                            for _, _, r, _ in rows])
    human = np.where(np.isnan(human) & given, given_truth, human)
    matched = int(np.sum(~np.isnan(human) & ~given))
    notes = []
    if matched == 0:
        raise DataError("no label matches an interaction of this run (keys are session_id, "
                        "qa_id)", source=lab.source or "labels")
    if unmatched:
        notes.append(f"{unmatched} labelled item(s) are not in this run and were left out")
    if ties:
        notes.append(f"{ties} item(s) whose human raters tied were left out")
    group = np.array([a_idx[m.assistant_id] for m in results], dtype=np.int64)
    task_keys: dict[Any, int] = {}
    task = np.array([task_keys.setdefault((m.assistant_id, m.task_id) if m.task_id is not None
                                          else ("", m.session_id, i), len(task_keys))
                     for i, m in enumerate(results)], dtype=np.int64)
    both = ~np.isnan(human) & ~np.isnan(judge)
    ig = group[conv]
    agreement = [_agreement_row("all", human[both], judge[both], level)]
    for g, name in enumerate(agents):
        sel = both & (ig == g)
        if len(np.unique(human[sel])) == 2:
            agreement.append(_agreement_row(name, human[sel], judge[sel], level))
    seed = int(getattr(mode, "rng_seed", 0) or 0)
    pymc = bayesian and getattr(mode, "method", "") == "hierarchical"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", je.JudgeNotIdentifiedWarning)
        cc = je.conversation_correction(conv, judge, human, group, bayesian=bayesian,
                                        level=level, pooled=pooled,
                                        draws=int(getattr(mode, "mc_samples", 4000) or 4000),
                                        seed=seed,
                                        cluster=_task_clusters(results) if cluster == "task"
                                        else cluster == "conversation",
                                        backend="pymc" if pymc else "gibbs",
                                        sampler=getattr(mode, "sampler", None))
        out = je.correct_conversations(conv, judge, human, group, task, k=settings.k,
                                       bayesian=bayesian, level=level,
                                       a=float(getattr(mode, "beta_prior_a", 1.0)),
                                       b=float(getattr(mode, "beta_prior_b", 1.0)),
                                       seed=seed, correction=cc)
    conf_all = je.confusion(human[both], judge[both])
    full_judged = np.ones(len(results), bool)
    np.logical_and.at(full_judged, conv, judge == 1)
    complete = np.ones(len(results), bool)
    np.logical_and.at(complete, conv, ~np.isnan(judge) | given)
    corrected = []
    for key, c in out.items():
        name = "all" if key < 0 else agents[key]
        in_g = np.ones(conv.size, bool) if key < 0 else ig == key
        members = np.ones(len(results), bool) if key < 0 else group == key
        unl = in_g & np.isnan(human) & ~np.isnan(judge)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", je.JudgeNotIdentifiedWarning)
            rg = je.rogan_gladen(int(np.sum(judge[unl] == 1)), int(unl.sum()), conf_all,
                                 level=level, warn=False)
        lab_g = in_g & both
        ppi = (math.nan,) * 3
        if lab_g.sum() >= 2 and unl.sum() >= 1:
            ppi = je.ppi_mean(human[lab_g], judge[lab_g], judge[unl], level=level)
        if bayesian:
            rate, rate_method = c.interaction_rate, "latent-truth posterior of the rate"
        else:
            rate, rate_method = (rg.estimate, rg.low, rg.high), rg.method
        judged_g = in_g & ~np.isnan(judge)
        cm = members & complete
        corrected.append(CorrectedRow(
            group=name, conversations=int(members.sum()), interactions=int(in_g.sum()),
            labelled=int(np.sum(in_g & ~np.isnan(human))),
            judge_rate=float(np.mean(judge[judged_g])) if judged_g.any() else math.nan,
            rate=rate[0], rate_low=rate[1], rate_high=rate[2], rate_method=rate_method,
            ppi_rate=ppi[0], ppi_rate_low=ppi[1], ppi_rate_high=ppi[2],
            share=c.share[0], share_low=c.share[1], share_high=c.share[2],
            judge_share=float(full_judged[cm].mean()) if cm.any() else math.nan,
            basis=c.basis, pass_at_k=c.pass_at_k[0], pass_at_k_low=c.pass_at_k[1],
            pass_at_k_high=c.pass_at_k[2], pass_pow_k=c.pass_pow_k[0],
            pass_pow_k_low=c.pass_pow_k[1], pass_pow_k_high=c.pass_pow_k[2],
            identified=c.identified and (bayesian or rg.identified), method=c.method,
            note=(je.NOT_IDENTIFIED_BAYES if bayesian and not c.identified
                  else c.note or ("" if (bayesian or rg.identified) else je.NOT_IDENTIFIED))))
    if not all(r.identified for r in corrected):
        warnings.warn(je.NOT_IDENTIFIED_BAYES if bayesian else je.NOT_IDENTIFIED,
                      je.JudgeNotIdentifiedWarning, stacklevel=2)
    cmp_fields = _corrected_comparisons(results, agents, cc, settings.k, level, bayesian, seed)
    quality, quality_draws = _corrected_quality(out, agents, settings.k, bayesian)
    icc = je.error_clustering((human[both] != judge[both]).astype(float),
                              _task_clusters(results)[conv][both], seed=seed)
    if icc[1] < 0.01 and icc[0] > 0.05:
        notes.append(f"{je.CORRELATED_ERRORS} (ICC {icc[0]:.2f}, permutation p {icc[1]:.3f})")
        warnings.warn(f"agenteval: {je.CORRELATED_ERRORS}", je.CorrelatedJudgeErrorsWarning,
                      stacklevel=2)
    dis = [{"session_id": m.session_id, "qa_id": r.qa_id, "assistant_id": m.assistant_id,
            "score": r.score, "judge": int(v), "human": int(human[i])}
           for i, (m, _, r, v) in enumerate(rows) if both[i] and v != human[i]]
    alpha, raters = _alpha(lab, rows, judge, settings.threshold, level,
                           seed=int(getattr(mode, "rng_seed", 0) or 0))
    cal = Calibration(k=settings.k, level=level, labels_source=lab.source, ratings=len(lab),
                      matched=matched, unmatched=unmatched, ties=ties, agreement=agreement,
                      alpha=alpha[0], alpha_low=alpha[1], alpha_high=alpha[2], raters=raters,
                      disagreements=dis, corrected=corrected, notes=notes,
                      diagnostics=cc.diagnostics, error_icc=icc[0], error_icc_p=icc[1],
                      quality=quality, **cmp_fields)
    cal._quality_draws = quality_draws
    return cal


def _alpha(lab: Labels, rows: list[Any], judge: np.ndarray, threshold: float, level: float,
           *, seed: int) -> tuple[tuple[float, float, float], list[str]]:
    """Krippendorff's alpha over the run's judge and every rater (each repeat its own row)."""
    ratings = lab.ratings(threshold)
    items = sorted({key for per in ratings.values() for key in per})
    if not items:
        return (math.nan,) * 3, []
    col = {key: i for i, key in enumerate(items)}
    matrix = []
    names = ["judge"]
    run = np.full(len(items), np.nan)
    for (m, _, r, _), v in zip(rows, judge, strict=True):
        key = (m.session_id, r.qa_id)
        if key in col and not np.isnan(v):
            run[col[key]] = v
    matrix.append(run)
    for name, per in ratings.items():
        depth = max(len(v) for v in per.values())
        names.append(name if depth == 1 else f"{name} x{depth}")
        for rep in range(depth):
            row = np.full(len(items), np.nan)
            for key, v in per.items():
                if rep < len(v):
                    row[col[key]] = v[rep]
            matrix.append(row)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        alpha = je.krippendorff_alpha(np.vstack(matrix), level=level, n_boot=1000, seed=seed)
    return alpha, names


# --------------------------------------------------------------------------- planning

_BY = ("verdict", "agent", "task", "length")


class LabelPlanResult(BaseModel):
    """Which interactions to label next, and the interval width expected after."""

    model_config = ConfigDict(extra="forbid")

    by: list[str] = _f("Strata: the judge's verdict crossed with these.")
    level: float
    labelled: int = _f("Interactions with a human truth now.")
    add: int = _f("Labels the plan adds.")
    width_now: float = _f("Expected width of the corrected interaction rate's interval now "
                          "(inf while a stratum has no label).")
    width_after: float = _f("Expected width after labelling the plan.")
    width_proportional: float = _f("Expected width after as many labels spread in proportion "
                                   "to stratum size (what the plan gains over it).")
    strata: list[dict[str, Any]] = _f("Per stratum: key, size, labelled, labels to add.")
    items: list[dict[str, str]] = _f("Interactions to label, drawn at random within each "
                                     "stratum (seeded): session_id, qa_id.")
    notes: list[str] = Field(default_factory=list)

    def to_text(self) -> str:
        lines = [f"label plan (strata: judge verdict x {', '.join(self.by[1:]) or 'nothing'}; "
                 f"{self.labelled} labelled now, {self.add} more):",
                 f"expected {self.level:.0%} interval width of the corrected rate: now "
                 f"{self.width_now:.3f}, after {self.width_after:.3f} (same labels spread by "
                 f"stratum size: {self.width_proportional:.3f})"]
        head = f"{'stratum':<40}{'items':>7}{'labelled':>10}{'add':>6}"
        lines += [head, "-" * len(head)]
        for s in self.strata:
            lines.append(f"{s['stratum'][:39]:<40}{s['items']:>7}{s['labelled']:>10}{s['add']:>6}")
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(self.to_text())}</pre>"


def plan_labels(results: Any, labels: Any = None, *, add: int | None = None,
                target_width: float | None = None, by: Sequence[str] = ("agent",),
                seed: int = 0) -> LabelPlanResult:
    """How many more labels, and which interactions, narrow the corrected rate's interval most.

    ``results``: a run (``Agentic.run``, or ``agenteval.load_results`` of its ``results.json``);
    ``labels``: the
    labels so far (as for :func:`calibrate`; default the run's own). Strata are the judge's
    verdict crossed with ``by`` (any of 'agent', 'task', 'length'); the allocation and widths
    are :func:`agenteval.statistical.judge_error.plan_labels` (checked by simulation in its
    tests). Give ``add`` (labels to add) or ``target_width``.
    """
    from agenteval.errors import ConfigError

    bad = [b for b in by if b not in _BY[1:]]
    if bad:
        raise ConfigError(f"by must name 'agent', 'task' or 'length', got {bad[0]!r}")
    lab = as_labels(labels) if labels is not None else results.labels
    truth = lab.truth(results.settings.threshold)[0] if lab is not None else {}
    rows = [(m, r, v) for m, _, r, v in judge_verdicts(results) if not math.isnan(v)]
    if not rows:
        raise ConfigError("no judged interaction to plan labels for")
    judge = np.array([v for *_, v in rows])
    human = np.array([truth.get((m.session_id, r.qa_id), math.nan) for m, r, _ in rows])

    def key(m: Any) -> str:
        parts = []
        for b in by:
            if b == "agent":
                parts.append(m.assistant_id)
            elif b == "task":
                parts.append(str(m.task_id))
            else:
                n = len(m.interactions)
                parts.append("length 1" if n <= 1 else "length 2-3" if n <= 3 else "length 4+")
        return " / ".join(parts)

    extra = np.array([key(m) for m, _, _ in rows], dtype=object)
    plan = je.plan_labels(judge, human, extra, add=add, target_width=target_width,
                          level=float(results.settings.mode.ci_level))
    rng = np.random.default_rng(seed)
    items = []
    strata = []
    for (verdict, ex), n_add, n_lab, avail, in zip(plan.strata, plan.add, plan.labelled,
                                                   plan.available, strict=True):
        name = f"judge {'correct' if verdict else 'wrong'}" + (f" / {ex}" if ex else "")
        strata.append({"stratum": name, "items": n_lab + avail, "labelled": n_lab, "add": n_add})
        cand = np.flatnonzero((judge == verdict) & (extra == ex) & np.isnan(human))
        for i in rng.choice(cand, size=min(n_add, cand.size), replace=False):
            items.append({"session_id": rows[i][0].session_id, "qa_id": rows[i][1].qa_id})
    return LabelPlanResult(by=["verdict", *by], level=plan.level,
                           labelled=int(np.sum(~np.isnan(human))), add=plan.total_add,
                           width_now=plan.width_now, width_after=plan.width_after,
                           width_proportional=plan.width_proportional, strata=strata,
                           items=items, notes=plan.notes)
