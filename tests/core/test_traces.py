"""OpenAI-style transcripts -> Dataset: checked field by field on handcrafted transcripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenteval.core import OpenAITraceRetriever, dataset_from_openai_messages, load_datasets
from agenteval.errors import ConfigError, DataError

ROOT = Path(__file__).resolve().parents[2]


def call(call_id, name, args):
    raw = args if isinstance(args, str) else json.dumps(args)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}


MESSAGES = [
    {"role": "system", "content": "You book trips."},
    {"role": "user", "content": "Find flights MAD to BER and the weather there."},
    {"role": "assistant", "content": "Looking that up.", "tool_calls": [
        call("c1", "search_flights", {"origin": "MAD", "destination": "BER"}),
        call("c2", "get_weather", {"city": "Berlin"})]},
    {"role": "tool", "tool_call_id": "c2", "content": '{"temp_c": 21}'},
    {"role": "tool", "tool_call_id": "c1", "content": "IB3120 at 142 EUR"},
    {"role": "assistant", "content": None, "tool_calls": [call("c3", "book_flight", "")]},
    {"role": "tool", "tool_call_id": "c3", "content": [{"type": "text", "text": "[1, 2]"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "Booked IB3120."},
                                      {"type": "image_url", "image_url": {"url": "x"}},
                                      {"type": "text", "text": "Berlin: 21C."}]},
    {"role": "user", "content": [{"type": "text", "text": "Thanks."}]},
    {"role": "assistant", "content": "You're welcome."},
    {"role": "user", "content": "And the hotel?"},
    {"role": "assistant", "content": None, "refusal": "I cannot book hotels."},
]

REFERENCES = [
    {"ground_truth_assistant": "IB3120", "tool_sequence_matters": False, "qa_id": "flight",
     "expected_tools": [{"tool_name": "search_flights", "parameters": {"origin": "MAD"}},
                        {"tool_name": "book_flight"}]},
    None,
    {"ground_truth_assistant": "no hotel", "weight": 0.5},
]


def test_handcrafted_transcript_field_by_field():
    ds = dataset_from_openai_messages(MESSAGES, session_id="s1", assistant_id="bot",
                                      references=REFERENCES, task_id="trip", language="english")
    assert (ds.session_id, ds.assistant_id, ds.task_id, ds.language) == ("s1", "bot", "trip",
                                                                         "english")
    assert ds.context == "You book trips."
    assert len(ds.conversation) == 3
    first, second, third = ds.conversation

    assert first.qa_id == "flight"
    assert first.query == "Find flights MAD to BER and the weather there."
    assert first.assistant == "Booked IB3120.\nBerlin: 21C."  # text parts joined, image skipped
    assert first.ground_truth_assistant == "IB3120"
    tools = first.agentic.tools_used
    assert [t.tool_name for t in tools] == ["search_flights", "get_weather", "book_flight"]
    assert [t.step for t in tools] == [1, 1, 2]  # c1 and c2 were made together: parallel
    assert tools[0].parameters == {"origin": "MAD", "destination": "BER"}
    assert tools[0].result == "IB3120 at 142 EUR"          # not JSON: kept as text
    assert tools[1].result == {"temp_c": 21}               # JSON: parsed (answered out of order)
    assert tools[2].parameters == {} and tools[2].result == [1, 2]
    assert first.agentic.final_answer_uses_tools is None
    gt = first.ground_truth_agentic
    assert gt.tool_sequence_matters is False
    assert [(e.tool_name, e.parameters) for e in gt.expected_tools] == [
        ("search_flights", {"origin": "MAD"}), ("book_flight", {})]

    assert (second.qa_id, second.query, second.assistant) == ("q2", "Thanks.", "You're welcome.")
    assert second.ground_truth_assistant is None and second.ground_truth_agentic is None
    assert second.agentic.tools_used == []

    assert (third.qa_id, third.assistant, third.weight) == ("q3", "I cannot book hotels.", 0.5)
    assert third.ground_truth_agentic is None


def test_calls_after_the_final_answer_are_kept_and_marked_and_unanswered_turns_keep_calls():
    # Changed deliberately (issue 9 item 4): calls after the final text used to be dropped,
    # which lost real cancellations and bookings; now every call is kept and marked.
    messages = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [call("a", "first", {})]},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "assistant", "content": "answer"},
        {"role": "assistant", "content": None, "tool_calls": [call("b", "late", {})]},
        {"role": "user", "content": "q2"},
        {"role": "assistant", "content": None, "tool_calls": [call("c", "never_answered", {})]},
    ]
    ds = dataset_from_openai_messages(messages, session_id="s", assistant_id="b")
    assert [t.tool_name for t in ds.conversation[0].agentic.tools_used] == ["first", "late"]
    assert [t.after_answer for t in ds.conversation[0].agentic.tools_used] == [False, True]
    assert ds.conversation[0].agentic.tools_used[0].result == 1
    assert [t.step for t in ds.conversation[0].agentic.tools_used] == [1, 2]
    assert ds.conversation[1].assistant == ""
    assert [t.tool_name for t in ds.conversation[1].agentic.tools_used] == ["never_answered"]
    assert ds.conversation[1].agentic.tools_used[0].after_answer is False
    assert ds.conversation[1].agentic.tools_used[0].result is None
    assert ds.context == ""


def test_calls_of_one_message_share_a_step_and_list_order_does_not_matter():
    def transcript(first_batch):
        return [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": None, "tool_calls": first_batch},
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "tool", "tool_call_id": "b", "content": "2"},
            {"role": "assistant", "content": "thinking", "tool_calls": [call("c", "third", {})]},
            {"role": "tool", "tool_call_id": "c", "content": "3"},
            {"role": "assistant", "content": None, "tool_calls": []},  # no calls: no step
            {"role": "assistant", "content": None, "tool_calls": [call("d", "fourth", {}),
                                                                  call("e", "fifth", {})]},
            {"role": "assistant", "content": "done"},
            {"role": "user", "content": "q2"},  # steps restart in each user turn
            {"role": "assistant", "content": None, "tool_calls": [call("f", "sixth", {})]},
            {"role": "assistant", "content": "ok"},
        ]

    ab = [call("a", "first", {}), call("b", "second", {})]
    ds = dataset_from_openai_messages(transcript(ab), session_id="s", assistant_id="b")
    used = ds.conversation[0].agentic.tools_used
    assert [(t.tool_name, t.step) for t in used] == [
        ("first", 1), ("second", 1), ("third", 2), ("fourth", 3), ("fifth", 3)]
    assert [(t.tool_name, t.step) for t in ds.conversation[1].agentic.tools_used] == [("sixth", 1)]

    # the sequence score no longer depends on the arbitrary order of one message's call list
    from agenteval.metrics.tools import score_tool_use

    # both list orders of one message score the same, and calls made together show no wrong
    # order, whether the reference orders them or not
    strict = {"tool_sequence_matters": True, "expected_tools": [
        {"tool_name": name, "step": k} for k, name in
        enumerate(["first", "second", "third", "fourth", "fifth"], start=1)]}
    parallel = {"tool_sequence_matters": True, "expected_tools": [
        {"tool_name": "second", "step": 1}, {"tool_name": "first", "step": 1},
        {"tool_name": "third", "step": 2}, {"tool_name": "fourth", "step": 3},
        {"tool_name": "fifth", "step": 3}]}
    ba = [call("b", "second", {}), call("a", "first", {})]
    convs = [dataset_from_openai_messages(transcript(batch), session_id="s",
                                          assistant_id="b").conversation[0] for batch in (ab, ba)]
    strict_scores = [score_tool_use(c.agentic, strict, c.assistant).sequence_correct for c in convs]
    parallel_scores = [score_tool_use(c.agentic, parallel, c.assistant).sequence_correct
                       for c in convs]
    assert strict_scores == [1.0, 1.0]
    assert parallel_scores == [1.0, 1.0]


def test_numbers_too_long_for_int_do_not_fail_the_trace():
    # Python's int() refuses more than 4300 digits; json.loads raised ValueError (not a
    # JSONDecodeError) on such a tool output or argument, crashing the whole conversion.
    huge = "9" * 5000
    messages = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None,
         "tool_calls": [call("a", "calc", '{"x": ' + huge + ', "y": 2}')]},
        {"role": "tool", "tool_call_id": "a", "content": '{"value": ' + huge + ', "n": 37}'},
        {"role": "assistant", "content": "It is 37, not 1e99999999."},
    ]
    ds = dataset_from_openai_messages(messages, session_id="s", assistant_id="b")
    (used,) = ds.conversation[0].agentic.tools_used
    assert used.parameters == {"x": float("inf"), "y": 2}  # as json reads 1e5000
    assert used.result == {"value": float("inf"), "n": 37}

    from agenteval.metrics.tools import score_tool_use

    batch = ds.conversation[0]
    score = score_tool_use(batch.agentic, {"expected_tools": [{"tool_name": "calc"}]},
                           batch.assistant)
    assert score.utilization_evidence == "found"


def test_explicit_context_overrides_system_messages():
    ds = dataset_from_openai_messages(MESSAGES[:2] + [{"role": "assistant", "content": "x"}],
                                      session_id="s", assistant_id="b", context="mine")
    assert ds.context == "mine"
    with pytest.raises(ConfigError, match="unknown keyword argument 'contxt'"):
        dataset_from_openai_messages(MESSAGES, session_id="s", assistant_id="b", contxt="x")


def _write(tmp_path, records) -> Path:
    path = tmp_path / "traces.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def _record(session_id="s1", messages=None, **extra):
    record = {"session_id": session_id, "assistant_id": "bot",
              "messages": messages or [{"role": "user", "content": "hi"},
                                       {"role": "assistant", "content": "hello"}]}
    record.update(extra)
    return record


def test_malformed_arguments_name_line_and_message(tmp_path):
    messages = [{"role": "user", "content": "q"},
                {"role": "assistant", "content": None,
                 "tool_calls": [call("a", "ok", {}), call("b", "calc", '{"x": 1,')]}]
    path = _write(tmp_path, [_record("s0"), _record("s1", messages)])
    with pytest.raises(DataError) as info:
        OpenAITraceRetriever(path).load_dataset()
    err = info.value
    assert (err.source, err.line) == (str(path), 2)
    assert err.field == "messages[1].tool_calls[1].function.arguments"
    assert "malformed JSON arguments" in str(err)
    with pytest.raises(DataError) as info:
        dataset_from_openai_messages(messages, session_id="s", assistant_id="b")
    assert info.value.line is None and info.value.field == err.field

    messages[1]["tool_calls"][1] = call("b", "calc", "[1, 2]")
    with pytest.raises(DataError, match="arguments must be a JSON object"):
        dataset_from_openai_messages(messages, session_id="s", assistant_id="b")


def test_orphan_tool_message(tmp_path):
    messages = [{"role": "user", "content": "q"},
                {"role": "assistant", "content": None, "tool_calls": [call("a", "t", {})]},
                {"role": "tool", "tool_call_id": "zzz", "content": "1"},
                {"role": "assistant", "content": "done"}]
    path = _write(tmp_path, [_record("s1", messages)])
    with pytest.raises(DataError) as info:
        load_datasets(path)
    assert (info.value.line, info.value.field) == (1, "messages[2].tool_call_id")
    assert "'zzz' does not match any tool call" in str(info.value)
    # a tool message answering a call from an earlier turn is an orphan too
    messages = [{"role": "user", "content": "q"},
                {"role": "assistant", "content": "x", "tool_calls": [call("a", "t", {})]},
                {"role": "user", "content": "q2"},
                {"role": "tool", "tool_call_id": "a", "content": "1"}]
    with pytest.raises(DataError, match="does not match"):
        dataset_from_openai_messages(messages, session_id="s", assistant_id="b")


@pytest.mark.parametrize("messages, field, text", [
    ([{"role": "assistant", "content": "hi"}], "messages[0]", "before the first user"),
    ([{"role": "system", "content": "s"}], "messages", "no user message"),
    ([{"role": "user", "content": "q"}, {"role": "robot", "content": "x"}], "messages[1].role",
     "unknown role 'robot'"),
    ([{"role": "user", "content": 5}], "messages[0].content", "expected a string"),
    ([{"role": "user", "content": [{"type": "text", "text": 3}]}], "messages[0].content[0].text",
     "expected a string"),
    ([{"role": "user", "content": "q"},
      {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {}}]}],
     "messages[1].tool_calls[0].function.name", "non-empty string"),
    ("not a list", "messages", "expected a list"),
])
def test_bad_messages(messages, field, text):
    with pytest.raises(DataError) as info:
        dataset_from_openai_messages(messages, session_id="s", assistant_id="b")
    assert info.value.field == field and text in str(info.value)


def test_reference_errors(tmp_path):
    two_turns = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "x"},
                 {"role": "user", "content": "b"}, {"role": "assistant", "content": "y"}]
    with pytest.raises(DataError, match="has 1 entries but the messages have 2 user turn"):
        dataset_from_openai_messages(two_turns, session_id="s", assistant_id="b",
                                     references=[{"ground_truth_assistant": "x"}])
    path = _write(tmp_path, [_record("s1", two_turns, references=[
        None, {"ground_truth_assistant": "y", "expected_tools": [{"parameters": {}}]}])])
    with pytest.raises(DataError) as info:
        load_datasets(path)
    assert (info.value.line, info.value.field) == (1, "references[1].expected_tools[0].tool_name")
    assert "missing required field" in str(info.value)
    path = _write(tmp_path, [_record("s1", references=[{"grond_truth_assistant": "y"}])])
    with pytest.raises(DataError, match="unknown field 'grond_truth_assistant'") as info:
        load_datasets(path)
    assert info.value.field == "references[0]"


def test_record_level_errors(tmp_path):
    path = _write(tmp_path, [_record("s1"), _record("s2", extra_key=1)])
    with pytest.raises(DataError, match="unknown field 'extra_key'") as info:
        OpenAITraceRetriever(path).load_dataset()
    assert info.value.line == 2
    record = _record("s1")
    del record["assistant_id"]
    path = _write(tmp_path, [record])
    with pytest.raises(DataError) as info:
        OpenAITraceRetriever(path).load_dataset()
    assert (info.value.line, info.value.field) == (1, "assistant_id")
    path = _write(tmp_path, [_record("s1"), _record("s1")])
    with pytest.raises(DataError, match="duplicate session_id 's1' \\(first seen at line 1\\)"):
        OpenAITraceRetriever(path).load_dataset()


def test_demo_traces_file():
    path = ROOT / "data" / "traces_demo.jsonl"
    loaded = OpenAITraceRetriever(path).load_dataset()
    assert loaded == load_datasets(path)
    assert len(loaded) == 5
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for dataset, record in zip(loaded, records):
        users = [m for m in record["messages"] if m["role"] == "user"]
        assert len(dataset.conversation) == len(users) == len(record["references"])
        for batch, ref in zip(dataset.conversation, record["references"]):
            assert batch.ground_truth_assistant == ref["ground_truth_assistant"]
    flight = next(d for d in loaded if d.session_id == "trace-flight-1")
    used = flight.conversation[0].agentic.tools_used
    assert [(t.tool_name, t.step) for t in used] == [("search_flights", 1), ("book_flight", 2)]
    assert used[1].result == {"status": "confirmed", "confirmation": "K7Q2ZP"}


def _random_transcript(rng, turns: int) -> list[dict]:
    """A transcript whose turns mix text, tool calls (parallel too) and calls after the text;
    the last turn ends in tool calls (answered or not)."""
    messages = [{"role": "system", "content": "sys"}]
    n = 0
    for t in range(turns):
        messages.append({"role": "user", "content": f"u{t}"})
        for _ in range(rng.randint(0, 4)):
            kind = rng.choice(["text", "calls", "calls+text"])
            msg = {"role": "assistant", "content": f"text {n}" if "text" in kind else None}
            if "calls" in kind:
                calls = [call(f"c{n + j}", f"tool{rng.randint(0, 3)}", {"i": n + j})
                         for j in range(rng.randint(1, 3))]
                n += len(calls)
                msg["tool_calls"] = calls
                messages.append(msg)
                for c in calls:
                    if rng.random() < 0.8:
                        messages.append({"role": "tool", "tool_call_id": c["id"], "content": "r"})
            else:
                messages.append(msg)
    last = [call(f"c{n}", "final_tool", {"i": n})]
    messages.append({"role": "assistant", "content": None, "tool_calls": last})
    return messages


def test_every_tool_call_in_is_a_tool_call_out_on_transcripts_ending_in_tool_calls():
    import random

    rng = random.Random(11)
    total = 0
    for case in range(200):
        messages = _random_transcript(rng, rng.randint(1, 4))
        ds = dataset_from_openai_messages(messages, session_id=f"s{case}", assistant_id="a")
        calls_in = [(c["function"]["name"], json.loads(c["function"]["arguments"]))
                    for m in messages for c in m.get("tool_calls") or []]
        calls_out = [(t.tool_name, t.parameters) for b in ds.conversation
                     for t in b.agentic.tools_used]
        assert calls_out == calls_in
        assert ds.conversation[-1].agentic.tools_used[-1].tool_name == "final_tool"
        # marked exactly when the turn's last text came earlier than the call's message
        expected_marks, turn_calls, last_text = [], [], None
        for i, m in enumerate(messages + [{"role": "user"}]):
            if m["role"] == "user":
                expected_marks += [last_text is not None and j > last_text for j in turn_calls]
                turn_calls, last_text = [], None
            elif m["role"] == "assistant":
                turn_calls += [i] * len(m.get("tool_calls") or [])
                if m.get("content"):
                    last_text = i
        marks = [t.after_answer for b in ds.conversation for t in b.agentic.tools_used]
        assert marks == expected_marks
        total += len(calls_in)
    assert total > 500


def test_transcripts_carry_outcomes_scores_and_argument_rules():
    record = {"session_id": "s", "assistant_id": "a", "outcome": 0.0, "attempt": 3,
              "messages": [{"role": "user", "content": "q"},
                           {"role": "assistant", "content": None,
                            "tool_calls": [call("x", "open", {"path": "/A"})]}],
              "references": [{"score": 1.0, "expected_tools": [{"tool_name": "open",
                                                                 "parameters": {"path": "/a"}}],
                              "argument_matching": {"open.path": "normalized"}}]}
    [ds] = load_datasets([record])
    assert (ds.outcome, ds.attempt, ds.conversation[0].score) == (0.0, 3, 1.0)
    assert ds.conversation[0].ground_truth_agentic.argument_matching == {"open.path": "normalized"}
    bad = dict(record, references=[dict(record["references"][0],
                                        argument_matching={"open.path": "fuzzy"})])
    with pytest.raises(DataError, match="fuzzy") as err:
        load_datasets([bad])
    assert "argument_matching" in err.value.field
    alone = dict(record, references=[{"argument_matching": {"open.path": "exact"}}])
    with pytest.raises(DataError, match="needs expected_tools") as err:
        load_datasets([alone])
    assert err.value.field == "references[0].argument_matching"
