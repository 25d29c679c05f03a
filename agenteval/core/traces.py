"""OpenAI-style chat transcripts -> ``Dataset``: the format agents actually log.

One transcript is the ``messages`` list sent to (and returned by) a chat-completions API:
``system`` / ``user`` / ``assistant`` (text and/or ``tool_calls``) / ``tool`` messages. Each user
message starts an interaction:

* ``query``      = the user message's text;
* ``agentic``    = every tool call the assistant made in that turn (those after its final text
  marked ``after_answer``), with
  ``parameters`` parsed from the JSON ``arguments`` string, ``result`` = the matching ``tool``
  message's content (parsed as JSON when it is JSON) and ``step`` = 1, 2, ... counting the
  assistant messages that made tool calls: calls made together in one message (parallel
  calls) share a step, since their list order says nothing about which ran first;
* ``assistant``  = the last assistant text of the turn ("" if it never answered);
* ``system`` messages become ``Dataset.context``.

References (ground truth) are not in a transcript, so they come separately: one entry per user
turn, in order. See ``data/README.md`` for the file format.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agenteval.core import jsonio
from agenteval.core.base import error_message
from agenteval.errors import ConfigError, DataError
from agenteval.schemas.common import Dataset, ExpectedTool

__all__ = ["REFERENCE_FIELDS", "TRACE_FIELDS", "TraceContext", "convert_messages",
           "dataset_from_openai_messages", "trace_record_to_dataset"]

TRACE_FIELDS = ("session_id", "assistant_id", "task_id", "language", "context", "metadata",
                "outcome", "attempt", "messages", "references")
"""Keys allowed on one transcript record (one line of a traces JSONL file)."""

REFERENCE_FIELDS = ("ground_truth_assistant", "expected_tools", "tool_sequence_matters", "qa_id",
                    "observation", "weight", "score", "argument_matching")
"""Keys allowed in one ``references`` entry."""

_TEXT_PART_TYPES = {"text", "input_text", "output_text"}


class _Reference(BaseModel):
    """What one user turn should have produced."""

    model_config = ConfigDict(extra="forbid")

    ground_truth_assistant: str | None = None
    expected_tools: list[ExpectedTool] | None = None
    tool_sequence_matters: bool = True
    qa_id: str | None = None
    observation: str | None = None
    weight: float | None = Field(default=None, ge=0)
    score: Any = None  # validated with the Batch
    argument_matching: Any = None  # validated with the GroundTruthAgentic


class TraceContext:
    """Carries the place (file, line) so every error names it."""

    def __init__(self, source: str | None, line: int | None, index: int | None, *,
                 prefix: str = "messages") -> None:
        self.source = source
        self.line = line
        self.index = index
        self.prefix = prefix  # the field holding the message list ("traj" in tau-bench)

    def error(self, message: str, field: str | None = None) -> DataError:
        source = self.source
        if self.line is None and self.index is not None:
            source = f"{source} item {self.index}" if source else f"item {self.index}"
        return DataError(message, source=source, line=self.line, field=field)


def _what(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _text(content: Any, field: str, ctx: TraceContext) -> str:
    """A message's content as text: a string, null, or a list of parts (text parts joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for j, part in enumerate(content):
            if isinstance(part, str):
                texts.append(part)
                continue
            if not isinstance(part, Mapping):
                raise ctx.error(f"expected a content part object, got {_what(part)}",
                                f"{field}[{j}]")
            if part.get("type") in _TEXT_PART_TYPES:
                text = part.get("text")
                if not isinstance(text, str):
                    raise ctx.error(f"expected a string, got {_what(text)}", f"{field}[{j}].text")
                texts.append(text)
            # image / audio / file parts carry no text to judge: skipped on purpose.
        return "\n".join(texts)
    raise ctx.error(f"expected a string, a list of content parts or null, got {_what(content)}",
                    field)


def _maybe_json(text: str) -> Any:
    """Tool output: parsed when it is JSON, else the text itself."""
    stripped = text.strip()
    if not stripped:
        return text
    try:
        return jsonio.loads(stripped)
    except ValueError:  # malformed, or nested too deeply: keep the text
        return text


def _parse_arguments(raw: Any, field: str, ctx: TraceContext) -> dict[str, Any]:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if isinstance(raw, Mapping):
        return dict(raw)
    if not isinstance(raw, str):
        raise ctx.error(f"expected a JSON string, got {_what(raw)}", field)
    try:
        value = jsonio.loads(raw)
    except json.JSONDecodeError as exc:
        raise ctx.error(f"malformed JSON arguments at column {exc.colno}: {exc.msg} "
                        f"(got {_what(raw)})", field) from None
    except jsonio.TooDeep as exc:
        raise ctx.error(f"arguments: {exc}", field) from None
    if not isinstance(value, dict):
        raise ctx.error(f"arguments must be a JSON object, got {_what(value)}", field)
    return value


