"""Result containers of the RAG metrics: per-case results with all their evidence, and a summary.

``RagResults`` is a ``list`` of per-case results (``PrecisionCase`` or ``RecallCase``) with
``summary()``, ``to_dataframe()`` (one row per case), ``details_dataframe()`` (one row per node
or statement), ``to_json()`` and an HTML view. Every verdict says where it came from
(``source``: ``"label"`` from the data, ``"judge"``, ``"rule"`` for what needs no judge, or
``"error"`` when the judgment failed); a failed judgment is never counted as irrelevant or
unsupported: the score is None and ``score_low``/``score_high`` bound what it could be.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from agenteval._util.jsonsafe import json_safe as _json_safe
from agenteval.judge.base import JudgeRun
from agenteval.statistical.rag_counts import RagValues

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NodeJudgment", "PrecisionCase", "RAG_RESULTS_VERSION", "RagResults", "RagSummary",
           "RecallCase", "SearchScore", "StatementJudgment"]

RAG_RESULTS_VERSION = "agenteval-rag-1"


@dataclass
class NodeJudgment:
    """One retrieved node and whether it is relevant, with why."""

    search: int
    """Index of the search (in the case's order) the node came from."""
    rank: int
    """1-based rank in the ranking that was scored (its search, or the flattened list)."""
    text: str
    id: str | None
    relevant: bool | None
    """None when the judgment failed (see ``error``)."""
    reason: str
    source: str
    """'label' (given in the data), 'judge', or 'error'."""
    error: str | None = None


@dataclass
class SearchScore:
    """One scored ranking: a search with its query (or, flattened, all searches in order)."""

    query: str
    tool: str | None
    score: float | None
    """Contextual precision of this ranking; None when a verdict is missing."""
    nodes: list[NodeJudgment]
    score_low: float | None = None
    """Lowest precision the unknown verdicts allow (equals ``score`` when all are known)."""
    score_high: float | None = None
    """Highest precision the unknown verdicts allow."""

    @property
    def relevant(self) -> int:
        return sum(n.relevant is True for n in self.nodes)

    @property
    def judge_errors(self) -> int:
        return sum(n.relevant is None for n in self.nodes)


@dataclass
class PrecisionCase:
    """Contextual precision of one case."""

    case_id: str
    question: str
    expected_answer: str | None
    score: float | None
    """Mean over searches of their precision (the flattened ranking's with ``flatten=True``);
    None when any verdict is missing."""
    score_weighted: float | None
    """Mean over searches weighted by their result counts."""
    searches: list[SearchScore]
    flattened: bool
    judge_errors: list[str] = field(default_factory=list)
    """One line per failed verdict: where (search, rank) and why."""
    score_low: float | None = None
    """Bounds of ``score`` over the unknown verdicts (equal to it when all are known)."""
    score_high: float | None = None

    @property
    def hits(self) -> list[NodeJudgment]:
        """Relevant nodes."""
        return [n for s in self.searches for n in s.nodes if n.relevant is True]

    @property
    def misses(self) -> list[NodeJudgment]:
        """Nodes judged or labelled not relevant."""
        return [n for s in self.searches for n in s.nodes if n.relevant is False]

    def _repr_html_(self) -> str:
        from agenteval.present.rag import precision_case_html

        return precision_case_html(self)


@dataclass
class StatementJudgment:
    """One statement of the expected answer and whether the retrieved context supports it."""

    index: int
    text: str
    attributable: bool | None
    """None when the judgment failed."""
    reason: str
    source: str
    """'label', 'judge', 'rule' (no node retrieved: nothing can support it) or 'error'."""
    supporting_search: int | None = None
    """Search and 1-based rank of the supporting node, when the judge names one."""
    supporting_rank: int | None = None
    supporting_text: str | None = None
    error: str | None = None


@dataclass
class RecallCase:
    """Contextual recall of one case."""

    case_id: str
    question: str
    expected_answer: str | None
    score: float | None
    """attributable / total statements; None when a verdict (or the statements) is missing."""
    attributable: int
    total: int
    statements: list[StatementJudgment]
    searches: list[dict[str, Any]]
    """Per search: query, tool, nodes, and how many statements it supports."""
    judge_errors: list[str] = field(default_factory=list)
    score_low: float | None = None
    score_high: float | None = None
    posterior_mean: float | None = None
    """Bayesian mode: posterior mean of the case's recall (Beta-Binomial); frequentist: None."""
    ci_low: float | None = None
    """Interval of the case's recall: Beta posterior (Bayesian) or Wilson (frequentist)."""
    ci_high: float | None = None

    @property
    def unknown(self) -> int:
        return sum(s.attributable is None for s in self.statements)

    def _repr_html_(self) -> str:
        from agenteval.present.rag import recall_case_html

        return recall_case_html(self)


@dataclass
class RagSummary(RagValues):
    """Across cases: the mean with its interval, how many were scored, and what failed.

    The numbers are :class:`~agenteval.statistical.rag_counts.RagValues` (computed by
    ``summarise_rag``); the summary adds the judge that gave the verdicts and the format version.
    """

    judge: dict[str, Any] = field(default_factory=dict)
    """The judge's description (model, prompt version), empty for results without a judge."""
    version: str = RAG_RESULTS_VERSION

    def to_dict(self) -> dict[str, Any]:
        return _json_safe(asdict(self))

    def to_dataframe(self) -> pd.DataFrame:
        """One row: the headline numbers."""
        import pandas as pd

        row = {k: v for k, v in asdict(self).items() if k not in ("extra", "judge", "version")}
        row.update({k: v for k, v in self.extra.items() if not isinstance(v, (dict, list))})
        return pd.DataFrame([row]).set_index("metric")

    def to_text(self) -> str:
        from agenteval.present.rag import summary_text

        return summary_text(self)

    def _repr_html_(self) -> str:
        from agenteval.present.rag import summary_html

        return summary_html(self)

    def __str__(self) -> str:
        return self.to_text()


class RagResults(list):  # type: ignore[type-arg]
    """Per-case results of one RAG metric run (a list), with summary and exports.

    The run's table of counts (``statistical.rag_counts.RagCounts``, built by the metric from
    the cases it scored) is held with the mode; the summary is computed from them once, on
    first use (``statistical.rag_counts.summarise_rag``), and every view renders it. Results
    read from a file hold the summary as it was written (and no table).
    """

    def __init__(self, cases: list[Any], *, metric: str, summary: RagSummary | None = None,
                 settings: dict[str, Any], judge_run: JudgeRun | None = None,
                 mode: Any = None, counts: Any = None, judge: dict[str, Any] | None = None
                 ) -> None:
        super().__init__(cases)
        if summary is None and (counts is None or mode is None):
            from agenteval.errors import ConfigError

            raise ConfigError("RagResults needs its summary, or the table of counts and the mode")
        self.metric = metric
        self.settings = settings
        self.judge_run = judge_run
        self.mode = mode
        self.counts = counts
        """The table every summary number is a function of (None when read from a file)."""
        self.provenance: dict[str, Any] = {}
        """Manifest entries of the caller (the CLI's command and data file), as for agentic runs."""
        self._judge = dict(judge or {})
        self._summary = summary

    def summary(self) -> RagSummary:
        """Mean over cases with its interval, counts of scored cases and failed verdicts
        (computed once from the table of counts and the mode)."""
        if self._summary is None:
            from agenteval.statistical.rag_counts import summarise_rag

            values = summarise_rag(self.counts, self.mode)
            self._summary = RagSummary(**asdict(values), judge=self._judge)
        return self._summary

    def to_dataframe(self) -> pd.DataFrame:
        """One row per case."""
        import pandas as pd

        rows = []
        for case in self:
            row: dict[str, Any] = {"case_id": case.case_id, "score": case.score,
                                   "score_low": case.score_low, "score_high": case.score_high}
            if isinstance(case, PrecisionCase):
                row.update(score_weighted=case.score_weighted, searches=len(case.searches),
                           nodes=sum(len(s.nodes) for s in case.searches),
                           relevant=len(case.hits),
                           search_scores=[s.score for s in case.searches])
            else:
                row.update(attributable=case.attributable, total=case.total,
                           posterior_mean=case.posterior_mean, ci_low=case.ci_low,
                           ci_high=case.ci_high)
            row["judge_errors"] = len(case.judge_errors)
            rows.append(row)
        return pd.DataFrame(rows)

    def details_dataframe(self) -> pd.DataFrame:
        """One row per node (precision) or per statement (recall), with verdict and reason."""
        import pandas as pd

        rows = []
        for case in self:
            if isinstance(case, PrecisionCase):
                for s_index, search in enumerate(case.searches):
                    for node in search.nodes:
                        rows.append({"case_id": case.case_id, "ranking": s_index,
                                     "query": search.query, **asdict(node)})
            else:
                for st in case.statements:
                    rows.append({"case_id": case.case_id, **asdict(st)})
        return pd.DataFrame(rows)

    def to_json(self) -> dict[str, Any]:
        """Everything, JSON-safe: the manifest (as for agentic results), settings, summary, and
        every case with its evidence."""
        from agenteval.results.manifest import build_rag_manifest

        return _json_safe({
            "version": RAG_RESULTS_VERSION, "metric": self.metric,
            "manifest": build_rag_manifest(self), "settings": self.settings,
            "summary": asdict(self.summary()), "cases": [asdict(c) for c in self],
        })

    def save(self, out: Any) -> list[Any]:
        """Write what ``agenteval rag METRIC --out OUT`` writes (``agenteval.results.write``):
        the cases, details and summary as CSV, an HTML report and ``METRIC.json``, atomically
        and as one set. Returns the files written."""
        from agenteval.results.write import save_rag

        return save_rag(self, out)

    @classmethod
    def from_json(cls, payload: Any) -> RagResults:
        """Rebuild results (no judging) from :meth:`to_json` output, or a path to a file of it."""
        import json
        from pathlib import Path

        from agenteval.errors import DataError

        if isinstance(payload, (str, Path)):
            with open(payload, encoding="utf-8") as fh:
                payload = json.load(fh)
        if not isinstance(payload, dict) or payload.get("version") != RAG_RESULTS_VERSION:
            raise DataError(f"not agenteval RAG results (expected version {RAG_RESULTS_VERSION!r})")
        try:
            cases = [_case_from_dict(payload["metric"], c) for c in payload["cases"]]
            raw = dict(payload["summary"])
            for key in ("mean", "ci_low", "ci_high"):
                raw[key] = math.nan if raw.get(key) is None else raw[key]
            summary = RagSummary(**raw)
        except (KeyError, TypeError) as exc:
            raise DataError(f"malformed RAG results: {exc}") from None
        results = cls(cases, metric=payload["metric"], summary=summary,
                      settings=dict(payload.get("settings") or {}))
        manifest = payload.get("manifest")
        results.provenance = dict(manifest) if isinstance(manifest, dict) else {}
        return results

    def _repr_html_(self) -> str:
        from agenteval.present.rag import results_html

        return results_html(self)

    def __repr__(self) -> str:
        return f"RagResults({self.metric}, {len(self)} cases)"


def _case_from_dict(metric: str, data: dict[str, Any]) -> Any:
    data = dict(data)
    if metric == "contextual_precision":
        data["searches"] = [SearchScore(**{**s, "nodes": [NodeJudgment(**n) for n in s["nodes"]]})
                            for s in data["searches"]]
        return PrecisionCase(**data)
    data["statements"] = [StatementJudgment(**st) for st in data["statements"]]
    return RecallCase(**data)
