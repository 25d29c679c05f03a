"""RAG metrics: contextual precision (per node) and contextual recall (per statement).

Each node and each statement gets its own self-contained verdict (one judge request each, never
one call for a whole list whose verdict count could drift from the nodes), all of a run sent in
one batch so an LLM judge runs them concurrently with its cache, budget, retries and
accounting. Labels in the data (``relevant`` on a node, ``attributable`` on a statement) are
used as they are and cost no call. A verdict that fails is reported where it happened, the
case's score is None, and ``score_low``/``score_high`` bound it; it is never counted as
irrelevant or unsupported.

    >>> from agenteval.metrics.rag import ContextualPrecision, ContextualRecall
    >>> precision = ContextualPrecision.run("data/rag_demo.jsonl")      # doctest: +SKIP
    >>> print(precision.summary())                                      # doctest: +SKIP

Formulas (``agenteval.statistical.rag``): precision of a ranking = (1/R) sum_k P@k r_k; recall =
attributable / total statements. Several searches in one case are scored one by one (the query
kept with each) and the case score is their mean, with the result-count-weighted mean reported
next to it; ``flatten=True`` concatenates them into one ranking instead. Recall always checks
statements against the combined context of all searches.

The metrics end with the run's table of counts (``agenteval.statistical.rag_counts.RagCounts``:
per case its score, bounds, known and unknown statements, verdict counts); the summary (mean
over cases with the mode's seeded interval, pooled recall, bounds) is a pure function of that
table and the mode, computed once by the results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from agenteval._util.aio import run_sync
from agenteval.core.rag import RagCase, RagNode, load_rag_cases
from agenteval.errors import ConfigError, JudgeError
from agenteval.judge.base import Judge, JudgeFailure
from agenteval.judge.resolve import resolve_judge
from agenteval.judge.verdicts import AttributionItem, NodeRelevanceItem, StatementsItem
from agenteval.statistical import rag as rm
from agenteval.statistical import rag_counts
from agenteval.statistical.modes import BayesianMode, FrequentistMode, StatisticalMode

if TYPE_CHECKING:
    from agenteval.results.rag import RagResults

__all__ = ["ContextualPrecision", "ContextualRecall"]


# --------------------------------------------------------------------------- shared plumbing


def _mode(statistical_mode: Any) -> StatisticalMode:
    if statistical_mode is None:
        return FrequentistMode()
    if isinstance(statistical_mode, str):
        names = {"frequentist": FrequentistMode, "bayesian": BayesianMode}
        if statistical_mode.lower() not in names:
            raise ConfigError("statistical_mode must be FrequentistMode(), BayesianMode(), "
                              f"'frequentist' or 'bayesian', got {statistical_mode!r}")
        return names[statistical_mode.lower()]()
    if not isinstance(statistical_mode, (FrequentistMode, BayesianMode)):
        raise ConfigError("statistical_mode must be FrequentistMode() or BayesianMode(), got "
                          f"{type(statistical_mode).__name__}")
    return statistical_mode


def _check_flags(**flags: Any) -> None:
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise ConfigError(f"{name} must be True or False, got {value!r}")


def _ask(judge: Judge, method: str, items: list[Any]) -> list[Any]:
    """All items in one batch through the judge's async method (failures if it has none)."""
    if not items:
        return []
    fn = getattr(judge, f"a{method}", None)
    if fn is None:
        return [JudgeFailure(f"{judge.name} judge cannot give RAG verdicts ({method})",
                             kind="unsupported") for _ in items]
    return list(run_sync(fn(items)))


def _distinct(statements: Any) -> list[str]:
    """Non-empty statements, each once (compared case- and whitespace-insensitively)."""
    seen, out = set(), []
    for text in statements:
        key = " ".join(text.split()).casefold()
        if key and key not in seen:
            seen.add(key)
            out.append(text.strip())
    return out


def _failure_text(outcome: JudgeFailure) -> str:
    return f"{outcome.kind}: {outcome.cause}"


def _raise_if_strict(strict: bool, case_id: str, where: str, outcome: Any) -> None:
    if strict and isinstance(outcome, JudgeFailure) and outcome.kind == "error":
        raise JudgeError(f"judge failed on case {case_id!r}, {where}: {_failure_text(outcome)}")