def _references(references: Any, n_turns: int, ctx: TraceContext) -> list[_Reference | None]:
    if references is None:
        return [None] * n_turns
    if not isinstance(references, list):
        raise ctx.error(f"expected a list (one entry per user turn), got {_what(references)}",
                        "references")
    if len(references) != n_turns:
        raise ctx.error(f"has {len(references)} entries but the messages have {n_turns} user "
                        "turn(s); give one entry (or null) per user message, in order", "references")
    out: list[_Reference | None] = []
    for i, ref in enumerate(references):
        if ref is None:
            out.append(None)
            continue
        if not isinstance(ref, Mapping):
            raise ctx.error(f"expected an object, got {_what(ref)}", f"references[{i}]")
        try:
            out.append(_Reference.model_validate(dict(ref)))
        except ValidationError as exc:
            errors = exc.errors()
            field, message = error_message(errors[0])
            if len(errors) > 1:
                message += f" (and {len(errors) - 1} more error{'s' if len(errors) > 2 else ''})"
            raise ctx.error(message, f"references[{i}]" + (f".{field}" if field else "")) from None
    return out


def convert_messages(messages: Any, *, session_id: Any, assistant_id: Any, references: Any,
                     fields: Mapping[str, Any], ctx: TraceContext) -> Dataset:
    if not isinstance(messages, list):
        raise ctx.error(f"expected a list of chat messages, got {_what(messages)}", ctx.prefix)
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        where = f"{ctx.prefix}[{i}]"
        if not isinstance(msg, Mapping):
            raise ctx.error(f"expected a message object, got {_what(msg)}", where)
        role = msg.get("role")
        if role in ("system", "developer"):
            system.append(_text(msg.get("content"), f"{where}.content", ctx))
        elif role == "user":
            turns.append({"query": _text(msg.get("content"), f"{where}.content", ctx),
                          "calls": [], "by_id": {}, "answer": None, "answer_calls": 0,
                          "steps": 0})
        elif role == "assistant":
            if not turns:
                raise ctx.error("assistant message before the first user message", where)
            turn = turns[-1]
            raw_calls = msg.get("tool_calls") or []
            if not isinstance(raw_calls, list):
                raise ctx.error(f"expected a list, got {_what(raw_calls)}", f"{where}.tool_calls")
            if raw_calls:  # one step per message: its calls were issued together (parallel)
                turn["steps"] += 1
            for j, call in enumerate(raw_calls):
                cwhere = f"{where}.tool_calls[{j}]"
                if not isinstance(call, Mapping):
                    raise ctx.error(f"expected a tool call object, got {_what(call)}", cwhere)
                if call.get("type", "function") != "function":
                    raise ctx.error(f"only 'function' tool calls are supported, got "
                                    f"{_what(call.get('type'))}", f"{cwhere}.type")
                function = call.get("function")
                if not isinstance(function, Mapping):
                    raise ctx.error(f"expected an object, got {_what(function)}", f"{cwhere}.function")
                name = function.get("name")
                if not isinstance(name, str) or not name:
                    raise ctx.error(f"expected a non-empty string, got {_what(name)}",
                                    f"{cwhere}.function.name")
                entry = {"tool_name": name,
                         "parameters": _parse_arguments(function.get("arguments"),
                                                        f"{cwhere}.function.arguments", ctx),
                         "result": None, "step": turn["steps"]}
                call_id = call.get("id")
                if call_id is not None:
                    if not isinstance(call_id, str):
                        raise ctx.error(f"expected a string, got {_what(call_id)}", f"{cwhere}.id")
                    turn["by_id"][call_id] = entry
                turn["calls"].append(entry)
            content = msg.get("content")
            if content is None and isinstance(msg.get("refusal"), str):
                content = msg["refusal"]
            text = _text(content, f"{where}.content", ctx)
            if text.strip():
                turn["answer"] = text
                turn["answer_calls"] = len(turn["calls"])
        elif role == "tool":
            call_id = msg.get("tool_call_id")
            entry = turns[-1]["by_id"].get(call_id) if turns and isinstance(call_id, str) else None
            if entry is None:
                raise ctx.error(f"tool_call_id {call_id!r} does not match any tool call made "
                                "earlier in this user turn", f"{where}.tool_call_id")
            entry["result"] = _maybe_json(_text(msg.get("content"), f"{where}.content", ctx))
        else:
            raise ctx.error(f"unknown role {_what(role)}: expected system, developer, user, "
                            "assistant or tool", f"{where}.role")
    if not turns:
        raise ctx.error("no user message: a conversation needs at least one interaction",
                        ctx.prefix)

    refs = _references(references, len(turns), ctx)
    conversation = []
    for n, (turn, ref) in enumerate(zip(turns, refs), start=1):
        # Every call is kept, also those made after the final text (an agent that announces
        # "I'll cancel it now" and then calls cancel did cancel): tool correctness must see
        # what the agent did. ``after_answer`` marks them, as they cannot have fed the answer.
        calls = turn["calls"]
        if turn["answer"] is not None:
            for entry in calls[turn["answer_calls"]:]:
                entry["after_answer"] = True
        batch: dict[str, Any] = {
            "qa_id": f"q{n}",
            "query": turn["query"],
            "assistant": turn["answer"] or "",
            "agentic": {"tools_used": calls},
        }
        if ref is not None:
            if ref.qa_id is not None:
                batch["qa_id"] = ref.qa_id
            for key in ("ground_truth_assistant", "observation", "weight", "score"):
                if getattr(ref, key) is not None:
                    batch[key] = getattr(ref, key)
            if ref.argument_matching is not None and ref.expected_tools is None:
                raise ctx.error("argument_matching needs expected_tools in the same entry",
                                f"references[{n - 1}].argument_matching")
            if ref.expected_tools is not None:
                batch["ground_truth_agentic"] = {
                    "expected_tools": ref.expected_tools,
                    "tool_sequence_matters": ref.tool_sequence_matters,
                    "argument_matching": ref.argument_matching,
                }
        conversation.append(batch)

    record: dict[str, Any] = {"session_id": session_id, "assistant_id": assistant_id,
                              "conversation": conversation}
    if system:
        record["context"] = "\n\n".join(system)
    record.update(fields)
    try:
        return Dataset.model_validate(record)
    except ValidationError as exc:
        errors = exc.errors()
        field, message = error_message(errors[0])
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more error{'s' if len(errors) > 2 else ''})"
        raise ctx.error(message, field) from None


