"""Human labels for judged interactions: a labels file, records, or ``label`` in the data.

A label says whether one interaction, keyed by ``(session_id, qa_id)``, is truly correct. It is
the truth the judge is calibrated against (``agenteval.statistical.judge_error``), never a
replacement for the judge's score (that is ``score`` in the data). One record (a JSONL line, a
CSV row, a dict):

* ``session_id``, ``qa_id`` (required): the interaction;
* ``label``: ``0``/``1``/``true``/``false``, or ``human_score``: a number in [0, 1] compared with
  the run's ``threshold`` like a judge score (exactly one of the two);
* ``rater`` (optional, default ``"human"``): who labelled it; several raters, or one rater
  several times, may label one item (the truth is then their majority; a tie is left out);
* ``kind`` (optional): ``"human"`` (default) or ``"judge"``: another judge's verdict on the
  item, used for agreement across judges (Krippendorff's alpha), never as truth.

Every error names the file, the line and the field (:class:`agenteval.errors.DataError`).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenteval.core import jsonio
from agenteval.errors import DataError

__all__ = ["LABEL_FIELDS", "Label", "Labels", "load_labels", "labels_from_records",
           "labels_from_datasets", "has_labels", "as_labels"]

LABEL_FIELDS = ("session_id", "qa_id", "label", "human_score", "rater", "kind")
"""Keys allowed on one label record."""

_TRUE = {"1", "true", "yes", "correct"}
_FALSE = {"0", "false", "no", "wrong", "incorrect"}


@dataclass(frozen=True)
class Label:
    """One rating of one interaction."""

    session_id: str
    qa_id: str
    value: float
    """1.0 / 0.0 for a ``label``; the number for a ``human_score``."""
    is_score: bool
    """True for ``human_score`` (compared with the run's threshold)."""
    rater: str = "human"
    kind: str = "human"
    source: str | None = None
    line: int | None = None

    def correct(self, threshold: float) -> int:
        """1 if the rating says correct, else 0."""
        return int(self.value >= threshold) if self.is_score else int(self.value)


class Labels:
    """All the ratings given for a run, in input order."""

    def __init__(self, labels: Iterable[Label], *, source: str | None = None) -> None:
        self.labels: tuple[Label, ...] = tuple(labels)
        self.source = source

    def __len__(self) -> int:
        return len(self.labels)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.labels)

    def __add__(self, other: Labels) -> Labels:
        return Labels(self.labels + other.labels, source=self.source or other.source)

    def __repr__(self) -> str:
        return f"Labels({len(self)} ratings of {len(self.items())} interactions)"

    def items(self) -> set[tuple[str, str]]:
        """The (session_id, qa_id) keys rated by anyone."""
        return {(x.session_id, x.qa_id) for x in self.labels}

    def truth(self, threshold: float) -> tuple[dict[tuple[str, str], int], int]:
        """The human truth per item (majority of its human ratings) and how many ties were
        left out."""
        votes: dict[tuple[str, str], list[int]] = defaultdict(list)
        for x in self.labels:
            if x.kind == "human":
                votes[(x.session_id, x.qa_id)].append(x.correct(threshold))
        out, ties = {}, 0
        for key, v in votes.items():
            ones = sum(v)
            if 2 * ones == len(v):
                ties += 1
                continue
            out[key] = int(2 * ones > len(v))
        return out, ties

    def ratings(self, threshold: float) -> dict[str, dict[tuple[str, str], list[int]]]:
        """Every rater's ratings per item ("judge:NAME" for other judges), repeats kept."""
        out: dict[str, dict[tuple[str, str], list[int]]] = defaultdict(lambda: defaultdict(list))
        for x in self.labels:
            name = x.rater if x.kind == "human" else f"judge:{x.rater}"
            out[name][(x.session_id, x.qa_id)].append(x.correct(threshold))
        return {k: dict(v) for k, v in out.items()}


class _Ctx:
    def __init__(self, source: str | None, line: int | None) -> None:
        self.source, self.line = source, line

    def error(self, message: str, field: str | None = None) -> DataError:
        return DataError(message, source=self.source, line=self.line, field=field)


