"""Agentic.run end to end on small hand-made suites; numbers checked against closed forms."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from scipy import stats

from agenteval import Agentic, BayesianMode, FrequentistMode
from agenteval.errors import ConfigError, DataError, JudgeError
from agenteval.judge.base import AnswerItem, Judge, JudgeFailure, JudgeOutcome, Verdict


def conv(session: str, answers: list[tuple[str, str]], *, agent: str = "a1", task: str | None = None,
         tools: dict | None = None) -> dict:
    """A conversation whose interactions are (answer, ground truth) pairs."""
    batches = []
    for i, (answer, truth) in enumerate(answers):
        b = {"qa_id": f"{session}-{i}", "query": f"question {i}?", "assistant": answer,
             "ground_truth_assistant": truth}
        if tools and i == 0:
            b.update(tools)
        batches.append(b)
    return {"session_id": session, "assistant_id": agent, "task_id": task, "conversation": batches}


SUITE = [
    conv("s1", [("8", "8"), ("Paris", "Paris"), ("4", "4")]),          # 3/3
    conv("s2", [("8", "8"), ("Lyon", "Paris")]),                        # 1/2
    conv("s3", [("nope", "12")], agent="a2"),                           # 0/1
    conv("s4", [("The result is 12.", "12"), ("yes", "yes")], agent="a2"),  # 2/2
]
COUNTS = {"s1": (3, 3), "s2": (2, 1), "s3": (1, 0), "s4": (2, 2)}


def test_counts_and_plugin_estimates() -> None:
    results = Agentic.run(SUITE, k=3)
    assert [m.session_id for m in results] == ["s1", "s2", "s3", "s4"]
    for m in results:
        n, c = COUNTS[m.session_id]
        assert (m.total_interactions, m.correct_interactions) == (n, c)
        assert m.is_fully_correct == (n == c)
        assert m.pass_at_k == pytest.approx(1 - (1 - c / n) ** 3)
        assert m.pass_pow_k == pytest.approx((c / n) ** 3)
        if n >= 3:
            assert m.pass_at_k_unbiased == pytest.approx(1 - math.comb(n - c, 3) / math.comb(n, 3))
        else:
            assert math.isnan(m.pass_at_k_unbiased)
    assert results[1].correct_indices == [0]


def test_bayesian_conversation_estimates_are_exact_posterior_expectations() -> None:
    a, b, k = 2.0, 3.0, 2
    results = Agentic.run(SUITE, k=k, statistical_mode=BayesianMode(beta_prior_a=a, beta_prior_b=b))
    for m in results:
        n, c = COUNTS[m.session_id]
        post = stats.beta(a + c, b + n - c)
        assert m.pass_pow_k == pytest.approx(post.expect(lambda p: p**k), rel=1e-7)
        assert m.pass_at_k == pytest.approx(post.expect(lambda p: 1 - (1 - p) ** k), rel=1e-7)
        assert m.pass_pow_k_ci_low == pytest.approx(post.ppf(0.025) ** k)
        assert m.pass_pow_k_ci_high == pytest.approx(post.ppf(0.975) ** k)
        assert m.pass_at_k_ci_low == pytest.approx(1 - (1 - post.ppf(0.025)) ** k)


def test_suite_summary_rates_per_agent() -> None:
    a, b, k = 1.0, 1.0, 2
    summary = Agentic.run(SUITE, k=k, statistical_mode=BayesianMode()).summary()
    rows = {r.group: r for r in summary.rows}
    assert set(rows) == {"all", "a1", "a2"}
    for group, (N, C) in {"all": (4, 2), "a1": (2, 1), "a2": (2, 1)}.items():
        r = rows[group]
        assert (r.complete, r.fully_correct) == (N, C)
        post = stats.beta(a + C, b + N - C)
        assert r.rate == pytest.approx(post.mean())
        assert (r.rate_low, r.rate_high) == pytest.approx(post.interval(0.95))
        assert r.pass_pow_k == pytest.approx(post.moment(k))


def test_agent_comparisons_bayesian_against_independent_monte_carlo() -> None:
    import numpy as np

    # a1: 3 of 4 conversations fully correct; a2: 1 of 4
    suite = [conv(f"x{i}", [("8" if i < 3 else "9", "8")], agent="a1") for i in range(4)]
    suite += [conv(f"y{i}", [("8" if i < 1 else "9", "8")], agent="a2") for i in range(4)]
    summary = Agentic.run(suite, k=1, statistical_mode=BayesianMode()).summary()
    (cmp,) = summary.comparisons
    assert (cmp.agent_a, cmp.agent_b) == ("a1", "a2")
    assert cmp.difference == pytest.approx(4 / 6 - 2 / 6)
    rng = np.random.default_rng(7)
    draws = rng.beta(4, 2, 400_000) - rng.beta(2, 4, 400_000)
    p = float(np.mean(draws > 0))
    assert cmp.prob_a_better == pytest.approx(p, abs=5 * math.sqrt(p * (1 - p) / 400_000))
    assert cmp.difference_low == pytest.approx(np.quantile(draws, 0.025), abs=0.03)
    assert "P(A > B)" in summary.to_text()


def test_agent_comparison_frequentist_is_newcombe() -> None:
    # Newcombe (1998), Table II example (a): 56/70 vs 48/80 -> 0.2000 [0.0524, 0.3339]
    suite = [conv(f"x{i}", [("8" if i < 56 else "9", "8")], agent="a1") for i in range(70)]
    suite += [conv(f"y{i}", [("8" if i < 48 else "9", "8")], agent="a2") for i in range(80)]
    (cmp,) = Agentic.run(suite, k=1).summary().comparisons
    assert (cmp.difference, cmp.difference_low, cmp.difference_high) == pytest.approx(
        (0.2, 0.0524, 0.3339), abs=5e-5)
    assert math.isnan(cmp.prob_a_better)


def test_frequentist_suite_interval_is_wilson() -> None:
    summary = Agentic.run(SUITE, k=1, statistical_mode=FrequentistMode()).summary()
    r = summary.rows[0]
    assert r.rate == pytest.approx(0.5)
    z, n, p = stats.norm.ppf(0.975), 4, 0.5
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (r.rate_low, r.rate_high) == pytest.approx((centre - half, centre + half))


def test_per_task_unbiased_estimators_average_over_tasks() -> None:
    # task t1: 4 attempts, 1 fully correct; task t2: 3 attempts, 3 correct; t3 has too few attempts
    suite = [conv(f"t1-{i}", [("8" if i == 0 else "9", "8")], task="t1") for i in range(4)]
    suite += [conv(f"t2-{i}", [("8", "8")], task="t2") for i in range(3)]
    suite += [conv(f"t3-{i}", [("8", "8")], task="t3") for i in range(2)]
    row = Agentic.run(suite, k=3).summary().rows[0]
    assert (row.tasks, row.tasks_with_k, row.headline) == (3, 2, "tasks")
    assert row.unbiased_pass_pow_k == row.task_pass_pow_k == row.pass_pow_k
    t1 = 1 - math.comb(3, 3) / math.comb(4, 3)
    assert row.task_pass_at_k == pytest.approx((t1 + 1.0) / 2)
    assert row.task_pass_pow_k == pytest.approx((0.0 + 1.0) / 2)


def test_wrong_tools_make_a_correct_answer_incorrect() -> None:
    tools = {
        "agentic": {"tools_used": [{"tool_name": "calculator", "parameters": {"expression": "2+3"},
                                     "result": 5, "step": 1}], "final_answer_uses_tools": True},
        "ground_truth_agentic": {"expected_tools": [{"tool_name": "calculator",
                                                     "parameters": {"expression": "2+2"}, "step": 1}],
                                 "tool_sequence_matters": False},
    }
    results = Agentic.run([conv("s", [("4", "4")], tools=tools)], k=1)
    m = results[0]
    assert m.correctness_scores == [1.0]
    assert m.tool_correctness_scores[0] is not None and not m.tool_correctness_scores[0].is_correct
    assert m.correct_interactions == 0 and m.is_fully_correct is False


def test_unknown_tool_result_use_is_not_scored_zero_offline() -> None:
    """No evidence in the answer and no flag (as in OpenAI transcripts): unknown, not 0."""
    call = {"tool_name": "search", "parameters": {"q": "tour winner"}, "result": "Tadej Pogacar", "step": 1}
    truth = {"expected_tools": [{"tool_name": "search", "parameters": {"q": "tour winner"}}]}
    no_flag = conv("s1", [("yes", "yes")], tools={"agentic": {"tools_used": [call]},
                                                  "ground_truth_agentic": truth})
    flag_true = conv("s2", [("yes", "yes")], tools={
        "agentic": {"tools_used": [call], "final_answer_uses_tools": True}, "ground_truth_agentic": truth})
    s1, s2 = Agentic.run([no_flag, flag_true], k=1)
    assert s1.interactions[0].is_correct is None
    assert s1.interactions[0].judge_error.startswith("tool-result use: unresolved")
    assert s2.is_fully_correct is True  # offline, the agent's own flag decides an ambiguous case


def test_unresolved_tool_use_is_counted_in_the_judge_record_and_the_search_cap_said() -> None:
    """Issue 18 (also seen): a 2 MB tool result, searched to the 1 MB cap, left the question
    unresolved while the judge line said errors=0."""
    from agenteval.metrics.evidence import MAX_RESULT_CHARS

    truth = {"expected_tools": [{"tool_name": "search", "parameters": {"q": "w"}}]}
    big = {"tool_name": "search", "parameters": {"q": "w"}, "step": 1,
           "result": "filler words " * (2 * MAX_RESULT_CHARS // 13) + "Tadej Pogacar"}
    small = {**big, "result": "Tadej Pogacar"}
    runs = [conv(f"s{i}", [("yes", "yes")], tools={"agentic": {"tools_used": [call]},
                                                   "ground_truth_agentic": truth})
            for i, call in enumerate([big, small])]
    results = Agentic.run(runs, k=1)
    assert [m.interactions[0].is_correct for m in results] == [None, None]
    assert "searched only in its first 1,000,000 characters" in \
        results[0].interactions[0].judge_error
    judge = results.summary().judge
    assert judge["errors"] == 2 and judge["unresolved_tool_use"] == 2
    assert judge["tool_results_cut_at_search_cap"] == 1
    assert judge["judgments"]["tool use"]["errors"] == 2


def test_a_tool_named_like_the_cap_message_is_not_counted_as_cut() -> None:
    """The search cap is a field of the tool score (``result_cut``), not a phrase looked for in
    its reasoning, which holds the data's tool names."""
    truth = {"expected_tools": [{"tool_name": "search", "parameters": {"q": "w"}}]}
    call = {"tool_name": "search", "parameters": {"q": "w"}, "step": 1, "result": "Tadej Pogacar"}
    extra = {"tool_name": "searched in its first", "step": 2, "result": "Eddy Merckx"}
    results = Agentic.run([conv("s0", [("yes", "yes")], tools={
        "agentic": {"tools_used": [call, extra]}, "ground_truth_agentic": truth})], k=1,
        tool_threshold=0.8)   # passes only if the answer used the results: unresolved offline
    assert "extra: searched in its first" in results[0].interactions[0].tool_correctness.reasoning
    assert "searched only in its first" not in results[0].interactions[0].judge_error
    assert results[0].interactions[0].tool_correctness.result_cut is False
    judge = results.summary().judge
    assert judge["unresolved_tool_use"] == 1 and "tool_results_cut_at_search_cap" not in judge


