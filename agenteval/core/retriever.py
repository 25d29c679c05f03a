"""Loading conversations: files, DataFrames, lists and user retrievers -> validated ``Dataset``s.

``Retriever`` keeps Fair Forge / Gaussia's shape (subclass it, implement ``load_dataset``), so a
user's retriever class works unchanged. Every loader turns bad input into one
:class:`~agenteval.errors.DataError` naming the file, the line and the field, e.g.
``demo.jsonl, line 7, field 'conversation[2].query': missing required field``.
"""

from __future__ import annotations

import json
import math
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from agenteval.core import jsonio
from agenteval.errors import ConfigError, DataError
from agenteval.schemas.common import Dataset, share_fields_sets

__all__ = [
    "DataFrameRetriever",
    "JSONLRetriever",
    "JSONRetriever",
    "OpenAITraceRetriever",
    "Retriever",
    "load_datasets",
]

_JSONL_SUFFIXES = {".jsonl", ".ndjson"}
_JSON_SUFFIXES = {".json"}


class Retriever(ABC):
    """Base class for data sources (compat): subclass it and return conversations.

    Keyword arguments given to the constructor are kept in ``self.kwargs`` so a subclass (and
    ``Agentic.run(MyRetriever, ...)``) can read its options from there.
    """

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs

    @abstractmethod
    def load_dataset(self) -> list[Dataset]:
        """Return the conversations, one ``Dataset`` each."""


# --------------------------------------------------------------------------- where things are


@dataclass(frozen=True)
class _Where:
    """Where one conversation came from, for error messages."""

    source: str | None = None
    line: Any = None        # file line (int) or DataFrame row label
    index: int | None = None  # position in a list, when there is no line
    unit: str = "line"        # what ``line`` counts: "line" in files, "row" in DataFrames

    def describe(self) -> str:
        if self.line is not None:
            return f"{self.unit} {self.line!r}" if self.unit == "row" else f"line {self.line}"
        if self.index is not None:
            return f"item {self.index}"
        return "an earlier item"

    def error(self, message: str, field: str | None = None) -> DataError:
        source = self.source
        if self.line is None and self.index is not None:
            source = f"{source} item {self.index}" if source else f"item {self.index}"
        return DataError(message, source=source, line=self.line, field=field)


# --------------------------------------------------------------------------- validation


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def format_loc(loc: Iterable[Any]) -> str:
    """Join a pydantic error location as ``conversation[2].agentic.tools_used[1].parameters``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


_EXPECTED = {
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "list_type": "a list",
    "string_type": "a string",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
}


def _error_message(err: Mapping[str, Any]) -> tuple[str | None, str]:
    """(field, readable message) for one pydantic error."""
    loc = list(err.get("loc", ()))
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        name = loc[-1] if loc else "?"
        parent = format_loc(loc[:-1]) or None
        return parent, f"unknown field {name!r}"
    field = format_loc(loc) or None
    if kind == "missing":
        return field, "missing required field"
    if kind in _EXPECTED:
        return field, f"expected {_EXPECTED[kind]}, got {_short(err.get('input'))}"
    msg = str(err.get("msg", "invalid value"))
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    elif "input" in err and kind not in {"value_error", "assertion_error"}:
        msg = f"{msg[:1].lower()}{msg[1:]}, got {_short(err['input'])}"
    return field, msg


def validation_to_data_error(exc: ValidationError, where: _Where, *, prefix: str = "") -> DataError:
    """Turn pydantic's error list into one DataError about its first error."""
    errors = exc.errors()
    field, message = _error_message(errors[0]) if errors else (None, str(exc))
    if prefix:
        field = f"{prefix}.{field}" if field else prefix
    if len(errors) > 1:
        extra = len(errors) - 1
        message += f" (and {extra} more error{'s' if extra > 1 else ''})"
    return where.error(message, field)


