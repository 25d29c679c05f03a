"""The JSONL fast path (pydantic's own JSON parser) against the careful one (``json``, then
validation), and the fields-sets that loaded records share, against unshared ones."""

from __future__ import annotations

import copy
import json
import pickle
import random
import warnings

import pytest

from agenteval.core import jsonio, load_datasets
from agenteval.core.retriever import _dataset_from_json
from agenteval.schemas.common import Batch, Dataset

_VALUES = [None, True, False, 0, 1, -3, 2.5, 1e400, 0.1, "x", "", "1", "true", [], {}, [1, "a"],
           {"k": 1}, 10 ** 30]


def _value(rng: random.Random, good: object) -> object:
    return good if rng.random() < 0.96 else rng.choice(_VALUES)


def _call(rng: random.Random, expected: bool) -> dict:
    call = {"tool_name": _value(rng, rng.choice(["calc", "search", ""])),
            "parameters": _value(rng, {"q": rng.choice(["a", 1, 2.0, None, [1.5]])})}
    if rng.random() < 0.6:
        call["step"] = _value(rng, rng.randint(0, 3))
    if not expected and rng.random() < 0.7:
        call["result"] = rng.choice(_VALUES + [{"price": 1.25, "nested": [{"a": None}]}])
    if not expected and rng.random() < 0.2:
        call["after_answer"] = _value(rng, True)
    return call


def _record(rng: random.Random, i: int) -> dict:
    batches = []
    for j in range(rng.randint(0, 3)):
        b = {"qa_id": _value(rng, rng.choice([f"q{j}", j])), "query": _value(rng, "what?"),
             "assistant": _value(rng, "it is 4 \u00b0C")}
        for name, good in [("ground_truth_assistant", "4"), ("observation", "note"),
                           ("weight", 1.5), ("score", 0.5), ("logprobs", {"a": -0.1})]:
            if rng.random() < 0.4:
                b[name] = _value(rng, good)
        if rng.random() < 0.6:
            b["agentic"] = _value(rng, {"tools_used": [_call(rng, False) for _ in range(rng.randint(0, 2))],
                                        "final_answer_uses_tools": _value(rng, True)})
        if rng.random() < 0.6:
            truth = {"expected_tools": [_call(rng, True) for _ in range(rng.randint(0, 2))]}
            if rng.random() < 0.3:
                truth["tool_sequence_matters"] = _value(rng, False)
            if rng.random() < 0.3:
                truth["argument_matching"] = _value(rng, rng.choice([{"*": "normalized"}, {"*": "bogus"}]))
            b["ground_truth_agentic"] = _value(rng, truth)
        if rng.random() < 0.05:
            b["unknown"] = 1  # an unknown field: an error either way
        batches.append(b)
    record = {"session_id": _value(rng, rng.choice([f"s{i}", i])), "assistant_id": _value(rng, "bot"),
              "conversation": batches}
    for name, good in [("task_id", "t1"), ("language", "english"), ("context", "ctx"),
                       ("metadata", {"m": [1, 2]}), ("outcome", rng.choice([True, 0.5, 1])),
                       ("attempt", 2)]:
        if rng.random() < 0.3:
            record[name] = _value(rng, good)
    return record