def test_tool_use_is_scored_only_where_expectations_are_given() -> None:
    used = {"agentic": {"tools_used": [{"tool_name": "search", "parameters": {"q": "x"}}]}}
    no_expectation = conv("s1", [("4", "4")], tools=used)
    expected_none = conv("s2", [("4", "4")], tools={**used, "ground_truth_agentic": {"expected_tools": []}})
    s1, s2 = Agentic.run([no_expectation, expected_none], k=1)
    assert s1.tool_correctness_scores == [None] and s1.is_fully_correct is True
    extra = s2.tool_correctness_scores[0]
    assert extra is not None and extra.tool_selection_correct == 0.0 and s2.is_fully_correct is False


class FlakyJudge(Judge):
    """Fails on every answer that says 'fail'; scores exact matches otherwise."""

    name = "flaky"

    async def ajudge_answers(self, items: Sequence[AnswerItem]) -> list[JudgeOutcome]:
        return [JudgeFailure("HTTP 500 after 4 retries") if i.answer == "fail"
                else Verdict(float(i.answer == i.ground_truth)) for i in items]


def test_judge_errors_are_kept_out_of_n_and_c_and_reported() -> None:
    suite = [conv("s1", [("8", "8"), ("fail", "8")]),      # judged 1/1, one unknown
             conv("s2", [("9", "8"), ("fail", "8")]),      # judged 0/1 -> known not fully correct
             conv("s3", [("8", "8")])]
    results = Agentic.run(suite, FlakyJudge(), k=1)
    s1, s2, s3 = results
    assert (s1.total_interactions, s1.correct_interactions, s1.judge_errors) == (1, 1, 1)
    assert s1.correctness_scores == [1.0, None] and s1.is_fully_correct is None
    assert s2.is_fully_correct is False and s3.is_fully_correct is True
    assert s1.interactions[1].judge_error and "500" in s1.interactions[1].judge_error
    row = results.summary().rows[0]
    # complete cases only: s1 and s2 have gaps, so the rate is s3's alone (not biased by dropping
    # only the conversations that might have succeeded)
    assert (row.conversations, row.complete, row.fully_correct, row.judge_errors) == (3, 1, 1, 2)