def _validate(record: Any, where: _Where) -> Dataset:
    """One record (a Dataset, a dict of one, or an OpenAI trace dict) -> Dataset."""
    if isinstance(record, Dataset):
        return record
    if isinstance(record, BaseModel):
        record = record.model_dump()
    if not isinstance(record, Mapping):
        if _is_message_list(record):
            raise where.error(f"a bare list of chat messages, not a conversation record: {_WRAP}")
        raise where.error(f"expected a JSON object (one conversation), got {_kind(record)}")
    if "role" in record and not {"messages", "conversation", "session_id"} & set(record):
        raise where.error(f"one chat message (role {record['role']!r}), not a conversation "
                          f"record: {_WRAP}")
    if "messages" in record and "conversation" not in record:
        from agenteval.core.traces import _trace_record_to_dataset

        return _trace_record_to_dataset(record, source=where.source, line=where.line,
                                        index=where.index)
    try:
        return share_fields_sets(Dataset.model_validate(dict(record)))
    except ValidationError as exc:
        raise validation_to_data_error(exc, where) from None


_WRAP = ('wrap each conversation\'s messages in one record, {"session_id": "s1", '
         '"assistant_id": "my-agent", "messages": [...]} (see data/README.md, OpenAI transcripts)')


def _is_message_list(value: Any) -> bool:
    return (isinstance(value, list) and bool(value)
            and all(isinstance(m, Mapping) and "role" in m for m in value))


