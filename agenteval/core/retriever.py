"""Loading conversations: files, DataFrames, lists and user retrievers -> validated ``Dataset``s.

``Retriever`` keeps Fair Forge / Gaussia's shape (subclass it, implement ``load_dataset``), so a
user's retriever class works unchanged. Every loader turns bad input into one
:class:`~agenteval.errors.DataError` naming the file, the line and the field, e.g.
``demo.jsonl, line 7, field 'conversation[2].query': missing required field``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agenteval._util.gc import collector_paused
from agenteval.core import jsonio
from agenteval.core.base import Retriever
from agenteval.core.base import Where as _Where
from agenteval.core.base import check_unique as _check_unique
from agenteval.core.base import error_message as _error_message
from agenteval.core.base import is_dataframe as _is_dataframe
from agenteval.core.base import is_missing as _is_missing
from agenteval.core.base import jsonl_lines as _jsonl_lines
from agenteval.core.base import kind as _kind
from agenteval.core.base import parse_line as _parse_line
from agenteval.core.base import plain as _plain
from agenteval.core.base import read_json_list as _read_json_list
from agenteval.core.base import read_jsonl as _read_jsonl
from agenteval.core.base import short as _short
from agenteval.core.records import FileRetriever as _FileRetriever
from agenteval.core.records import validate_record as _validate
from agenteval.core.traces import trace_record_to_dataset
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


# --------------------------------------------------------------------------- files


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
        source = str(self.path)
        out = []
        for record, line in _read_jsonl(self.path):
            where = _Where(source, line)
            if not isinstance(record, Mapping):
                raise where.error(f"expected a JSON object (one transcript), got {_kind(record)}")
            out.append((trace_record_to_dataset(record, source=source, line=line), where))
        return out


# --------------------------------------------------------------------------- DataFrames

_SESSION_COLUMNS = ("session_id", "assistant_id", "language", "context", "task_id", "outcome",
                    "attempt")
_BATCH_COLUMNS = ("qa_id", "query", "assistant", "ground_truth_assistant", "observation",
                  "agentic", "ground_truth_agentic", "logprobs", "weight", "score", "rubric",
                  "label", "human_score")
_JSON_COLUMNS = ("agentic", "ground_truth_agentic", "logprobs")


_NESTED_HINT = (
    "a column 'conversation' holds whole conversations (one row per conversation, as "
    "pd.read_json(path, lines=True) gives), but a DataFrame needs one row per interaction with "
    "columns session_id, assistant_id, qa_id, query, assistant (optional: task_id, "
    "ground_truth_assistant, agentic, ...); pass df.to_dict('records') instead, or reshape: "
    "long = df.explode('conversation', ignore_index=True); "
    "long = long.drop(columns='conversation').join(pd.DataFrame(long['conversation'].tolist()))")
"""The error for the obvious first try, ``pd.read_json("data/agentic_demo.jsonl", lines=True)``."""


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
        if "conversation" in unknown:
            raise DataError(_NESTED_HINT, source=source, field="conversation")
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
    repeated ``session_id``. Validation makes no reference cycles, so the cyclic collector is
    paused meanwhile (``agenteval._util.gc``): at 10,000 conversations it would otherwise take
    about 60% of the time, walking every object built so far again and again.
    """
    with collector_paused():
        return _load_datasets(source, input_format=input_format, scorer=scorer, **kwargs)


def _load_datasets(source: Any, *, input_format: str | None, scorer: str | None,
                   **kwargs: Any) -> list[Dataset]:
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


# --------------------------------------------------------------------------- streaming


def streams(source: Any, *, input_format: str | None = None, scorer: str | None = None,
            **kwargs: Any) -> bool:
    """True when ``source`` is one JSONL file of conversations that :func:`iter_dataset_blocks`
    reads a block at a time (what ``load_datasets`` reads, without holding it all)."""
    if kwargs or scorer is not None or not isinstance(source, (str, Path)):
        return False
    if check_input_format(input_format) not in ("auto", "agenteval"):
        return False
    path = Path(source)
    return path.suffix.lower() in _JSONL_SUFFIXES and path.is_file()


def _stream_lines(path: Path) -> Iterator[tuple[str, int]]:
    """``core.base.jsonl_lines`` of a file read line by line: the same lines, numbers and
    errors (an undecodable or missing file is read whole by ``read_text`` for its message)."""
    from agenteval.core.base import read_text

    if not path.is_file():
        read_text(path)  # raises the loader's error
    number, found = 0, False
    with open(path, "rb") as fh:
        for index, raw in enumerate(fh):
            try:
                text = raw.decode("utf-8-sig" if index == 0 else "utf-8")
            except UnicodeDecodeError:
                read_text(path)  # names the line and column
                raise
            for line in text.splitlines() or [""]:
                number += 1
                if line.strip():
                    found = True
                    yield line, number
    if not found:
        raise DataError("no conversations found: the file is empty", source=str(path))


def iter_dataset_blocks(path: str | Path, *, block: int = 10_000) -> Iterator[list[Dataset]]:
    """The conversations of a JSONL file, ``block`` at a time, validated as ``load_datasets``
    validates them (the same errors, a repeated ``session_id`` included): a suite of any size
    is read with one block in memory. Each block is read with the cyclic collector paused
    (validation makes no cycles; ``agenteval._util.gc``), not the caller's work between blocks."""
    path = Path(path)
    lines = _stream_lines(path)
    seen: dict[str, int] = {}
    while True:
        with collector_paused():
            out = _read_block(lines, block, seen, str(path))
        if not out:
            return
        yield out


def _read_block(lines: Iterator[tuple[str, int]], block: int, seen: dict[str, int],
                source: str) -> list[Dataset]:
    """Up to ``block`` validated conversations from ``lines`` (``seen``: session id -> line)."""
    out: list[Dataset] = []
    for line, number in lines:
        where = _Where(source, number)
        dataset = _dataset_from_json(line)
        if dataset is None:
            dataset = _validate(_parse_line(line, number, Path(source)), where)
        first = seen.get(dataset.session_id)
        if first is not None:
            raise where.error(f"duplicate session_id {dataset.session_id!r} (first seen at "
                              f"{_Where(source, first).describe()})", "session_id")
        seen[dataset.session_id] = number
        out.append(dataset)
        if len(out) >= block:
            break
    return out