def test_nothing_judged_is_nan_not_the_prior() -> None:
    results = Agentic.run([conv("s1", [("fail", "8")]), conv("s2", [("8", "8")])], FlakyJudge(), k=2,
                          statistical_mode=BayesianMode())
    assert results[0].total_interactions == 0
    assert math.isnan(results[0].pass_at_k) and math.isnan(results[0].pass_pow_k_ci_high)
    assert not math.isnan(results[1].pass_at_k)


def test_comparison_with_an_unjudged_agent_is_nan() -> None:
    suite = [conv("s1", [("8", "8")], agent="a"), conv("s2", [("fail", "8")], agent="b")]
    (cmp,) = Agentic.run(suite, FlakyJudge(), k=1, statistical_mode=BayesianMode()).summary().comparisons
    assert math.isnan(cmp.difference) and math.isnan(cmp.prob_a_better) and math.isnan(cmp.difference_low)


def test_an_agent_named_all_is_not_counted_twice() -> None:
    suite = [conv("s1", [("8", "8")], agent="all"), conv("s2", [("9", "8")], agent="b")]
    rows = Agentic.run(suite, k=1).summary().rows
    assert [(r.group, r.level, r.conversations) for r in rows] == [
        ("all", "suite", 2), ("all", "agent", 1), ("b", "agent", 1)]


