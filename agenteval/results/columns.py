"""Per-conversation and per-interaction results as columns: what a big suite fits in.

A suite of a million conversations of five interactions as pydantic objects (one
``AgenticMetric`` per conversation, an ``InteractionResult`` and a ``ToolCorrectnessScore`` per
interaction, a Python float or string per field) took 10 KB per conversation; as columns it takes
the numbers' bytes plus the texts' UTF-8 (the tool-use explanations are most of it). Numbers are
numpy arrays (a value that may be absent has a mask beside it: None is not NaN); texts are
:class:`Texts` (one UTF-8 buffer, deduplicated within each block of rows). The objects are built
again on access (``Columns.metrics``), with the same field values and types, so
``results[i].interactions[j].score`` reads as before; the suite's views read the columns.

Results whose per-conversation lists do not follow from their interactions (a results file of
another origin) keep their objects as given (``Columns.held``): nothing is reconstructed there.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from agenteval.schemas.results import (
    AgenticMetric,
    InteractionResult,
    ToolCorrectnessScore,
    trusted,
)

__all__ = ["Columns", "Texts", "interaction_columns"]

_CONV_SOURCES = ("judged", "given", "mixed")
_SOURCES = ("judged", "given")
_FLOATS = ("pass_at_k", "pass_at_k_ci_low", "pass_at_k_ci_high", "pass_pow_k",
           "pass_pow_k_ci_low", "pass_pow_k_ci_high", "pass_at_k_unbiased", "pass_pow_k_unbiased")
_TOOL_FLOATS = ("tool_selection_correct", "parameter_accuracy", "sequence_correct",
                "result_utilization", "overall_correctness")


class Texts:
    """A column of strings or None: distinct values (per block) in one UTF-8 buffer with
    offsets, and per row the code of its value (-1: None)."""

    __slots__ = ("data", "offsets", "codes")

    def __init__(self, data: bytes, offsets: np.ndarray, codes: np.ndarray) -> None:
        self.data = data
        self.offsets = offsets
        self.codes = codes

    @classmethod
    def of(cls, values: Sequence[str | None]) -> Texts:
        table: dict[str, int] = {}
        codes = np.fromiter((-1 if v is None else table.setdefault(v, len(table))
                             for v in values), dtype=np.int64, count=len(values))
        encoded = [s.encode("utf-8", "surrogatepass") for s in table]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        if encoded:
            np.cumsum([len(b) for b in encoded], out=offsets[1:])
        return cls(b"".join(encoded), offsets, codes)

    @classmethod
    def concat(cls, parts: Sequence[Texts]) -> Texts:
        if len(parts) == 1:
            return parts[0]
        offsets, codes, base, shift = [np.zeros(1, dtype=np.int64)], [], 0, 0
        for p in parts:
            offsets.append(p.offsets[1:] + base)
            codes.append(np.where(p.codes < 0, -1, p.codes + shift))
            base += int(p.offsets[-1])
            shift += p.offsets.size - 1
        return cls(b"".join(p.data for p in parts), np.concatenate(offsets),
                   np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return int(self.codes.size)

    def _value(self, code: int) -> str:
        return self.data[self.offsets[code]:self.offsets[code + 1]].decode("utf-8",
                                                                           "surrogatepass")

    def __getitem__(self, index: int) -> str | None:
        code = int(self.codes[index])
        return None if code < 0 else self._value(code)

    def tolist(self, start: int = 0, stop: int | None = None) -> list[str | None]:
        """The values of rows ``start:stop`` (each distinct value decoded once)."""
        seen: dict[int, str | None] = {-1: None}
        out = []
        for code in self.codes[start:stop].tolist():
            value = seen.get(code, seen)
            if value is seen:
                value = seen[code] = self._value(code)
            out.append(value)
        return out

    def nbytes(self) -> int:
        return len(self.data) + self.offsets.nbytes + self.codes.nbytes


def _floats(values: Sequence[float | None]) -> tuple[np.ndarray, np.ndarray | None]:
    """Values and the mask of None (None when nothing is absent)."""
    if not any(v is None for v in values):
        return np.array(values, dtype=np.float64).reshape(-1), None
    none = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64), none


def _float_list(values: np.ndarray, none: np.ndarray | None, start: int, stop: int) -> list:
    out = values[start:stop].tolist()
    if none is not None:
        for j in np.flatnonzero(none[start:stop]).tolist():
            out[j] = None
    return out


def _tri(values: Sequence[bool | None]) -> np.ndarray:
    return np.fromiter((-1 if v is None else int(v) for v in values), dtype=np.int8,
                       count=len(values))


_TRI = {-1: None, 0: False, 1: True}


def interaction_columns(flat: Sequence[InteractionResult | Any],
                        lengths: Sequence[int] | np.ndarray) -> tuple[dict[str, Any], np.ndarray]:
    """The interaction columns of results in conversation order (``lengths`` per
    conversation) and where each conversation's rows start."""
    start = np.zeros(len(lengths) + 1, dtype=np.int64)
    if len(lengths):
        np.cumsum(lengths, out=start[1:])
    inter: dict[str, Any] = {
        "qa_id": Texts.of([r.qa_id for r in flat]),
        "score": _floats([r.score for r in flat]),
        "reasoning": Texts.of([r.reasoning for r in flat]),
        "is_correct": _tri([r.is_correct for r in flat]),
        "judge_error": Texts.of([r.judge_error for r in flat]),
        "judge_error_code": Texts.of([r.judge_error_code for r in flat]),
        "source": np.fromiter((r.source == "given" for r in flat), dtype=np.int8,
                              count=len(flat)),
    }
    graders = {j: r.graders for j, r in enumerate(flat) if r.graders is not None}
    inter["graders"] = graders or None
    tools = [r.tool_correctness for r in flat]
    has = np.fromiter((t is not None for t in tools), dtype=bool, count=len(tools))
    inter["tool"] = has
    present = [t for t in tools if t is not None]
    for key in _TOOL_FLOATS:
        inter[key] = np.array([getattr(t, key) for t in present], dtype=np.float64)
    inter["tool_is_correct"] = np.fromiter((t.is_correct for t in present), dtype=bool,
                                           count=len(present))
    inter["tool_reasoning"] = Texts.of([t.reasoning for t in present])
    inter["tool_evidence"] = Texts.of([t.utilization_evidence for t in present])
    inter["tool_result_cut"] = np.fromiter((t.result_cut for t in present), dtype=bool,
                                           count=len(present))
    return inter, start


