"""The Agentic metric: per-conversation answer and tool correctness, pass@k and pass^k.

A conversation is a unit; an interaction is correct when its judge score reaches ``threshold``
and, where tools were involved, its tool use is correct. Interactions the judge could not score
are kept out of n and c and reported, never counted as wrong.

Outcomes from any grader (``metrics/outcomes.py``): a conversation with ``Dataset.outcome`` is
one graded unit (n = 1, c = its success) and no judge is asked about it; an interaction with
``Batch.score`` takes that score instead of the judge's (success by the outcome rule, and its
tool use must still be correct). Every result says where it came from (``source``).

    >>> from agenteval import Agentic, BayesianMode
    >>> results = Agentic.run("data/agentic_demo.jsonl", k=3,
    ...                       statistical_mode=BayesianMode())          # doctest: +SKIP
    >>> results.summary()                                               # doctest: +SKIP
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from agenteval._util.gc import collector_paused, existing_objects_frozen
from agenteval.core.inspect_logs import check_complete
from agenteval.core.retriever import iter_dataset_blocks, load_datasets, streams
from agenteval.errors import ConfigError, JudgeError, check_k, check_unit
from agenteval.judge.base import AnswerItem, Judge, JudgeFailure, UtilizationItem, Verdict
from agenteval.judge.offline import OfflineJudge
from agenteval.judge.resolve import resolve_judge
from agenteval.metrics.arguments import check_argument_matching
from agenteval.metrics.evidence import MAX_RESULT_CHARS
from agenteval.metrics.outcomes import check_outcome_threshold, outcome_success
from agenteval.metrics.tools import ToolScorer, normalize_tool_weights
from agenteval.schemas.common import Batch, Dataset
from agenteval.schemas.results import InteractionResult, ToolCorrectnessScore
from agenteval.schemas.run import RunSettings
from agenteval.statistical.estimators import (
    pass_at_k,
    pass_at_k_unbiased,
    pass_pow_k,
    pass_pow_k_unbiased,
)
from agenteval.statistical.modes import FrequentistMode, StatisticalMode

if TYPE_CHECKING:
    from agenteval.results.agentic import AgenticResults


UNRESOLVED_UTILIZATION = (
    "tool results not found in the answer and no final_answer_uses_tools flag: an LLM judge "
    "(or the flag in the data) decides whether the answer used them"
)

__all__ = ["Agentic", "pass_at_k", "pass_pow_k", "pass_at_k_unbiased", "pass_pow_k_unbiased"]


class _Slot(NamedTuple):
    """One interaction and where it sits: its conversation's position and data (a tuple: a
    suite makes one per interaction)."""

    conversation: int
    interaction: int
    dataset: Dataset
    batch: Batch
    given: bool
    """Correctness comes with the data (the conversation's outcome or the interaction's score):
    no answer judgment is needed."""


@dataclass(frozen=True)
class _Given:
    """A score that came with the data, and whether it is a success."""

    score: float
    success: bool
    whole: bool  # the conversation's outcome (True) or the interaction's own score


def _given(slot: _Slot, settings: RunSettings) -> _Given:
    """The interaction's own score where given, else its conversation's outcome."""
    ds, value = slot.dataset, slot.batch.score
    if value is None:
        value = ds.outcome
    assert value is not None  # only called for given slots
    return _Given(float(value), outcome_success(value, threshold=settings.outcome_threshold),
                  whole=ds.outcome is not None)


class Agentic:
    """Fair Forge-compatible entry point: ``Agentic.run(retriever, model, k, ...)``."""

    @classmethod
    def run(
        cls,
        retriever: Any,
        model: Any = None,
        k: int | None = None,
        *,
        threshold: float = 0.7,
        tool_threshold: float = 1.0,
        tool_weights: Mapping[str, float] | None = None,
        statistical_mode: StatisticalMode | None = None,
        verbose: bool = False,
        use_structured_output: bool = True,
        bos_json_clause: str = "```json",
        eos_json_clause: str = "```",
        strict: bool = False,
        include_history: bool = False,
        outcome_threshold: float | None = None,
        argument_matching: Mapping[str, Any] | None = None,
        input_format: str | None = None,
        scorer: str | None = None,
        progress: bool | None = None,
        graders: Sequence[Any] | None = None,
        rubric: str | Sequence[str] | None = None,
        rubric_scale: str = "pass_fail",
        grader_outcome: str | Sequence[str] | None = None,
        grader_concurrency: int = 4,
        labels: Any = None,
        **retriever_kwargs: Any,
    ) -> AgenticResults:
        """Evaluate every conversation and return per-conversation and suite results.

        Args:
            retriever: a Retriever class (instantiated with ``retriever_kwargs``, as in Fair Forge)
                or instance, a path to a .jsonl/.json file, a list of Datasets or dicts, or a
                pandas DataFrame with one row per interaction.
            model: the judge: None (offline rules), a Judge, a model name or an openai/instructor
                client (LLM judge).
            k: attempts for pass@k / pass^k (integer >= 1).
            threshold: judge score needed for an answer to count as correct, in [0, 1].
            tool_threshold: tool correctness needed for tool use to count as correct, in [0, 1].
            tool_weights: weights of selection / parameters / sequence / utilization.
            statistical_mode: FrequentistMode() (default) or BayesianMode().
            strict: raise JudgeError when a judge call fails instead of reporting it (budget
                cuts and missing references stay reported), and DataError for conversations
                from an incomplete Inspect log (``metadata["incomplete"]``).
            include_history: show the judge the conversation's earlier turns.
            outcome_threshold: where the data gives outcomes or scores (``Dataset.outcome``,
                ``Batch.score``), the value a success needs; None (default): within 1e-6 of 1.
            argument_matching: run-wide argument-matching rules, e.g. ``{"*": "normalized",
                "search.limit": "numeric:0.01"}`` (see ``agenteval.metrics.arguments``); rules
                in the data's ``ground_truth_agentic`` take precedence.
            input_format: force how a file is read: "auto" (default: by suffix and content),
                "agenteval", "taubench" or "inspect".
            scorer: Inspect logs with several scorers: which one gives the outcome.
            progress: None shows progress bars once a phase takes more than a moment, False
                turns them off (the judge's too), True always shows them.
            graders: your own graders (see ``agenteval.graders``): Python functions
                ``grade(case, judge)``, ``"module:function"`` strings, ``ScriptGrader``
                commands (AgentV's contract); each gives every interaction an extra named score.
            rubric: criteria judged by the LLM judge on every interaction (added to the data's
                ``rubric`` fields); their grader is named "rubric".
            rubric_scale: "pass_fail" (default) or "grade" (0-1 in quarters, passed when >=
                ``threshold``).
            grader_outcome: the name(s) of graders (e.g. "rubric") whose pass decides each
                interaction's correctness instead of the answer judge (all must pass; a grader
                error is a judge error, out of n and c). Tool correctness still applies.
            grader_concurrency: Python or script graders running at once.
            labels: human labels to calibrate the judge against (a labels file, records or a
                {(session_id, qa_id): 0/1} mapping; see ``agenteval.core.labels``), added to any
                ``label`` / ``human_score`` in the data: ``results.calibration()`` then holds
                the judge's agreement and the corrected headline.
        """
        if k is None:
            raise ConfigError("k is required: the number of attempts for pass@k, an integer >= 1")
        k = check_k(k)
        threshold = check_unit("threshold", threshold)
        tool_threshold = check_unit("tool_threshold", tool_threshold)
        weights = normalize_tool_weights(tool_weights)
        outcome_threshold = check_outcome_threshold(outcome_threshold)
        matching = check_argument_matching(argument_matching)
        mode = statistical_mode if statistical_mode is not None else FrequentistMode()
        given_labels = None
        if labels is not None:   # a bad labels file fails before any judge call
            from agenteval.core.labels import as_labels

            given_labels = as_labels(labels)
        settings = RunSettings(
            k=k, threshold=threshold, tool_threshold=tool_threshold, tool_weights=weights,
            mode=mode, outcome_threshold=outcome_threshold, argument_matching=matching,
        )
        results = own_graders = None
        if ((model is None or isinstance(model, OfflineJudge)) and not graders
                and rubric is None and grader_outcome is None
                and streams(retriever, input_format=input_format, scorer=scorer,
                            **retriever_kwargs)):
            # one JSONL file, the offline judge: read, judged and scored a block at a time
            judge = resolve_judge(model, use_structured_output=use_structured_output,
                                  bos_json_clause=bos_json_clause,
                                  eos_json_clause=eos_json_clause)
            results = _streamed(retriever, judge, settings, strict=strict,
                                include_history=include_history, verbose=verbose,
                                progress=progress)
            if results is not None:
                attach_labels(results, (), given_labels)
        if results is None:
            datasets = load_datasets(retriever, input_format=input_format, scorer=scorer,
                                     **retriever_kwargs)   # with the collector paused
            if strict:  # an incomplete Inspect log is an error, not a warning (issue 18.5)
                check_complete(datasets)
            judge = resolve_judge(
                model,
                use_structured_output=use_structured_output,
                bos_json_clause=bos_json_clause,
                eos_json_clause=eos_json_clause,
            )
            data_has_rubric = _has_rubric(datasets)
            if graders or rubric is not None or grader_outcome is not None or data_has_rubric:
                from agenteval.graders.run import resolve_graders

                own_graders = resolve_graders(
                    graders, rubric=rubric, rubric_scale=rubric_scale, outcome=grader_outcome,
                    data_has_rubric=data_has_rubric)
            results = evaluate(datasets, judge, settings, strict=strict,
                               include_history=include_history, verbose=verbose,
                               progress=progress, graders=own_graders,
                               grader_concurrency=grader_concurrency)
            attach_labels(results, datasets, given_labels)
        from agenteval.results.manifest import describe_call  # the results' manifest

        results.provenance.update(describe_call(retriever, model, k, threshold=threshold,
                                                tool_threshold=tool_threshold,
                                                statistical_mode=mode, strict=strict))
        if own_graders:
            from agenteval.graders.run import describe_graders

            results.provenance["graders"] = describe_graders(own_graders)
        return results


class _NeedsWhole(Exception):
    """A block of a streamed file holds what needs the whole suite at once (rubrics, labels)."""


def _streamed(path: Any, judge: Judge, settings: RunSettings, *, strict: bool,
              include_history: bool, verbose: bool, progress: bool | None
              ) -> AgenticResults | None:
    """The run over a JSONL file read a block at a time (``core.retriever.iter_dataset_blocks``);
    None when the data has rubrics or labels (the caller then loads it whole)."""
    def blocks() -> Iterable[Sequence[Dataset]]:
        for block in iter_dataset_blocks(path, block=BLOCK):
            if _needs_whole(block):
                raise _NeedsWhole
            if strict:
                check_complete(block)
            yield block

    try:
        # Reading, the offline judge and tool scoring make no reference cycles (validated
        # models, tuples, dicts; tests/metrics/test_agentic.py checks it), so the collector is
        # paused for the whole run: with it on, each block's million objects were walked once
        # when reading resumed it (before they could be frozen) and the results built meanwhile
        # by every full collection, about a tenth of the run. Memory is freed by reference
        # counting as before; a cycle made anyway waits for the collector to resume at the end.
        with collector_paused():
            return _evaluate(blocks(), judge, settings, strict=strict,
                             include_history=include_history, verbose=verbose,
                             progress=progress, blocks=True)
    except _NeedsWhole:
        return None


def _needs_whole(block: Sequence[Dataset]) -> bool:
    """A rubric or labels in the block: graders and the judge's calibration see the whole
    suite at once."""
    from agenteval.core.labels import has_labels

    return _has_rubric(block) or has_labels(block)


def _has_rubric(datasets: Sequence[Dataset]) -> bool:
    """A rubric on a conversation or on one of its interactions."""
    return any(ds.rubric or any(b.rubric for b in ds.conversation) for ds in datasets)


def attach_labels(results: AgenticResults, datasets: Sequence[Dataset], labels: Any) -> None:
    """Give ``results`` the labels in the data plus ``labels`` (a Labels object or None)."""
    from agenteval.core.labels import labels_from_datasets

    found = labels_from_datasets(datasets)
    if labels is not None:
        found = labels + found if len(found) else labels
    if len(found):
        results.labels = found


def evaluate(
    datasets: Sequence[Dataset],
    judge: Judge,
    settings: RunSettings,
    *,
    strict: bool = False,
    include_history: bool = False,
    verbose: bool = False,
    progress: bool | None = None,
    graders: Sequence[Any] | None = None,
    grader_concurrency: int = 4,
) -> AgenticResults:
    """Judge all interactions in one batch (so an LLM judge runs them concurrently), score tool
    use, then estimate per conversation in one vectorised call. ``graders``: resolved by
    ``agenteval.graders.run.resolve_graders``."""
    # the offline judge and tool scoring make no cycles (see _streamed): no collection at all;
    # an LLM judge or graders may (their clients, your code): full collections skip the data
    quiet = isinstance(judge, OfflineJudge) and not graders
    with collector_paused() if quiet else existing_objects_frozen():
        return _evaluate(datasets, judge, settings, strict=strict,
                         include_history=include_history, verbose=verbose, progress=progress,
                         graders=graders, grader_concurrency=grader_concurrency)


BLOCK = 10_000
"""Conversations judged and scored at a time by the offline judge (no graders): what a run
holds beside its results is one block's objects, whatever the suite's size. LLM judges and
graders see the whole suite in one batch (their concurrency, budgets and fail-fast span it)."""


def _blocks(datasets: Sequence[Dataset], judge: Judge, graders: Any) -> list[Sequence[Dataset]]:
    if graders or not isinstance(judge, OfflineJudge) or len(datasets) <= BLOCK:
        return [datasets]
    return [datasets[i:i + BLOCK] for i in range(0, len(datasets), BLOCK)]


def _evaluate(
    datasets: Sequence[Dataset] | Iterable[Sequence[Dataset]],
    judge: Judge,
    settings: RunSettings,
    *,
    strict: bool,
    include_history: bool,
    verbose: bool,
    progress: bool | None = None,
    graders: Sequence[Any] | None = None,
    grader_concurrency: int = 4,
    blocks: bool = False,
) -> AgenticResults:
    """``blocks``: ``datasets`` is an iterable of blocks of conversations (read one at a time)."""
    from agenteval.results.agentic import AgenticResults, without_data  # what run() returns
    from agenteval.results.columns import Columns

    include_history = include_history or bool(getattr(judge, "include_history", False))
    if progress is not None and hasattr(judge, "progress"):
        judge.progress = progress  # one switch for every phase's bar
    if progress is not None and hasattr(settings.mode, "progress"):
        settings.mode.progress = progress  # the MCMC fits' bars too
    run = judge.start_run()
    parts, ns, cs, groups = [], [], [], []
    total = known = 0
    for block in (datasets if blocks else _blocks(datasets, judge, graders)):  # type: ignore[arg-type]
        part, n_b, c_b, total_b, known_b = _evaluate_block(
            block, judge, settings, strict=strict, include_history=include_history,
            progress=progress, graders=graders, grader_concurrency=grader_concurrency)
        parts.append(part)
        ns.append(n_b)
        cs.append(c_b)
        groups.extend(ds.assistant_id for ds in block)
        total += total_b
        known += known_b
    n = np.concatenate(ns).astype(np.int64)
    c = np.concatenate(cs).astype(np.int64)
    est = without_data(settings.mode.estimate_units(n, c, settings.k, groups=groups), n)
    # Interactions and judgments are different units: keep both, named (issue 9).
    run.details["interactions"] = {"total": total, "judged": known, "not_judged": total - known}
    with np.errstate(invalid="ignore", divide="ignore"):
        unbiased_at = pass_at_k_unbiased(n, c, settings.k)
        unbiased_pow = pass_pow_k_unbiased(n, c, settings.k)
    columns = Columns.concat(parts)
    for key, values in (
            ("pass_at_k", est.pass_at_k), ("pass_at_k_ci_low", est.pass_at_k_low),
            ("pass_at_k_ci_high", est.pass_at_k_high), ("pass_pow_k", est.pass_pow_k),
            ("pass_pow_k_ci_low", est.pass_pow_k_low), ("pass_pow_k_ci_high", est.pass_pow_k_high),
            ("pass_at_k_unbiased", unbiased_at), ("pass_pow_k_unbiased", unbiased_pow)):
        columns.conv[key] = (np.asarray(values, dtype=float).reshape(n.size).copy(), None)
    results = AgenticResults(settings=settings, judge_run=run, method=est.method,
                             columns=columns)
    if verbose:
        print(results.summary().to_text())
    return results


def _evaluate_block(
    datasets: Sequence[Dataset],
    judge: Judge,
    settings: RunSettings,
    *,
    strict: bool,
    include_history: bool,
    progress: bool | None,
    graders: Sequence[Any] | None,
    grader_concurrency: int,
) -> tuple[Any, np.ndarray, np.ndarray, int, int]:
    """One block of conversations judged and scored: its columns (without the estimates, which
    need the whole suite), n, c, interactions and judged interactions."""
    from agenteval.results.columns import Columns, interaction_columns

    slots = [_Slot(i, j, ds, batch, ds.outcome is not None or batch.score is not None)
             for i, ds in enumerate(datasets) for j, batch in enumerate(ds.conversation)]
    own: list[Any] = [None] * len(slots)  # per interaction: its graders' results
    graded: list[Any] = [None] * len(slots)
    if graders:
        from agenteval.graders.run import grade

        own = grade([_grader_case(s) for s in slots], graders, judge,
                    threshold=settings.threshold, concurrency=grader_concurrency)
        graded = [_graded(r) for r in own]
    judged = [s for s, g in zip(slots, graded) if not s.given and g is None]
    tools: list[ToolCorrectnessScore | None] | None = None
    if type(judge) is OfflineJudge:
        answers, tools = _judge_and_score(judge, slots, graded, settings, progress)
    else:  # one batch: an LLM judge runs it concurrently
        answers = judge.judge_answers([_answer_item(s, include_history) for s in judged])
    _raise_if_strict(strict, answers, judged)
    _raise_if_strict(strict, [g for s, g in zip(slots, graded) if not s.given and g is not None],
                     [s for s, g in zip(slots, graded) if not s.given and g is not None])
    verdicts = iter(answers)
    outcomes: list[Verdict | JudgeFailure | _Given | _Graded] = [
        _given(s, settings) if s.given else g if g is not None else next(verdicts)
        for s, g in zip(slots, graded)]

    if tools is None:
        tools = _score_all(slots, settings, progress)
    tools, tool_failures = _resolve_ambiguous_utilization(judge, tools, slots, settings, strict)

    rows = [_interaction_result(slot.batch, outcome, tool, tool_failures.get(index), settings,
                                own[index])
            for index, (slot, outcome, tool) in enumerate(zip(slots, outcomes, tools))]
    size = len(datasets)
    lengths = np.array([len(ds.conversation) for ds in datasets], dtype=np.int64)
    inter, start = interaction_columns(rows, lengths)
    # per conversation, from the interaction columns: its judged, correct, wrong and given ones
    of = np.repeat(np.arange(size), lengths)
    tri = inter["is_correct"]  # -1 unknown, 0 wrong, 1 correct

    def per_conversation(flags: np.ndarray) -> list[int]:
        return np.bincount(of, weights=flags, minlength=size).astype(np.int64).tolist()

    known, right = per_conversation(tri >= 0), per_conversation(tri == 1)
    wrong, given = per_conversation(tri == 0), per_conversation(inter["source"] == 1)
    whole = [ds.outcome is not None for ds in datasets]
    n = np.array([1 if w else k for w, k in zip(whole, known)], dtype=np.int64)
    c = np.array([int(outcome_success(ds.outcome, threshold=settings.outcome_threshold))
                  if ds.outcome is not None else r for ds, r in zip(datasets, right)],
                 dtype=np.int64)
    nan = [math.nan] * size   # the estimates: filled in for the whole suite (_evaluate)
    conversations: dict[str, Any] = {
        "session_id": [ds.session_id for ds in datasets],
        "assistant_id": [ds.assistant_id for ds in datasets],
        "task_id": [ds.task_id for ds in datasets],
        "attempt": [ds.attempt for ds in datasets],
        "source": ["given" if w else _source(g, m) for w, g, m in zip(whole, given,
                                                                      lengths.tolist())],
        "total_interactions": n, "correct_interactions": c,
        "is_fully_correct": [bool(c_i) if w else _fully_correct(x, k, m)
                             for w, c_i, x, k, m in zip(whole, c.tolist(), wrong, known,
                                                        lengths.tolist())],
        "threshold": np.full(size, settings.threshold), "k": np.full(size, settings.k),
        "judge_errors": [0 if w else m - k for w, k, m in zip(whole, known, lengths.tolist())],
        **{key: nan for key in ("pass_at_k", "pass_at_k_ci_low", "pass_at_k_ci_high",
                                "pass_pow_k", "pass_pow_k_ci_low", "pass_pow_k_ci_high",
                                "pass_at_k_unbiased", "pass_pow_k_unbiased")},
    }
    return (Columns.with_interactions(conversations, inter, start), n, c, len(slots),
            int(np.count_nonzero(tri >= 0)))


_PROGRESS_CHUNK = 512
"""Interactions scored between two progress updates (a bar update per item costs more than
scoring many of them)."""


def _chunks(slots: Sequence[_Slot], phase: str,
            enabled: bool | None) -> Iterator[tuple[int, Sequence[_Slot]]]:
    """``(start, chunk)`` of ``_PROGRESS_CHUNK`` slots at a time, the bar advanced after each,
    shown once the phase takes more than a moment (see :mod:`agenteval.judge.progress`)."""
    from agenteval.judge.progress import Progress

    with Progress(len(slots), phase, enabled=enabled) as bar:
        for start in range(0, len(slots), _PROGRESS_CHUNK):
            chunk = slots[start:start + _PROGRESS_CHUNK]
            yield start, chunk
            bar.update(len(chunk))


def _score_all(slots: Sequence[_Slot], settings: RunSettings,
               progress: bool | None) -> list[ToolCorrectnessScore | None]:
    """Tool scores of every interaction."""
    scorer = _tool_scorer(settings)
    scores: list[ToolCorrectnessScore | None] = []
    for _start, chunk in _chunks(slots, "scoring tool use", progress):
        scores.extend([_score_tools(s.batch, settings, scorer=scorer) for s in chunk])
    return scores


def _judge_and_score(judge: OfflineJudge, slots: Sequence[_Slot], graded: Sequence[Any],
                     settings: RunSettings, progress: bool | None,
                     ) -> tuple[list[Any], list[ToolCorrectnessScore | None]]:
    """The offline judge's outcomes (for the slots neither given nor graded) and every slot's
    tool score, a chunk of interactions at a time: an answer the judge has just read is still
    in the number parser's cache (``parse_text``) when the evidence search reads it."""
    scorer = _tool_scorer(settings)
    answers: list[Any] = []
    tools: list[ToolCorrectnessScore | None] = []
    enabled = judge.progress if progress is None else progress
    for start, chunk in _chunks(slots, "judging answers and scoring tool use (offline)", enabled):
        answers.extend(judge.judge_texts(
            [(s.batch.assistant, s.batch.ground_truth_assistant)
             for s, g in zip(chunk, graded[start:start + _PROGRESS_CHUNK])
             if not s.given and g is None]))
        tools.extend([_score_tools(s.batch, settings, scorer=scorer) for s in chunk])
    return answers, tools


def _tool_scorer(settings: RunSettings) -> ToolScorer:
    return ToolScorer(weights=settings.tool_weights, threshold=settings.tool_threshold,
                      argument_matching=settings.argument_matching)


def _answer_item(slot: _Slot, include_history: bool) -> AnswerItem:
    ds, batch = slot.dataset, slot.batch
    history: tuple[tuple[str, str], ...] = ()
    if include_history:
        history = tuple((b.query, b.assistant) for b in ds.conversation[:slot.interaction])
    return AnswerItem(
        query=batch.query, answer=batch.assistant, ground_truth=batch.ground_truth_assistant,
        context=ds.context if include_history else "", history=history,
        qa_id=batch.qa_id, session_id=ds.session_id,
    )


def _score_tools(batch: Batch, settings: RunSettings, utilization_override: float | None = None,
                 *, scorer: ToolScorer | None = None) -> ToolCorrectnessScore | None:
    """Tool use is scored where the data says what was expected; ``expected_tools: []`` means
    no tool should be called, while no ``ground_truth_agentic`` at all means no expectation.
    ``scorer``: the run's (``_tool_scorer``), when scoring many."""
    if batch.ground_truth_agentic is None:
        return None
    if scorer is None:
        scorer = _tool_scorer(settings)
    return scorer(batch.agentic, batch.ground_truth_agentic, batch.assistant,
                  utilization_override=utilization_override, query=batch.query)


def _count_unresolved(judge: Judge, unresolved: int, cut: int) -> None:
    """Count the tool-use questions no judgment could decide in the judge's record (the judge
    line's errors, a "tool use" phase), and those where a result was cut at the search cap."""
    if not unresolved:
        return
    run = judge.run_record
    run.errors += unresolved
    phase = run.details.setdefault("judgments", {}).setdefault(
        "tool use", {"items": 0, "verdicts": 0, "errors": 0, "budget": 0, "cache_hits": 0,
                     "cached_failures": 0})
    phase["items"] += unresolved
    phase["errors"] += unresolved
    run.details["unresolved_tool_use"] = run.details.get("unresolved_tool_use", 0) + unresolved
    if cut:
        run.details["tool_results_cut_at_search_cap"] = (
            run.details.get("tool_results_cut_at_search_cap", 0) + cut)


def _resolve_ambiguous_utilization(
    judge: Judge,
    tools: list[ToolCorrectnessScore | None],
    slots: list[_Slot],
    settings: RunSettings,
    strict: bool,
) -> tuple[list[ToolCorrectnessScore | None], dict[int, JudgeFailure]]:
    """Ask a capable judge whether the answer used the tool results, where evidence is ambiguous.

    Returns the tool scores (judged ones replaced) and, by interaction index, the judgments that
    failed or that nothing could make (no judge for it and no self-reported flag): those
    interactions are decided below without a guess.
    """
    ambiguous = [i for i, t in enumerate(tools) if t is not None
                 and t.utilization_evidence == "ambiguous"
                 and slots[i].dataset.outcome is None]  # a given outcome decides on its own
    batches = [slots[i].batch for i in ambiguous]
    resolved, failures = list(tools), {}
    if not judge.supports_utilization:
        cut = 0
        for i, b in zip(ambiguous, batches):
            if b.agentic is None or b.agentic.final_answer_uses_tools is None:
                capped = tools[i].result_cut  # type: ignore[union-attr]
                cut += capped
                failures[i] = JudgeFailure(UNRESOLVED_UTILIZATION + (
                    f"; a tool result was searched only in its first {MAX_RESULT_CHARS:,} "
                    "characters" if capped else ""), kind="unresolved")
        _count_unresolved(judge, len(failures), cut)
        return resolved, failures
    if not ambiguous:
        return resolved, failures
    items = [
        UtilizationItem(
            query=b.query, answer=b.assistant,
            tool_results=tuple((t.tool_name, t.result) for t in (b.agentic.tools_used if b.agentic else [])),
            qa_id=b.qa_id, session_id=slots[i].dataset.session_id,
        )
        for i, b in zip(ambiguous, batches)
    ]
    outcomes = judge.judge_utilization(items)
    _raise_if_strict(strict, outcomes, [slots[i] for i in ambiguous])
    for i, b, outcome in zip(ambiguous, batches, outcomes):
        if isinstance(outcome, Verdict):
            resolved[i] = _score_tools(b, settings, utilization_override=outcome.score)
        else:
            failures[i] = outcome
    return resolved, failures


def _interaction_result(batch: Batch, outcome: Verdict | JudgeFailure | _Given | _Graded,
                        tool: ToolCorrectnessScore | None, tool_failure: JudgeFailure | None,
                        settings: RunSettings, graders: Any = None) -> InteractionResult | _Judged:
    """Correct = answer score >= threshold and tool use correct; None where it hinges on a
    judgment that failed. A given outcome decides alone; a given score replaces the judge's
    (a success by the outcome rule instead of ``threshold``)."""
    if isinstance(outcome, JudgeFailure):
        return InteractionResult(qa_id=batch.qa_id, score=None, reasoning=outcome.cause,
                                 tool_correctness=tool, is_correct=None,
                                 judge_error=f"{outcome.kind}: {outcome.cause}",
                                 judge_error_code=getattr(outcome, "code", "") or None,
                                 graders=graders)
    if tool_failure is None and type(outcome) is Verdict and type(outcome.reasoning) is str:
        score = float(outcome.score)  # the usual case: every value already of its field's type
        return _Judged(batch.qa_id, score, outcome.reasoning, tool,
                       score >= settings.threshold and (tool is None or tool.is_correct),
                       None, None, "judged", graders)
    if isinstance(outcome, _Given):
        if outcome.whole:
            return InteractionResult(qa_id=batch.qa_id, score=outcome.score,
                                     reasoning="given with the data (the conversation is graded "
                                     "by its outcome)",
                                     tool_correctness=tool, is_correct=outcome.success,
                                     source="given", graders=graders)
        score, passed, reasoning, source = (outcome.score, outcome.success,
                                            "score given with the data", "given")
    elif isinstance(outcome, _Graded):
        score, passed, reasoning, source = (outcome.score, outcome.passed, outcome.reason,
                                            "judged")
    else:
        score = float(outcome.score)
        passed, reasoning, source = score >= settings.threshold, outcome.reasoning, "judged"
    correct: bool | None = passed and (tool is None or tool.is_correct)
    error = code = None
    if tool_failure is not None and passed:
        best = _score_tools(batch, settings, utilization_override=1.0)
        if best is not None and best.is_correct:  # full utilisation would pass: unknown
            correct = None
            error = f"tool-result use: {tool_failure.kind}: {tool_failure.cause}"
            code = getattr(tool_failure, "code", "") or None
    return InteractionResult(qa_id=batch.qa_id, score=score, reasoning=reasoning,
                             tool_correctness=tool, is_correct=correct, judge_error=error,
                             judge_error_code=code, source=source, graders=graders)


class _Judged(NamedTuple):
    """A judged interaction's result as ``Columns.build`` reads it: the fields of
    ``InteractionResult``, in order, which the results build again from the columns on access.
    The usual interaction's values are already of the fields' types, so no model is made
    (a suite makes one per interaction)."""

    qa_id: str
    score: float
    reasoning: str
    tool_correctness: ToolCorrectnessScore | None
    is_correct: bool
    judge_error: None
    judge_error_code: None
    source: str
    graders: Any


@dataclass(frozen=True)
class _Graded:
    """Correctness decided by the run's outcome graders (all must pass)."""

    score: float
    passed: bool
    reason: str


def _graded(results: Sequence[Any]) -> _Graded | JudgeFailure | None:
    """The outcome graders' verdict on one interaction: a known failure if any failed, a judge
    error if one could not grade it and none failed, a pass if all passed; None: no outcome
    grader applies here (the answer judge decides)."""
    decisive = [r for r in results if r.outcome]
    if not decisive:
        return None
    known = [r for r in decisive if r.error is None]
    reason = "; ".join(f"{r.name}: {r.reason}" if r.reason else r.name for r in known)
    if any(r.passed is False for r in known):
        return _Graded(sum(r.score for r in known) / len(known), False, reason)
    failed = next((r for r in decisive if r.error is not None), None)
    if failed is not None:
        return JudgeFailure(f"grader {failed.name!r}: {failed.error}", kind="error",
                            code=failed.error_code or "")
    return _Graded(sum(r.score for r in known) / len(known), True, reason)


def _grader_case(slot: _Slot) -> Any:
    """What a grader sees of one interaction (``agenteval.graders.base.GraderCase``)."""
    from agenteval.graders.base import GraderCase, ToolUse

    ds, batch = slot.dataset, slot.batch
    used = batch.agentic.tools_used if batch.agentic is not None else []
    expected = (batch.ground_truth_agentic.expected_tools
                if batch.ground_truth_agentic is not None else [])
    return GraderCase(
        session_id=ds.session_id, assistant_id=ds.assistant_id, task_id=ds.task_id,
        qa_id=batch.qa_id, index=slot.interaction, query=batch.query, answer=batch.assistant,
        expected=batch.ground_truth_assistant, context=ds.context,
        history=tuple((b.query, b.assistant) for b in ds.conversation[:slot.interaction]),
        tool_calls=tuple(ToolUse(t.tool_name, dict(t.parameters), t.result) for t in used),
        expected_tools=tuple(ToolUse(t.tool_name, dict(t.parameters)) for t in expected),
        rubric=tuple(dict.fromkeys((ds.rubric or []) + (batch.rubric or []))),
        metadata=dict(ds.metadata))


def _source(given: int, interactions: int) -> str:
    """'given', 'judged' or 'mixed': where the correctness of a conversation not graded as a
    whole came from, from how many of its interactions had it given."""
    if interactions and given == interactions:
        return "given"
    return "judged" if interactions and not given else "mixed"


def _fully_correct(wrong: int, judged: int, interactions: int) -> bool | None:
    """False if an interaction is wrong; None if the rest are right but some are unjudged."""
    if wrong:
        return False
    return None if judged < interactions else True


def _raise_if_strict(strict: bool, outcomes: Sequence[Any], slots: Sequence[_Slot]) -> None:
    if not strict:
        return
    for slot, outcome in zip(slots, outcomes):
        if isinstance(outcome, JudgeFailure) and outcome.kind == "error":
            raise JudgeError(f"judge failed on session '{slot.dataset.session_id}', qa_id "
                             f"'{slot.batch.qa_id}': {outcome.kind}: {outcome.cause}")
