"""RAG cases in: JSONL, JSON, YAML, lists of dicts or DataFrames -> validated ``RagCase`` objects.

One case = a question, its expected answer, and what retrieval returned, as one or more
*searches* (a query and its ranked nodes). The retrieval context comes either as
``retrieval_context: [node, ...]`` (one search, its query the question) or inside tool calls of
``expected_output`` as eval suites log it (every call whose ``output`` is a list or has
``results`` is one search; its query is ``input.query``), or as OpenAI-format tool calls whose
``tool`` message holds the results. A node is a string or
``{"text", "id", "relevant", "score", "metadata"}``; ``relevant`` and a statement's
``attributable`` are labels the metrics use instead of asking a judge. See ``data/README.md``.

Every error is one ``DataError`` naming the file, the line (for YAML and JSON lists, the line
where the case starts; for DataFrames the row label) and the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenteval.core import jsonio
from agenteval.core.base import Where as _Where
from agenteval.core.base import is_dataframe as _is_dataframe
from agenteval.core.base import is_missing as _is_missing
from agenteval.core.base import kind as _kind
from agenteval.core.base import plain as _plain
from agenteval.core.base import read_json_list as _read_json_list
from agenteval.core.base import read_text as _read_text
from agenteval.core.base import short as _short
from agenteval.errors import ConfigError, DataError

CASE_FIELDS = ("id", "question", "input", "expected_answer", "expected_output",
               "retrieval_context", "statements", "actual_output", "metadata")
"""Fields a case may hold (``actual_output`` is accepted and ignored: these metrics do not read it)."""
NODE_FIELDS = ("text", "id", "relevant", "score", "metadata")
STATEMENT_FIELDS = ("text", "attributable")
TOOL_CALL_FIELDS = ("tool", "input", "output", "id")
OPENAI_CALL_FIELDS = ("id", "type", "function")
_JSONL = (".jsonl", ".ndjson")
_YAML = (".yaml", ".yml")


@dataclass(frozen=True)
class RagNode:
    """One retrieved node: its text, optional id and optional relevance label."""

    text: str
    id: str | None = None
    relevant: bool | None = None
    """Given label (True/False) or None: then a judge decides."""
    score: float | None = None
    """The retriever's own score, kept for display."""


@dataclass(frozen=True)
class RagSearch:
    """One search: the query sent and the nodes it returned, in rank order."""

    query: str
    nodes: tuple[RagNode, ...]
    tool: str | None = None
    """The tool that ran it (None for ``retrieval_context``)."""


@dataclass(frozen=True)
class RagStatement:
    """One statement of the expected answer, with an optional attribution label."""

    text: str
    attributable: bool | None = None


@dataclass(frozen=True)
class RagCase:
    """One question with its expected answer and its searches."""

    id: str
    question: str
    expected_answer: str | None
    searches: tuple[RagSearch, ...]
    statements: tuple[RagStatement, ...] | None = None
    """Given statements (None: a judge extracts them from ``expected_answer``)."""
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    line: Any = None

    @property
    def nodes(self) -> tuple[RagNode, ...]:
        """Every node of every search, in order (the combined context)."""
        return tuple(n for s in self.searches for n in s.nodes)


# --------------------------------------------------------------------------- one record