def _single(outcome: Any) -> tuple[Any, str] | str:
    """(verdict value, reason) from a one-item verdict list, or an error text."""
    if isinstance(outcome, JudgeFailure):
        return _failure_text(outcome)
    verdicts = list(getattr(outcome, "verdicts", ()))
    if len(verdicts) != 1:
        return f"error: judge returned {len(verdicts)} verdicts for one item"
    v = verdicts[0]
    return v, str(getattr(v, "reasoning", "") or "")


def _settings(metric: str, judge: Judge, mode: StatisticalMode, **extra: Any) -> dict[str, Any]:
    return {"metric": metric, "judge": repr(judge), "statistical_mode": repr(mode),
            "ci_level": mode.ci_level, **extra}


def _record_call(results: RagResults, metric: Any, data: Any, model: Any, **options: Any) -> None:
    """The Python call, for the results' manifest (a CLI run replaces it with its command)."""
    from agenteval.results.manifest import describe_call  # the results' manifest

    results.provenance.update(describe_call(data, model, function=f"{metric.__name__}.run",
                                            **options))


def _judge_dict(judge: Judge) -> dict[str, Any]:
    run = judge.run_record
    return {"judge": run.judge, "calls": run.calls, "cache_hits": run.cache_hits,
            "errors": run.errors, "not_judged_budget": run.not_judged_budget,
            "prompt_tokens": run.prompt_tokens, "completion_tokens": run.completion_tokens,
            **{k: v for k, v in run.details.items() if k not in ("cache",)}}


