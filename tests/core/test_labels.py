"""Labels: files, records and the data's own label fields, with one-line errors."""

from __future__ import annotations

import pytest

from agenteval.core.labels import as_labels, labels_from_datasets, load_labels
from agenteval.core.retriever import load_datasets
from agenteval.errors import DataError


def test_jsonl_csv_and_records_read_the_same(tmp_path) -> None:
    jl = tmp_path / "l.jsonl"
    jl.write_text('{"session_id": "s1", "qa_id": "q1", "label": true}\n\n'
                  '{"session_id": "s1", "qa_id": 2, "human_score": 0.4, "rater": "bo"}\n')
    cs = tmp_path / "l.csv"
    cs.write_text("session_id,qa_id,label,human_score,rater\ns1,q1,1,,\ns1,2,,0.4,bo\n")
    recs = [{"session_id": "s1", "qa_id": "q1", "label": 1},
            {"session_id": "s1", "qa_id": "2", "human_score": 0.4, "rater": "bo"}]
    for labels in (load_labels(jl), load_labels(cs), as_labels(recs)):
        truth, ties = labels.truth(0.5)
        assert truth == {("s1", "q1"): 1, ("s1", "2"): 0} and ties == 0
        assert set(labels.ratings(0.5)) == {"human", "bo"}


def test_majority_truth_ties_left_out_and_other_judges_never_truth() -> None:
    labels = as_labels([
        {"session_id": "s", "qa_id": "a", "label": 1, "rater": "x"},
        {"session_id": "s", "qa_id": "a", "label": 1, "rater": "y"},
        {"session_id": "s", "qa_id": "a", "label": 0, "rater": "z"},
        {"session_id": "s", "qa_id": "b", "label": 1, "rater": "x"},
        {"session_id": "s", "qa_id": "b", "label": 0, "rater": "y"},
        {"session_id": "s", "qa_id": "c", "label": 1, "rater": "gpt", "kind": "judge"},
    ])
    truth, ties = labels.truth(0.7)
    assert truth == {("s", "a"): 1} and ties == 1
    assert labels.ratings(0.7)["judge:gpt"] == {("s", "c"): [1]}


@pytest.mark.parametrize("line, message", [
    ('{"session_id": "s", "qa_id": "q", "label": 2}', "line 2, field 'label': expected 0, 1"),
    ('{"session_id": "s", "qa_id": "q", "human_score": 1.5}', "line 2, field 'human_score'"),
    ('{"session_id": "s", "label": 1}', "line 2, field 'qa_id': missing"),
    ('{"session_id": "s", "qa_id": "q", "label": 1, "human_score": 1}', "exactly one of"),
    ('{"session_id": "s", "qa_id": "q", "label": 1, "colour": 1}', "field 'colour': unknown"),
    ('{"session_id": "s", "qa_id": "q", "label": 1, "kind": "robot"}', "field 'kind'"),
    ('{"session_id": "s", "qa_id": ', "line 2: malformed JSON"),
    ('{"session_id": "", "qa_id": "q", "label": 1}', "field 'session_id'"),
])
def test_errors_name_file_line_and_field(tmp_path, line: str, message: str) -> None:
    p = tmp_path / "labels.jsonl"
    p.write_text('{"session_id": "s", "qa_id": "ok", "label": 0}\n' + line + "\n")
    with pytest.raises(DataError) as err:
        load_labels(p)
    assert str(err.value).startswith(str(p)) and message in str(err.value)
    assert "\n" not in str(err.value)


def test_csv_error_names_its_line(tmp_path) -> None:
    p = tmp_path / "labels.csv"
    p.write_text("session_id,qa_id,label\ns,q,1\ns,q,maybe\n")
    with pytest.raises(DataError, match=r"labels.csv, line 3, field 'label'"):
        load_labels(p)


def test_missing_file_and_bad_mapping() -> None:
    with pytest.raises(DataError, match="no such labels file"):
        load_labels("/nonexistent/labels.jsonl")
    with pytest.raises(DataError, match="keyed by"):
        as_labels({"s": 1})


def test_label_and_human_score_in_the_data() -> None:
    ds = load_datasets([{"session_id": "s", "assistant_id": "a", "conversation": [
        {"qa_id": "q", "query": "x", "assistant": "y", "label": 0},
        {"qa_id": "r", "query": "x", "assistant": "y", "human_score": 0.9}]}])
    truth, _ = labels_from_datasets(ds).truth(0.7)
    assert truth == {("s", "q"): 0, ("s", "r"): 1}
    with pytest.raises(DataError, match=r"conversation\[0\].label"):
        load_datasets([{"session_id": "s", "assistant_id": "a", "conversation": [
            {"qa_id": "q", "query": "x", "assistant": "y", "label": "yes please"}]}])