class Columns:
    """The per-conversation and per-interaction fields of a run's results as arrays.

    Rows are conversations; interactions of conversation i are rows ``start[i]:start[i + 1]``
    of the interaction columns. ``held``: the objects themselves, where they were given in a
    form the columns do not reconstruct (see the module docstring).
    """

    def __init__(self, conv: dict[str, Any], inter: dict[str, Any], start: np.ndarray,
                 held: list[AgenticMetric] | None = None) -> None:
        self.conv = conv
        self.inter = inter
        self.start = start
        self.held = held

    # ------------------------------------------------------------------ building

    @classmethod
    def build(cls, conversations: dict[str, Sequence[Any]],
              interactions: Sequence[Sequence[InteractionResult | Any]]) -> Columns:
        """From per-conversation scalars (the ``AgenticMetric`` fields but the lists) and each
        conversation's interaction results (``InteractionResult``s, or tuples with its fields
        by name: a run's judged interactions, ``metrics/agentic.py``)."""
        inter, start = interaction_columns([r for rs in interactions for r in rs],
                                           [len(rs) for rs in interactions])
        return cls.with_interactions(conversations, inter, start)

    @classmethod
    def with_interactions(cls, conversations: dict[str, Sequence[Any]], inter: dict[str, Any],
                          start: np.ndarray) -> Columns:
        """From per-conversation scalars and the interaction columns (``interaction_columns``),
        which a run reads its per-conversation counts from."""
        conv: dict[str, Any] = {}
        for key in ("session_id", "assistant_id", "task_id"):
            conv[key] = Texts.of(conversations[key])
        attempt = conversations["attempt"]
        conv["attempt"] = (np.array([-1 if a is None else a for a in attempt], dtype=np.int64),
                           np.fromiter((a is None for a in attempt), dtype=bool,
                                       count=len(attempt)))
        conv["source"] = np.array([_CONV_SOURCES.index(s) for s in conversations["source"]],
                                  dtype=np.int8)
        for key in ("total_interactions", "correct_interactions", "k", "judge_errors"):
            conv[key] = np.asarray(conversations[key], dtype=np.int64).reshape(-1)
        conv["is_fully_correct"] = _tri(conversations["is_fully_correct"])
        conv["threshold"] = np.asarray(conversations["threshold"], dtype=np.float64).reshape(-1)
        for key in _FLOATS:
            conv[key] = _floats(conversations[key])
        return cls(conv, inter, start)

    @classmethod
    def from_metrics(cls, metrics: Sequence[AgenticMetric]) -> Columns:
        """From result objects; held as they are where their lists do not follow from their
        interactions."""
        metrics = list(metrics)
        if not all(_derived(m) for m in metrics):
            return cls({}, {}, np.zeros(1, dtype=np.int64), held=metrics)
        names = [f for f in AgenticMetric.model_fields if f not in _LISTS]
        conversations = {name: [getattr(m, name) for m in metrics] for name in names}
        return cls.build(conversations, [m.interactions for m in metrics])

    @classmethod
    def concat(cls, parts: Sequence[Columns]) -> Columns:
        """Blocks of rows, one after another."""
        if len(parts) == 1:
            return parts[0]
        if any(p.held is not None for p in parts):
            return cls({}, {}, np.zeros(1, dtype=np.int64),
                       held=[m for p in parts for m in p.metrics()])
        first = parts[0]
        conv = {key: _concat([p.conv[key] for p in parts]) for key in first.conv}
        inter: dict[str, Any] = {}
        for key in first.inter:
            if key == "graders":
                merged, base = {}, 0
                for p in parts:
                    merged.update({base + j: g for j, g in (p.inter["graders"] or {}).items()})
                    base += int(p.start[-1])
                inter[key] = merged or None
            else:
                inter[key] = _concat([p.inter[key] for p in parts])
        starts, base = [np.zeros(1, dtype=np.int64)], 0
        for p in parts:
            starts.append(p.start[1:] + base)
            base += int(p.start[-1])
        return cls(conv, inter, np.concatenate(starts))

    # ------------------------------------------------------------------ reading

    def __len__(self) -> int:
        return len(self.held) if self.held is not None else self.start.size - 1

    def column(self, key: str) -> Any:
        """One per-conversation column as a list (texts) or an array."""
        value = self.conv[key]
        return value.tolist() if isinstance(value, Texts) else value

    def tool_rows(self) -> np.ndarray:
        """Per interaction, its row in the tool columns (-1: no tool score)."""
        has = self.inter["tool"]
        rows = np.cumsum(has) - 1
        return np.where(has, rows, -1)

    def metrics(self, start: int = 0, stop: int | None = None) -> list[AgenticMetric]:
        """The result objects of conversations ``start:stop``, built from the columns."""
        if self.held is not None:
            return self.held[start:stop]
        stop = len(self) if stop is None else min(stop, len(self))
        if start >= stop:
            return []
        lo, hi = int(self.start[start]), int(self.start[stop])
        interactions = self._interactions(lo, hi)
        conv = self.conv
        values = {key: conv[key].tolist(start, stop)
                  for key in ("session_id", "assistant_id", "task_id")}
        att, att_none = conv["attempt"]
        attempt = att[start:stop].tolist()
        for j in np.flatnonzero(att_none[start:stop]).tolist():
            attempt[j] = None
        source = [_CONV_SOURCES[s] for s in conv["source"][start:stop].tolist()]
        ints = {key: conv[key][start:stop].tolist() for key in (
            "total_interactions", "correct_interactions", "k", "judge_errors")}
        fully = [_TRI[f] for f in conv["is_fully_correct"][start:stop].tolist()]
        threshold = conv["threshold"][start:stop].tolist()
        floats = {key: _float_list(*conv[key], start, stop) for key in _FLOATS}
        bounds = (self.start[start:stop + 1] - lo).tolist()
        out = []
        for i in range(stop - start):
            rs = interactions[bounds[i]:bounds[i + 1]]
            out.append(trusted(
                AgenticMetric,
                session_id=values["session_id"][i], assistant_id=values["assistant_id"][i],
                task_id=values["task_id"][i], attempt=attempt[i], source=source[i],
                total_interactions=ints["total_interactions"][i],
                correct_interactions=ints["correct_interactions"][i],
                is_fully_correct=fully[i], threshold=threshold[i],
                correctness_scores=[r.score for r in rs],
                correct_indices=[j for j, r in enumerate(rs) if r.is_correct],
                tool_correctness_scores=[r.tool_correctness for r in rs],
                k=ints["k"][i],
                pass_at_k=floats["pass_at_k"][i], pass_at_k_ci_low=floats["pass_at_k_ci_low"][i],
                pass_at_k_ci_high=floats["pass_at_k_ci_high"][i],
                pass_pow_k=floats["pass_pow_k"][i],
                pass_pow_k_ci_low=floats["pass_pow_k_ci_low"][i],
                pass_pow_k_ci_high=floats["pass_pow_k_ci_high"][i],
                pass_at_k_unbiased=floats["pass_at_k_unbiased"][i],
                pass_pow_k_unbiased=floats["pass_pow_k_unbiased"][i],
                judge_errors=ints["judge_errors"][i], interactions=rs))
        return out

    def judge_failures(self) -> list[tuple[str, str, str | None]]:
        """``(session_id, judge_error, judge_error_code)`` of every interaction with a judge
        error, in run order, read from the columns (no result object is built)."""
        if self.held is not None:
            return [(m.session_id, r.judge_error, r.judge_error_code)
                    for m in self.held for r in m.interactions if r.judge_error]
        errors, codes = self.inter["judge_error"], self.inter["judge_error_code"]
        rows = np.flatnonzero(errors.codes >= 0)
        conversations = np.searchsorted(self.start, rows, side="right") - 1
        ids = self.conv["session_id"]
        return [(ids[c], errors[r], codes[r])
                for r, c in zip(rows.tolist(), conversations.tolist()) if errors[r]]

    def iter_metrics(self, block: int = 2048) -> Iterator[AgenticMetric]:
        """Every result object, built a block at a time (never all at once)."""
        for start in range(0, len(self), block):
            yield from self.metrics(start, start + block)

    def _interactions(self, lo: int, hi: int) -> list[InteractionResult]:
        inter = self.inter
        tools = self._tools(lo, hi)
        qa = inter["qa_id"].tolist(lo, hi)
        score = _float_list(*inter["score"], lo, hi)
        reasoning = inter["reasoning"].tolist(lo, hi)
        correct = [_TRI[v] for v in inter["is_correct"][lo:hi].tolist()]
        error = inter["judge_error"].tolist(lo, hi)
        code = inter["judge_error_code"].tolist(lo, hi)
        source = [_SOURCES[v] for v in inter["source"][lo:hi].tolist()]
        graders = inter["graders"] or {}
        return [trusted(InteractionResult, qa_id=qa[j], score=score[j], reasoning=reasoning[j],
                        tool_correctness=tools[j], is_correct=correct[j], judge_error=error[j],
                        judge_error_code=code[j], source=source[j],
                        graders=graders.get(lo + j))
                for j in range(hi - lo)]

    def _tools(self, lo: int, hi: int) -> list[ToolCorrectnessScore | None]:
        inter = self.inter
        has = inter["tool"]
        a = int(np.count_nonzero(has[:lo]))
        b = a + int(np.count_nonzero(has[lo:hi]))
        vals = {key: inter[key][a:b].tolist() for key in _TOOL_FLOATS}
        ok = inter["tool_is_correct"][a:b].tolist()
        why = inter["tool_reasoning"].tolist(a, b)
        evidence = inter["tool_evidence"].tolist(a, b)
        cut = inter["tool_result_cut"][a:b].tolist()
        out: list[ToolCorrectnessScore | None] = []
        t = 0
        for flag in has[lo:hi].tolist():
            if not flag:
                out.append(None)
                continue
            out.append(trusted(
                ToolCorrectnessScore, tool_selection_correct=vals["tool_selection_correct"][t],
                parameter_accuracy=vals["parameter_accuracy"][t],
                sequence_correct=vals["sequence_correct"][t],
                result_utilization=vals["result_utilization"][t],
                overall_correctness=vals["overall_correctness"][t], is_correct=ok[t],
                reasoning=why[t], utilization_evidence=evidence[t], result_cut=cut[t]))
            t += 1
        return out

    def nbytes(self) -> int:
        """Bytes the columns hold (arrays and text buffers)."""
        total = 0
        for value in [*self.conv.values(), *self.inter.values()]:
            for part in (value if isinstance(value, tuple) else (value,)):
                if isinstance(part, Texts):
                    total += part.nbytes()
                elif isinstance(part, np.ndarray):
                    total += part.nbytes
        return total


