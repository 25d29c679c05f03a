"""The project's exceptions, rooted at one class.

    AgentEvalError (ValueError)        anything a user can cause
    ├── DataError                      bad input data: names file, line and field
    ├── ConfigError                    bad argument or option (k < 1, threshold outside [0, 1] ...)
    ├── JudgeError                     a judge call failed and the run was asked to be strict
    │   └── JudgeKeyRefused            the judge endpoint refused the API key (HTTP 401/403)
    └── OutputError                    an output could not be written (disk full, no permission,
                                       a symbolic link in the way): names the file; exit 1

The CLI and the magic print these as one line (the CLI exits with the class's ``exit_code``: 2
for bad input or usage, 1 for a judge that failed); anything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

import operator


class AgentEvalError(ValueError):
    """Root of every error a user can cause."""

    exit_code = 2
    """The CLI's exit status: bad input or usage."""


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

    exit_code = 1
    """The judge failed (unreachable, down, invalid replies): not a usage error."""


class JudgeKeyRefused(JudgeError):
    """The judge endpoint refused the API key (HTTP 401/403): the whole run stops."""

    exit_code = 2
    """A wrong or missing key is a usage error."""


class OutputError(AgentEvalError):
    """An output file could not be written; the message names it. Not bad input: the CLI exits
    1 for it (2 is for bad input or usage), and the previous run's files stay as they were."""

    exit_code = 1


def check_k(k: object) -> int:
    """Validate k for pass@k / pass^k: an integer >= 1 (numpy integers too; not a bool)."""
    try:
        if isinstance(k, bool):
            raise TypeError
        value = operator.index(k)  # type: ignore[arg-type]
    except TypeError:
        raise ConfigError(f"k must be an integer >= 1, got {k!r}") from None
    if value < 1:
        raise ConfigError(f"k must be an integer >= 1, got {value}")
    return value


def check_unit(name: str, value: object) -> float:
    """Validate a threshold in the closed interval [0, 1]."""
    return _check_fraction(name, value, closed=True)


def check_level(name: str, value: object) -> float:
    """Validate an interval level in the open interval (0, 1)."""
    return _check_fraction(name, value, closed=False)


def _check_fraction(name: str, value: object, *, closed: bool) -> float:
    """A real number (not a bool or a string) inside [0, 1] or (0, 1)."""
    span = "[0, 1]" if closed else "(0, 1)"
    try:
        if isinstance(value, (bool, str, bytes)):
            raise TypeError
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"{name} must be a number in {span}, got {value!r}") from None
    inside = 0.0 <= v <= 1.0 if closed else 0.0 < v < 1.0
    if not inside:
        raise ConfigError(f"{name} must be in {span}, got {value!r}")
    return v
