"""The table of a RAG run and its summary: the mean over cases as a pure function of the table.

A :class:`RagCounts` holds one entry per case in flat, read-only numpy arrays: the case's score
(NaN when a verdict is missing), the bounds its unknown verdicts allow, the result-count-weighted
score (precision), the attributable and total statements (recall), and how many verdicts failed,
came from labels or from the judge. The RAG metrics build it once from the cases they scored;
:func:`summarise_rag` turns it and the mode into every number of the summary (the results hold
the value, the views render it):

* **mean over cases** with the bounded Bayesian bootstrap interval
  (``statistical.rag.mean_interval``), in both modes, with the mode's own draws and seed
  (``FrequentistMode(bootstrap_samples=, rng_seed=)``, ``BayesianMode(mc_samples=, rng_seed=)``);
  Bayesian recall carries each case's Beta(a + x, b + n - x) posterior into it (seeded draws);
* **pooled recall** over the scored cases' statements: exact Beta posterior (Bayesian) or the
  mode's Wilson / Clopper-Pearson interval (frequentist);
* **mean_weighted** (precision): mean of the scored cases' result-count-weighted scores;
* **mean_bounds**, when a verdict failed: the mean over all cases whatever the unknown verdicts
  turn out to be (a case without bounds counts as anywhere in [0, 1]).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agenteval.errors import ConfigError
from agenteval.statistical import rag as rm

__all__ = ["METRICS", "RagCounts", "RagValues", "build_rag_counts", "summarise_rag"]

METRICS = ("contextual_precision", "contextual_recall")


def _floats(name: str, values: Any, size: int) -> np.ndarray:
    arr = np.array([np.nan if v is None else v for v in values], dtype=np.float64).ravel() \
        if not isinstance(values, np.ndarray) else values.astype(np.float64).ravel()
    if arr.size != size:
        raise ConfigError(f"{name} must have one entry per case ({size}), got {arr.size}")
    arr.setflags(write=False)
    return arr


def _ints(name: str, values: Any, size: int) -> np.ndarray:
    arr = np.asarray(values, dtype=np.int64).ravel() if size else np.zeros(0, dtype=np.int64)
    if arr.size != size:
        raise ConfigError(f"{name} must have one entry per case ({size}), got {arr.size}")
    if np.any(arr < 0):
        raise ConfigError(f"{name} must be >= 0")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class RagCounts:
    """Per case, what a RAG summary is a function of (see the module docstring)."""

    metric: str
    """'contextual_precision' or 'contextual_recall'."""
    score: np.ndarray
    """The case's score; NaN when a verdict (or the statements) is missing."""
    score_low: np.ndarray
    """Lowest score the unknown verdicts allow; NaN when there is no bound (counts as 0)."""
    score_high: np.ndarray
    """Highest score the unknown verdicts allow; NaN when there is no bound (counts as 1)."""
    judge_errors: np.ndarray
    """Failed verdicts of the case (nodes, statements, or its statement extraction)."""
    labelled: np.ndarray
    """Verdicts taken from labels in the data."""
    judged: np.ndarray
    """Verdicts the judge gave."""
    score_weighted: np.ndarray = field(default=None)  # type: ignore[assignment]
    """Precision: the case's result-count-weighted score (NaN for recall)."""
    attributable: np.ndarray = field(default=None)  # type: ignore[assignment]
    """Recall: statements supported by the context (0 for precision)."""
    total: np.ndarray = field(default=None)  # type: ignore[assignment]
    """Recall: statements of the expected answer (0 for precision)."""
    flattened: bool = False
    """Precision: one flattened ranking per case (else the mean over its searches)."""

    @property
    def size(self) -> int:
        """Cases."""
        return int(self.score.size)

    @property
    def scored(self) -> np.ndarray:
        """Cases with a score."""
        return ~np.isnan(self.score)


def build_rag_counts(metric: str, *, score: Any, score_low: Any, score_high: Any,
                     judge_errors: Any, labelled: Any, judged: Any, score_weighted: Any = None,
                     attributable: Any = None, total: Any = None,
                     flattened: bool = False) -> RagCounts:
    """A :class:`RagCounts` from plain per-case columns (None or NaN where a value is missing).

    >>> t = build_rag_counts("contextual_recall", score=[0.5, None], score_low=[0.5, 0.25],
    ...                      score_high=[0.5, 0.75], judge_errors=[0, 1], labelled=[2, 0],
    ...                      judged=[0, 3], attributable=[1, 1], total=[2, 4])
    >>> t.size, t.scored.tolist()
    (2, [True, False])
    """
    if metric not in METRICS:
        raise ConfigError(f"metric must be one of {METRICS}, got {metric!r}")
    score_arr = _floats("score", score, len(score))
    size = score_arr.size
    if np.any((score_arr < 0) | (score_arr > 1)):
        raise ConfigError("scores must lie in [0, 1]")
    zeros = np.zeros(size, dtype=np.int64)
    counts = RagCounts(
        metric=metric, score=score_arr, score_low=_floats("score_low", score_low, size),
        score_high=_floats("score_high", score_high, size),
        judge_errors=_ints("judge_errors", judge_errors, size),
        labelled=_ints("labelled", labelled, size), judged=_ints("judged", judged, size),
        score_weighted=_floats("score_weighted", np.full(size, np.nan) if score_weighted is None
                               else score_weighted, size),
        attributable=_ints("attributable", zeros if attributable is None else attributable, size),
        total=_ints("total", zeros if total is None else total, size),
        flattened=bool(flattened))
    if np.any(counts.attributable > counts.total):
        raise ConfigError("attributable statements must not exceed the total")
    return counts


