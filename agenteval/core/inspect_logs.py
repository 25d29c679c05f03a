"""Inspect AI eval logs -> ``Dataset``: read through Inspect's own reader, never by hand.

Needs the optional extra ``pip install 'agenteval[inspect]'`` (``inspect_ai``, imported here
only). Both log formats load: ``.eval`` (a zip archive, zstd-compressed in current Inspect,
which Python's ``zipfile`` cannot open) and ``.json``, through ``inspect_ai.log.read_eval_log``.
One log is one model on one task; several logs are several agents.

Each sample epoch becomes one conversation:

* ``assistant_id`` = the log's model (``eval.model``, e.g. ``openai/gpt-4o``);
* ``task_id`` = ``<task>/<sample id>`` (the Inspect task's name and the sample's id), so the
  epochs of a sample are the attempts at one task; ``attempt`` = the epoch (1, 2, ...);
  ``session_id`` = ``<model>/<task>/<sample id>/epoch-<epoch>``;
* ``outcome`` = the chosen scorer's value, mapped as Inspect's ``value_to_float`` does by
  default (``SCORE_VALUES``): ``"C"`` (correct) 1, ``"I"`` (incorrect) 0, ``"P"`` (partial) 0.5,
  ``"N"`` (no answer) 0, ``"yes"``/``"true"`` 1, ``"no"``/``"false"`` 0, booleans, numbers in
  [0, 1] and strings holding one. A success is an outcome within 1e-6 of 1 (or >= the run's
  ``outcome_threshold``: with 0.5, partial credit counts). A value that cannot be mapped (a
  dict or list of several metrics, a number outside [0, 1]) is a DataError naming the sample,
  never a silent 0. A sample that errored (Inspect leaves it unscored and out of its metrics)
  is left out too, with a warning naming it; one with no value for the scorer otherwise gets
  no outcome, and the judge decides it against the sample's target;
* the message history (``sample.messages``) goes through the OpenAI-transcript importer, with
  every tool call and its result (a tool error's message is the result); the target is the
  reference answer of the last user turn.

With several scorers in a log, ``scorer`` names the one to use (an error lists them otherwise).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agenteval.core.base import Where as _Where
from agenteval.core.records import FileRetriever as _FileRetriever
from agenteval.errors import ConfigError, DataError
from agenteval.schemas.common import Dataset

__all__ = ["INSPECT_FIELDS", "SCORE_VALUES", "InspectLogRetriever", "datasets_from_inspect_log",
           "score_to_outcome"]

INSPECT_FIELDS = ("eval.model", "eval.task", "samples[].id", "samples[].epoch",
                  "samples[].messages", "samples[].scores", "samples[].target",
                  "samples[].error")
"""What is read from a log (Inspect's ``EvalLog``); everything else is left alone."""

SCORE_VALUES: dict[str, float] = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0,
                                  "yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
"""String score values and their outcomes (Inspect's defaults; the words in any case)."""

_INSTALL = "reading Inspect AI logs needs inspect_ai: pip install 'agenteval[inspect]'"


def score_to_outcome(value: Any) -> float | None:
    """An Inspect score value as an outcome in [0, 1]; None when it cannot be mapped.

    >>> [score_to_outcome(v) for v in ("C", "I", "P", "N", True, 0.25, "1", "yes")]
    [1.0, 0.0, 0.5, 0.0, 1.0, 0.25, 1.0, 1.0]
    >>> score_to_outcome({"accuracy": 1}) is None, score_to_outcome(7) is None
    (True, True)
    """
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text in SCORE_VALUES:
            return SCORE_VALUES[text]
        if text.lower() in SCORE_VALUES and text.lower() not in ("c", "i", "p", "n"):
            return SCORE_VALUES[text.lower()]
        try:
            value = float(text)
        except ValueError:
            return None
    if isinstance(value, (int, float)):
        f = float(value)
        return f if math.isfinite(f) and 0.0 <= f <= 1.0 else None
    return None


def _read_log(path: Path) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ConfigError(_INSTALL) from None
    if not path.exists():
        raise DataError("file not found", source=str(path))
    if path.is_dir():
        raise DataError("is a directory, expected an Inspect AI log file (.eval or .json)",
                        source=str(path))
    fmt = "auto"  # Inspect tells its formats by suffix; any other name: by content (zip or not)
    if path.suffix.lower() not in (".eval", ".json"):
        with open(path, "rb") as fh:
            fmt = "eval" if fh.read(4) == b"PK\x03\x04" else "json"
    try:
        return read_eval_log(str(path), resolve_attachments=True, format=fmt)
    except Exception as exc:  # Inspect raises many kinds; any of them means "not a log we can read"
        raise DataError(f"not a readable Inspect AI log: {type(exc).__name__}: "
                        f"{str(exc)[:200]}", source=str(path)) from None


def _text(content: Any) -> str:
    """Text of Inspect message content: a string, or a list of content parts."""
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        text = getattr(part, "text", None)
        if isinstance(text, str):
            parts.append(text)
    return "\n".join(parts)


def _openai_messages(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """Inspect ChatMessages -> the OpenAI chat format the transcript importer reads."""
    out: list[dict[str, Any]] = []
    for m in messages:
        role = m.role
        if role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": _text(m.content)}
            calls = []
            for call in m.tool_calls or []:
                calls.append({"id": call.id, "type": "function",
                              "function": {"name": call.function,
                                           "arguments": dict(call.arguments or {})}})
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
        elif role == "tool":
            text = _text(m.content)
            error = getattr(m, "error", None)
            if error is not None and not text:
                text = f"error: {getattr(error, 'message', error)}"
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": text})
        else:  # system / user
            out.append({"role": role, "content": _text(m.content)})
    return out


def _scorer_name(log: Any, scorer: str | None, source: str) -> str | None:
    names: list[str] = []
    if log.results is not None:
        names = [s.name for s in log.results.scores]
    for sample in log.samples or []:
        for name in sample.scores or {}:
            if name not in names:
                names.append(name)
    if scorer is not None:
        if scorer not in names:
            raise ConfigError(f"{source}: no scorer {scorer!r} in this log; it has: "
                              f"{', '.join(names) or 'none'}")
        return scorer
    if len(names) > 1:
        raise ConfigError(f"{source}: the log has several scorers ({', '.join(names)}); choose "
                          "the one that gives the outcome with scorer= (CLI: --scorer NAME)")
    return names[0] if names else None


def datasets_from_inspect_log(log: Any, *, scorer: str | None = None,
                              source: str | None = None) -> list[Dataset]:
    """Convert an ``EvalLog`` (from ``inspect_ai.log.read_eval_log``) into conversations."""
    from agenteval.core.traces import TraceContext as _Ctx
    from agenteval.core.traces import convert_messages as _convert

    where = source or "Inspect log"
    name = _scorer_name(log, scorer, where)
    model, task = log.eval.model, log.eval.task
    out = []
    errored = []
    for index, sample in enumerate(log.samples or []):
        if sample.error is not None and not sample.scores:
            errored.append(f"{sample.id} (epoch {sample.epoch})")
            continue
        field = f"samples[{index}]"
        ctx = _Ctx(where, None, None, prefix=f"{field}.messages")
        sample_id, epoch = sample.id, sample.epoch
        fields: dict[str, Any] = {"task_id": f"{task}/{sample_id}", "attempt": epoch,
                                  "metadata": {"inspect_task": task, "sample_id": sample_id,
                                               "epoch": epoch}}
        score = (sample.scores or {}).get(name) if name is not None else None
        if score is not None:
            outcome = score_to_outcome(score.value)
            if outcome is None:
                raise DataError(f"sample {sample_id!r} epoch {epoch}: score value "
                                f"{score.value!r} of scorer {name!r} is not C/I/P/N, yes/no, "
                                "true/false or a number in [0, 1]", source=where,
                                field=f"{field}.scores.{name}.value")
            fields["outcome"] = outcome
            fields["metadata"].update(scorer=name, score_value=score.value,
                                      score_answer=score.answer,
                                      score_explanation=score.explanation)
        if sample.error is not None:  # errored, yet scored: keep it, say so
            fields["metadata"]["error"] = getattr(sample.error, "message", str(sample.error))
        messages = _openai_messages(sample.messages or [])
        n_users = sum(m["role"] == "user" for m in messages)
        target = sample.target
        target_text = "\n".join(target) if isinstance(target, list) else str(target or "")
        refs: list[dict[str, Any] | None] | None = None
        if n_users and target_text:
            refs = [None] * (n_users - 1) + [{"ground_truth_assistant": target_text}]
        if not n_users:  # nothing was asked (an errored sample): one empty interaction
            messages = [{"role": "user", "content": ""}]
            refs = None
        out.append(_convert(messages, session_id=f"{model}/{task}/{sample_id}/epoch-{epoch}",
                            assistant_id=model, references=refs, fields=fields, ctx=ctx))
    if errored:
        warnings.warn(f"agenteval: {where}: {len(errored)} sample(s) errored and are left out, as Inspect "
                      f"leaves them out of its metrics: {', '.join(errored[:10])}"
                      f"{' ...' if len(errored) > 10 else ''}", UserWarning, stacklevel=2)
    return out


class InspectLogRetriever(_FileRetriever):
    """One Inspect AI log file (``.eval`` or ``.json``); ``scorer`` picks among several."""

    def __init__(self, path: str | Path, *, scorer: str | None = None, **kwargs: Any) -> None:
        super().__init__(path, **kwargs)
        self.scorer = scorer

    def _located(self) -> list[tuple[Dataset, _Where]]:
        source = str(self.path)
        log = _read_log(self.path)
        if not log.samples:
            raise DataError("no samples in this Inspect AI log (was it written with "
                            "--no-log-samples, or is the eval still running?)", source=source)
        datasets = datasets_from_inspect_log(log, scorer=self.scorer, source=source)
        return [(ds, _Where(source, index=i)) for i, ds in enumerate(datasets)]