def _text(rng: random.Random, record: dict) -> str:
    text = json.dumps(record, ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.1:  # a repeated key: the last one counts, in both parsers
        text = text[:-1] + ', "assistant_id": "other"}'
    if rng.random() < 0.05:
        text = text.replace('"x"', '"\\ud800"')
    return text


def _careful(text: str) -> Dataset | None:
    """The straightforward path: json, then pydantic on the Python objects."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # lone surrogates, repaired with a warning
            return Dataset.model_validate(jsonio.loads(text))
    except Exception:
        return None


def _fingerprint(ds: Dataset) -> tuple:
    """Values with their types (repr shows 1 against 1.0 and True), and the given fields."""
    fields = [ds.model_fields_set] + [b.model_fields_set for b in ds.conversation]
    return repr(ds.model_dump()), repr(ds.model_dump(exclude_unset=True)), [sorted(f) for f in fields]


def test_fast_path_agrees_with_json_then_validation_on_random_records() -> None:
    rng = random.Random(11)
    fast_ok = careful_ok = 0
    for i in range(3000):
        text = _text(rng, _record(rng, i))
        fast, careful = _dataset_from_json(text), _careful(text)
        if fast is not None:   # never accepts what the careful path rejects, never differs
            assert careful is not None, text
            assert _fingerprint(fast) == _fingerprint(careful), text
            fast_ok += 1
        careful_ok += careful is not None and not jsonio.may_hold_surrogates(text)
    assert fast_ok > 400 and fast_ok == careful_ok  # valid records all take the fast path


@pytest.mark.parametrize("text", [
    '{"session_id": "s", "assistant_id": "a", "conversation": [{"qa_id": "q", "query": "\\ud800", "assistant": "a"}]}',
    '{"session_id": "s", "assistant_id": "a", "metadata": {"n": ' + "9" * 5000 + '}, "conversation": [{"qa_id": "q", "query": "q", "assistant": "a"}]}',
    '{"session_id": "s", "assistant_id": "a", "conversation": [{"qa_id": "q", "query": "q", "assistant": "a"}]} x',
    '{"session_id": "s1", "assistant_id": "a", "messages": [{"role": "user", "content": "hi"}]}',
])
def test_lines_the_fast_path_leaves_to_the_careful_one(text: str) -> None:
    assert _dataset_from_json(text) is None


def test_huge_integers_and_surrogates_still_load_through_the_careful_path(tmp_path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text('{"session_id": "s", "assistant_id": "a", "metadata": {"n": ' + "9" * 5000
                    + '}, "conversation": [{"qa_id": "q", "query": "\\ud800?", "assistant": "a"}]}\n')
    with pytest.warns(UserWarning, match="lone surrogate"):
        (ds,) = load_datasets(path)
    assert ds.metadata["n"] == float("inf") and ds.conversation[0].query == "\ufffd?"


def _loaded(n: int = 3) -> list[Dataset]:
    lines = [json.dumps({"session_id": f"s{i}", "assistant_id": "a", "conversation": [
        {"qa_id": "q", "query": "q", "assistant": "a",
         "agentic": {"tools_used": [{"tool_name": "t", "parameters": {}}]}}]}) for i in range(n)]
    return [_dataset_from_json(line) for line in lines]


def test_shared_fields_sets_behave_like_own_ones() -> None:
    one, two, three = _loaded()
    assert one.model_fields_set is two.model_fields_set   # shared: the memory saving
    before = two.conversation[0].model_fields_set.copy()
    one.conversation[0].observation = "seen"               # an assignment takes its own copy
    one.task_id = "t"
    assert one.conversation[0].model_fields_set == before | {"observation"}
    assert two.conversation[0].model_fields_set == before and "task_id" not in two.model_fields_set
    assert "observation" in one.conversation[0].model_dump(exclude_unset=True)
    assert "observation" not in two.conversation[0].model_dump(exclude_unset=True)
    del three.conversation[0].query  # pydantic allows it; the others keep theirs
    assert two.conversation[0].query == "q"
    for made in (two.model_copy(update={"language": "fr"}), copy.deepcopy(two), copy.copy(two),
                 pickle.loads(pickle.dumps(two))):
        made.context = "changed"
        assert made.model_fields_set >= {"context"} and "context" not in two.model_fields_set
    with pytest.raises(Exception, match="frozen"):
        two.conversation[0].agentic.tools_used[0].tool_name = "x"
    assert "tool_name" in two.conversation[0].agentic.tools_used[0].model_fields_set
    assert Batch(qa_id="q", query="q", assistant="a").model_fields_set == {"qa_id", "query", "assistant"}


def test_bundled_data_loads_the_same_as_json_then_validation() -> None:
    from pathlib import Path

    for path in sorted((Path(__file__).resolve().parents[2] / "data").glob("*.jsonl")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        careful = [_careful(line) for line in lines]
        if any(ds is None for ds in careful):
            continue  # not conversation records (transcripts, RAG cases)
        assert [_fingerprint(ds) for ds in load_datasets(path)] == [_fingerprint(ds) for ds in careful]