def _what(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _text_id(value: Any, field: str, ctx: _Ctx) -> str:
    if isinstance(value, bool) or value is None:
        raise ctx.error(f"expected a non-empty string, got {_what(value)}", field)
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise ctx.error(f"expected a non-empty string, got {_what(value)}", field)
    return value


def _label_value(value: Any, ctx: _Ctx) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and value in (0, 1):
        return float(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return float(value.strip().lower() in _TRUE)
    raise ctx.error(f"expected 0, 1, true or false, got {_what(value)}", "label")


def _score_value(value: Any, ctx: _Ctx) -> float:
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise ctx.error(f"expected a number in [0, 1], got {_what(value)}",
                            "human_score") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            math.isfinite(value) and 0 <= value <= 1):
        raise ctx.error(f"expected a number in [0, 1], got {_what(value)}", "human_score")
    return float(value)


def _label(record: Any, ctx: _Ctx) -> Label:
    if not isinstance(record, Mapping):
        raise ctx.error(f"expected a label object, got {_what(record)}")
    extra = [k for k in record if k not in LABEL_FIELDS]
    if extra:
        raise ctx.error(f"unknown field (allowed: {', '.join(LABEL_FIELDS)})", str(extra[0]))
    for key in ("session_id", "qa_id"):
        if key not in record:
            raise ctx.error("missing", key)
    given = [k for k in ("label", "human_score") if record.get(k) not in (None, "")]
    if len(given) != 1:
        raise ctx.error("give exactly one of label (0/1) or human_score (a number in [0, 1])",
                        "label")
    is_score = given[0] == "human_score"
    value = (_score_value(record["human_score"], ctx) if is_score
             else _label_value(record["label"], ctx))
    rater = record.get("rater") or "human"
    if not isinstance(rater, str):
        raise ctx.error(f"expected a string, got {_what(rater)}", "rater")
    kind = record.get("kind") or "human"
    if kind not in ("human", "judge"):
        raise ctx.error(f"expected 'human' or 'judge', got {_what(kind)}", "kind")
    return Label(_text_id(record["session_id"], "session_id", ctx),
                 _text_id(record["qa_id"], "qa_id", ctx), value, is_score, rater, kind,
                 ctx.source, ctx.line)


def labels_from_records(records: Iterable[Any], *, source: str | None = None) -> Labels:
    """Labels from dicts (or a DataFrame's rows); errors name ``source`` and the item."""
    if hasattr(records, "to_dict") and hasattr(records, "columns"):
        records = records.to_dict(orient="records")  # a DataFrame
    out = []
    for i, rec in enumerate(records):
        ctx = _Ctx(f"{source} item {i}" if source else f"labels item {i}", None)
        out.append(_label(rec, ctx))
    return Labels(out, source=source)


def load_labels(path: str | Path) -> Labels:
    """Read a labels file: JSON Lines (one record a line), a JSON list, or CSV with a header."""
    p = Path(path)
    src = str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError("no such labels file", source=src) from None
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason})", source=src) from None
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror}", source=src) from None
    out: list[Label] = []
    if p.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        if reader.fieldnames is None:
            raise DataError("empty labels file", source=src)
        for row in reader:
            ctx = _Ctx(src, reader.line_num)
            if None in row:
                raise ctx.error("more values than header columns")
            out.append(_label({k: v for k, v in row.items() if v not in ("", None)}, ctx))
        return Labels(out, source=src)
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = jsonio.loads(text)
        except (json.JSONDecodeError, jsonio.TooDeep) as exc:
            raise DataError(f"malformed JSON: {exc}", source=src) from None
        for i, rec in enumerate(data):
            out.append(_label(rec, _Ctx(f"{src} item {i}", None)))
        return Labels(out, source=src)
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        ctx = _Ctx(src, n)
        try:
            rec = jsonio.loads(line)
        except json.JSONDecodeError as exc:
            raise ctx.error(f"malformed JSON at column {exc.colno}: {exc.msg}") from None
        except jsonio.TooDeep as exc:
            raise ctx.error(str(exc)) from None
        out.append(_label(rec, ctx))
    if not out:
        raise DataError("no labels in the file", source=src)
    return Labels(out, source=src)


def labels_from_datasets(datasets: Iterable[Any]) -> Labels:
    """The ``label`` given on interactions of the data itself (Batch.label)."""
    out = []
    for d in datasets:
        for b in d.conversation:
            value = getattr(b, "label", None)
            if value is not None:
                out.append(Label(d.session_id, b.qa_id, float(value), False))
            score = getattr(b, "human_score", None)
            if score is not None:
                out.append(Label(d.session_id, b.qa_id, float(score), True))
    return Labels(out, source="the data's label fields")


def has_labels(datasets: Iterable[Any]) -> bool:
    """Whether ``labels_from_datasets`` finds any (without building them)."""
    return any(getattr(b, "label", None) is not None or getattr(b, "human_score", None) is not None
               for d in datasets for b in d.conversation)


def as_labels(labels: Any) -> Labels:
    """Labels from a path, a Labels object, records, or {(session_id, qa_id): 0/1}."""
    if isinstance(labels, Labels):
        return labels
    if isinstance(labels, (str, Path)):
        return load_labels(labels)
    if isinstance(labels, Mapping):
        recs = []
        for key, value in labels.items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise DataError(f"a labels mapping is keyed by (session_id, qa_id), got "
                                f"{_what(key)}", source="labels")
            recs.append({"session_id": key[0], "qa_id": key[1], "label": value})
        return labels_from_records(recs, source="labels")
    return labels_from_records(labels, source="labels")


def count_raters(labels: Labels) -> Counter[str]:
    """Ratings per rater (for display)."""
    return Counter(x.rater for x in labels.labels)
