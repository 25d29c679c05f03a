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

**Incomplete logs.** A log that did not finish (``status`` "cancelled", "error" or "started"),
or whose samples have fewer epochs than it was configured for (``eval.config.epochs``; errored
epochs left out count as missing) or an epoch beyond that count, would give pass^k on fewer
(or other) attempts than the evaluation asked for. Each conversation of such a sample carries
the reason in ``metadata["incomplete"]`` (absent when complete), the load warns once per log
(``IncompleteLogWarning``, naming the log, its status and the samples), and ``strict=True``
(``Agentic.run(strict=True)``, CLI ``--strict``) makes it a DataError naming the log instead.
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

__all__ = ["INSPECT_FIELDS", "SCORE_VALUES", "IncompleteLogWarning", "InspectLogRetriever",
           "check_complete", "datasets_from_inspect_log", "score_to_outcome"]

INSPECT_FIELDS = ("status", "eval.model", "eval.task", "eval.config.epochs",
                  "eval.dataset.sample_ids", "samples[].id", "samples[].epoch",
                  "samples[].messages", "samples[].scores", "samples[].target",
                  "samples[].error")
"""What is read from a log (Inspect's ``EvalLog``); everything else is left alone."""

SCORE_VALUES: dict[str, float] = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0,
                                  "yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
"""String score values and their outcomes (Inspect's defaults; the words in any case)."""

class IncompleteLogWarning(UserWarning):
    """An Inspect log that did not run every sample epoch it was configured for (module
    docstring); its conversations carry ``metadata["incomplete"]``."""


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
        from pydantic import ValidationError

        if isinstance(exc, ValidationError):
            message, field = _type_error(path, fmt, exc)
            raise DataError(message, source=str(path), field=field) from None
        first = next(iter(str(exc).strip().splitlines()), "")
        raise DataError(f"not a readable Inspect AI log: {type(exc).__name__}: "
                        f"{first[:200]}", source=str(path)) from None


def _type_error(path: Path, fmt: str, exc: Any) -> tuple[str, str]:
    """One line for a log that fails Inspect's own validation: the field, the sample it is in,
    what was expected and what the file holds (not pydantic's multi-line dump)."""
    errors = exc.errors(include_url=False)
    err = errors[0]
    loc = list(err["loc"])
    sample = ""
    if loc[:1] == ["samples"] and len(loc) > 1 and isinstance(loc[1], int):
        sample = _json_sample(path, loc[1])
    elif getattr(exc, "title", "") == "EvalSample":  # an .eval archive holds a file per sample
        sample, index, inner = _eval_sample(path, fmt)
        if inner is not None:
            err, errors = inner[0], inner
            loc = ["samples", index, *err["loc"]]
    field = _field(loc)
    prefix = loc[:len(loc) - len(err["loc"])]  # the samples[i] an .eval sample file sits at
    fields = {_field([*prefix, *e["loc"]]) for e in errors}
    # a union reports one error per alternative at the same place: one "should be A or B"
    wants = [e["msg"].rstrip(".") for e in errors if _field([*prefix, *e["loc"]]) == field]
    if len(wants) > 1 and all(w.startswith("Input should be ") for w in wants):
        alternatives = list(dict.fromkeys(w[len("Input should be "):] for w in wants))
        wants = ["Input should be " + ", ".join(alternatives[:-1]) + " or " + alternatives[-1]]
    got = repr(err.get("input"))
    got = got if len(got) <= 60 else got[:57] + "..."
    more = f" ({len(fields)} fields have type errors)" if len(fields) > 1 else ""
    where = f"{sample}: " if sample else ""
    return f"not a valid Inspect AI log: {where}{wants[0]}, got {got}{more}", field or "log"


def _field(loc: Sequence[Any]) -> str:
    """A pydantic error location as a field path (``samples[4].messages[1].role``), without
    the validator and union-member names pydantic puts in it (``function-wrap[...]``, ``str``)."""
    parts = [p for p in loc if not (isinstance(p, str) and ("[" in p or "(" in p))]
    while len(parts) > 1 and parts[-1] in ("str", "int", "float", "bool", "list", "dict", "none"):
        parts.pop()
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")


def _json_sample(path: Path, index: int) -> str:
    """'sample ID epoch E' of a ``.json`` log's sample ``index``, read from the raw JSON."""
    from agenteval.core import jsonio

    try:
        raw = jsonio.loads(path.read_text(encoding="utf-8"))["samples"][index]
        return f"sample {raw.get('id')!r} epoch {raw.get('epoch')!r}"
    except Exception:  # the file is already known to be bad; the field alone still says where
        return ""


def _eval_sample(path: Path, fmt: str) -> tuple[str, int, Any]:
    """The first sample of an ``.eval`` log Inspect cannot validate: its name, index, errors."""
    from inspect_ai.log import read_eval_log_sample, read_eval_log_sample_summaries
    from pydantic import ValidationError

    try:
        summaries = read_eval_log_sample_summaries(str(path), format=fmt)
    except Exception:
        return "", 0, None
    for index, summary in enumerate(summaries):
        try:
            read_eval_log_sample(str(path), id=summary.id, epoch=summary.epoch,
                                 resolve_attachments=True, format=fmt)
        except ValidationError as exc:
            return (f"sample {summary.id!r} epoch {summary.epoch}", index,
                    exc.errors(include_url=False))
        except Exception:
            continue
    return "", 0, None


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


def _list(items: Sequence[str], limit: int = 10) -> str:
    return ", ".join(items[:limit]) + (" ..." if len(items) > limit else "")


def _incomplete(log: Any, kept: Sequence[tuple[Any, int]], where: str) -> tuple[dict, list[str]]:
    """Why each kept (sample id, epoch) is incomplete, and the log's own reasons (docstring)."""
    status = getattr(log, "status", "success")
    configured = getattr(log.eval.config, "epochs", None) or 1  # Inspect's default: one epoch
    epochs: dict[Any, set[int]] = {}
    for sample_id, epoch in kept:
        epochs.setdefault(sample_id, set()).add(epoch)
    why: dict[tuple[Any, int], list[str]] = {}
    short, beyond = [], []
    if status != "success":
        for key in kept:
            why.setdefault(key, []).append(f"log {where} has status {status!r}")
    for sample_id, have in epochs.items():
        n_in = sum(1 for e in have if 1 <= e <= configured)
        if n_in < configured:
            short.append(f"{sample_id} ({n_in} of {configured})")
            for e in have:
                why.setdefault((sample_id, e), []).append(
                    f"{n_in} of the configured {configured} epochs in the log")
        over = sorted(e for e in have if e > configured)
        if over:
            beyond.append(f"{sample_id} (epoch {', '.join(map(str, over))})")
            for e in over:
                why.setdefault((sample_id, e), []).append(
                    f"epoch {e} is beyond the configured {configured}")
    reasons = []
    if status != "success":
        reasons.append(f"the log's status is {status!r}, not 'success'")
    if short:
        reasons.append(f"{len(short)} sample(s) have fewer than the configured {configured} "
                       f"epoch(s): {_list(short)}")
    if beyond:
        reasons.append(f"{len(beyond)} sample(s) have epochs beyond the configured {configured}: "
                       f"{_list(beyond)}")
    ids = getattr(log.eval.dataset, "sample_ids", None) or []
    absent = [str(i) for i in ids if i not in epochs]
    if absent and (status != "success" or short):
        reasons.append(f"{len(absent)} sample(s) have no epoch in the log: {_list(absent)}")
    return {key: "; ".join(v) for key, v in why.items()}, reasons


def check_complete(datasets: Sequence[Dataset]) -> None:
    """DataError when any conversation comes from an incomplete Inspect log (``strict``)."""
    bad = [ds for ds in datasets if ds.metadata.get("incomplete")]
    if bad:
        first = bad[0]
        raise DataError(f"{len(bad)} conversation(s) come from incomplete Inspect logs (strict), "
                        f"e.g. {first.session_id}: {first.metadata['incomplete']}",
                        source=first.metadata.get("inspect_log"))


def datasets_from_inspect_log(log: Any, *, scorer: str | None = None,
                              source: str | None = None, strict: bool = False) -> list[Dataset]:
    """Convert an ``EvalLog`` (from ``inspect_ai.log.read_eval_log``) into conversations.

    ``strict``: an incomplete log (module docstring) is a DataError rather than a warning."""
    from agenteval.core.traces import TraceContext as _Ctx
    from agenteval.core.traces import convert_messages as _convert

    where = source or "Inspect log"
    name = _scorer_name(log, scorer, where)
    model, task = log.eval.model, log.eval.task
    out = []
    errored = []
    samples = [s for s in log.samples or [] if not (s.error is not None and not s.scores)]
    incomplete, reasons = _incomplete(log, [(s.id, s.epoch) for s in samples], where)
    if reasons and strict:
        raise DataError("incomplete Inspect log (strict): " + "; ".join(reasons), source=where)
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
        if (sample_id, epoch) in incomplete:
            fields["metadata"].update(incomplete=incomplete[(sample_id, epoch)], inspect_log=where)
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
    if errored:  # Inspect leaves them out of its metrics: so do we, and say so
        reasons.insert(0, f"{len(errored)} sample(s) errored and are left out, as Inspect leaves "
                          f"them out of its metrics: {_list(errored)}")
    if reasons:
        cause = "; ".join(reasons)
        if incomplete:
            cause += (": pass^k rests on fewer (or other) attempts than the evaluation asked for "
                      "(each such conversation has metadata['incomplete']; strict / --strict "
                      "makes this an error)")
        warnings.warn(f"agenteval: {where}: {cause}",
                      IncompleteLogWarning if incomplete else UserWarning, stacklevel=2)
    return out


class InspectLogRetriever(_FileRetriever):
    """One Inspect AI log file (``.eval`` or ``.json``); ``scorer`` picks among several;
    ``strict``: an incomplete log is a DataError (module docstring)."""

    def __init__(self, path: str | Path, *, scorer: str | None = None, strict: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(path, **kwargs)
        self.scorer = scorer
        self.strict = strict

    def _located(self) -> list[tuple[Dataset, _Where]]:
        source = str(self.path)
        log = _read_log(self.path)
        if not log.samples:
            raise DataError("no samples in this Inspect AI log (was it written with "
                            "--no-log-samples, or is the eval still running?)", source=source)
        datasets = datasets_from_inspect_log(log, scorer=self.scorer, source=source,
                                             strict=self.strict)
        return [(ds, _Where(source, index=i)) for i, ds in enumerate(datasets)]