def _text(value: Any, where: _Where, name: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise where.error(f"expected a string, got {_short(value)}", name)
    return value


def _content(value: Any, where: _Where, name: str) -> str:
    """A chat message ``content``: a string, null or a list of text parts."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = []
        for i, part in enumerate(value):
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif not isinstance(part, Mapping):
                raise where.error(f"expected a text part, got {_short(part)}", f"{name}[{i}]")
        return "\n".join(texts)
    raise where.error(f"expected a string or a list of parts, got {_short(value)}", name)


def _bool_or_none(value: Any, where: _Where, name: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise where.error(f"expected true, false or null, got {_short(value)}", name)


def _node(value: Any, where: _Where, name: str) -> RagNode:
    if isinstance(value, str):
        return RagNode(value)
    if not isinstance(value, Mapping):
        raise where.error(f"expected a string or an object with 'text', got {_kind(value)}", name)
    for key in value:
        if key not in NODE_FIELDS:
            raise where.error(f"unknown field {key!r} (a node may have {', '.join(NODE_FIELDS)})",
                              name)
    if "text" not in value:
        raise where.error("missing required field", f"{name}.text")
    node_id = value.get("id")
    score = value.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
        raise where.error(f"expected a number, got {_short(score)}", f"{name}.score")
    return RagNode(
        text=_text(value["text"], where, f"{name}.text"),
        id=None if node_id is None else _text(node_id, where, f"{name}.id"),
        relevant=_bool_or_none(value.get("relevant"), where, f"{name}.relevant"),
        score=None if score is None else float(score),
    )


def _nodes(value: Any, where: _Where, name: str) -> tuple[RagNode, ...]:
    if not isinstance(value, list):
        raise where.error(f"expected a list of nodes, got {_kind(value)}", name)
    return tuple(_node(v, where, f"{name}[{i}]") for i, v in enumerate(value))


def _statements(value: Any, where: _Where) -> tuple[RagStatement, ...]:
    if not isinstance(value, list):
        raise where.error(f"expected a list of statements, got {_kind(value)}", "statements")
    if not value:
        raise where.error("must not be empty (leave it out to have the judge split the "
                          "expected answer)", "statements")
    out = []
    for i, item in enumerate(value):
        name = f"statements[{i}]"
        if isinstance(item, str):
            out.append(RagStatement(item))
            continue
        if not isinstance(item, Mapping):
            raise where.error(f"expected a string or an object with 'text', got {_kind(item)}",
                              name)
        for key in item:
            if key not in STATEMENT_FIELDS:
                raise where.error(f"unknown field {key!r} (a statement may have text, "
                                  "attributable)", name)
        if "text" not in item:
            raise where.error("missing required field", f"{name}.text")
        out.append(RagStatement(_text(item["text"], where, f"{name}.text"),
                                _bool_or_none(item.get("attributable"), where,
                                              f"{name}.attributable")))
    return tuple(out)


def _messages(value: Any, where: _Where, name: str) -> list[Mapping[str, Any]]:
    if not isinstance(value, list):
        raise where.error(f"expected a string or a list of chat messages, got {_kind(value)}",
                          name)
    for i, message in enumerate(value):
        if not isinstance(message, Mapping):
            raise where.error(f"expected a message object, got {_kind(message)}", f"{name}[{i}]")
        if not isinstance(message.get("role"), str):
            raise where.error("missing required field", f"{name}[{i}].role")
    return value


def _question(record: Mapping[str, Any], where: _Where) -> str:
    if "question" in record and "input" in record:
        raise where.error("give either 'question' or 'input', not both", "input")
    if "question" in record:
        return _text(record["question"], where, "question")
    if "input" not in record:
        raise where.error("missing required field (or 'input')", "question")
    value = record["input"]
    if isinstance(value, str):
        return value
    messages = _messages(value, where, "input")
    users = [(i, m) for i, m in enumerate(messages) if m["role"] == "user"]
    if not users:
        raise where.error("no user message to take the question from", "input")
    i, last = users[-1]
    return _content(last.get("content"), where, f"input[{i}].content")


def _openai_call(call: Mapping[str, Any], where: _Where, name: str,
                 outputs: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI-format call (``function.name``/``arguments``, result in a later ``tool``
    message with its ``tool_call_id``) in the ``{tool, input, output}`` shape."""
    for key in call:
        if key not in OPENAI_CALL_FIELDS:
            raise where.error(f"unknown field {key!r} (an OpenAI tool call has "
                              f"{', '.join(OPENAI_CALL_FIELDS)})", name)
    function = call["function"]
    if not isinstance(function, Mapping):
        raise where.error(f"expected an object, got {_kind(function)}", f"{name}.function")
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = jsonio.loads(arguments) if arguments.strip() else {}
        except (json.JSONDecodeError, jsonio.TooDeep) as exc:
            raise where.error(f"malformed JSON arguments: {exc}",
                              f"{name}.function.arguments") from None
    return {"tool": function.get("name"), "input": arguments,
            "output": outputs.get(call.get("id")) if isinstance(call.get("id"), str) else None}


def _tool_outputs(messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``tool_call_id`` -> the tool message's content (parsed when it is JSON)."""
    out: dict[str, Any] = {}
    for message in messages:
        if message["role"] == "tool" and isinstance(message.get("tool_call_id"), str):
            content = message.get("content")
            if isinstance(content, str):
                try:
                    content = jsonio.loads(content)
                except (json.JSONDecodeError, jsonio.TooDeep):
                    pass
            out[message["tool_call_id"]] = content
    return out


def _tool_call_search(call: Any, where: _Where, name: str, question: str,
                      outputs: Mapping[str, Any]) -> RagSearch | None:
    """A search from one logged tool call, or None when the call is not a search."""
    if not isinstance(call, Mapping):
        raise where.error(f"expected a tool call object, got {_kind(call)}", name)
    if "function" in call:
        call = _openai_call(call, where, name, outputs)
        output_name = f"{name} (its tool message content)"
    else:
        output_name = f"{name}.output"
        for key in call:
            if key not in TOOL_CALL_FIELDS:
                raise where.error(f"unknown field {key!r} (a tool call may have "
                                  f"{', '.join(TOOL_CALL_FIELDS)}, or OpenAI's "
                                  f"{', '.join(OPENAI_CALL_FIELDS)})", name)
    tool = call.get("tool")
    if tool is not None and not isinstance(tool, str):
        raise where.error(f"expected a string, got {_short(tool)}", f"{name}.tool")
    output = call.get("output")
    if isinstance(output, list):
        results, field_name = output, output_name
    elif isinstance(output, Mapping) and "results" in output:
        results, field_name = output["results"], f"{output_name}.results"
    else:
        return None  # not a retrieval call (a calculator, a booking ...)
    inputs = call.get("input")
    query = question
    if isinstance(inputs, Mapping) and "query" in inputs:
        query = _text(inputs["query"], where, f"{name}.input.query")
    elif isinstance(inputs, str):
        query = inputs
    return RagSearch(query=query, nodes=_nodes(results, where, field_name), tool=tool)


def _expected(record: Mapping[str, Any], where: _Where, question: str
              ) -> tuple[str | None, list[RagSearch]]:
    """(expected answer, searches found in its tool calls)."""
    if "expected_answer" in record and "expected_output" in record:
        raise where.error("give either 'expected_answer' or 'expected_output', not both",
                          "expected_output")
    if "expected_answer" in record:
        value = record["expected_answer"]
        return (None if value is None else _text(value, where, "expected_answer")), []
    value = record.get("expected_output")
    if value is None:
        return None, []
    if isinstance(value, str):
        return value, []
    messages = _messages(value, where, "expected_output")
    answer: str | None = None
    searches: list[RagSearch] = []
    outputs = _tool_outputs(messages)
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list):
            raise where.error(f"expected a list, got {_kind(calls)}",
                              f"expected_output[{i}].tool_calls")
        for j, call in enumerate(calls):
            search = _tool_call_search(call, where, f"expected_output[{i}].tool_calls[{j}]",
                                       question, outputs)
            if search is not None:
                searches.append(search)
        text = _content(message.get("content"), where, f"expected_output[{i}].content")
        if text.strip():
            answer = text
    return answer, searches


def parse_case(record: Any, where: _Where) -> RagCase:
    """Validate one record into a ``RagCase`` (errors name ``where`` and the field)."""
    if isinstance(record, RagCase):
        return record
    if not isinstance(record, Mapping):
        raise where.error(f"expected an object (one case), got {_kind(record)}")
    for key in record:
        if key not in CASE_FIELDS:
            raise where.error(f"unknown field {key!r}; a case may have {', '.join(CASE_FIELDS)}",
                              str(key))
    if "id" not in record:
        raise where.error("missing required field", "id")
    case_id = _text(record["id"], where, "id")
    if not case_id.strip():
        raise where.error("must not be empty", "id")
    question = _question(record, where)
    answer, tool_searches = _expected(record, where, question)
    searches: list[RagSearch] = []
    if "retrieval_context" in record:
        if tool_searches:
            raise where.error("retrieval context given twice: in 'retrieval_context' and in the "
                              "tool calls of 'expected_output'", "retrieval_context")
        searches = [RagSearch(question, _nodes(record["retrieval_context"], where,
                                               "retrieval_context"))]
    else:
        searches = tool_searches
    if not searches:
        raise where.error("no retrieval context: give 'retrieval_context' or tool calls in "
                          "'expected_output' whose output has 'results'", "retrieval_context")
    statements = None
    if record.get("statements") is not None:
        statements = _statements(record["statements"], where)
    metadata = record.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise where.error(f"expected an object, got {_kind(metadata)}", "metadata")
    return RagCase(id=case_id, question=question, expected_answer=answer,
                   searches=tuple(searches), statements=statements, metadata=dict(metadata),
                   source=where.source, line=where.line)


# --------------------------------------------------------------------------- sources


def _read_jsonl(path: Path) -> list[tuple[Any, int]]:
    records = []
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append((jsonio.loads(line), number))
        except json.JSONDecodeError as exc:
            raise DataError(f"malformed JSON at column {exc.colno}: {exc.msg}",
                            source=str(path), line=number) from None
        except jsonio.TooDeep as exc:
            raise DataError(str(exc), source=str(path), line=number) from None
    return records


def _read_yaml(path: Path) -> list[tuple[Any, int]]:
    """(case, line where it starts) for each item of a top-level YAML list (or one mapping)."""
    try:
        import yaml
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("reading YAML needs PyYAML: pip install 'agenteval[yaml]'") from exc
    text = _read_text(path)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise DataError(f"malformed YAML: {problem}", source=str(path),
                        line=None if mark is None else mark.line + 1) from None
    if root is None:
        return []
    if isinstance(root, yaml.SequenceNode) and isinstance(data, list):
        return [(item, node.start_mark.line + 1) for item, node in zip(data, root.value)]
    return [(data, root.start_mark.line + 1)]


def _records_from_path(path: Path) -> list[tuple[Any, int]]:
    suffix = path.suffix.lower()
    if suffix in _JSONL:
        return _read_jsonl(path)
    if suffix == ".json":
        return _read_json_list(path)
    if suffix in _YAML:
        return _read_yaml(path)
    if path.is_dir():
        raise DataError("is a directory, expected a .jsonl, .json or .yaml file of RAG cases",
                        source=str(path))
    raise DataError(f"unsupported file type {suffix or '(no suffix)'!r}: use .jsonl (one case "
                    "per line), .json (a list of cases) or .yaml", source=str(path))


_LIST_COLUMNS = ("retrieval_context", "statements", "input", "expected_output", "metadata")


def _dataframe_records(df: Any) -> list[tuple[Any, _Where]]:
    out = []
    for label, row in zip(df.index, df.to_dict(orient="records")):
        where = _Where("DataFrame", _plain(label), unit="row")
        values = {str(k): _plain(v) for k, v in row.items()
                  if not (not isinstance(v, (list, dict)) and _is_missing(v))}
        for col in _LIST_COLUMNS:
            cell = values.get(col)
            if isinstance(cell, str) and cell.lstrip().startswith(("[", "{")):
                try:
                    values[col] = jsonio.loads(cell)
                except (json.JSONDecodeError, jsonio.TooDeep) as exc:
                    raise where.error(f"malformed JSON: {exc}", col) from None
        out.append((values, where))
    return out


def load_rag_cases(source: Any) -> list[RagCase]:
    """Load and validate RAG cases, with unique ids.

    ``source``: a path (``.jsonl``, ``.json``, ``.yaml``/``.yml``), a list of dicts or
    ``RagCase``, or a pandas DataFrame with one row per case (list cells may be JSON strings).
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        name = str(path)
        located = [(record, _Where(name, line)) for record, line in _records_from_path(path)]
    elif _is_dataframe(source):
        name = "DataFrame"
        located = _dataframe_records(source)
    elif isinstance(source, RagCase):
        name, located = "list", [(source, _Where("list", index=0))]
    elif isinstance(source, Sequence) and not isinstance(source, (str, bytes)):
        name = "list"
        located = [(item, _Where("list", index=i)) for i, item in enumerate(source)]
    else:
        raise ConfigError("data must be a path (.jsonl/.json/.yaml), a list of dicts or "
                          f"RagCase, or a pandas DataFrame; got {type(source).__name__}")
    if not located:
        raise DataError("no cases found: the source is empty", source=name)
    return _unique([(parse_case(record, where), where) for record, where in located])


def _unique(located: Iterable[tuple[RagCase, _Where]]) -> list[RagCase]:
    seen: dict[str, _Where] = {}
    out = []
    for case, where in located:
        first = seen.get(case.id)
        if first is not None:
            raise where.error(f"duplicate id {case.id!r} (first seen at {first.describe()})", "id")
        seen[case.id] = where
        out.append(case)
    return out