def _kind(value: Any) -> str:
    names = {list: "a list", str: "a string", int: "a number", float: "a number",
             bool: "a boolean", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _check_unique(located: Sequence[tuple[Dataset, _Where]], *, name: str | None = None
                  ) -> list[Dataset]:
    """Reject empty results and repeated session ids (naming both places)."""
    if not located:
        raise DataError("no conversations found: the source is empty", source=name)
    seen: dict[str, _Where] = {}
    for dataset, where in located:
        first = seen.get(dataset.session_id)
        if first is not None:
            message = f"duplicate session_id {dataset.session_id!r} (first seen at {first.describe()}"
            if first.source != where.source and first.source is not None:
                message += f" of {first.source}"
            raise where.error(message + ")", "session_id")
        seen[dataset.session_id] = where
    return [dataset for dataset, _ in located]


# --------------------------------------------------------------------------- files


def _read_text(path: Path) -> str:
    """Read a UTF-8 file, turning OS and decoding failures into DataError."""
    if not path.exists():
        raise DataError("file not found", source=str(path))
    if path.is_dir():
        raise DataError("is a directory, expected a .jsonl or .json file", source=str(path))
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DataError(f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at column {column} "
                        "(save the file as UTF-8)", source=str(path), line=line) from None


def _jsonl_lines(path: Path) -> Iterator[tuple[str, int]]:
    """(text, line number) for each non-blank line; each line's text is freed once handed out,
    so a large file never holds every line beside every validated conversation."""
    lines = _read_text(path).splitlines()
    found = False
    for index in range(len(lines)):
        line, lines[index] = lines[index], ""
        if not line.strip():
            continue
        found = True
        yield line, index + 1
    if not found:
        raise DataError("no conversations found: the file is empty", source=str(path))


def _parse_line(line: str, number: int, path: Path) -> Any:
    try:
        return jsonio.loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(f"malformed JSON at column {exc.colno}: {exc.msg}",
                        source=str(path), line=number) from None
    except jsonio.TooDeep as exc:
        raise DataError(str(exc), source=str(path), line=number) from None


def _read_jsonl(path: Path) -> Iterator[tuple[Any, int]]:
    """(record, line number) for each non-blank line, parsed as it is consumed: the caller
    validates one record before the next is read, so a large file never holds every parsed
    record beside every validated conversation (at 10,000 conversations that is ~150 MB)."""
    for line, number in _jsonl_lines(path):
        yield _parse_line(line, number, path), number


def _dataset_from_json(line: str) -> Dataset | None:
    """One line validated straight from its JSON text by pydantic's parser (one pass, no
    intermediate dicts: a third faster than parsing, then validating), or None when the line
    needs the careful path: an escape in the surrogate range (repaired there), or anything that
    fails (malformed JSON, integers too long for Python, an OpenAI transcript, a bad field), so
    every repair and every error message stays that path's. Where both succeed they agree
    (pydantic's JSON numbers and strings are ``json``'s; tests/core/test_retriever.py)."""
    if jsonio.may_hold_surrogates(line):
        return None
    try:
        return share_fields_sets(Dataset.model_validate_json(line))
    except ValidationError:
        return None


def _read_json_list(path: Path) -> list[tuple[Any, int]]:
    """(record, line where it starts) for each element of a top-level JSON list.

    A top-level object is read as a single conversation.
    """
    text = _read_text(path)

    def fail(message: str, pos: int) -> DataError:
        line = text.count("\n", 0, pos) + 1
        column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        return DataError(f"malformed JSON at column {column}: {message}", source=str(path),
                         line=line)

    def skip_ws(pos: int) -> int:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        return pos

    def decode(pos: int) -> tuple[Any, int]:
        try:
            return jsonio.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise fail(exc.msg, exc.pos) from None
        except jsonio.TooDeep as exc:
            raise fail(str(exc), pos) from None

    pos = skip_ws(0)
    if pos == len(text):
        raise DataError("no conversations found: the file is empty", source=str(path))
    if text[pos] != "[":
        value, end = decode(pos)
        if skip_ws(end) != len(text):
            raise fail("extra data after the JSON value", skip_ws(end))
        return [(value, text.count("\n", 0, pos) + 1)]
    records: list[tuple[Any, int]] = []
    pos = skip_ws(pos + 1)
    line, counted = 1, 0
    if pos < len(text) and text[pos] == "]":
        pos += 1
    else:
        while True:
            if pos >= len(text):
                raise fail("unterminated list: expected ']'", len(text))
            value, end = decode(pos)
            line += text.count("\n", counted, pos)
            counted = pos
            records.append((value, line))
            pos = skip_ws(end)
            if pos < len(text) and text[pos] == ",":
                pos = skip_ws(pos + 1)
                continue
            if pos < len(text) and text[pos] == "]":
                pos += 1
                break
            raise fail("expected ',' or ']' after a list element", pos)
    if skip_ws(pos) != len(text):
        raise fail("extra data after the JSON list", skip_ws(pos))
    if not records:
        raise DataError("no conversations found: the JSON list is empty", source=str(path))
    return records


class _FileRetriever(Retriever):
    """A file of conversations; subclasses say how to read its records and their lines."""

    def __init__(self, path: str | Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.path = Path(path)

    def _records(self) -> Iterable[tuple[Any, int]]:
        raise NotImplementedError

    def _located(self) -> list[tuple[Dataset, _Where]]:
        source = str(self.path)
        return [(_validate(record, _Where(source, line)), _Where(source, line))
                for record, line in self._records()]

    def load_dataset(self) -> list[Dataset]:
        return _check_unique(self._located())


class JSONLRetriever(_FileRetriever):
    """One conversation (a ``Dataset`` object, or an OpenAI trace) per line of a JSONL file."""

    def _records(self) -> Iterable[tuple[Any, int]]:
        return _read_jsonl(self.path)

    def _located(self) -> list[tuple[Dataset, _Where]]:
        source = str(self.path)
        out = []
        for line, number in _jsonl_lines(self.path):
            where = _Where(source, number)
            dataset = _dataset_from_json(line)
            if dataset is None:
                dataset = _validate(_parse_line(line, number, self.path), where)
            out.append((dataset, where))
        return out


class JSONRetriever(_FileRetriever):
    """A JSON file holding a list of conversations (errors name the line each one starts on).

    With ``recognise=True`` (what ``load_datasets`` does for a path) a tau-bench results list
    or an Inspect AI JSON log is recognised by its content and read by its own importer.
    """

    def __init__(self, path: str | Path, *, recognise: bool = False, scorer: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(path, **kwargs)
        self.recognise = recognise
        self.scorer = scorer

    def _records(self) -> Iterable[tuple[Any, int]]:
        return _read_json_list(self.path)

    def _located(self) -> list[tuple[Dataset, _Where]]:
        if not self.recognise:
            return super()._located()
        records = _read_json_list(self.path)
        first = records[0][0]
        if len(records) == 1 and _is_inspect_log(first):
            from agenteval.core.inspect_logs import InspectLogRetriever

            return InspectLogRetriever(self.path, scorer=self.scorer)._located()
        if self.scorer is not None:
            raise ConfigError("scorer applies to Inspect AI logs only")
        from agenteval.core.taubench import is_taubench_record, located_from_records

        if is_taubench_record(first):
            return located_from_records(records, source=str(self.path),
                                        assistant_id=self.path.stem)
        source = str(self.path)
        return [(_validate(record, _Where(source, line)), _Where(source, line))
                for record, line in records]


class OpenAITraceRetriever(_FileRetriever):
    """A JSONL file of OpenAI-style chat transcripts, one conversation per line.

    See ``data/README.md`` for the format and :func:`agenteval.core.traces.dataset_from_openai_messages`
    for how messages become interactions.
    """

    def _located(self) -> list[tuple[Dataset, _Where]]:
        from agenteval.core.traces import _trace_record_to_dataset

        source = str(self.path)
        out = []
        for record, line in _read_jsonl(self.path):
            where = _Where(source, line)
            if not isinstance(record, Mapping):
                raise where.error(f"expected a JSON object (one transcript), got {_kind(record)}")
            out.append((_trace_record_to_dataset(record, source=source, line=line), where))
        return out


# --------------------------------------------------------------------------- DataFrames

_SESSION_COLUMNS = ("session_id", "assistant_id", "language", "context", "task_id", "outcome",
                    "attempt")
_BATCH_COLUMNS = ("qa_id", "query", "assistant", "ground_truth_assistant", "observation",
                  "agentic", "ground_truth_agentic", "logprobs", "weight", "score", "rubric")
_JSON_COLUMNS = ("agentic", "ground_truth_agentic", "logprobs")


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    pd = sys.modules.get("pandas")
    return pd is not None and (value is pd.NA or value is pd.NaT)


def _plain(value: Any) -> Any:
    """numpy scalars -> Python scalars, so pydantic sees int/float/str."""
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        return value.item()
    return value


class DataFrameRetriever(Retriever):
    """A DataFrame with one ROW per interaction, grouped into conversations by ``session_id``.

    Columns: ``session_id``, ``assistant_id``, ``qa_id``, ``query``, ``assistant`` (required);
    ``language``, ``context``, ``task_id``, ``ground_truth_assistant``, ``observation``,
    ``agentic``, ``ground_truth_agentic``, ``weight`` (optional). ``agentic`` columns may hold
    dicts or JSON strings. Conversations keep their first-appearance order and rows keep theirs.
    Errors name the row by its index label (reported as the "line").
    """

    def __init__(self, df: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.df = df

    def _located(self) -> list[tuple[Dataset, _Where]]:
        df = self.df
        source = "DataFrame"
        columns = [str(c) for c in df.columns]
        unknown = [c for c in columns if c not in _SESSION_COLUMNS + _BATCH_COLUMNS]
        if unknown:
            raise DataError(f"unknown column {unknown[0]!r}; allowed columns: "
                            f"{', '.join(_SESSION_COLUMNS + _BATCH_COLUMNS)}", source=source,
                            field=unknown[0])
        for required in ("session_id", "assistant_id", "qa_id", "query", "assistant"):
            if required not in columns:
                raise DataError("missing required column", source=source, field=required)
        if len(df) == 0:
            raise DataError("no conversations found: the DataFrame has no rows", source=source)

        groups: dict[str, dict[str, Any]] = {}
        for label, row in zip(df.index, df.to_dict(orient="records")):
            where = _Where(source, _plain(label), unit="row")
            values = {k: _plain(v) for k, v in row.items() if not _is_missing(v)}
            for col in _JSON_COLUMNS:
                if isinstance(values.get(col), str):
                    try:
                        values[col] = jsonio.loads(values[col])
                    except json.JSONDecodeError as exc:
                        raise where.error(f"malformed JSON at column {exc.colno}: {exc.msg}",
                                          col) from None
                    except jsonio.TooDeep as exc:
                        raise where.error(str(exc), col) from None
            if "session_id" not in values:
                raise where.error("missing required field", "session_id")
            session = values["session_id"]
            session = str(session) if isinstance(session, int) else session
            if not isinstance(session, str):
                raise where.error(f"expected a string, got {_short(session)}", "session_id")
            group = groups.get(session)
            if group is None:
                group = groups[session] = {"where": where, "fields": {}, "first": {},
                                           "rows": [], "labels": []}
            for col in _SESSION_COLUMNS:
                if col in values:
                    if col in group["fields"] and group["fields"][col] != values[col]:
                        raise where.error(
                            f"session {session!r} has {col} {group['fields'][col]!r} at "
                            f"{group['first'][col].describe()} but {values[col]!r} here", col)
                    group["fields"].setdefault(col, values[col])
                    group["first"].setdefault(col, where)
            group["rows"].append({k: v for k, v in values.items() if k in _BATCH_COLUMNS})
            group["labels"].append(where.line)

        out = []
        for group in groups.values():
            record = dict(group["fields"], conversation=group["rows"])
            try:
                dataset = share_fields_sets(Dataset.model_validate(record))
            except ValidationError as exc:
                loc = list(exc.errors()[0].get("loc", ()))
                where = group["where"]
                if len(loc) >= 2 and loc[0] == "conversation" and isinstance(loc[1], int):
                    where = _Where(source, group["labels"][loc[1]], unit="row")
                raise _dataframe_error(exc, where) from None
            out.append((dataset, group["where"]))
        return out

    def load_dataset(self) -> list[Dataset]:
        return _check_unique(self._located())


def _dataframe_error(exc: ValidationError, where: _Where) -> DataError:
    """Like validation_to_data_error, but fields are columns: drop the ``conversation[i].``."""
    errors = exc.errors()
    first = dict(errors[0])
    loc = list(first.get("loc", ()))
    if len(loc) >= 2 and loc[0] == "conversation" and isinstance(loc[1], int):
        first["loc"] = tuple(loc[2:])
    field, message = _error_message(first)
    if len(errors) > 1:
        extra = len(errors) - 1
        message += f" (and {extra} more error{'s' if extra > 1 else ''})"
    return where.error(message, field)


# --------------------------------------------------------------------------- dispatch


def _is_dataframe(obj: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


INPUT_FORMATS = ("auto", "agenteval", "taubench", "inspect")
"""How a file is read: ``auto`` recognises tau-bench results and Inspect logs by suffix and
content; the others force one reader (``agenteval``: Dataset records or OpenAI transcripts)."""

_INSPECT_SUFFIXES = {".eval"}


def check_input_format(value: Any) -> str:
    if value is None:
        return "auto"
    if value not in INPUT_FORMATS:
        raise ConfigError(f"input_format must be one of {', '.join(INPUT_FORMATS)}, got {value!r}")
    return value


def _is_inspect_log(record: Any) -> bool:
    return isinstance(record, Mapping) and {"eval", "version"} <= record.keys() \
        and "conversation" not in record


def _retriever_for_path(path: Path, *, input_format: str = "auto", scorer: str | None = None,
                        **kwargs: Any) -> Retriever:
    suffix = path.suffix.lower()
    if input_format == "inspect" or (input_format == "auto" and suffix in _INSPECT_SUFFIXES):
        from agenteval.core.inspect_logs import InspectLogRetriever

        return InspectLogRetriever(path, scorer=scorer, **kwargs)
    if suffix in _JSON_SUFFIXES and input_format == "auto":
        return JSONRetriever(path, recognise=True, scorer=scorer, **kwargs)
    if scorer is not None:
        raise ConfigError("scorer applies to Inspect AI logs only")
    if input_format == "taubench":
        from agenteval.core.taubench import TauBenchRetriever

        return TauBenchRetriever(path, **kwargs)
    if suffix in _JSONL_SUFFIXES:
        return JSONLRetriever(path, **kwargs)
    if suffix in _JSON_SUFFIXES:
        return JSONRetriever(path, **kwargs)
    raise DataError(f"unsupported file type {suffix or '(no suffix)'!r}: use .jsonl (one "
                    "conversation or OpenAI transcript per line) or .json (a list of "
                    "conversations), a tau-bench results .json or an Inspect AI .eval log; for "
                    "CSV or Parquet, load a pandas DataFrame and pass it", source=str(path))


def _located_from(retriever: Retriever) -> list[tuple[Dataset, _Where]]:
    """Conversations with their places; for user retrievers the place is the list index."""
    located = getattr(retriever, "_located", None)
    if callable(located) and type(retriever).__module__.startswith("agenteval.core."):
        return located()
    name = type(retriever).__name__
    loaded = retriever.load_dataset()
    if loaded is None or isinstance(loaded, (str, bytes, Mapping)) or not isinstance(loaded, Iterable):
        raise DataError(f"{name}.load_dataset() must return a list of Dataset, got "
                        f"{type(loaded).__name__}", source=name)
    loaded = list(loaded)
    where = [_Where(f"{name}.load_dataset()", index=i) for i in range(len(loaded))]
    located = [(_validate(item, w), w) for item, w in zip(loaded, where)]
    if not located:
        raise DataError("no conversations found: load_dataset() returned an empty list",
                        source=name)
    return located


def load_datasets(source: Any, *, input_format: str | None = None, scorer: str | None = None,
                  **kwargs: Any) -> list[Dataset]:
    """Load conversations from any supported source, validated, with unique session ids.

    ``source`` may be: a ``Retriever`` subclass (instantiated with ``**kwargs``, as in
    ``Agentic.run(MyRetriever, ...)``), a ``Retriever`` instance, a ``Dataset``, a list of
    ``Dataset`` or dicts (a dict with ``messages`` is read as an OpenAI transcript), a pandas
    DataFrame (one row per interaction), a path to a ``.jsonl`` / ``.json`` file, a tau-bench
    results file or an Inspect AI log (``.eval`` / ``.json``), or a list of such paths (several
    logs or results files: one per agent). ``input_format`` forces the reader (see
    ``INPUT_FORMATS``); ``scorer`` picks the scorer of Inspect logs that have several. ``kwargs``
    are the options of a Retriever class source; with any other source they are an error (so a
    misspelt ``Agentic.run`` option is not silently swallowed).

    Raises DataError naming file, line and field on bad input, on an empty source and on a
    repeated ``session_id``.
    """
    input_format = check_input_format(input_format)
    is_retriever_class = isinstance(source, type) and issubclass(source, Retriever)
    is_paths = (isinstance(source, (list, tuple)) and bool(source)
                and all(isinstance(p, (str, Path)) for p in source))
    if not (is_paths or isinstance(source, (str, Path))):
        if input_format not in ("auto", "agenteval") or scorer is not None:
            raise ConfigError("input_format and scorer apply to files: pass a path (or a list "
                              "of paths)")
    if kwargs and not is_retriever_class:
        names = ", ".join(repr(k) for k in sorted(kwargs))
        raise ConfigError(f"unexpected keyword argument(s) {names}: extra options only go to a "
                          "Retriever class passed as the source (check for a misspelt option)")
    if is_retriever_class:
        located = _located_from(source(**kwargs))
    elif isinstance(source, Retriever):
        located = _located_from(source)
    elif isinstance(source, Dataset):
        located = [(source, _Where("list", index=0))]
    elif isinstance(source, (str, Path)):
        located = _located_from(_retriever_for_path(Path(source), input_format=input_format,
                                                    scorer=scorer))
    elif is_paths:
        located = [item for path in source
                   for item in _located_from(_retriever_for_path(
                       Path(path), input_format=input_format, scorer=scorer))]
    elif _is_dataframe(source):
        located = DataFrameRetriever(source, **kwargs)._located()
    elif isinstance(source, (list, tuple)):
        located = [(_validate(item, _Where("list", index=i)), _Where("list", index=i))
                   for i, item in enumerate(source)]
        return _check_unique(located, name="list")
    else:
        raise ConfigError("source must be a path (.jsonl/.json), a list of Dataset or dicts, a "
                          "pandas DataFrame, a Retriever subclass or instance; got "
                          f"{type(source).__name__}")
    return _check_unique(located)
