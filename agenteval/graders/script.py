"""Script graders in any language, on AgentV's contract.

Where the contract was read: EntityProcess/agentv, ``packages/core/src/evaluation/graders/
script-grader.ts`` (how a script is run and its output read), ``script-grader-schemas.ts`` (the
payload and result shapes) and ``apps/web/.../graders/script-graders.mdx`` (the documented
contract). A script gets the case as JSON on stdin, with snake_case keys:

    criteria         the interaction's rubric criteria (one per line) or, without any, its
                     reference answer (AgentV: the test's criteria text)
    input            the input messages: [system context], earlier turns, the user's query
    output           the agent's final answer (a string)
    expected_output  [{role: "assistant", content: reference, tool_calls: [{tool, input}]}]
    messages         this turn's transcript: the user message, then the assistant with its
                     tool_calls [{tool, input, output}] and its answer
    trace_summary    {event_count, tool_calls: {name: count}, error_count, llm_call_count}
    metadata         session_id, assistant_id, task_id, qa_id, index, and the data's metadata
    input_files, token_usage, cost_usd, duration_ms, start_time, end_time, file_changes,
    workspace_path, config, trace: present as AgentV sends them ([] or null: agenteval's data
    does not have them)

and answers on stdout, read as AgentV reads it, except where AgentV would invent a score:

    a JSON object     {pass, score in [0, 1], reason, checks: [{text, pass, score?, reason}]};
                      score defaults to the checks' mean, pass to score >= the run's threshold
    plain text        the exit code decides: 0 = score 1 (pass), non-zero = score 0 (fail)
                      (stdout is the check's text)
    execution error   a non-zero exit with stderr output, or with JSON on stdout: the script
                      failed, which is not a quality verdict (code ``grader_exit``)
    judge errors      (AgentV clamps or scores 0 here; agenteval keeps them out of n and c)
                      stdout that starts like JSON ({ or [) but is not one JSON object, a score
                      outside [0, 1] or not a number, a JSON object with none of pass/score/
                      checks (``grader_output``); no exit within ``timeout`` seconds, the whole
                      process group killed (``grader_timeout``); a command that cannot start
                      (``grader_start``)

The command is given by the user (``ScriptGrader("python data/graders/x.py")``, CLI
``--grader-cmd``), split like a shell would (``shlex``) and run WITHOUT a shell; a data file
never names a command, since a command from data would be code from data. Scripts run
concurrently, at most ``concurrency`` at once. With an LLM judge, the run's provider proxy
(:mod:`agenteval.graders.proxy`) is open to each invocation through AgentV's variables
``AGENTV_PROVIDER_PROXY_URL`` and ``AGENTV_PROVIDER_PROXY_TOKEN``; the script's environment is
the user's minus every variable holding the judge's key (and ``OPENAI_API_KEY``).
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenteval.errors import ConfigError
from agenteval.graders.base import GraderCase, GraderFailure, Score, coerce_score
from agenteval.graders.proxy import DEFAULT_MAX_CALLS, TOKEN_VARIABLE, URL_VARIABLE

__all__ = ["ScriptGrader", "agentv_payload", "read_output", "script_environment",
           "run_script", "DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 60.0
"""Seconds a script invocation may take before it is killed."""
_STDERR_MAX = 2000
_KEY_VARIABLES = ("OPENAI_API_KEY",)


@dataclass(frozen=True)
class ScriptGrader:
    """A command run once per interaction (see the module docstring)."""

    command: str | tuple[str, ...]
    name: str = ""
    timeout: float = DEFAULT_TIMEOUT
    max_calls: int = DEFAULT_MAX_CALLS
    """Proxy calls one invocation may make (AgentV's ``provider.max_calls``)."""
    outcome: bool = False
    cwd: str | None = None
    argv: tuple[str, ...] = field(default=(), init=False)
    kind = "script"

    def __post_init__(self) -> None:
        argv = (tuple(shlex.split(self.command)) if isinstance(self.command, str)
                else tuple(self.command))
        if not argv or not all(isinstance(a, str) and a for a in argv):
            raise ConfigError(f"--grader-cmd needs a command, got {self.command!r}")
        object.__setattr__(self, "argv", argv)
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, (int, float)) \
                or not self.timeout > 0:
            raise ConfigError(f"grader timeout must be a number of seconds > 0, got "
                              f"{self.timeout!r}")
        if isinstance(self.max_calls, bool) or not isinstance(self.max_calls, int) \
                or self.max_calls < 0:
            raise ConfigError(f"grader max_calls must be an integer >= 0, got {self.max_calls!r}")
        if not self.name:
            script = next((a for a in argv[1:] if not a.startswith("-")), argv[0])
            object.__setattr__(self, "name", Path(script).stem or "script")


def _message(role: str, content: str) -> dict[str, Any]:
    return {"role": role, "content": content}