_LISTS = ("correctness_scores", "correct_indices", "tool_correctness_scores", "interactions")


def _derived(m: AgenticMetric) -> bool:
    """The metric's lists are those of its interactions (as every run makes them), and its
    fields have the types the columns hold."""
    rs = m.interactions
    return (m.correctness_scores == [r.score for r in rs]
            and m.correct_indices == [j for j, r in enumerate(rs) if r.is_correct]
            and len(m.tool_correctness_scores) == len(rs)
            and all(t is r.tool_correctness or t == r.tool_correctness
                    for t, r in zip(m.tool_correctness_scores, rs))
            and all(type(getattr(m, f)) is float or getattr(m, f) is None for f in _FLOATS)
            and type(m.threshold) is float
            and all((type(r.score) is float or r.score is None) for r in rs)
            and all(type(getattr(t, f)) is float for t in m.tool_correctness_scores
                    if t is not None for f in _TOOL_FLOATS))


def _concat(parts: list[Any]) -> Any:
    first = parts[0]
    if isinstance(first, Texts):
        return Texts.concat(parts)
    if isinstance(first, tuple):  # (values, mask or None)
        values = np.concatenate([p[0] for p in parts])
        if all(p[1] is None for p in parts):
            return values, None
        return values, np.concatenate([p[1] if p[1] is not None else np.zeros(p[0].size, bool)
                                       for p in parts])
    return np.concatenate(parts)


