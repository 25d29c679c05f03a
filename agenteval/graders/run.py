"""Run a run's graders over its interactions: rubric, Python and script graders, concurrently.

Everything happens in one event loop: the rubric criteria of every interaction go to the judge
in one batch (its own concurrency bound), Python graders run in worker threads and scripts as
subprocesses, at most ``concurrency`` graders at once, and with an LLM judge one provider proxy
serves every script of the run and is shut down when the grading ends. Each (interaction,
grader) gets one ``GraderResult``: a score, or an error of that grader with its code; an error
is reported, never a crash of the run and never a 0. Only an authentication failure of the
judge (a ``JudgeError``) stops the run, as it does for every other verdict.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agenteval.errors import ConfigError, JudgeError
from agenteval.graders.base import GraderCase, GraderFailure, GraderRaised, Score, coerce_score
from agenteval.graders.python import GraderJudge, PythonGrader, load_grader
from agenteval.graders.script import ScriptGrader, agentv_payload, run_script, script_environment
from agenteval.judge.rubric import RubricItem, ajudge_rubric, check_scale
from agenteval.schemas.results import GraderCheck, GraderResult

__all__ = ["RubricGrader", "resolve_graders", "grade", "agrade", "describe_graders",
           "DEFAULT_CONCURRENCY"]

DEFAULT_CONCURRENCY = 4
"""Python or script graders running at once."""


@dataclass(frozen=True)
class RubricGrader:
    """The run's rubric: suite criteria (the call's) plus each interaction's own (the data's)."""

    criteria: tuple[str, ...] = ()
    scale: str = "pass_fail"
    outcome: bool = False
    name: str = "rubric"
    kind = "rubric"

    def __post_init__(self) -> None:
        check_scale(self.scale)
        for c in self.criteria:
            if not isinstance(c, str) or not c.strip():
                raise ConfigError(f"each rubric criterion must be a non-empty text, got {c!r}")


Grader = RubricGrader | PythonGrader | ScriptGrader


def resolve_graders(graders: Sequence[Any] | None = None, *, rubric: Any = None,
                    rubric_scale: str = "pass_fail", outcome: Any = None,
                    data_has_rubric: bool = False) -> list[Grader]:
    """The run's graders from what the call gives (validated once, names unique).

    ``graders``: callables, ``PythonGrader``/``ScriptGrader`` objects or "module:function"
    strings. ``rubric``: a criterion or a list of them for every interaction. ``outcome``: the
    name(s) of graders whose pass decides each interaction's correctness ("rubric" included).
    """
    out: list[Grader] = []
    for g in graders or ():
        if isinstance(g, (PythonGrader, ScriptGrader, RubricGrader)):
            out.append(g)
        elif isinstance(g, str):
            out.append(load_grader(g))
        elif callable(g):
            out.append(PythonGrader(g))
        else:
            raise ConfigError(f"graders holds a callable, a PythonGrader, a ScriptGrader or "
                              f"'module:function', got {g!r}")
    criteria = () if rubric is None else ((rubric,) if isinstance(rubric, str) else tuple(rubric))
    check_scale(rubric_scale)
    if criteria or data_has_rubric:
        if any(isinstance(g, RubricGrader) for g in out):
            raise ConfigError("give the rubric once: rubric=... or a RubricGrader, not both")
        out.append(RubricGrader(tuple(c.strip() if isinstance(c, str) else c for c in criteria),
                                scale=rubric_scale))
    names = [g.name for g in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"grader names must be unique, got {', '.join(map(repr, dupes))} "
                          "more than once (give each a name=...)")
    wanted = () if outcome is None else ((outcome,) if isinstance(outcome, str) else
                                         tuple(outcome))
    unknown = [w for w in wanted if w not in names]
    if unknown:
        raise ConfigError(f"grader_outcome names {', '.join(map(repr, unknown))}, but the run's "
                          f"graders are {', '.join(map(repr, names)) or 'none'}")
    if wanted:
        out = [_as_outcome(g) if g.name in wanted else g for g in out]
    return out


def describe_graders(graders: Sequence[Grader]) -> list[dict[str, Any]]:
    """What ran, for the results' manifest: names, kinds, roles and what each one is."""
    out = []
    for g in graders:
        entry: dict[str, Any] = {"name": g.name, "kind": g.kind, "outcome": g.outcome}
        if isinstance(g, ScriptGrader):
            entry.update(command=list(g.argv), timeout_s=g.timeout, max_calls=g.max_calls)
        elif isinstance(g, PythonGrader):
            entry["function"] = (f"{getattr(g.fn, '__module__', '?')}:"
                                 f"{getattr(g.fn, '__qualname__', g.name)}")
        else:
            entry.update(criteria=list(g.criteria), scale=g.scale)  # plus the data's own
        out.append(entry)
    return out


