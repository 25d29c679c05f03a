"""Loaders: every source shape, and bad input turned into one DataError naming file/line/field."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from agenteval.core import (
    DataFrameRetriever,
    JSONLRetriever,
    JSONRetriever,
    Retriever,
    load_datasets,
)
from agenteval.errors import ConfigError, DataError
from agenteval.schemas.common import Dataset

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "data" / "agentic_demo.jsonl"


def _make_demo():
    spec = importlib.util.spec_from_file_location("make_demo", ROOT / "data" / "make_demo.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_demo"] = module
    spec.loader.exec_module(module)
    return module


def conv(session_id: str = "s1", n: int = 1, **extra) -> dict:
    """A minimal valid conversation dict with n interactions."""
    record = {"session_id": session_id, "assistant_id": "bot",
              "conversation": [{"qa_id": f"q{i}", "query": f"question {i}", "assistant": f"a{i}",
                                "ground_truth_assistant": f"a{i}"} for i in range(n)]}
    record.update(extra)
    return record


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the demo file


def test_demo_file_round_trip_matches_generator():
    make_demo = _make_demo()
    records, labels = make_demo.build_with_labels()
    # The committed file is exactly what the seeded generator writes.
    assert DEMO.read_text(encoding="utf-8") == make_demo.render(records)
    loaded = load_datasets(DEMO)
    assert len(loaded) == len(records) >= 48
    assert [d.session_id for d in loaded] == [r["session_id"] for r in records]
    assert [len(d.conversation) for d in loaded] == [len(r["conversation"]) for r in records]
    assert all(1 <= len(d.conversation) <= 3 for d in loaded)
    assert loaded == JSONLRetriever(DEMO).load_dataset()
    # Re-serialising the loaded models gives back the generator's dicts (nothing lost or added).
    for dataset, record in zip(loaded, records):
        dumped = dataset.model_dump(mode="json", exclude_unset=True)
        assert dumped == json.loads(json.dumps(record))


def test_demo_has_the_promised_structure():
    make_demo = _make_demo()
    records, labels = make_demo.build_with_labels()
    agents = {r["assistant_id"] for r in records}
    assert 2 <= len(agents) <= 3
    per_task_agent = Counter((r["task_id"], r["assistant_id"]) for r in records)
    assert len({t for t, _ in per_task_agent}) >= 5
    assert all(3 <= n <= 5 for n in per_task_agent.values())
    modes = Counter(label["mode"] for conv_labels in labels for label in conv_labels)
    for mode in ("correct", "wrong_params", "missing_tool", "extra_tool", "misordered",
                 "ignores_tool", "wrong_answer"):
        assert modes[mode] >= 3, mode
    full = [all(label["correct"] for label in conv_labels) for conv_labels in labels]
    assert 0.4 <= sum(full) / len(full) <= 0.6
    by_agent = defaultdict(list)
    for record, ok in zip(records, full):
        by_agent[record["assistant_id"]].append(ok)
    rates = sorted(sum(v) / len(v) for v in by_agent.values())
    assert rates[-1] - rates[0] >= 0.25  # the agents differ visibly
    # every tool call carries a step and a result; the flag is set wherever tools were expected
    for record in records:
        for batch in record["conversation"]:
            if batch["ground_truth_agentic"] is not None:
                assert batch["agentic"]["final_answer_uses_tools"] in (True, False)
                steps = [t["step"] for t in batch["agentic"]["tools_used"]]
                assert steps == list(range(1, len(steps) + 1))
                assert all("result" in t for t in batch["agentic"]["tools_used"])


def test_demo_labels_agree_with_offline_judge():
    from agenteval.judge.offline import score_answer

    make_demo = _make_demo()
    records, labels = make_demo.build_with_labels()
    for record, conv_labels in zip(records, labels):
        for batch, label in zip(record["conversation"], conv_labels):
            verdict = score_answer(batch["assistant"], batch["ground_truth_assistant"])
            assert (verdict.score >= 0.7) == label["answer_ok"], (batch["assistant"], label)


def test_demo_generator_is_deterministic_and_seeded():
    make_demo = _make_demo()
    assert make_demo.render(make_demo.build()) == make_demo.render(make_demo.build())
    assert make_demo.render(make_demo.build(seed=1)) != make_demo.render(make_demo.build())


# --------------------------------------------------------------------------- JSONL errors


def _load_error(path: Path) -> DataError:
    with pytest.raises(DataError) as info:
        load_datasets(path)
    return info.value


def test_malformed_json_names_line_and_column(tmp_path):
    path = write_lines(tmp_path / "d.jsonl", [json.dumps(conv("s1")), '{"session_id": "s2",, }'])
    err = _load_error(path)
    assert (err.source, err.line) == (str(path), 2)
    assert "column 21" in str(err) and str(path) in str(err) and "line 2" in str(err)


def test_line_that_is_not_an_object(tmp_path):
    path = write_lines(tmp_path / "d.jsonl", [json.dumps(conv("s1")), "[1, 2]"])
    err = _load_error(path)
    assert err.line == 2 and "expected a JSON object" in str(err) and "a list" in str(err)


def test_missing_required_field_is_named_by_path(tmp_path):
    record = conv("s1", n=3)
    del record["conversation"][2]["query"]
    path = write_lines(tmp_path / "d.jsonl", [json.dumps(conv("s0")), json.dumps(record)])
    err = _load_error(path)
    assert (err.line, err.field) == (2, "conversation[2].query")
    assert "missing required field" in str(err)
    assert str(err) == f"{path}, line 2, field 'conversation[2].query': missing required field"


def test_wrong_type_deep_inside_agentic(tmp_path):
    record = conv("s1")
    record["conversation"][0]["agentic"] = {"tools_used": [
        {"tool_name": "calc", "parameters": {"x": 1}}, {"tool_name": "calc", "parameters": "x"}]}
    path = write_lines(tmp_path / "d.jsonl", [json.dumps(record)])
    err = _load_error(path)
    assert err.field == "conversation[0].agentic.tools_used[1].parameters"
    assert err.reason == "expected an object, got 'x'"
    assert err.line == 1


def test_several_errors_are_counted(tmp_path):
    record = {"session_id": "s1", "conversation": [{"qa_id": "q"}]}
    path = write_lines(tmp_path / "d.jsonl", [json.dumps(record)])
    err = _load_error(path)
    # assistant_id, conversation[0].query and conversation[0].assistant are missing
    assert err.field == "assistant_id" and "and 2 more errors" in str(err)


def test_duplicate_session_id_names_both_lines(tmp_path):
    lines = [json.dumps(conv("s0")), "", json.dumps(conv("s1")), json.dumps(conv("s2")), "",
             "  ", json.dumps(conv("s1"))]
    path = write_lines(tmp_path / "d.jsonl", lines)
    err = _load_error(path)
    assert (err.line, err.field) == (7, "session_id")
    assert "duplicate session_id 's1' (first seen at line 3)" in str(err)


def test_blank_lines_are_skipped_and_real_line_numbers_reported(tmp_path):
    bad = conv("s3")
    bad["conversation"][0]["weight"] = -1
    path = write_lines(tmp_path / "d.jsonl", ["", json.dumps(conv("s1")), "", "", json.dumps(bad)])
    err = _load_error(path)
    assert (err.line, err.field) == (5, "conversation[0].weight")
    path.write_text("\n\n" + json.dumps(conv("s1")) + "\n\n" + json.dumps(conv("s2")) + "\n\n")
    assert [d.session_id for d in load_datasets(path)] == ["s1", "s2"]


def test_empty_conversation(tmp_path):
    path = write_lines(tmp_path / "d.jsonl", [json.dumps(conv("s1", conversation=[]))])
    err = _load_error(path)
    assert err.field == "conversation" and "conversation is empty" in str(err)


@pytest.mark.parametrize("content", ["", "\n\n   \n"])
def test_empty_file(tmp_path, content):
    path = tmp_path / "d.jsonl"
    path.write_text(content)
    err = _load_error(path)
    assert err.source == str(path) and "no conversations" in str(err)


def test_unknown_field_is_named(tmp_path):
    record = conv("s1", n=2)
    record["conversation"][1]["grond_truth_assistant"] = "x"
    path = write_lines(tmp_path / "d.jsonl", [json.dumps(record)])
    err = _load_error(path)
    assert err.field == "conversation[1]"
    assert "unknown field 'grond_truth_assistant'" in str(err)


def test_file_not_found(tmp_path):
    path = tmp_path / "missing.jsonl"
    err = _load_error(path)
    assert err.source == str(path) and "file not found" in str(err)


def test_not_utf8(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(json.dumps(conv("s1")).encode() + b"\n" + b'{"session_id": "caf\xe9"}\n')
    err = _load_error(path)
    assert err.line == 2 and "not valid UTF-8" in str(err) and "0xe9" in str(err)


def test_unsupported_suffix(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n")
    err = _load_error(path)
    assert "unsupported file type '.csv'" in str(err)


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(conv("s1")).encode() + b"\n")
    assert load_datasets(path)[0].session_id == "s1"


# --------------------------------------------------------------------------- JSON list files


def test_json_list_reports_the_line_where_the_object_starts(tmp_path):
    bad = conv("s2")
    bad["conversation"][0]["assistant"] = 5
    path = tmp_path / "d.json"
    path.write_text(json.dumps([conv("s1"), bad, conv("s3")], indent=2))
    starts = [i + 1 for i, text in enumerate(path.read_text().splitlines()) if text == "  {"]
    expected_line = starts[1]  # the second object
    err = _load_error(path)
    assert (err.line, err.field) == (expected_line, "conversation[0].assistant")
    assert "expected a string, got 5" in str(err)


def test_json_list_duplicate_and_loading(tmp_path):
    path = tmp_path / "d.json"
    path.write_text("[\n" + json.dumps(conv("a")) + ",\n\n" + json.dumps(conv("b")) + ",\n"
                    + json.dumps(conv("a")) + "\n]\n")
    err = _load_error(path)
    assert err.line == 5 and "first seen at line 2" in str(err)
    path.write_text(json.dumps([conv("a"), conv("b", n=2)]))
    loaded = JSONRetriever(path).load_dataset()
    assert [len(d.conversation) for d in loaded] == [1, 2]


def test_json_malformed_position(tmp_path):
    path = tmp_path / "d.json"
    path.write_text('[\n  {"session_id": "s1"},\n  {"session_id": }\n]')
    err = _load_error(path)
    assert err.line == 3 and "column 18" in str(err)
    path.write_text('[\n  {"session_id": "s1"}\n  {"x": 1}\n]')
    err = _load_error(path)
    assert err.line == 3 and "expected ',' or ']'" in str(err)


def test_json_single_object_and_empty_list(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps(conv("only")))
    assert [d.session_id for d in load_datasets(path)] == ["only"]
    path.write_text("[ ]")
    assert "no conversations" in str(_load_error(path))


# --------------------------------------------------------------------------- DataFrames


def _frame_rows():
    agentic = {"tools_used": [{"tool_name": "calc", "parameters": {"e": "1+1"}, "result": 2,
                               "step": 1}]}
    gt_agentic = {"expected_tools": [{"tool_name": "calc"}], "tool_sequence_matters": False}
    return [
        {"session_id": "b", "assistant_id": "x", "qa_id": "1", "query": "q1", "assistant": "a1",
         "ground_truth_assistant": "g1", "agentic": json.dumps(agentic),
         "ground_truth_agentic": json.dumps(gt_agentic), "task_id": "t1"},
        {"session_id": "a", "assistant_id": "y", "qa_id": "1", "query": "q2", "assistant": "a2",
         "ground_truth_assistant": None, "agentic": None, "ground_truth_agentic": None,
         "task_id": "t1"},
        {"session_id": "b", "assistant_id": "x", "qa_id": "2", "query": "q3", "assistant": "a3",
         "ground_truth_assistant": "g3", "agentic": agentic, "ground_truth_agentic": None,
         "task_id": "t1"},
    ]


def test_dataframe_rows_are_grouped_in_first_appearance_order():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(_frame_rows())
    loaded = load_datasets(df)
    assert [d.session_id for d in loaded] == ["b", "a"]
    b, a = loaded
    assert [x.query for x in b.conversation] == ["q1", "q3"]
    assert [x.qa_id for x in b.conversation] == ["1", "2"]
    assert b.conversation[0].agentic.tools_used[0].parameters == {"e": "1+1"}
    assert b.conversation[0].agentic.tools_used[0].result == 2
    assert b.conversation[0].ground_truth_agentic.tool_sequence_matters is False
    assert b.conversation[1].agentic.tools_used[0].tool_name == "calc"
    assert a.conversation[0].ground_truth_assistant is None and a.conversation[0].agentic is None
    assert a.assistant_id == "y" and b.task_id == "t1" and a.language == "english"
    assert DataFrameRetriever(df).load_dataset() == loaded


def test_dataframe_numpy_scalars_and_nan():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"session_id": [7, 7], "assistant_id": ["x", "x"], "qa_id": [1, 2],
                       "query": ["q", "r"], "assistant": ["a", "b"], "weight": [1.5, float("nan")]})
    (dataset,) = load_datasets(df)
    assert dataset.session_id == "7"
    assert [b.qa_id for b in dataset.conversation] == ["1", "2"]
    assert [b.weight for b in dataset.conversation] == [1.5, None]


def test_dataframe_errors_name_the_row_label():
    pd = pytest.importorskip("pandas")
    rows = _frame_rows()
    rows[2]["agentic"] = json.dumps({"tools_used": [{"tool_name": "calc", "parameters": "x"}]})
    df = pd.DataFrame(rows, index=[10, 20, 30])
    with pytest.raises(DataError) as info:
        load_datasets(df)
    assert (info.value.line, info.value.field) == (30, "agentic.tools_used[0].parameters")
    assert info.value.source == "DataFrame"

    rows = _frame_rows()
    rows[1]["agentic"] = '{"tools_used": ['
    with pytest.raises(DataError) as info:
        load_datasets(pd.DataFrame(rows, index=["r0", "r1", "r2"]))
    assert (info.value.line, info.value.field) == ("r1", "agentic")
    assert "malformed JSON" in str(info.value)

    rows = _frame_rows()
    rows[2]["assistant_id"] = "other"
    with pytest.raises(DataError) as info:
        load_datasets(pd.DataFrame(rows))
    assert info.value.line == 2 and info.value.field == "assistant_id"
    assert "'x' at row 0 but 'other'" in str(info.value)


def test_dataframe_column_errors():
    pd = pytest.importorskip("pandas")
    rows = _frame_rows()
    with pytest.raises(DataError, match="unknown column 'grond_truth_assistant'"):
        load_datasets(pd.DataFrame([dict(r, grond_truth_assistant="x") for r in rows]))
    with pytest.raises(DataError, match="missing required column") as info:
        load_datasets(pd.DataFrame([{k: v for k, v in r.items() if k != "query"} for r in rows]))
    assert info.value.field == "query"
    with pytest.raises(DataError, match="no conversations"):
        load_datasets(pd.DataFrame(columns=["session_id", "assistant_id", "qa_id", "query",
                                            "assistant"]))


def test_jsonl_path_does_not_import_pandas(tmp_path):
    path = write_lines(tmp_path / "d.jsonl", [json.dumps(conv("s1"))])
    code = ("import sys, agenteval.core as c; c.load_datasets(sys.argv[1]); "
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- lists, retrievers


def test_list_of_dicts_and_datasets():
    ds = Dataset.model_validate(conv("b", n=2))
    loaded = load_datasets([conv("a"), ds])
    assert [d.session_id for d in loaded] == ["a", "b"] and loaded[1] is ds
    assert load_datasets(ds) == [ds]
    bad = conv("c")
    del bad["assistant_id"]
    with pytest.raises(DataError) as info:
        load_datasets([conv("a"), bad])
    assert info.value.source == "list item 1" and info.value.field == "assistant_id"
    with pytest.raises(DataError, match="duplicate session_id 'a' \\(first seen at item 0\\)"):
        load_datasets([conv("a"), conv("a")])
    with pytest.raises(DataError, match="no conversations"):
        load_datasets([])


class KwargsRetriever(Retriever):
    """A user retriever in Fair Forge style: options arrive as kwargs."""

    def load_dataset(self) -> list[Dataset]:
        n = self.kwargs["n_conversations"]
        return [Dataset.model_validate(conv(f"s{i}", n=self.kwargs.get("turns", 1)))
                for i in range(n)]


def test_retriever_subclass_is_instantiated_with_kwargs():
    loaded = load_datasets(KwargsRetriever, n_conversations=3, turns=2)
    assert [d.session_id for d in loaded] == ["s0", "s1", "s2"]
    assert all(len(d.conversation) == 2 for d in loaded)
    instance = KwargsRetriever(n_conversations=2)
    assert instance.kwargs == {"n_conversations": 2}
    assert len(load_datasets(instance)) == 2


def test_user_retriever_results_are_validated():
    class Dicts(Retriever):
        def load_dataset(self):
            return [conv("a"), conv("b", conversation=[{"qa_id": "1"}])]

    class Dups(Retriever):
        def load_dataset(self):
            return [conv("a"), conv("a")]

    class Empty(Retriever):
        def load_dataset(self):
            return []

    with pytest.raises(DataError) as info:
        load_datasets(Dicts)
    assert info.value.source == "Dicts.load_dataset() item 1"
    assert info.value.field == "conversation[0].query"
    with pytest.raises(DataError, match="duplicate session_id 'a'"):
        load_datasets(Dups())
    with pytest.raises(DataError, match="no conversations"):
        load_datasets(Empty)
    with pytest.raises(TypeError):
        Retriever()  # abstract


def test_unsupported_source_type():
    with pytest.raises(ConfigError, match="got int"):
        load_datasets(42)


def test_jsonl_records_with_messages_are_read_as_traces(tmp_path):
    trace = {"session_id": "t1", "assistant_id": "bot",
             "messages": [{"role": "user", "content": "hi"},
                          {"role": "assistant", "content": "hello"}],
             "references": [{"ground_truth_assistant": "hello"}]}
    path = write_lines(tmp_path / "mixed.jsonl", [json.dumps(conv("s1")), json.dumps(trace)])
    s1, t1 = load_datasets(path)
    assert (t1.conversation[0].query, t1.conversation[0].assistant) == ("hi", "hello")
    assert t1.conversation[0].ground_truth_assistant == "hello"


def test_deep_nesting_and_huge_integers_are_data_not_tracebacks(tmp_path):
    from agenteval.core.retriever import load_datasets

    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"session_id": "s", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(DataError, match=r"deep.jsonl, line 1: JSON nested too deeply"):
        load_datasets(str(deep))
    deep_list = tmp_path / "deep.json"
    deep_list.write_text('[{"session_id": "s", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}]")
    with pytest.raises(DataError, match=r"deep.json, line 1: .*nested too deeply"):
        load_datasets(str(deep_list))
    huge = tmp_path / "huge.jsonl"
    huge.write_text('{"session_id": "s", "assistant_id": "a", "metadata": {"n": ' + "9" * 5000 + '}, '
                    '"conversation": [{"qa_id": "1", "query": "q", "assistant": "x"}]}\n')
    (ds,) = load_datasets(str(huge))
    assert ds.metadata["n"] == float("inf")


# --------------------------------------------------------------------------- errors that say the fix


@pytest.mark.parametrize(("value", "hint"), [
    (5, ': quote it to make it text, "5"'),
    (2.5, ': quote it to make it text, "2.5"'),
    (True, ": quote the value to make it text (unquoted true, false, yes, no are booleans)"),
])
def test_a_number_where_text_belongs_says_to_quote_it(value, hint):
    bad = conv("s1")
    bad["conversation"][0]["assistant"] = value
    with pytest.raises(DataError) as info:
        load_datasets([bad])
    assert info.value.field == "conversation[0].assistant"
    assert str(info.value).endswith(f"expected a string, got {value!r}{hint}")


def test_a_dataframe_of_whole_conversations_names_the_columns_and_the_reshape():
    """pd.read_json(lines=True) on the demo gives one row per conversation: the error says
    which columns are needed, and both fixes it names load the same conversations."""
    pd = pytest.importorskip("pandas")
    df = pd.read_json(DEMO, lines=True)
    with pytest.raises(DataError) as info:
        load_datasets(df)
    message = str(info.value)
    assert "\n" not in message and info.value.field == "conversation"
    assert "columns session_id, assistant_id, qa_id, query, assistant" in message
    namespace = {"pd": pd, "df": df}
    exec(message[message.index("reshape: ") + 9:].replace("; ", "\n"), namespace)  # as printed
    expected = [d.model_dump() for d in load_datasets(str(DEMO))]
    assert [d.model_dump() for d in load_datasets(namespace["long"])] == expected
    assert [d.model_dump() for d in load_datasets(df.to_dict("records"))] == expected
