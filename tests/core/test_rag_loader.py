"""Loading RAG cases: every input shape, and bad input named by file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from agenteval.core.rag import RagCase, load_rag_cases
from agenteval.errors import ConfigError, DataError

from tests.conftest import REPO

DEMO = REPO / "data" / "rag_demo.jsonl"


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                            for r in records), encoding="utf-8")
    return path


def case(**extra) -> dict:
    base = {"id": "c1", "question": "q?", "expected_answer": "a.", "retrieval_context": ["n"]}
    base.update(extra)
    return {k: v for k, v in base.items() if v is not ...}


def test_demo_loads_with_every_form():
    cases = {c.id: c for c in load_rag_cases(DEMO)}
    assert len(cases) == 9
    two = cases["two-searches"]
    assert [s.query for s in two.searches] == ["Lisbon population", "Porto population"]
    assert [len(s.nodes) for s in two.searches] == [2, 3]
    assert two.searches[0].tool == "vector_search" and two.searches[1].nodes[0].id == "pt-7"
    assert two.expected_answer.startswith("Lisbon has about 545,000")
    chat = cases["chat-input"]
    assert chat.question == "How many moons does Mars have?"
    assert chat.expected_answer == "Mars has two moons, Phobos and Deimos."
    labelled = cases["labelled-nodes"]
    assert [n.relevant for n in labelled.nodes] == [False, True, False, True]
    assert [s.attributable for s in labelled.statements] == [True, False]
    assert cases["perfect-ranking"].searches[0].query == "How tall is the Eiffel Tower?"


def test_yaml_json_dataframe_and_lists(tmp_path):
    yaml_text = """
- id: y1
  question: What is the capital of France?
  expected_answer: Paris.
  retrieval_context:
    - Paris is the capital of France.
    - text: Lyon is a city.
      relevant: false
- id: 2
  input: [{role: user, content: [{type: text, text: "Hi?"}]}]
  expected_output:
    - role: assistant
      tool_calls:
        - tool: search
          input: {query: hi}
          output: [x, y]
        - tool: calculator
          input: {expression: 1+1}
          output: 2
    - role: assistant
      content: Hello.