def _as_outcome(g: Grader) -> Grader:
    from dataclasses import replace

    if isinstance(g, ScriptGrader):
        return ScriptGrader(g.command, name=g.name, timeout=g.timeout, max_calls=g.max_calls,
                            outcome=True, cwd=g.cwd)
    return replace(g, outcome=True)


def grade(cases: Sequence[GraderCase], graders: Sequence[Grader], judge: Any, *,
          threshold: float, concurrency: int = DEFAULT_CONCURRENCY) -> list[list[GraderResult]]:
    """Sync :func:`agrade`."""
    from agenteval._util.aio import run_sync

    return run_sync(agrade(cases, graders, judge, threshold=threshold, concurrency=concurrency))


async def agrade(cases: Sequence[GraderCase], graders: Sequence[Grader], judge: Any, *,
                 threshold: float,
                 concurrency: int = DEFAULT_CONCURRENCY) -> list[list[GraderResult]]:
    """Per case, the results of the graders that apply to it, in the graders' order (a rubric
    applies where the interaction has criteria)."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigError(f"grader concurrency must be an integer >= 1, got {concurrency!r}")
    slots: list[list[GraderResult | None]] = [[None] * len(graders) for _ in cases]
    loop = asyncio.get_running_loop()
    bound = asyncio.Semaphore(concurrency)
    scripts = [g for g in graders if isinstance(g, ScriptGrader)]
    usage: dict[str, dict[str, int]] = {g.name: {"invocations": 0, "calls": 0,
                                                 "prompt_tokens": 0, "completion_tokens": 0}
                                        for g in scripts}
    proxy_ctx: Any = contextlib.nullcontext(None)
    if scripts and _is_llm(judge):
        from agenteval.graders.proxy import GraderProxy

        proxy_ctx = GraderProxy(judge)
    async with proxy_ctx as proxy:
        tasks = []
        for gi, g in enumerate(graders):
            if isinstance(g, RubricGrader):
                tasks.append(_rubric(g, gi, cases, judge, slots, threshold))
                continue
            for ci, case in enumerate(cases):
                if isinstance(g, PythonGrader):
                    tasks.append(_python(g, gi, ci, case, judge, loop, bound, slots, threshold))
                else:
                    tasks.append(_script(g, gi, ci, case, judge, proxy, bound, slots, threshold,
                                         usage[g.name]))
        try:
            async with asyncio.TaskGroup() as group:
                for t in tasks:
                    group.create_task(t)
        except BaseExceptionGroup as eg:
            first = next((e for e in _leaves(eg) if isinstance(e, JudgeError)), None)
            if first is not None:
                raise first from None
            raise
        if proxy is not None:
            judge.run_record.details.setdefault("graders", {}).update(
                {name: dict(u) for name, u in usage.items()})
    return [[r for r in row if r is not None] for row in slots]


def _leaves(eg: BaseExceptionGroup) -> list[BaseException]:
    out: list[BaseException] = []
    for e in eg.exceptions:
        out.extend(_leaves(e) if isinstance(e, BaseExceptionGroup) else [e])
    return out


def _is_llm(judge: Any) -> bool:
    return hasattr(judge, "make_client") and hasattr(judge, "run_state")


def _result(g: Grader, got: Score | GraderFailure, calls: int = 0) -> GraderResult:
    if isinstance(got, GraderFailure):
        return GraderResult(name=g.name, kind=g.kind, outcome=g.outcome, score=None,
                            passed=None, reason="", error=got.cause, error_code=got.code,
                            calls=calls)
    return GraderResult(name=g.name, kind=g.kind, outcome=g.outcome, score=got.score,
                        passed=got.passed, reason=got.reason, calls=calls,
                        checks=[GraderCheck(text=c.text, passed=c.passed, score=c.score,
                                            reason=c.reason) for c in got.checks])


def _where(case: GraderCase) -> str:
    return f"session {case.session_id!r}, qa_id {case.qa_id!r}"


async def _python(g: PythonGrader, gi: int, ci: int, case: GraderCase, judge: Any,
                  loop: asyncio.AbstractEventLoop, bound: asyncio.Semaphore,
                  slots: list[list[GraderResult | None]], threshold: float) -> None:
    handle = GraderJudge(judge, loop, g.name, _where(case))
    args = (case, handle) if g.wants_judge else (case,)
    got: Score | GraderFailure
    async with bound:
        try:
            if inspect.iscoroutinefunction(g.fn):
                value = await g.fn(*args)
            else:
                value = await asyncio.to_thread(g.fn, *args)
        except GraderRaised as exc:
            got = GraderFailure(exc.cause, exc.code)
        except JudgeError:
            raise  # the judge refused the key: the whole run stops, as for every verdict
        except Exception as exc:
            got = GraderFailure(f"{type(exc).__name__}: {exc}"[:1000], "grader_raised")
        else:
            try:
                got = coerce_score(value, threshold=threshold)
            except ValueError as exc:
                got = GraderFailure(f"invalid result: {exc}", "grader_output")
    slots[ci][gi] = _result(g, got, handle.calls)


async def _script(g: ScriptGrader, gi: int, ci: int, case: GraderCase, judge: Any, proxy: Any,
                  bound: asyncio.Semaphore, slots: list[list[GraderResult | None]],
                  threshold: float, usage: dict[str, int]) -> None:
    async with bound:
        extra: dict[str, str] = {}
        token = None
        if proxy is not None:
            from agenteval.graders.proxy import TOKEN_VARIABLE, URL_VARIABLE

            token, tok = proxy.issue(g.name, g.max_calls)
            extra = {URL_VARIABLE: proxy.url, TOKEN_VARIABLE: token}
        try:
            got = await run_script(g, agentv_payload(case), script_environment(judge, extra),
                                   threshold=threshold)
        finally:
            if token is not None:
                proxy.revoke(token)
    calls = 0
    if token is not None:
        calls = tok.calls
        usage["calls"] += tok.calls
        usage["prompt_tokens"] += tok.prompt_tokens
        usage["completion_tokens"] += tok.completion_tokens
    usage["invocations"] += 1
    scrub = getattr(judge, "scrub", None)
    if scrub is not None and isinstance(got, GraderFailure):
        got = GraderFailure(scrub(got.cause), got.code)
    elif scrub is not None:
        got = Score(got.score, got.passed, scrub(got.reason),
                    tuple(type(c)(scrub(c.text), c.passed, c.score, scrub(c.reason))
                          for c in got.checks))
    slots[ci][gi] = _result(g, got, calls)


async def _rubric(g: RubricGrader, gi: int, cases: Sequence[GraderCase], judge: Any,
                  slots: list[list[GraderResult | None]], threshold: float) -> None:
    items, where = [], []
    for ci, case in enumerate(cases):
        criteria = tuple(dict.fromkeys(g.criteria + case.rubric))
        for criterion in criteria:
            items.append(RubricItem(
                criterion=criterion, query=case.query, answer=case.answer,
                ground_truth=case.expected, context=case.context, tools=_tools_text(case),
                qa_id=case.qa_id, session_id=case.session_id))
            where.append(ci)
    outcomes = await ajudge_rubric(judge, items, scale=g.scale)
    per_case: dict[int, list[tuple[RubricItem, Any]]] = {}
    for ci, item, out in zip(where, items, outcomes):
        per_case.setdefault(ci, []).append((item, out))
    from agenteval.judge.base import JudgeFailure

    for ci, pairs in per_case.items():
        checks, failure = [], None
        for item, out in pairs:
            if isinstance(out, JudgeFailure):
                checks.append(GraderCheck(text=item.criterion, passed=None, reason=out.cause))
                failure = failure or out
                continue
            if g.scale == "pass_fail":
                score, passed = (1.0 if out.passed else 0.0), bool(out.passed)
            else:
                score = float(out.score)
                passed = score >= threshold
            checks.append(GraderCheck(text=item.criterion, passed=passed, score=score,
                                      reason=out.reasoning))
        if failure is not None:
            slots[ci][gi] = GraderResult(
                name=g.name, kind="rubric", outcome=g.outcome, score=None, passed=None,
                checks=checks, error=failure.cause,
                error_code=failure.code or failure.kind, calls=0)
            continue
        n_pass = sum(bool(c.passed) for c in checks)
        slots[ci][gi] = GraderResult(
            name=g.name, kind="rubric", outcome=g.outcome,
            score=sum(c.score or 0.0 for c in checks) / len(checks),
            passed=n_pass == len(checks), reason=f"{n_pass}/{len(checks)} criteria met",
            checks=checks, calls=0)


def _tools_text(case: GraderCase) -> str:
    import json

    lines = []
    for t in case.tool_calls:
        args = json.dumps(t.arguments, ensure_ascii=False, sort_keys=True, default=str)
        result = t.result if isinstance(t.result, str) else json.dumps(
            t.result, ensure_ascii=False, sort_keys=True, default=str)
        lines.append(f"{t.name}({args}) -> {result}")
    return "\n".join(lines)