def counts_columns(columns: Columns) -> tuple[dict[str, Any], list[str], tuple[int, int]]:
    """What ``statistical.counts.build_counts`` takes, the session ids and (interactions with a
    verdict, interactions listed), from the columns in one vectorised step."""
    if columns.held is not None:
        return _counts_of_metrics(columns.held)
    conv, inter, start = columns.conv, columns.inter, columns.start
    lengths = np.diff(start)
    n = conv["total_interactions"]
    given_inter = _per_conversation(inter["source"].astype(np.int64), start)
    known = _per_conversation((inter["is_correct"] >= 0).astype(np.int64), start)
    source = conv["source"]
    verdicts = int(np.where(source == 1, known, n).sum())
    cols = {"agent": conv["assistant_id"].tolist(), "task": conv["task_id"].tolist(), "n": n,
            "c": conv["correct_interactions"], "length": np.where(lengths > 0, lengths, n),
            "judge_errors": conv["judge_errors"], "fully": conv["is_fully_correct"],
            "source": [_CONV_SOURCES[s] for s in source.tolist()],
            "given_interactions": given_inter}
    return cols, conv["session_id"].tolist(), (verdicts, int(start[-1]))


def _per_conversation(values: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Sums of per-interaction ``values`` per conversation (rows ``start[i]:start[i+1]``)."""
    sums = np.concatenate([[0], np.cumsum(values)])
    return sums[start[1:]] - sums[start[:-1]]


def _counts_of_metrics(metrics: Sequence[AgenticMetric]
                       ) -> tuple[dict[str, Any], list[str], tuple[int, int]]:
    ids: list[str] = []
    verdicts = listed = 0
    cols: dict[str, list[Any]] = {key: [] for key in (
        "agent", "task", "n", "c", "length", "judge_errors", "fully", "source",
        "given_interactions")}
    for m in metrics:
        cols["agent"].append(m.assistant_id)
        cols["task"].append(m.task_id)
        cols["n"].append(m.total_interactions)
        cols["c"].append(m.correct_interactions)
        cols["length"].append(len(m.interactions) or m.total_interactions)
        cols["judge_errors"].append(m.judge_errors)
        cols["fully"].append(m.is_fully_correct)
        cols["source"].append(m.source)
        cols["given_interactions"].append(sum(r.source == "given" for r in m.interactions))
        ids.append(m.session_id)
        verdicts += (sum(r.is_correct is not None for r in m.interactions)
                     if m.source == "given" else m.total_interactions)
        listed += len(m.interactions)
    return cols, ids, (verdicts, listed)


CONVERSATION_FIELDS = tuple(f for f in AgenticMetric.model_fields if f not in _LISTS)
"""The columns of ``to_dataframe`` (the scalar fields, in the model's order)."""


def conversation_records(columns: Columns, start: int = 0, stop: int | None = None
                         ) -> dict[str, list[Any]]:
    """The scalar fields of conversations ``start:stop`` as lists (what ``to_dataframe``
    holds), straight from the columns."""
    stop = len(columns) if stop is None else min(stop, len(columns))
    if columns.held is not None:
        rows = [m.model_dump(exclude=set(_LISTS)) for m in columns.held[start:stop]]
        return {key: [r[key] for r in rows] for key in CONVERSATION_FIELDS}
    conv = columns.conv
    out: dict[str, list[Any]] = {}
    for key in CONVERSATION_FIELDS:
        value = conv[key]
        if isinstance(value, Texts):
            out[key] = value.tolist(start, stop)
        elif key == "attempt":
            out[key] = _ints_or_none(*value, start, stop)
        elif key == "source":
            out[key] = [_CONV_SOURCES[s] for s in value[start:stop].tolist()]
        elif key == "is_fully_correct":
            out[key] = [_TRI[f] for f in value[start:stop].tolist()]
        elif isinstance(value, tuple):
            out[key] = _float_list(*value, start, stop)
        else:
            out[key] = value[start:stop].tolist()
    return out


def _ints_or_none(values: np.ndarray, none: np.ndarray, start: int, stop: int) -> list:
    out = values[start:stop].tolist()
    for j in np.flatnonzero(none[start:stop]).tolist():
        out[j] = None
    return out


INTERACTION_FIELDS = ("session_id", "assistant_id", "index", "qa_id", "score", "source",
                      "is_correct", "judge_error", "judge_error_code", "reasoning",
                      "tool_selection", "tool_parameters", "tool_sequence", "tool_utilization",
                      "tool_overall", "tool_correct", "tool_reasoning")
"""The columns of ``interactions_dataframe``, in order."""


def interaction_records(columns: Columns, start: int = 0, stop: int | None = None
                        ) -> dict[str, list[Any]]:
    """Per interaction of conversations ``start:stop``, the fields of
    ``interactions_dataframe`` as lists, straight from the columns."""
    stop = len(columns) if stop is None else min(stop, len(columns))
    if columns.held is not None:
        return _interaction_records_of(columns.held[start:stop])
    conv, inter = columns.conv, columns.inter
    lo, hi = int(columns.start[start]), int(columns.start[stop])
    lengths = np.diff(columns.start[start:stop + 1])
    owner = np.repeat(np.arange(stop - start), lengths)
    sid = conv["session_id"].tolist(start, stop)
    aid = conv["assistant_id"].tolist(start, stop)
    owners = owner.tolist()
    out: dict[str, list[Any]] = {
        "session_id": [sid[i] for i in owners], "assistant_id": [aid[i] for i in owners],
        "index": (np.arange(hi - lo) - np.repeat(columns.start[start:stop] - lo, lengths)
                  ).tolist(),
        "qa_id": inter["qa_id"].tolist(lo, hi),
        "score": _float_list(*inter["score"], lo, hi),
        "source": [_SOURCES[v] for v in inter["source"][lo:hi].tolist()],
        "is_correct": [_TRI[v] for v in inter["is_correct"][lo:hi].tolist()],
        "judge_error": inter["judge_error"].tolist(lo, hi),
        "judge_error_code": inter["judge_error_code"].tolist(lo, hi),
        "reasoning": inter["reasoning"].tolist(lo, hi),
    }
    has = inter["tool"]
    a = int(np.count_nonzero(has[:lo]))
    b = a + int(np.count_nonzero(has[lo:hi]))
    flags = has[lo:hi]
    rows = np.where(flags, np.cumsum(flags) - 1, -1).tolist()

    def spread(values: list[Any]) -> list[Any]:
        return [None if r < 0 else values[r] for r in rows]

    for name, key in (("tool_selection", "tool_selection_correct"),
                      ("tool_parameters", "parameter_accuracy"),
                      ("tool_sequence", "sequence_correct"),
                      ("tool_utilization", "result_utilization"),
                      ("tool_overall", "overall_correctness")):
        out[name] = spread(inter[key][a:b].tolist())
    out["tool_correct"] = spread(inter["tool_is_correct"][a:b].tolist())
    out["tool_reasoning"] = spread(inter["tool_reasoning"].tolist(a, b))
    return out


def _interaction_records_of(metrics: Sequence[AgenticMetric]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {key: [] for key in INTERACTION_FIELDS}
    for m in metrics:
        for index, r in enumerate(m.interactions):
            tool = r.tool_correctness
            for key, value in (
                    ("session_id", m.session_id), ("assistant_id", m.assistant_id),
                    ("index", index), ("qa_id", r.qa_id), ("score", r.score),
                    ("source", r.source), ("is_correct", r.is_correct),
                    ("judge_error", r.judge_error), ("judge_error_code", r.judge_error_code),
                    ("reasoning", r.reasoning),
                    ("tool_selection", tool.tool_selection_correct if tool else None),
                    ("tool_parameters", tool.parameter_accuracy if tool else None),
                    ("tool_sequence", tool.sequence_correct if tool else None),
                    ("tool_utilization", tool.result_utilization if tool else None),
                    ("tool_overall", tool.overall_correctness if tool else None),
                    ("tool_correct", tool.is_correct if tool else None),
                    ("tool_reasoning", tool.reasoning if tool else None)):
                out[key].append(value)
    return out


def tool_means(columns: Columns) -> list[float | None]:
    """Per conversation, the mean overall tool correctness over its interactions with a tool
    score (None: none has one), summed in Python's order as a loop over the objects would."""
    if columns.held is not None:
        out = []
        for m in columns.held:
            scores = [t.overall_correctness for t in m.tool_correctness_scores if t is not None]
            out.append(sum(scores) / len(scores) if scores else None)
        return out
    has = columns.inter["tool"]
    per = _per_conversation(has.astype(np.int64), columns.start).tolist()
    overall = columns.inter["overall_correctness"].tolist()
    out, t = [], 0
    for count in per:
        scores = overall[t:t + count]
        t += count
        out.append(sum(scores) / len(scores) if scores else None)
    return out


def drill_down_keys(columns: Columns) -> list[tuple[Any, ...]]:
    """Per conversation, the key ``present.report.drill_down_order`` sorts by (its docstring),
    from the columns."""
    import hashlib

    if columns.held is not None:
        return [_key(m.session_id, m.is_fully_correct, m.judge_errors, m.correct_interactions,
                     m.total_interactions, m.correctness_scores) for m in columns.held]
    conv = columns.conv
    scores = _float_list(*columns.inter["score"], 0, int(columns.start[-1]))
    bounds = columns.start.tolist()
    out = []
    for i, (sid, fully, errors, c, n) in enumerate(zip(
            conv["session_id"].tolist(), conv["is_fully_correct"].tolist(),
            conv["judge_errors"].tolist(), conv["correct_interactions"].tolist(),
            conv["total_interactions"].tolist())):
        if fully == 1 and errors == 0:
            tie = hashlib.blake2b(str(sid).encode("utf-8", "backslashreplace"),
                                  digest_size=8).digest()
            out.append((1, 0.0, 0.0, 0, tie))
        else:
            out.append(_key(sid, _TRI[fully], errors, c, n, scores[bounds[i]:bounds[i + 1]]))
    return out


def _key(sid: str, fully: bool | None, errors: int, c: int, n: int,
         scores: Sequence[float | None]) -> tuple[Any, ...]:
    import hashlib

    tie = hashlib.blake2b(str(sid).encode("utf-8", "backslashreplace"), digest_size=8).digest()
    if fully is True and not errors > 0:
        return (1, 0.0, 0.0, 0, tie)
    rate = c / n if n else 0.0
    known = [s for s in scores if s is not None]
    mean = sum(known) / len(known) if known else 0.0
    return (0, rate, mean, -errors, tie)


class Overview(NamedTuple):
    """A conversation's scalar fields and its scores: what lists of every conversation read
    (a tuple, not the full object with its interactions)."""

    session_id: str
    assistant_id: str
    task_id: str | None
    attempt: int | None
    source: str
    total_interactions: int
    correct_interactions: int
    is_fully_correct: bool | None
    judge_errors: int
    correctness_scores: list[float | None]


def overview_rows(columns: Columns) -> list[Overview]:
    """One :class:`Overview` per conversation, from the columns."""
    if columns.held is not None:
        return [Overview(m.session_id, m.assistant_id, m.task_id, m.attempt, m.source,
                         m.total_interactions, m.correct_interactions, m.is_fully_correct,
                         m.judge_errors, list(m.correctness_scores)) for m in columns.held]
    rec = conversation_records(columns)
    scores = _float_list(*columns.inter["score"], 0, int(columns.start[-1]))
    bounds = columns.start.tolist()
    return [Overview(*values, scores[bounds[i]:bounds[i + 1]]) for i, values in enumerate(zip(
        rec["session_id"], rec["assistant_id"], rec["task_id"], rec["attempt"], rec["source"],
        rec["total_interactions"], rec["correct_interactions"], rec["is_fully_correct"],
        rec["judge_errors"]))]
