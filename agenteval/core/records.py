"""One record -> a validated ``Dataset`` (an agenteval record or an OpenAI transcript), and
``FileRetriever``, the base of the file readers (JSONL, JSON, tau-bench, Inspect logs)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from agenteval.core.base import Retriever, Where, check_unique, kind, validation_to_data_error
from agenteval.core.traces import trace_record_to_dataset
from agenteval.schemas.common import Dataset, share_fields_sets

__all__ = ["FileRetriever", "is_message_list", "validate_record"]


def validate_record(record: Any, where: Where) -> Dataset:
    """One record (a Dataset, a dict of one, or an OpenAI trace dict) -> Dataset."""
    if isinstance(record, Dataset):
        return record
    if isinstance(record, BaseModel):
        record = record.model_dump()
    if not isinstance(record, Mapping):
        if is_message_list(record):
            raise where.error(f"a bare list of chat messages, not a conversation record: {_WRAP}")
        raise where.error(f"expected a JSON object (one conversation), got {kind(record)}")
    if "role" in record and not {"messages", "conversation", "session_id"} & set(record):
        raise where.error(f"one chat message (role {record['role']!r}), not a conversation "
                          f"record: {_WRAP}")
    if "messages" in record and "conversation" not in record:
        return trace_record_to_dataset(record, source=where.source, line=where.line,
                                       index=where.index)
    try:
        return share_fields_sets(Dataset.model_validate(dict(record)))
    except ValidationError as exc:
        raise validation_to_data_error(exc, where) from None


_WRAP = ('wrap each conversation\'s messages in one record, {"session_id": "s1", '
         '"assistant_id": "my-agent", "messages": [...]} (see data/README.md, OpenAI transcripts)')


def is_message_list(value: Any) -> bool:
    return (isinstance(value, list) and bool(value)
            and all(isinstance(m, Mapping) and "role" in m for m in value))


class FileRetriever(Retriever):
    """A file of conversations; subclasses say how to read its records and their lines."""

    def __init__(self, path: str | Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.path = Path(path)

    def _records(self) -> Iterable[tuple[Any, int]]:
        raise NotImplementedError

    def _located(self) -> list[tuple[Dataset, Where]]:
        source = str(self.path)
        return [(validate_record(record, Where(source, line)), Where(source, line))
                for record, line in self._records()]

    def load_dataset(self) -> list[Dataset]:
        return check_unique(self._located())
