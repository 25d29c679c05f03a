"""Python graders: a function of the case (and a judge handle) returning a score.

The documented signature::

    def grade(case: GraderCase, judge: GraderJudge) -> Score | bool | float | dict:
        verdict = judge.ask(f"Does this answer cite a source? {case.answer}", Cited)
        return Score(1.0 if verdict.cited else 0.0, verdict.cited, verdict.reasoning)

``grade(case)`` (one parameter) works too, and so does ``async def grade(case, judge)`` with
``await judge.aask(...)``. What it returns is read by :func:`agenteval.graders.base.coerce_score`
(a bool, a number in [0, 1], a ``Score``, or AgentV's dict ``{pass, score, reason, checks}``).

``judge.ask(prompt, schema)`` sends one request through the run's judge, as a typed verdict
of the pydantic model ``schema`` (cache, ``max_calls``, retries, re-asks and accounting as for
every verdict) and returns the validated model; when the judgment fails it raises
``GraderRaised`` and, unless the grader catches it, the grader's result is that judge error.
With the offline judge, ``ask`` raises too (code ``unsupported``): nothing is invented.

Graders are named by the user in the call (``graders=[grade]``) or on the command line
(``--grader module:function`` or ``--grader path/to/file.py:function``): a user's own code,
their explicit choice; nothing read from a data file ever names code to run. Sync graders run in
worker threads (at most ``concurrency`` at once); a grader that raises is an error of that
grader (code ``grader_raised``, with the exception's type and message), never a crash of the run.
A Python grader runs inside this process, so it has no timeout (a thread cannot be killed): a
grader that may hang belongs in a script (``ScriptGrader``, killed at its timeout).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from agenteval.errors import ConfigError
from agenteval.graders.base import GraderRaised

__all__ = ["PythonGrader", "GraderJudge", "load_grader", "ASK_SYSTEM"]

M = TypeVar("M", bound=BaseModel)

ASK_SYSTEM = ("You are a careful, impartial evaluator. Answer the grader's question exactly in "
              "the JSON format requested, verdict fields first, reasoning short.")


@dataclass(frozen=True)
class PythonGrader:
    """A Python grading function with its name; ``outcome=True``: its pass decides correctness."""

    fn: Callable[..., Any]
    name: str = ""
    outcome: bool = False
    kind = "python"

    def __post_init__(self) -> None:
        if not callable(self.fn):
            raise ConfigError(f"a Python grader must be callable, got {self.fn!r}")
        if not self.name:
            object.__setattr__(self, "name", getattr(self.fn, "__name__", "grader"))
        params = _positional(self.fn)
        if params is not None and params not in (1, 2):
            raise ConfigError(f"grader {self.name!r}: the signature is grade(case) or "
                              f"grade(case, judge), got {params} positional parameters")

    @property
    def wants_judge(self) -> bool:
        return _positional(self.fn) != 1


def _positional(fn: Callable[..., Any]) -> int | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in sig.parameters.values()):
        return None
    return sum(p.kind in kinds and p.default is inspect.Parameter.empty
               for p in sig.parameters.values())


class GraderJudge:
    """What a Python grader may ask of the run's judge (see the module docstring)."""

    def __init__(self, judge: Any, loop: asyncio.AbstractEventLoop, grader: str,
                 where: str = "") -> None:
        self._judge, self._loop, self._grader, self._where = judge, loop, grader, where
        self.calls = 0

    async def aask(self, prompt: str, schema: type[M], *, system: str | None = None) -> M:
        """The typed verdict of ``schema`` for ``prompt``; raises ``GraderRaised`` if it fails."""
        if not isinstance(prompt, str) or not prompt.strip():
            raise ConfigError(f"grader {self._grader!r}: judge.ask needs a non-empty prompt")
        if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
            raise ConfigError(f"grader {self._grader!r}: judge.ask needs a pydantic model class "
                              f"as its schema, got {schema!r}")
        judge = self._judge
        if not hasattr(judge, "template") or not hasattr(judge, "cache_key_for"):
            raise GraderRaised(f"the {getattr(judge, 'name', 'offline')} judge cannot answer "
                               "judge.ask: pass an LLM judge (model=..., --model)", "unsupported")
        from agenteval.judge.base import JudgeFailure
        from agenteval.judge.jobs import Job, run_jobs

        self.calls += 1
        messages = [{"role": "system", "content": system or ASK_SYSTEM},
                    {"role": "user", "content": prompt}]
        label = f"grader {self._grader!r}" + (f" on {self._where}" if self._where else "")
        (out,) = await run_jobs(judge, [Job(messages, judge.template(schema), label)],
                                f"grader {self._grader}")
        if isinstance(out, JudgeFailure):
            raise GraderRaised(f"judge.ask failed: {out.kind}: {out.cause}", out.code or out.kind)
        return out  # type: ignore[return-value]

    def ask(self, prompt: str, schema: type[M], *, system: str | None = None) -> M:
        """Sync :meth:`aask`, for graders running in worker threads."""
        if _running_loop() is self._loop:  # would wait on itself
            raise ConfigError(f"grader {self._grader!r} is async: use `await judge.aask(...)`")
        return asyncio.run_coroutine_threadsafe(self.aask(prompt, schema, system=system),
                                                self._loop).result()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def load_grader(spec: str, *, outcome: bool = False) -> PythonGrader:
    """``module:function`` or ``path/to/file.py:function`` -> a ``PythonGrader``.

    The user names this code on the command line or in the call; it is imported as a module
    would be (a file path is loaded under a private module name).
    """
    if not isinstance(spec, str) or ":" not in spec:
        raise ConfigError(f"--grader takes module:function or path/file.py:function, got {spec!r}")
    target, _, name = spec.rpartition(":")
    if not target or not name.isidentifier():
        raise ConfigError(f"--grader takes module:function or path/file.py:function, got {spec!r}")
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target)
        if not path.is_file():
            raise ConfigError(f"--grader {spec!r}: no file {str(path)!r}")
        mod_name = f"agenteval_user_grader_{abs(hash(str(path.resolve())))}"
        loader_spec = importlib.util.spec_from_file_location(mod_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise ConfigError(f"--grader {spec!r}: {str(path)!r} cannot be imported")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[mod_name] = module
        try:
            loader_spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(mod_name, None)
            raise ConfigError(f"--grader {spec!r}: importing {str(path)!r} raised "
                              f"{type(exc).__name__}: {exc}") from exc
    else:
        try:
            module = importlib.import_module(target)
        except Exception as exc:
            raise ConfigError(f"--grader {spec!r}: cannot import {target!r}: "
                              f"{type(exc).__name__}: {exc}") from exc
    fn = getattr(module, name, None)
    if fn is None or not callable(fn):
        raise ConfigError(f"--grader {spec!r}: {target!r} has no function {name!r}")
    return PythonGrader(fn, name=name, outcome=outcome)
