"""The project's exceptions, rooted at one class.

    AgentEvalError (ValueError)        anything a user can cause
    ├── DataError                      bad input data: names file, line and field
    ├── ConfigError                    bad argument or option (k < 1, threshold outside [0, 1] ...)
    └── JudgeError                     a judge call failed and the run was asked to be strict

The CLI and the magic print these as one line; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class AgentEvalError(ValueError):
    """Root of every error a user can cause."""


class ConfigError(AgentEvalError):
    """A parameter is outside what is allowed."""


class DataError(AgentEvalError):
    """Input data is malformed; the message names where (file, line, field)."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.source = source
        self.line = line
        self.field = field
        self.reason = message
        where = []
        if source is not None:
            where.append(str(source))
        if line is not None:
            where.append(f"line {line}")
        if field is not None:
            where.append(f"field '{field}'")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)


class JudgeError(AgentEvalError):
    """A judge call failed after its retries (raised only in strict runs)."""


def check_k(k: object) -> int:
    """Validate k for pass@k / pass^k: an integer >= 1."""
    if isinstance(k, bool) or not isinstance(k, (int,)) and not (hasattr(k, "__index__")):
        raise ConfigError(f"k must be an integer >= 1, got {k!r}")
    k = int(k)  # type: ignore[call-overload]
    if k < 1:
        raise ConfigError(f"k must be an integer >= 1, got {k}")
    return k


def check_unit(name: str, value: object) -> float:
    """Validate a threshold or level in [0, 1] (a real number; not a bool or a string)."""
    if isinstance(value, (bool, str, bytes)):
        raise ConfigError(f"{name} must be a number in [0, 1], got {value!r}")
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a number in [0, 1], got {value!r}") from None
    if not 0.0 <= v <= 1.0:
        raise ConfigError(f"{name} must be in [0, 1], got {value!r}")
    return v


def check_level(name: str, value: object) -> float:
    """Validate an interval level in the open interval (0, 1)."""
    if isinstance(value, (bool, str, bytes)):
        raise ConfigError(f"{name} must be a number in (0, 1), got {value!r}")
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a number in (0, 1), got {value!r}") from None
    if not 0.0 < v < 1.0:
        raise ConfigError(f"{name} must be in (0, 1), got {value!r}")
    return v