"""
    path = tmp_path / "cases.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    y1, y2 = load_rag_cases(path)
    assert y1.nodes[1].relevant is False and y1.nodes[0].relevant is None
    assert y2.id == "2" and y2.question == "Hi?" and y2.expected_answer == "Hello."
    assert len(y2.searches) == 1 and y2.searches[0].query == "hi"   # the calculator is no search

    json_path = tmp_path / "cases.json"
    json_path.write_text(json.dumps([case(), case(id="c2")], indent=2), encoding="utf-8")
    assert [c.id for c in load_rag_cases(json_path)] == ["c1", "c2"]

    df = pd.DataFrame([case(), case(id="c2", retrieval_context=json.dumps(["a", "b"]))])
    c1, c2 = load_rag_cases(df)
    assert len(c2.nodes) == 2
    assert load_rag_cases([c1])[0] is c1 and isinstance(c1, RagCase)


BAD = [
    (case(id=...), 1, "id", "missing required field"),
    (case(extra=1), 1, "extra", "unknown field 'extra'"),
    (case(question=..., input=[{"role": "system", "content": "x"}]), 1, "input", "no user message"),
    (case(input="x"), 1, "input", "not both"),
    (case(retrieval_context=["ok", {"text": "n", "relevant": "yes"}]), 1,
     "retrieval_context[1].relevant", "expected true, false or null"),
    (case(retrieval_context=[{"txt": "n"}]), 1, "retrieval_context[0]", "unknown field 'txt'"),
    (case(retrieval_context="n"), 1, "retrieval_context", "expected a list"),
    (case(retrieval_context=...), 1, "retrieval_context", "no retrieval context"),
    (case(statements=[{"text": "s", "attributable": 1}]), 1, "statements[0].attributable",
     "expected true, false or null"),
    (case(statements=[]), 1, "statements", "must not be empty"),
    (case(expected_answer=..., expected_output=[{"content": "x"}]), 1, "expected_output[0].role",
     "missing required field"),
    (case(retrieval_context=..., expected_answer=..., expected_output=[
        {"role": "assistant", "tool_calls": [{"tool": "s", "output": {"results": 3}}]}]), 1,
     "expected_output[0].tool_calls[0].output.results", "expected a list of nodes"),
    (case(retrieval_context=["n"], expected_answer=..., expected_output=[
        {"role": "assistant", "tool_calls": [{"tool": "s", "output": ["m"]}]}]), 1,
     "retrieval_context", "given twice"),
]


@pytest.mark.parametrize("record, line, field, message", BAD)
def test_bad_records_name_file_line_and_field(tmp_path, record, line, field, message):
    path = write_jsonl(tmp_path / "bad.jsonl", ["", record])   # a blank first line: line 2
    with pytest.raises(DataError) as info:
        load_rag_cases(path)
    err = info.value
    assert (err.source, err.line, err.field) == (str(path), line + 1, field)
    assert message in str(err) and str(err).startswith(f"{path}, line {line + 1}, field '{field}'")


def test_file_level_errors(tmp_path):
    dup = write_jsonl(tmp_path / "dup.jsonl", [case(), case(id="c2"), case()])
    with pytest.raises(DataError, match=r"line 3, field 'id': duplicate id 'c1' \(first seen at line 1\)"):
        load_rag_cases(dup)
    broken = write_jsonl(tmp_path / "broken.jsonl", [case(), '{"id": '])
    with pytest.raises(DataError, match=r"broken.jsonl, line 2: malformed JSON"):
        load_rag_cases(broken)
    yaml_path = tmp_path / "bad.yaml"
    yaml_path.write_text("- id: a\n  question: [unclosed\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.yaml, line \d+: malformed YAML"):
        load_rag_cases(yaml_path)
    yaml_path.write_text("- id: a\n  question: q\n  retrieval_context: [x]\n- id: b\n  question: q\n"
                         "  retrieval_context: [{text: x, relevant: maybe}]\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.yaml, line 4, field 'retrieval_context\[0\].relevant'"):
        load_rag_cases(yaml_path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(DataError, match="no cases found"):
        load_rag_cases(empty)
    with pytest.raises(DataError, match="unsupported file type '.csv'"):
        load_rag_cases(tmp_path / "x.csv")
    with pytest.raises(DataError, match="file not found"):
        load_rag_cases(tmp_path / "missing.jsonl")
    with pytest.raises(DataError, match=r"DataFrame, line r2, field 'id'"):
        load_rag_cases(pd.DataFrame([case(), case(id=...)], index=["r1", "r2"]))
    with pytest.raises(DataError, match=r"list item 1: expected an object"):
        load_rag_cases([case(), "oops"])
    with pytest.raises(ConfigError):
        load_rag_cases(42)


def test_openai_format_tool_calls_with_tool_messages():
    record = {"id": "oa", "input": [{"role": "user", "content": "Lisbon or Porto?"}],
              "expected_output": [
                  {"role": "assistant", "content": None, "tool_calls": [
                      {"id": "c1", "type": "function",
                       "function": {"name": "search", "arguments": '{"query": "Lisbon"}'}},
                      {"id": "c2", "type": "function",
                       "function": {"name": "calculator", "arguments": '{"x": 1}'}}]},
                  {"role": "tool", "tool_call_id": "c1",
                   "content": json.dumps({"results": ["Lisbon: 545,000", {"text": "t", "id": "d"}]})},
                  {"role": "tool", "tool_call_id": "c2", "content": "2"},
                  {"role": "assistant", "content": "Lisbon."}]}
    [c] = load_rag_cases([record])
    assert [(s.tool, s.query, len(s.nodes)) for s in c.searches] == [("search", "Lisbon", 2)]
    assert c.expected_answer == "Lisbon." and c.nodes[1].id == "d"
    bad = json.loads(json.dumps(record))
    bad["expected_output"][0]["tool_calls"][0]["function"]["arguments"] = "{oops"
    with pytest.raises(DataError, match=r"field 'expected_output\[0\].tool_calls\[0\].function.arguments'"):
        load_rag_cases([bad])
