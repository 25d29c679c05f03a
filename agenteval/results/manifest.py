"""The manifest of a run, written into ``results.json``: what produced the numbers.

A figure in a paper must be re-derivable, so every ``results.json`` carries the agenteval and key
library versions, the data file's hash, the judge (model, endpoint without secrets, prompt
version, mode), the statistical mode with its settings and seed, and the command or call that
produced it.
"""

from __future__ import annotations

import ast
import dataclasses
import datetime as _dt
import hashlib
import inspect
import json
import platform
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from agenteval.errors import DataError

if TYPE_CHECKING:
    from agenteval.results.agentic import AgenticResults
    from agenteval.statistical.modes import StatisticalMode

__all__ = ["LIBRARIES", "MANIFEST_VERSION", "build_manifest", "build_rag_manifest", "describe_call",
           "describe_source", "judge_spec", "library_versions", "mode_classes", "mode_from_spec",
           "mode_spec"]


MANIFEST_VERSION = "1"


LIBRARIES = ("numpy", "scipy", "pandas", "pydantic", "openai", "instructor", "pymc", "pytensor",
             "arviz", "matplotlib", "inspect_ai")
"""Libraries whose versions can change a number; recorded when installed (never imported)."""


def build_manifest(results: AgenticResults) -> dict[str, Any]:
    """What produced ``results``: versions, data, judge, statistical mode, settings, command.

    Keys recorded by the caller in ``results.provenance`` (the CLI's command and data file, the
    Python call, or a reloaded run's original manifest) take precedence over fresh ones.
    """
    run = results.judge_run
    settings = results.settings
    fresh: dict[str, Any] = {
        **_environment(),
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


def describe_call(source: Any, model: Any, k: int | None = None, *, function: str = "Agentic.run",
                  **options: Any) -> dict[str, Any]:
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
    head = f"{show(source)}, model={show(model)}" + ("" if k is None else f", k={k}")
    call = f"{function}({head}{', ' + args if args else ''})"
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


def mode_classes() -> dict[str, type]:
    """The statistical modes a results file may name, by every spelling it may use: the class
    name, its current module path, and the path files written before the package's layout
    changed used. Nothing outside this table is ever imported or called for a file."""
    from agenteval.statistical.modes import BayesianMode, FrequentistMode

    out: dict[str, type] = {}
    for cls in (FrequentistMode, BayesianMode):
        for name in (cls.__name__, f"{cls.__module__}.{cls.__qualname__}",
                     f"agenteval.statistical.modes.{cls.__name__}"):
            out[name] = cls
    return out


def mode_from_spec(spec: dict[str, Any]) -> StatisticalMode:
    """Rebuild the statistical mode :func:`mode_spec` described.

    Only the known mode classes (:func:`mode_classes`) are constructed, with keyword arguments
    that are their constructor's parameters and plain JSON values (numbers, strings, booleans,
    null, lists of them), which the constructor validates; a file that names anything else is
    refused with one DataError and nothing is imported or run.
    """
    where = "manifest.statistical_mode"
    if not isinstance(spec, dict):
        raise DataError("expected an object with 'class' and 'params'", field=where)
    name = spec.get("class")
    known = mode_classes()
    cls = known.get(name) if isinstance(name, str) else None
    if cls is None:
        shown = repr(name) if len(repr(name)) <= 80 else repr(name)[:77] + "..."
        raise DataError(f"unknown statistical mode class {shown}: a results file may name "
                        "only FrequentistMode or BayesianMode", field=f"{where}.class")
    raw = spec.get("params", {})
    if not isinstance(raw, dict):
        raise DataError("expected an object of parameters", field=f"{where}.params")
    accepted = {n for n, p in inspect.signature(cls.__init__).parameters.items()
                if n != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    params = {}
    for key, value in raw.items():
        if key not in accepted:
            raise DataError(f"cannot rebuild statistical mode {cls.__name__}: {cls.__name__} has "
                            f"no parameter {key!r}", field=f"{where}.params")
        if not (_is_json_scalar(value) or (isinstance(value, list)
                                           and all(_is_json_scalar(v) for v in value))):
            raise DataError(f"cannot rebuild statistical mode {cls.__name__}: parameter {key!r} "
                            "must be a number, string, boolean or null", field=f"{where}.params.{key}")
        params[key] = tuple(value) if isinstance(value, list) else value
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:  # ConfigError is a ValueError
        raise DataError(f"cannot rebuild statistical mode {cls.__name__}: {exc}",
                        field=where) from None


def _environment() -> dict[str, Any]:
    """The manifest's first keys, the same for every kind of run: versions, time, platform, and
    the provenance slots the caller fills in (command, call, data)."""
    from agenteval._util.version import __version__

    return {"manifest_version": MANIFEST_VERSION, "agenteval": __version__, "created": _now(),
            "python": platform.python_version(), "platform": platform.platform(terse=True),
            "libraries": library_versions(), "command": None, "call": None, "data": None}


def build_rag_manifest(results: Any) -> dict[str, Any]:
    """What produced RAG ``results``: versions, data, judge (with its accounting), mode, call."""
    run = getattr(results, "judge_run", None)
    mode = getattr(results, "mode", None)
    fresh: dict[str, Any] = {
        **_environment(),
        "judge": judge_spec(run) if run is not None else None,
        "judge_run": dataclasses.asdict(run) if run is not None else None,
        "statistical_mode": mode_spec(mode) if mode is not None else None,
        "settings": dict(getattr(results, "settings", {}) or {}),
    }
    return {**fresh, **getattr(results, "provenance", {})}