def dataset_from_openai_messages(messages: Sequence[Mapping[str, Any]], *, session_id: str,
                                 assistant_id: str,
                                 references: Sequence[Mapping[str, Any] | None] | None = None,
                                 **fields: Any) -> Dataset:
    """Convert an in-memory OpenAI chat transcript into one ``Dataset`` (conversation).

    ``references`` has one entry (or ``None``) per user message, in order, with keys from
    ``REFERENCE_FIELDS``; ``fields`` are other ``Dataset`` fields (``task_id``, ``language``,
    ``context`` (overrides the system messages), ``metadata``). Raises DataError naming the
    message and field, e.g. ``messages[3].tool_calls[0].function.arguments``.

    >>> ds = dataset_from_openai_messages(
    ...     [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}],
    ...     session_id="s1", assistant_id="bot", references=[{"ground_truth_assistant": "4"}])
    >>> ds.conversation[0].assistant, ds.conversation[0].ground_truth_assistant
    ('4', '4')
    """
    unknown = [k for k in fields if k not in TRACE_FIELDS or k in ("messages", "references")]
    if unknown:
        raise ConfigError(f"unknown keyword argument {unknown[0]!r}: allowed Dataset fields are "
                          "task_id, language, context, metadata, outcome, attempt")
    return convert_messages(list(messages) if isinstance(messages, tuple) else messages,
                    session_id=session_id, assistant_id=assistant_id,
                    references=list(references) if isinstance(references, tuple) else references,
                    fields=fields, ctx=TraceContext(None, None, None))


def trace_record_to_dataset(record: Mapping[str, Any], *, source: str | None = None,
                             line: int | None = None, index: int | None = None) -> Dataset:
    """One transcript record (a line of a traces JSONL file) -> Dataset."""
    ctx = TraceContext(source, line, index)
    for key in record:
        if key not in TRACE_FIELDS:
            raise ctx.error(f"unknown field {key!r} in a transcript record; allowed: "
                            f"{', '.join(TRACE_FIELDS)}")
    for key in ("session_id", "assistant_id", "messages"):
        if key not in record:
            raise ctx.error("missing required field", key)
    fields = {k: v for k, v in record.items()
              if k not in ("session_id", "assistant_id", "messages", "references")}
    return convert_messages(record["messages"], session_id=record["session_id"],
                    assistant_id=record["assistant_id"], references=record.get("references"),
                    fields=fields, ctx=ctx)