def test_strict_keeps_budget_cuts_and_missing_references_as_records() -> None:
    suite = [{"session_id": "s", "assistant_id": "a",
              "conversation": [{"qa_id": "1", "query": "q", "assistant": "8"}]}]
    (m,) = Agentic.run(suite, k=1, strict=True)
    assert m.judge_errors == 1 and m.interactions[0].judge_error.startswith("no_reference")


def test_strict_raises_on_judge_failure() -> None:
    with pytest.raises(JudgeError, match="s1"):
        Agentic.run([conv("s1", [("fail", "8")])], FlakyJudge(), k=1, strict=True)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"k": 0}, "k must be"), ({"k": 2.5}, "k must be"), ({}, "k is required"),
    ({"k": 1, "threshold": 1.5}, "threshold"), ({"k": 1, "tool_threshold": -0.1}, "tool_threshold"),
    ({"k": 1, "threshold": True}, "threshold"), ({"k": 1, "threshold": "0.5"}, "threshold"),
    ({"k": 1, "treshold": 0.5}, "'treshold'"),
])
def test_bad_options(kwargs: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        Agentic.run(SUITE, **kwargs)


def test_empty_dataset_is_a_clear_error() -> None:
    with pytest.raises(DataError, match="no conversations"):
        Agentic.run([], k=1)


def test_dataframe_input_and_outputs() -> None:
    import pandas as pd

    df = pd.DataFrame([
        {"session_id": "s1", "assistant_id": "a", "qa_id": "1", "query": "q", "assistant": "8",
         "ground_truth_assistant": "8"},
        {"session_id": "s1", "assistant_id": "a", "qa_id": "2", "query": "q", "assistant": "7",
         "ground_truth_assistant": "8"},
    ])
    results = Agentic.run(df, k=2)
    assert (results[0].total_interactions, results[0].correct_interactions) == (2, 1)
    assert list(results.to_dataframe()["session_id"]) == ["s1"]
    assert len(results.interactions_dataframe()) == 2
    data = results.to_json()
    assert data["conversations"][0]["session_id"] == "s1"
    assert "<table" in results._repr_html_()


def test_demo_file_runs(tmp_path) -> None:
    from tests.conftest import DEMO

    results = Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode())
    assert len(results) >= 40
    summary = results.summary()
    assert len({m.assistant_id for m in results}) >= 2 and len(summary.rows) >= 3
    full = [m.is_fully_correct for m in results]
    assert 0 < sum(f is True for f in full) < len(full)


