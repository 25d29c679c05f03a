"""The shared base of the readers: the compat ``Retriever``, where a record came from, error
messages, and reading JSON / JSONL files into records.

Every reader in ``agenteval.core`` builds on this module and it imports none of them, so the
readers form no import cycle (retriever -> taubench / inspect_logs -> records -> traces -> base).
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

from pydantic import ValidationError

from agenteval.core import jsonio
from agenteval.errors import DataError
from agenteval.schemas.common import Dataset

__all__ = [
    "Retriever",
    "Where",
    "check_unique",
    "error_message",
    "format_loc",
    "is_dataframe",
    "is_missing",
    "jsonl_lines",
    "kind",
    "parse_line",
    "plain",
    "read_json_list",
    "read_jsonl",
    "read_text",
    "short",
    "validation_to_data_error",
]


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


@dataclass(frozen=True)
class Where:
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


def short(value: Any, limit: int = 60) -> str:
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


def error_message(err: Mapping[str, Any]) -> tuple[str | None, str]:
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
        message = f"expected {_EXPECTED[kind]}, got {short(err.get('input'))}"
        return field, message + _quote_hint(kind, err.get("input"))
    msg = str(err.get("msg", "invalid value"))
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    elif "input" in err and kind not in {"value_error", "assertion_error"}:
        msg = f"{msg[:1].lower()}{msg[1:]}, got {short(err['input'])}"
    return field, msg


def _quote_hint(kind: str, value: Any) -> str:
    """A number or boolean where text belongs is almost always an unquoted answer (``4``)."""
    if kind != "string_type" or not isinstance(value, (bool, int, float)):
        return ""
    if isinstance(value, bool):  # YAML's yes/no/on/off read as booleans too: the text is lost
        return ": quote the value to make it text (unquoted true, false, yes, no are booleans)"
    return f": quote it to make it text, \"{value}\""


def validation_to_data_error(exc: ValidationError, where: Where, *, prefix: str = "") -> DataError:
    """Turn pydantic's error list into one DataError about its first error."""
    errors = exc.errors()
    field, message = error_message(errors[0]) if errors else (None, str(exc))
    if prefix:
        field = f"{prefix}.{field}" if field else prefix
    if len(errors) > 1:
        extra = len(errors) - 1
        message += f" (and {extra} more error{'s' if extra > 1 else ''})"
    return where.error(message, field)


def kind(value: Any) -> str:
    names = {list: "a list", str: "a string", int: "a number", float: "a number",
             bool: "a boolean", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def check_unique(located: Sequence[tuple[Dataset, Where]], *, name: str | None = None
                  ) -> list[Dataset]:
    """Reject empty results and repeated session ids (naming both places)."""
    if not located:
        raise DataError("no conversations found: the source is empty", source=name)
    seen: dict[str, Where] = {}
    for dataset, where in located:
        first = seen.get(dataset.session_id)
        if first is not None:
            message = f"duplicate session_id {dataset.session_id!r} (first seen at {first.describe()}"
            if first.source != where.source and first.source is not None:
                message += f" of {first.source}"
            raise where.error(message + ")", "session_id")
        seen[dataset.session_id] = where
    return [dataset for dataset, _ in located]


def read_text(path: Path) -> str:
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


def jsonl_lines(path: Path) -> Iterator[tuple[str, int]]:
    """(text, line number) for each non-blank line; each line's text is freed once handed out,
    so a large file never holds every line beside every validated conversation."""
    lines = read_text(path).splitlines()
    found = False
    for index in range(len(lines)):
        line, lines[index] = lines[index], ""
        if not line.strip():
            continue
        found = True
        yield line, index + 1
    if not found:
        raise DataError("no conversations found: the file is empty", source=str(path))


def parse_line(line: str, number: int, path: Path) -> Any:
    try:
        return jsonio.loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(f"malformed JSON at column {exc.colno}: {exc.msg}",
                        source=str(path), line=number) from None
    except jsonio.TooDeep as exc:
        raise DataError(str(exc), source=str(path), line=number) from None


def read_jsonl(path: Path) -> Iterator[tuple[Any, int]]:
    """(record, line number) for each non-blank line, parsed as it is consumed: the caller
    validates one record before the next is read, so a large file never holds every parsed
    record beside every validated conversation (at 10,000 conversations that is ~150 MB)."""
    for line, number in jsonl_lines(path):
        yield parse_line(line, number, path), number


def read_json_list(path: Path) -> list[tuple[Any, int]]:
    """(record, line where it starts) for each element of a top-level JSON list.

    A top-level object is read as a single conversation.
    """
    text = read_text(path)

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


def is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    pd = sys.modules.get("pandas")
    return pd is not None and (value is pd.NA or value is pd.NaT)


def plain(value: Any) -> Any:
    """numpy scalars -> Python scalars, so pydantic sees int/float/str."""
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        return value.item()
    return value


def is_dataframe(obj: Any) -> bool:
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)