def _opt(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def _table(metric: str, cases: Sequence[Any], *, flattened: bool = False) -> Any:
    """The run's table of counts (``statistical.rag_counts.RagCounts``) from the scored cases'
    fields: the summary is a function of exactly what the case rows show."""
    precision = metric == ContextualPrecision.name
    verdicts = [[n for s in c.searches for n in s.nodes] if precision else c.statements
                for c in cases]
    return rag_counts.build_rag_counts(
        metric, score=[c.score for c in cases], score_low=[c.score_low for c in cases],
        score_high=[c.score_high for c in cases],
        judge_errors=[len(c.judge_errors) for c in cases],
        labelled=[sum(v.source == "label" for v in vs) for vs in verdicts],
        judged=[sum(v.source == "judge" for v in vs) for vs in verdicts],
        score_weighted=[c.score_weighted for c in cases] if precision else None,
        attributable=None if precision else [c.attributable for c in cases],
        total=None if precision else [c.total for c in cases], flattened=flattened)


# --------------------------------------------------------------------------- precision


@dataclass
class _Ranking:
    case: int
    query: str
    tool: str | None
    nodes: list[tuple[int, RagNode]]  # (search index, node)


def _rankings(case_index: int, case: RagCase, flatten: bool) -> list[_Ranking]:
    if flatten:
        queries = list(dict.fromkeys(s.query for s in case.searches))
        return [_Ranking(case_index, " | ".join(queries), None,
                         [(i, n) for i, s in enumerate(case.searches) for n in s.nodes])]
    return [_Ranking(case_index, s.query, s.tool, [(i, n) for n in s.nodes])
            for i, s in enumerate(case.searches)]


class ContextualPrecision:
    """Are the relevant nodes ranked first? Rank-weighted precision per search, then per case."""

    name = "contextual_precision"

    @classmethod
    def run(cls, data: Any, model: Any = None, *, flatten: bool = False,
            statistical_mode: Any = None, strict: bool = False,
            use_structured_output: bool = True, bos_json_clause: str = "```json",
            eos_json_clause: str = "```", verbose: bool = False) -> RagResults:
        """Score every case.

        Args:
            data: a path (.jsonl, .json, .yaml), a list of dicts or ``RagCase``, a DataFrame.
            model: the judge: None (offline token overlap), a Judge, a model name or an
                openai/instructor client (LLM judge).
            flatten: concatenate a case's searches into one ranking instead of scoring each.
            statistical_mode: FrequentistMode() (default, Student-t over cases) or
                BayesianMode() (Bayesian bootstrap over cases), or their names.
            strict: raise JudgeError at the first failed verdict instead of reporting it.
            use_structured_output: for a model name or client, as in ``Agentic.run``.
            bos_json_clause: where the plain-text mode's JSON starts (as in ``Agentic.run``).
            eos_json_clause: where it ends.
        """
        _check_flags(flatten=flatten, strict=strict)
        cases = load_rag_cases(data)
        mode = _mode(statistical_mode)
        judge = resolve_judge(model, use_structured_output=use_structured_output,
                              bos_json_clause=bos_json_clause, eos_json_clause=eos_json_clause)
        judge.start_run()
        results = score_precision(cases, judge, mode=mode, flatten=flatten, strict=strict)
        _record_call(results, cls, data, model, flatten=flatten, statistical_mode=mode,
                     strict=strict)
        if verbose:
            print(results.summary().to_text())
        return results


def score_precision(cases: Sequence[RagCase], judge: Judge, *, mode: StatisticalMode,
                    flatten: bool = False, strict: bool = False) -> RagResults:
    """Judge every unlabelled node (one request each, one batch), then score all rankings."""
    from agenteval.results.rag import (NodeJudgment, PrecisionCase, RagResults,
                                       SearchScore)  # what run() returns

    rankings = [r for i, c in enumerate(cases) for r in _rankings(i, c, flatten)]
    items, slots = [], []
    for r_index, ranking in enumerate(rankings):
        case = cases[ranking.case]
        for rank, (s_index, node) in enumerate(ranking.nodes, start=1):
            if node.relevant is None:
                slots.append((r_index, rank - 1))
                items.append(NodeRelevanceItem(
                    query=case.question, nodes=(node.text,), ground_truth=case.expected_answer,
                    qa_id=f"search {s_index} rank {rank}", session_id=case.id))
    outcomes = dict(zip(slots, _ask(judge, "judge_node_relevance", items)))

    judged: list[list[NodeJudgment]] = []
    for r_index, ranking in enumerate(rankings):
        case = cases[ranking.case]
        nodes = []
        for pos, (s_index, node) in enumerate(ranking.nodes):
            base = dict(search=s_index, rank=pos + 1, text=node.text, id=node.id)
            if node.relevant is not None:
                nodes.append(NodeJudgment(**base, relevant=node.relevant,
                                          reason="labelled in the data", source="label"))
                continue
            outcome = outcomes[(r_index, pos)]
            _raise_if_strict(strict, case.id, f"search {s_index} rank {pos + 1}", outcome)
            got = _single(outcome)
            if isinstance(got, str):
                nodes.append(NodeJudgment(**base, relevant=None, reason="", source="error",
                                          error=got))
            else:
                verdict, reason = got
                nodes.append(NodeJudgment(**base, relevant=bool(verdict.relevant),
                                          reason=reason, source="judge"))
        judged.append(nodes)

    # scores, vectorised over all rankings
    flags = rm.pad_rankings([[n.relevant for n in nodes] for nodes in judged], fill=False)
    known = np.array([all(n.relevant is not None for n in nodes) for nodes in judged])
    exact = rm.contextual_precision(np.where(known[:, None], flags, False).astype(bool))
    score = np.where(known, exact, np.nan)
    low, high = exact.copy(), exact.copy()
    if not known.all():  # bounds only where a verdict is missing
        unknown_rows = np.flatnonzero(~known)
        low[unknown_rows], high[unknown_rows] = rm.precision_bounds(flags[unknown_rows])
    counts = np.array([len(nodes) for nodes in judged], dtype=float)
    case_of = np.array([r.case for r in rankings], dtype=int)
    mean, weighted = rm.aggregate_searches(score, counts, case_of, n_cases=len(cases))
    mean_lo, _ = rm.aggregate_searches(low, counts, case_of, n_cases=len(cases))
    mean_hi, _ = rm.aggregate_searches(high, counts, case_of, n_cases=len(cases))

    out = []
    by_case: list[list[SearchScore]] = [[] for _ in cases]
    for r_index, (ranking, nodes) in enumerate(zip(rankings, judged)):
        by_case[ranking.case].append(SearchScore(
            query=ranking.query, tool=ranking.tool, score=_opt(score[r_index]), nodes=nodes,
            score_low=_opt(low[r_index]), score_high=_opt(high[r_index])))
    for i, case in enumerate(cases):
        errors = [f"search {n.search} rank {n.rank}: {n.error}" for s in by_case[i]
                  for n in s.nodes if n.error]
        out.append(PrecisionCase(
            case_id=case.id, question=case.question, expected_answer=case.expected_answer,
            score=_opt(mean[i]), score_weighted=_opt(weighted[i]), searches=by_case[i],
            flattened=flatten, judge_errors=errors,
            score_low=_opt(mean_lo[i]), score_high=_opt(mean_hi[i])))

    return RagResults(out, metric=ContextualPrecision.name,
                      counts=_table(ContextualPrecision.name, out, flattened=flatten),
                      judge=_judge_dict(judge),
                      settings=_settings(ContextualPrecision.name, judge, mode, flatten=flatten),
                      judge_run=judge.run_record, mode=mode)


# --------------------------------------------------------------------------- recall


class ContextualRecall:
    """Is every statement of the expected answer supported by what was retrieved?"""

    name = "contextual_recall"

    @classmethod
    def run(cls, data: Any, model: Any = None, *, flatten: bool = False,
            statistical_mode: Any = None, strict: bool = False,
            use_structured_output: bool = True, bos_json_clause: str = "```json",
            eos_json_clause: str = "```", verbose: bool = False) -> RagResults:
        """Score every case; arguments as in :meth:`ContextualPrecision.run`.

        Statements come from the data when given (with their ``attributable`` labels, if any),
        else the judge splits the expected answer (one request per case). Each statement is
        then checked against the combined context of all searches (one request per statement);
        ``flatten`` does not change recall and is accepted for symmetry.
        """
        _check_flags(flatten=flatten, strict=strict)
        cases = load_rag_cases(data)
        mode = _mode(statistical_mode)
        judge = resolve_judge(model, use_structured_output=use_structured_output,
                              bos_json_clause=bos_json_clause, eos_json_clause=eos_json_clause)
        judge.start_run()
        results = score_recall(cases, judge, mode=mode, strict=strict)
        results.settings["flatten"] = flatten
        _record_call(results, cls, data, model, flatten=flatten, statistical_mode=mode,
                     strict=strict)
        if verbose:
            print(results.summary().to_text())
        return results


def score_recall(cases: Sequence[RagCase], judge: Judge, *, mode: StatisticalMode,
                 strict: bool = False) -> RagResults:
    """Split the expected answers that need it, then attribute every unlabelled statement."""
    from agenteval.results.rag import (RagResults, RecallCase,
                                       StatementJudgment)  # what run() returns

    # 1. statements: given, or extracted by the judge (one request per case)
    texts: list[list[str] | None] = []
    labels: list[list[bool | None]] = []
    case_errors: list[list[str]] = [[] for _ in cases]
    need = [i for i, c in enumerate(cases) if c.statements is None and c.expected_answer]
    extracted = dict(zip(need, _ask(judge, "judge_statements", [
        StatementsItem(query=cases[i].question, text=cases[i].expected_answer or "",
                       qa_id="statements", session_id=cases[i].id) for i in need])))
    for i, case in enumerate(cases):
        if case.statements is not None:
            texts.append([s.text for s in case.statements])
            labels.append([s.attributable for s in case.statements])
        elif i in extracted:
            outcome = extracted[i]
            _raise_if_strict(strict, case.id, "statement extraction", outcome)
            if isinstance(outcome, JudgeFailure):
                case_errors[i].append(f"statements: {_failure_text(outcome)}")
                texts.append(None)
                labels.append([])
            else:
                found = _distinct(str(s) for s in outcome.statements)
                texts.append(found)
                labels.append([None] * len(found))
                if not found:
                    case_errors[i].append("statements: the expected answer gave no statement")
        else:
            case_errors[i].append("no_reference: no expected answer and no statements")
            texts.append(None)
            labels.append([])

    # 2. attribution: one request per unlabelled statement, against the combined context
    contexts = [[(s, rank, n) for s, search in enumerate(c.searches)
                 for rank, n in enumerate(search.nodes, start=1)] for c in cases]
    items, slots = [], []
    for i, case in enumerate(cases):
        nodes = tuple(n.text for _, _, n in contexts[i])
        for j, (text, label) in enumerate(zip(texts[i] or [], labels[i])):
            if label is None and nodes:
                slots.append((i, j))
                items.append(AttributionItem(statements=(text,), nodes=nodes, query=case.question,
                                             qa_id=f"statement {j}", session_id=case.id))
    outcomes = dict(zip(slots, _ask(judge, "judge_attribution", items)))

    out = []
    for i, case in enumerate(cases):
        statements = []
        for j, (text, label) in enumerate(zip(texts[i] or [], labels[i])):
            if label is not None:
                statements.append(StatementJudgment(j, text, label, "labelled in the data",
                                                    "label"))
                continue
            if (i, j) not in outcomes:  # no retrieved node: nothing can support it
                statements.append(StatementJudgment(j, text, False, "no node was retrieved",
                                                    "rule"))
                continue
            outcome = outcomes[(i, j)]
            _raise_if_strict(strict, case.id, f"statement {j}", outcome)
            got = _single(outcome)
            if isinstance(got, str):
                statements.append(StatementJudgment(j, text, None, "", "error", error=got))
                case_errors[i].append(f"statement {j}: {got}")
                continue
            verdict, reason = got
            record = StatementJudgment(j, text, bool(verdict.attributed), reason, "judge")
            node = getattr(verdict, "node", None)
            if record.attributable and isinstance(node, int) and 0 <= node < len(contexts[i]):
                s_index, rank, n = contexts[i][node]
                record.supporting_search, record.supporting_rank = s_index, rank
                record.supporting_text = n.text
            statements.append(record)
        supported = [sum(st.supporting_search == s for st in statements)
                     for s in range(len(case.searches))]
        out.append(RecallCase(
            case_id=case.id, question=case.question, expected_answer=case.expected_answer,
            score=None, attributable=sum(st.attributable is True for st in statements),
            total=len(statements), statements=statements,
            searches=[{"query": s.query, "tool": s.tool, "nodes": len(s.nodes),
                       "statements_supported": supported[k]}
                      for k, s in enumerate(case.searches)],
            judge_errors=case_errors[i]))

    # 3. scores, vectorised over cases
    a = np.array([c.attributable for c in out], dtype=float)
    n = np.array([c.total for c in out], dtype=float)
    u = np.array([c.unknown for c in out], dtype=float)
    failed = np.array([bool(c.judge_errors) for c in out])
    share = np.atleast_1d(rm.recall(a, n))
    lo, hi = (np.atleast_1d(x) for x in rm.recall_bounds(a, u, n))
    level = mode.ci_level
    scored = ~failed & (n > 0)
    if isinstance(mode, BayesianMode):  # each case's recall: its Beta-Binomial posterior
        post, ci_lo, ci_hi = (np.atleast_1d(x) for x in rm.beta_recall(
            a, n, prior_a=mode.beta_prior_a, prior_b=mode.beta_prior_b, level=level))
    else:
        from agenteval.statistical.estimators import clopper_pearson_interval, wilson_interval

        interval = (clopper_pearson_interval if getattr(mode, "interval", "wilson") ==
                    "clopper-pearson" else wilson_interval)
        post = np.full(len(out), np.nan)
        ci_lo, ci_hi = (np.atleast_1d(x) for x in interval(a, n, level))
    for i, case in enumerate(out):
        if scored[i]:
            case.score = _opt(share[i])
        if not failed[i] or case.unknown:
            case.score_low, case.score_high = _opt(lo[i]), _opt(hi[i])
        if scored[i]:
            case.posterior_mean = _opt(post[i])
            case.ci_low, case.ci_high = _opt(ci_lo[i]), _opt(ci_hi[i])

    return RagResults(out, metric=ContextualRecall.name,
                      counts=_table(ContextualRecall.name, out), judge=_judge_dict(judge),
                      settings=_settings(ContextualRecall.name, judge, mode),
                      judge_run=judge.run_record, mode=mode)