def agentv_payload(case: GraderCase) -> dict[str, Any]:
    """The JSON a script reads on stdin (AgentV's snake_case wire format)."""
    inputs = [_message("system", case.context)] if case.context else []
    for query, answer in case.history:
        inputs += [_message("user", query), _message("assistant", answer)]
    inputs.append(_message("user", case.query))
    expected: list[dict[str, Any]] = []
    if case.expected_tools:
        expected.append({"role": "assistant", "tool_calls": [
            {"tool": t.name, "input": t.arguments} for t in case.expected_tools]})
    if case.expected is not None:
        expected.append(_message("assistant", case.expected))
    messages: list[dict[str, Any]] = [_message("user", case.query)]
    if case.tool_calls:
        messages.append({"role": "assistant", "tool_calls": [
            {"tool": t.name, "input": t.arguments, "output": t.result} for t in case.tool_calls]})
    messages.append(_message("assistant", case.answer))
    counts: dict[str, int] = {}
    for t in case.tool_calls:
        counts[t.name] = counts.get(t.name, 0) + 1
    criteria = "\n".join(case.rubric) if case.rubric else (case.expected or "")
    return {
        "criteria": criteria, "input": inputs, "output": case.answer,
        "expected_output": expected, "messages": messages, "input_files": [],
        "metadata": {**case.metadata, "session_id": case.session_id,
                     "assistant_id": case.assistant_id, "task_id": case.task_id,
                     "qa_id": case.qa_id, "index": case.index},
        "trace": None,
        "trace_summary": {"event_count": len(case.tool_calls) + 1, "tool_calls": counts,
                          "error_count": 0, "llm_call_count": None},
        "token_usage": None, "cost_usd": None, "duration_ms": None, "start_time": None,
        "end_time": None, "file_changes": None, "workspace_path": None, "config": None,
    }


def script_environment(judge: Any, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The user's environment without the judge's key, plus ``extra`` (the proxy's variables).

    Dropped: ``OPENAI_API_KEY``, the variable the judge was told to read (``api_key_env``) and
    any variable whose value holds the key the judge uses.
    """
    env = dict(os.environ)
    named = getattr(judge, "api_key_env", None)
    scrub = getattr(judge, "scrub", None)
    for name in list(env):
        if name in _KEY_VARIABLES or name == named or name in (URL_VARIABLE, TOKEN_VARIABLE):
            del env[name]
        elif scrub is not None and scrub(env[name]) != env[name]:
            del env[name]
    env.update(extra or {})
    return env


def read_output(stdout: str, stderr: str, exit_code: int, *,
                threshold: float) -> Score | GraderFailure:
    """A script's result from what it wrote and how it exited (rules in the module docstring)."""
    out = stdout.strip()
    looks_json = out.startswith("{") or out.startswith("[")
    err = stderr.strip()
    if exit_code != 0 and (looks_json or err):
        tail = err[-_STDERR_MAX:] if err else "(no stderr)"
        return GraderFailure(f"the script exited with code {exit_code}: {tail}", "grader_exit")
    if looks_json:
        try:
            parsed = json.loads(out)
        except ValueError as exc:
            return GraderFailure(f"stdout starts like JSON but is not JSON ({exc}): "
                                 f"{out[:200]!r}", "grader_output")
        if not isinstance(parsed, dict):
            return GraderFailure(f"stdout is JSON but not an object: {out[:200]!r}",
                                 "grader_output")
        try:
            return coerce_score(parsed, threshold=threshold)
        except ValueError as exc:
            return GraderFailure(f"invalid result: {exc}", "grader_output")
    passed = exit_code == 0
    text = out or (f"exit {exit_code}")
    from agenteval.graders.base import Check

    return Score(1.0 if passed else 0.0, passed, text[:500], (Check(text[:500], passed),))


async def run_script(grader: ScriptGrader, payload: dict[str, Any], env: dict[str, str], *,
                     threshold: float) -> Score | GraderFailure:
    """Run the command once with ``payload`` on stdin; its result or its failure."""
    data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8", "replace")
    try:
        proc = await asyncio.create_subprocess_exec(
            *grader.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=env, cwd=grader.cwd, start_new_session=True)
    except OSError as exc:
        return GraderFailure(f"cannot start {grader.argv[0]!r}: {exc}", "grader_start")
    try:
        stdout, stderr = await asyncio.wait_for(proc.communicate(data), grader.timeout)
    except (asyncio.TimeoutError, TimeoutError):
        _kill(proc)
        await proc.wait()
        return GraderFailure(f"the script did not finish within {grader.timeout:g} s (killed)",
                             "grader_timeout")
    except asyncio.CancelledError:
        _kill(proc)
        raise
    except (BrokenPipeError, ConnectionResetError):  # exited without reading stdin
        stdout, stderr = await proc.communicate()
    return read_output(stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"),
                       proc.returncode if proc.returncode is not None else -1,
                       threshold=threshold)


def _kill(proc: Any) -> None:
    """Kill the script and everything it started (its own process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass
