"""Results that reload: the manifest written into ``results.json`` and ``load_results``.

A figure in a paper must be re-derivable, so every ``results.json`` carries a manifest: the
agenteval and key library versions, the data file's hash, the judge (model, endpoint without
secrets, prompt version, mode), the statistical mode with its settings and seed, and the command
or call that produced it.

Reloading restores the per-conversation metrics (with every interaction), the run settings, the
statistical mode and the judge's accounting, so the summary, DataFrames and comparisons come back
without re-judging. The stored summary is used when it matches the current schema; otherwise it
is recomputed through the normal code path from the metrics and the mode (deterministic: seeded).

    >>> import agenteval
    >>> results = agenteval.load_results("out/demo")          # doctest: +SKIP
    >>> print(results.summary())                              # doctest: +SKIP
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as _dt
import hashlib
import importlib
import inspect
import json
import math
import platform
import types
import typing
import warnings
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from agenteval.errors import DataError

if TYPE_CHECKING:
    from agenteval.results.agentic import AgenticResults
    from agenteval.statistical.modes import StatisticalMode

__all__ = ["RESULTS_FILE", "MANIFEST_VERSION", "load_results", "results_from_json", "build_manifest",
           "describe_source", "describe_call", "mode_spec", "mode_from_spec"]

RESULTS_FILE = "results.json"
MANIFEST_VERSION = "1"

LIBRARIES = ("numpy", "scipy", "pandas", "pydantic", "openai", "instructor", "pymc", "pytensor",
             "arviz", "matplotlib", "inspect_ai")
"""Libraries whose versions can change a number; recorded when installed (never imported)."""


# --------------------------------------------------------------------------- the manifest


def build_manifest(results: AgenticResults) -> dict[str, Any]:
    """What produced ``results``: versions, data, judge, statistical mode, settings, command.

    Keys recorded by the caller in ``results.provenance`` (the CLI's command and data file, the
    Python call, or a reloaded run's original manifest) take precedence over fresh ones.
    """
    from agenteval import __version__

    run = results.judge_run
    settings = results.settings
    fresh: dict[str, Any] = {
        "manifest_version": MANIFEST_VERSION,
        "agenteval": __version__,
        "created": _now(),
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "libraries": library_versions(),
        "command": None,
        "call": None,
        "data": None,
        "judge": judge_spec(run),
        "judge_run": dataclasses.asdict(run),
        "statistical_mode": mode_spec(settings.mode),
        "settings": {"k": settings.k, "threshold": settings.threshold,
                     "tool_threshold": settings.tool_threshold,
                     "tool_weights": dict(settings.tool_weights), "method": results.method,
                     "outcome_threshold": settings.outcome_threshold,
                     "argument_matching": (dict(settings.argument_matching)
                                           if settings.argument_matching else None)},
    }
    return {**fresh, **getattr(results, "provenance", {})}


def library_versions() -> dict[str, str]:
    """Installed versions of :data:`LIBRARIES`, read from package metadata (no imports)."""
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def describe_source(path: str | Path) -> dict[str, Any]:
    """Path, size and SHA-256 of a data file (streamed, so a large file costs no memory).

    A folder (a directory of logs) hashes its files' relative names and contents in name order.
    """
    path = Path(path)
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        if path.is_dir():
            digest.update(file.relative_to(path).as_posix().encode() + b"\0")
        with open(file, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    out: dict[str, Any] = {"path": str(path), "resolved": str(path.resolve()),
                           "bytes": sum(f.stat().st_size for f in files),
                           "sha256": digest.hexdigest()}
    if path.is_dir():
        out["files"] = len(files)
    return out


def describe_call(source: Any, model: Any, k: int, **options: Any) -> dict[str, Any]:
    """The Python call that produced a run, for the manifest (data file hashed when it is one)."""
    def show(value: Any) -> str:
        if isinstance(value, (str, int, float, bool, type(None), Path)):
            return repr(str(value) if isinstance(value, Path) else value)
        if isinstance(value, type):
            return value.__name__
        if isinstance(value, (list, tuple)):
            return f"<{len(value)} {type(value).__name__} items>"
        return repr(value) if len(repr(value)) <= 200 else f"<{type(value).__name__}>"

    args = ", ".join(f"{name}={show(value)}" for name, value in options.items())
    call = f"Agentic.run({show(source)}, model={show(model)}, k={k}{', ' + args if args else ''})"
    data = None
    if isinstance(source, (str, Path)) and Path(source).exists():
        data = describe_source(source)
    return {"call": call, "data": data, "created": _now()}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def judge_spec(run: Any) -> dict[str, Any]:
    """Which judge, with the endpoint stripped of credentials and query strings."""
    details = run.details or {}
    spec = {"judge": run.judge}
    for key in ("model", "endpoint", "prompt_version", "mode", "temperature"):
        if key in details:
            spec[key] = details[key]
    if isinstance(spec.get("endpoint"), str):
        spec["endpoint"] = _without_secrets(spec["endpoint"])
    return spec


def _without_secrets(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def mode_spec(mode: StatisticalMode) -> dict[str, Any]:
    """The mode's class and constructor arguments, checked by rebuilding it.

    The arguments come from ``mode.get_params()`` where the mode has it (scikit-learn's
    convention), else from attributes named like the constructor's parameters (directly or as a
    field of a settings dataclass the mode holds) and from its repr when that is a constructor
    call with literal arguments. ``rebuilds_exactly`` records whether a mode
    rebuilt from them has the same ``repr``: when not, a reload uses the stored summary only.
    """
    cls = type(mode)
    getter = getattr(mode, "get_params", None)
    if callable(getter):
        found = dict(getter())
    else:
        holders = [v for v in vars(mode).values() if dataclasses.is_dataclass(v)]
        found = {}
        for name, p in inspect.signature(cls.__init__).parameters.items():
            if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if hasattr(mode, name):
                found[name] = getattr(mode, name)
                continue
            for holder in holders:
                if hasattr(holder, name):
                    found[name] = getattr(holder, name)
                    break
        for name, value in _params_from_repr(mode).items():
            found.setdefault(name, value)
    params = {}
    for name, value in found.items():
        if _is_json_scalar(value) or (isinstance(value, (list, tuple))
                                      and all(_is_json_scalar(v) for v in value)):
            params[name] = list(value) if isinstance(value, tuple) else value
    spec = {"class": f"{cls.__module__}.{cls.__qualname__}", "params": params, "repr": repr(mode)}
    try:
        again = mode_from_spec(json.loads(json.dumps(spec)))
        same = repr(again) == repr(mode)
        if callable(getter):
            same = same and _jsonable(again.get_params()) == _jsonable(getter())
        spec["rebuilds_exactly"] = same
    except (DataError, ValueError):
        spec["rebuilds_exactly"] = False
    return spec


def _jsonable(params: dict[str, Any]) -> Any:
    return json.loads(json.dumps(params, default=repr))


def _params_from_repr(mode: Any) -> dict[str, Any]:
    """Keyword arguments of a repr written as a constructor call with literal values."""
    try:
        call = ast.parse(repr(mode), mode="eval").body
    except SyntaxError:
        return {}
    if not isinstance(call, ast.Call):
        return {}
    out = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        try:
            out[keyword.arg] = ast.literal_eval(keyword.value)
        except ValueError:
            continue
    return out


def _is_json_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool, type(None)))


def mode_from_spec(spec: dict[str, Any]) -> StatisticalMode:
    """Rebuild the statistical mode :func:`mode_spec` described."""
    from agenteval.statistical.modes import StatisticalMode

    module_name, _, qualname = str(spec.get("class", "")).rpartition(".")
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in spec.get("params", {}).items()}
    if not module_name.startswith("agenteval."):
        raise DataError(f"unknown statistical mode class {spec.get('class')!r}",
                        field="manifest.statistical_mode")
    try:
        cls = getattr(importlib.import_module(module_name), qualname)
        mode = cls(**params)
    except (ImportError, AttributeError, TypeError, ValueError) as exc:
        raise DataError(f"cannot rebuild statistical mode {spec.get('repr', spec.get('class'))}: "
                        f"{exc}", field="manifest.statistical_mode") from None
    if not isinstance(mode, StatisticalMode):
        raise DataError(f"{spec.get('class')!r} is not a statistical mode",
                        field="manifest.statistical_mode")
    return mode


# --------------------------------------------------------------------------- reload


def load_results(path: str | Path, *, recompute: bool = False) -> AgenticResults:
    """Restore the results of a past run from ``results.json`` (or the ``--out`` folder holding it).

    Nothing is judged again. ``recompute=True`` rebuilds the summary from the per-conversation
    metrics through the normal code path instead of using the stored one (which is also what
    happens when the stored summary does not match this version's schema).
    """
    path = Path(path)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        raise DataError(f"no {RESULTS_FILE} here; pass the file or the --out folder of a run",
                        source=str(path))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"not a results file: {exc}", source=str(path)) from None
    return results_from_json(data, source=str(path), recompute=recompute)


def results_from_json(data: Any, *, source: str | None = None,
                      recompute: bool = False) -> AgenticResults:
    """Inverse of ``AgenticResults.to_json()`` (see :func:`load_results`)."""
    from pydantic import ValidationError

    from agenteval.judge.base import JudgeRun
    from agenteval.results.agentic import AgenticResults, RunSettings, SuiteSummary
    from agenteval.schemas.results import AgenticMetric

    if not isinstance(data, dict) or "conversations" not in data:
        raise DataError("not an agenteval results file (no 'conversations')", source=source)
    manifest = data.get("manifest")
    if not isinstance(manifest, dict) or "statistical_mode" not in manifest:
        raise DataError("no manifest: written by an agenteval before 0.1 reloads; re-run the "
                        "evaluation to get a reloadable file", source=source, field="manifest")
    try:
        stored = manifest["settings"]
        mode = mode_from_spec(manifest["statistical_mode"])
        run_data = dict(manifest["judge_run"])
        run = JudgeRun(**{f.name: run_data[f.name] for f in dataclasses.fields(JudgeRun)
                          if f.name in run_data})
        settings = RunSettings(k=int(stored["k"]), threshold=float(stored["threshold"]),
                               tool_threshold=float(stored["tool_threshold"]),
                               tool_weights={str(k): float(v) for k, v in stored["tool_weights"].items()},
                               mode=mode,
                               outcome_threshold=(None if stored.get("outcome_threshold") is None
                                                  else float(stored["outcome_threshold"])),
                               argument_matching=stored.get("argument_matching") or None)
    except DataError as exc:
        raise DataError(exc.reason, source=source, field=exc.field) from None
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"incomplete manifest ({exc})", source=source, field="manifest") from None
    metrics = []
    for index, record in enumerate(data["conversations"]):
        try:
            metrics.append(AgenticMetric.model_validate(restore_nan(AgenticMetric, record)))
        except ValidationError as exc:
            raise DataError(f"conversation {index} does not match this version's results "
                            f"schema: {exc.errors()[0]['msg']}", source=source,
                            field=f"conversations[{index}]") from None
    results = AgenticResults(metrics, settings=settings, judge_run=run,
                             method=str(stored.get("method", "")))
    results.provenance = dict(manifest)
    if not recompute and isinstance(data.get("summary"), dict):
        try:
            results._summary = SuiteSummary.model_validate(restore_nan(SuiteSummary, data["summary"]))
        except ValidationError:
            results._summary = None  # another version's schema: recomputed on first use
    spec = manifest["statistical_mode"]
    if results._summary is None and spec.get("rebuilds_exactly") is False:
        warnings.warn(f"{source or 'results'}: the statistical mode {spec.get('repr')} could not be "
                      f"rebuilt exactly; the summary is recomputed with {mode!r}", stacklevel=2)
    return results


def restore_nan(model: Any, data: Any) -> Any:
    """Undo ``_json_safe`` for a pydantic model: a ``null`` in a field typed plain ``float`` was NaN.

    Fields typed ``float | None`` keep ``None`` (both read as missing in a DataFrame).
    """
    from pydantic import BaseModel

    def walk(tp: Any, value: Any) -> Any:
        if tp is float:
            return math.nan if value is None else value
        if isinstance(tp, type) and issubclass(tp, BaseModel) and isinstance(value, dict):
            fields = tp.model_fields
            return {k: walk(fields[k].annotation, v) if k in fields else v for k, v in value.items()}
        origin = typing.get_origin(tp)
        if origin in (list, tuple) and isinstance(value, list):
            (item,) = typing.get_args(tp)[:1] or (Any,)
            return [walk(item, v) for v in value]
        if origin in (typing.Union, types.UnionType) and value is not None:
            models = [a for a in typing.get_args(tp)
                      if isinstance(a, type) and issubclass(a, BaseModel)]
            if len(models) == 1 and isinstance(value, dict):
                return walk(models[0], value)
        return value

    return walk(model, data)
