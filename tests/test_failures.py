"""Judge failures group by kind (ids, numbers and bodies stripped) and keep one full example."""

from __future__ import annotations

from types import SimpleNamespace as NS

from agenteval.failures import failure_kind, group_failures, judged_share


def _metric(session: str, errors: list[str | None]) -> NS:
    inter = [NS(judge_error=e) for e in errors]
    return NS(session_id=session, interactions=inter,
              total_interactions=sum(e is None for e in errors))


def test_same_cause_with_other_ids_and_values_is_one_kind() -> None:
    a = ("error: item 3 (session_id='s1', qa_id='q2'): invalid verdict after 2 re-ask(s): "
         "score 54 is greater than 1")
    b = ("error: item 17 (session_id='other', qa_id='x9'): invalid verdict after 2 re-ask(s): "
         "score 10.09 is greater than 1")
    c = "error: item 4: HTTP 500 (InternalServerError): Error code: 500 - {'error': {'message': 'x'}}"
    d = "error: item 5: HTTP 503 (InternalServerError): Error code: 503 - {'error': 'y'}"
    assert failure_kind(NS(judge_error=a)) == failure_kind(NS(judge_error=b))
    assert failure_kind(NS(judge_error=c)) == failure_kind(NS(judge_error=d))
    assert failure_kind(NS(judge_error=a)) != failure_kind(NS(judge_error=c))
    assert "item" not in failure_kind(NS(judge_error=a))


def test_the_judges_code_wins_over_the_text() -> None:
    assert failure_kind(NS(judge_error="error: item 1: took 30 s", judge_error_code="timeout")) == "timeout"
    assert (failure_kind(NS(judge_error="tool-result use: error: item 2: x", judge_error_code="http_5xx"))
            == "tool-result use: http_5xx")
    assert failure_kind(NS(judge_error="no_reference: none", judge_error_code=None)) == "no_reference: none"


def test_groups_count_and_keep_the_first_example_in_full() -> None:
    long_cause = "error: item 0: invalid verdict: " + "word " * 300 + "end"
    results = [
        _metric("s1", [None, long_cause, "no_reference: no ground_truth_assistant"]),
        _metric("s2", ["error: item 9: invalid verdict: " + "word " * 300 + "end", None]),
        _metric("s3", [None]),
    ]
    groups = group_failures(results)
    assert [(g.count, g.session_id) for g in groups] == [(2, "s1"), (1, "s1")]
    assert groups[0].example == long_cause            # not cut
    assert groups[1].kind == "no_reference: no ground_truth_assistant"
    assert judged_share(results) == (3, 6)
    assert group_failures([_metric("s", [None])]) == []


def test_a_runs_groups_come_from_its_columns_as_from_walking_its_objects(tmp_path, monkeypatch) -> None:
    """``AgenticResults.failure_groups`` reads the interaction columns (no result object built);
    on a real run with judge errors (the demo with references removed from a seeded fifth of
    its interactions), read in blocks of 20 conversations whose columns are joined, the groups
    are those of walking every conversation's interactions."""
    from agenteval import Agentic, FrequentistMode
    from agenteval.metrics import agentic
    from agenteval.results.failures import group_failure_records
    from tests.conftest import demo_with_judge_errors

    monkeypatch.setattr(agentic, "BLOCK", 20)
    results = Agentic.run(str(demo_with_judge_errors(tmp_path)), k=3,
                          statistical_mode=FrequentistMode(), progress=False)
    assert len(results) == 73

    records = [(m.session_id, r.judge_error, r.judge_error_code)
               for m in list(results) for r in m.interactions if r.judge_error]
    assert results.columns.judge_failures() == records
    walked = group_failure_records(records)
    judged, total = results.judged_share()
    assert walked and sum(g.count for g in walked) == total - judged
    assert results.failure_groups() == walked
    assert group_failures(results) == walked
    assert group_failures(list(results)) == walked   # plain objects: walked