@pytest.mark.parametrize("source", ["file", "list"])
def test_an_offline_run_makes_no_reference_cycles(source: str) -> None:
    """The offline judge and tool scoring run with the collector paused (metrics/agentic.py):
    that costs no memory only while they make no cycles, so none may be left to collect. The
    demo has repeated tool names (the general matching search) and every kind of evidence."""
    import gc

    from agenteval.core import load_datasets
    from tests.conftest import DEMO

    data = str(DEMO) if source == "file" else load_datasets(DEMO)
    Agentic.run(data, k=3, statistical_mode=BayesianMode(), progress=False)  # imports, caches
    gc.collect()
    gc.disable()
    try:
        Agentic.run(data, k=3, statistical_mode=BayesianMode(), progress=False)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        garbage = [type(x).__name__ for x in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert garbage == []


def test_offline_judging_a_chunk_at_a_time_changes_nothing(monkeypatch) -> None:
    """The offline judge and the tool scoring take turns a chunk of interactions at a time, so
    the evidence search finds each answer already parsed (metrics/agentic.py). The plain way
    must give the same results and record: a judge of another type is run in one batch (every
    answer judged, then every tool use scored), here a subclass with the offline rules, and
    the evidence search reads the answer's numbers as it reads any text (``text_readings``)."""
    import sys

    from agenteval.core import load_datasets
    from agenteval.judge.offline import OfflineJudge
    from agenteval.metrics import evidence
    from tests.conftest import DEMO, REPO

    sys.path.insert(0, str(REPO / "benchmarks"))
    import synth

    class OneBatch(OfflineJudge):
        pass

    for data in (load_datasets(DEMO), synth.conversations(300, seed=5)):  # 1,500: 3 chunks
        chunked = Agentic.run(data, k=3, progress=False)
        with monkeypatch.context() as patch:
            patch.setattr(evidence, "_Answer", evidence._Query)
            batched = Agentic.run(data, OneBatch(), k=3, progress=False)
        dumped = [m.model_dump_json() for m in chunked]  # JSON: a NaN equals itself
        assert dumped == [m.model_dump_json() for m in batched] and len(dumped) > 40
        assert chunked.judge_run == batched.judge_run


def test_a_judged_row_has_the_interaction_result_fields() -> None:
    """The usual judged interaction reaches the columns as a tuple (no model is made), read by
    field name like an ``InteractionResult``: its fields must be the model's, in order."""
    from agenteval.metrics.agentic import _Judged
    from agenteval.schemas.results import InteractionResult

    assert _Judged._fields == tuple(InteractionResult.model_fields)


def test_a_block_needs_the_whole_suite_exactly_when_it_has_rubrics_or_labels() -> None:
    """A streamed run reads the whole suite instead where a block has a rubric or labels:
    ``_needs_whole`` must say so exactly when the plain checks do."""
    import random

    from agenteval.core import load_datasets
    from agenteval.core.labels import labels_from_datasets
    from agenteval.metrics.agentic import _needs_whole
    from tests.conftest import DEMO

    def plain(block) -> bool:
        return any(ds.rubric or any(b.rubric for b in ds.conversation) for ds in block) or bool(
            len(labels_from_datasets(block)))

    rng = random.Random(2)
    for _ in range(40):
        block = load_datasets(DEMO)[:rng.randint(0, 12)]
        if block and rng.random() < 0.8:
            ds = rng.choice(block)
            field, value = rng.choice([("rubric", ["cites a source"]), ("label", True),
                                       ("label", False), ("human_score", 0.0), ("rubric", [])])
            target = ds if field == "rubric" and rng.random() < 0.3 else rng.choice(
                ds.conversation)
            setattr(target, field, value)
        assert _needs_whole(block) == plain(block)