@dataclass
class RagValues:
    """Across cases: the mean with its interval, how many were scored, and what failed (every
    number of a RAG summary; ``results.rag.RagSummary`` extends it with the judge and format
    version)."""

    metric: str
    cases: int
    scored: int
    """Cases with a score (no missing verdict)."""
    mean: float
    """Mean over scored cases (Bayesian mode: posterior mean, see ``method``)."""
    ci_low: float
    ci_high: float
    method: str
    judge_errors: int
    """Verdicts that failed (nodes or statements), plus cases whose statements failed."""
    labelled: int
    """Verdicts taken from labels in the data (no judge call)."""
    judged: int
    """Verdicts the judge gave."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Precision: ``mean_weighted`` (of the result-count-weighted case scores); recall: the
    ``pooled`` statement-level recall with its interval; both, when verdicts failed,
    ``mean_bounds`` (low, high): the mean over all cases whatever those verdicts turn out to be."""


def _percent(level: float) -> str:
    return f"{level * 100:g}%"


def _draws_and_seed(mode: Any) -> tuple[int, int | None]:
    from agenteval.statistical.modes import BayesianMode

    n_draws = mode.mc_samples if isinstance(mode, BayesianMode) else mode.bootstrap_samples
    return int(n_draws), mode.rng_seed


def _mean_over_cases(counts: RagCounts, mode: Any, draws: np.ndarray | None
                     ) -> tuple[float, float, float, str]:
    """Mean over scored cases with the bounded Bayesian bootstrap interval (both modes: it is
    the method whose coverage holds near 0 and 1, see ``statistical.rag.mean_interval``)."""
    level = mode.ci_level
    n_draws, seed = _draws_and_seed(mode)
    mean, lo, hi = rm.mean_interval(counts.score if draws is None else draws, level=level,
                                    draws=n_draws, seed=seed)
    what = ("posterior mean over cases of the per-case Beta posteriors; interval: bounded "
            "Bayesian bootstrap" if draws is not None
            else "mean over cases; interval: bounded Bayesian bootstrap")
    return mean, lo, hi, f"{what} {_percent(level)} ({n_draws} seeded draws)"


def _mean_bounds(counts: RagCounts) -> dict[str, float] | None:
    if counts.scored.all():
        return None
    low = np.where(np.isnan(counts.score_low), 0.0, counts.score_low)
    high = np.where(np.isnan(counts.score_high), 1.0, counts.score_high)
    return {"low": float(np.mean(low)), "high": float(np.mean(high))}


def _recall_pooled_and_draws(counts: RagCounts, mode: Any
                             ) -> tuple[dict[str, Any], np.ndarray | None]:
    """The pooled statement-level recall of the scored cases and, Bayesian, the per-case
    posterior draws of recall (seeded; NaN for unscored cases) the mean is taken over."""
    from agenteval.statistical.modes import BayesianMode

    a = counts.attributable.astype(np.float64)
    n = counts.total.astype(np.float64)
    scored = counts.scored
    level = mode.ci_level
    sa, sn = a[scored].sum(), n[scored].sum()
    if isinstance(mode, BayesianMode):
        pa, pb = mode.beta_prior_a, mode.beta_prior_b
        mean, lo, hi = rm.beta_recall(sa, sn, prior_a=pa, prior_b=pb, level=level)
        method = (f"pooled statements, Beta-Binomial exact {_percent(level)} "
                  f"(prior Beta({pa:g}, {pb:g}))")
        rng = np.random.default_rng(mode.rng_seed)
        draws = rng.beta(pa + a, pb + n - a, size=(mode.mc_samples, counts.size))
        draws[:, ~scored] = np.nan
    else:
        from agenteval.statistical.estimators import clopper_pearson_interval, wilson_interval

        name = getattr(mode, "interval", "wilson")
        interval = clopper_pearson_interval if name == "clopper-pearson" else wilson_interval
        mean = float(sa / sn) if sn else math.nan
        lo, hi = interval(sa, sn, level) if sn else (math.nan, math.nan)
        method = f"pooled statements, {name} {_percent(level)}"
        draws = None
    pooled = {"mean": float(mean), "ci_low": float(lo), "ci_high": float(hi), "method": method,
              "attributable": int(a[scored].sum()), "statements": int(n[scored].sum())}
    return pooled, draws


def summarise_rag(counts: RagCounts, mode: Any) -> RagValues:
    """Every number of a RAG summary from the run's table ``counts`` under ``mode`` (see the
    module docstring); deterministic given the mode's seed."""
    if counts.metric == "contextual_recall":
        pooled, draws = _recall_pooled_and_draws(counts, mode)
        mean, lo, hi, method = _mean_over_cases(counts, mode, draws)
        extra: dict[str, Any] = {"pooled": pooled}
    else:
        mean, lo, hi, method = _mean_over_cases(counts, mode, None)
        method += ("; one flattened ranking per case" if counts.flattened
                   else "; case = mean over its searches")
        wm = np.where(counts.scored, counts.score_weighted, np.nan)
        extra = {"mean_weighted": float(np.nanmean(wm)) if np.isfinite(wm).any() else math.nan}
    if (bounds := _mean_bounds(counts)) is not None:
        extra["mean_bounds"] = bounds
    return RagValues(
        metric=counts.metric, cases=counts.size, scored=int(counts.scored.sum()), mean=mean,
        ci_low=lo, ci_high=hi, method=method, judge_errors=int(counts.judge_errors.sum()),
        labelled=int(counts.labelled.sum()), judged=int(counts.judged.sum()), extra=extra)
