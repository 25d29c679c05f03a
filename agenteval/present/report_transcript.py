"""One conversation of the report, opened: its transcript in order and every verdict on it.

Per interaction, in the order it happened: the user's query, the tool calls the agent made
before answering (name, arguments, and the tool's output as logged in ``ToolCall.result``),
the answer, any call made after the answer, then the reference, the verdict (the judge's score
and reason, the judge's error, or the harness's own grade) and the expected against the called
tools. Where the conversation came from a harness, its own grade heads the conversation: an
Inspect AI scorer's value, answer and explanation, or tau-bench's reward and its parts. Long
texts start collapsed; every text is escaped (``agenteval.present.report_parts``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agenteval.graders.summary import drilldown_html
from agenteval.present.report_parts import esc, fmt, long_text, value_text

if TYPE_CHECKING:
    from agenteval.schemas.common import Batch, Dataset, ToolCall

__all__ = ["OUTCOMES", "conversation_html", "harness_rows", "outcome_key", "tool_diff_rows"]

OUTCOMES = {"ok": ("fully correct", "full"), "bad": ("not fully correct", "wrong"),
            "unk": ("unknown (judge errors)", "unknown")}
"""Outcome key -> (label, CSS class) of a conversation."""

_GIVEN_WHOLE = "given with the data (the conversation is graded by its outcome)"


def outcome_key(metric: Any) -> str:
    """'ok', 'bad' or 'unk': the conversation's own outcome (``is_fully_correct``)."""
    return {True: "ok", False: "bad", None: "unk"}[metric.is_fully_correct]


def harness_rows(ds: Dataset | None) -> tuple[str, list[tuple[str, Any]]]:
    """(who graded it, [(field, value)]) from the conversation's harness metadata: an Inspect
    AI scorer, tau-bench's reward, or an outcome given with the data; ('', []) when none."""
    if ds is None:
        return "", []
    meta = ds.metadata or {}
    if "scorer" in meta:
        rows = [("scorer", meta.get("scorer")), ("value", meta.get("score_value")),
                ("answer", meta.get("score_answer")),
                ("explanation", meta.get("score_explanation")),
                ("task / sample / epoch", f"{meta.get('inspect_task')} / "
                                          f"{meta.get('sample_id')} / {meta.get('epoch')}")]
        if meta.get("error"):
            rows.append(("sample error", meta["error"]))
        return "Inspect AI scorer", rows
    info = meta.get("info")
    if isinstance(info, dict) and ds.outcome is not None and (
            "reward_info" in info or "task" in info or "error" in info):
        reward = info.get("reward_info") if isinstance(info.get("reward_info"), dict) else {}
        rows = [("reward", ds.outcome)]
        parts = reward.get("info") if isinstance(reward.get("info"), dict) else {}
        for key, value in parts.items():
            if key != "gt_data_hash":
                rows.append((key, value))
        task = info.get("task") if isinstance(info.get("task"), dict) else {}
        if task.get("instruction"):
            rows.append(("user instruction", task["instruction"]))
        if info.get("error"):  # the trial crashed: tau-bench scores it 0
            rows += [("error", info["error"]), ("traceback", info.get("traceback"))]
        return "tau-bench reward", rows
    if ds.outcome is not None:
        return "outcome given with the data", [("outcome", ds.outcome)]
    return "", []


def conversation_html(position: int, metric: Any, ds: Dataset | None, *,
                      threshold: float) -> str:
    """The ``<article id="c-POSITION">`` of one conversation (hidden until opened). Its own
    outcome heads it, never a per-conversation pass@k (over one graded unit, Fair Forge's
    per-conversation pass@k describes the prior more than the conversation)."""
    key = outcome_key(metric)
    label, css = OUTCOMES[key]
    head = [f'<span class="badge {css}">{esc(label)}</span> <b class="sid">{esc(metric.session_id)}</b>',
            f"<span class=muted>agent</span> {esc(metric.assistant_id)}"]
    if metric.task_id is not None:
        head.append(f"<span class=muted>task</span> {esc(metric.task_id)}")
    if metric.attempt is not None:
        head.append(f"<span class=muted>attempt</span> {esc(metric.attempt)}")
    counts = (f"{metric.correct_interactions} of {metric.total_interactions} judged "
              f"interaction(s) correct")
    if metric.judge_errors:
        counts += f', <span class="badge unknown">{metric.judge_errors} judge error(s)</span>'
    parts = [f'<article class="conv" id="c-{position}" hidden>',
             f'<header class="conv-head"><p>{" &middot; ".join(head)}</p>'
             f'<p class="muted">{counts}; correctness {esc(metric.source)}</p></header>']
    who, rows = harness_rows(ds)
    if rows:
        parts.append(f'<div class="harness"><h4>Graded by the harness: {esc(who)}</h4>'
                     + _kv(rows) + "</div>")
    if ds is None:
        parts.append('<p class="muted">The data file is not available (or changed since the '
                     "run): verdicts only, no transcript.</p>")
    elif ds.context:
        parts.append(_msg("system", "context / system prompt", ds.context))
    for index, r in enumerate(metric.interactions):
        batch = ds.conversation[index] if ds is not None and index < len(ds.conversation) else None
        parts.append(_turn(index, r, batch, threshold, harness=bool(rows)))
    parts.append("</article>")
    return "".join(parts)


def _kv(rows: list[tuple[str, Any]]) -> str:
    body = "".join(f"<tr><th>{esc(k)}</th><td>{long_text(value_text(v) if v is not None else 'none')}"
                   "</td></tr>" for k, v in rows)
    return f'<table class="kv">{body}</table>'


def _msg(cls: str, who: str, text: Any, extra: str = "") -> str:
    return (f'<div class="msg {cls}"><div class="who">{esc(who)}{extra}</div>'
            f"{long_text(text)}</div>")


def _call_html(call: ToolCall, number: int, after: bool) -> str:
    step = f" (step {call.step})" if call.step is not None else ""
    when = ' <span class="badge unknown">after the answer</span>' if after else ""
    signature = _call(call.tool_name, call.parameters)
    if len(signature) <= 160 and "\n" not in signature:
        args = ""  # the call line says it all
        name = f'<code class="tname">{esc(signature)}</code>'
    else:
        name = f'<code class="tname">{esc(call.tool_name)}</code>'
        args = (f'<div class="targs"><span class="muted">arguments</span>'
                f'{long_text(value_text(call.parameters), cls="args")}</div>')
    output = (long_text(value_text(call.result), cls="output") if call.result is not None
              else '<p class="muted">no output logged</p>')
    return (f'<div class="msg tool"><div class="who">tool call {number}{esc(step)}: '
            f"{name}{when}</div>{args}"
            f'<div class="tout"><span class="muted">output</span>{output}</div></div>')


def _turn(index: int, r: Any, batch: Batch | None, threshold: float, *, harness: bool) -> str:
    verdict = {True: ("correct", "full"), False: ("wrong", "wrong"),
               None: ("not judged", "unknown")}[r.is_correct]
    out = [f'<section class="turn"><div class="turn-head"><span class="badge {verdict[1]}">'
           f"{verdict[0]}</span> interaction {index + 1} <span class=muted>qa_id</span> "
           f"{esc(r.qa_id)} <span class=muted>score</span> {esc(fmt(r.score))}"
           f" <span class=muted>({esc(r.source)})</span></div>"]
    if batch is not None:
        out.append(_msg("user", "user", batch.query))
        calls = list(batch.agentic.tools_used) if batch.agentic is not None else []
        before = [c for c in calls if not c.after_answer]
        after = [c for c in calls if c.after_answer]
        out += [_call_html(c, n + 1, False) for n, c in enumerate(before)]
        out.append(_msg("assistant", "assistant", batch.assistant))
        out += [_call_html(c, len(before) + n + 1, True) for n, c in enumerate(after)]
        if batch.observation:
            out.append(_msg("obs", "observation", batch.observation))
        if batch.ground_truth_assistant is not None:
            out.append(_msg("ref", "reference answer", batch.ground_truth_assistant))
    out.append(_verdict(r, threshold, harness=harness))
    out.append(_tools(r.tool_correctness, batch))
    out.append(drilldown_html(r))  # the run's own graders (agenteval.graders.summary)
    out.append("</section>")
    return "".join(out)


def _verdict(r: Any, threshold: float, *, harness: bool) -> str:
    if r.judge_error:
        body = f'<b>judge error</b> <span class="err">{esc(r.judge_error)}</span>'
        if r.judge_error_code:
            body += f" <span class=muted>[{esc(r.judge_error_code)}]</span>"
        body += (' <span class="muted">(left out of n and c, never scored 0)</span>')
    elif r.source == "given" and r.reasoning == _GIVEN_WHOLE:
        where = "the harness's grade above" if harness else "the conversation's outcome"
        body = f"<b>verdict</b> {esc(fmt(r.score))}: graded by {esc(where)}"
    elif r.source == "given":
        body = (f"<b>verdict</b> score {esc(fmt(r.score))} given with the data "
                f"(a success by the outcome rule)")
    else:
        body = (f"<b>judge</b> score {esc(fmt(r.score))} against threshold "
                f"{threshold:g}: {long_text(r.reasoning or 'no reason given', cls='reason')}")
    tool = r.tool_correctness
    if (r.is_correct is False and tool is not None and not tool.is_correct and r.score is not None
            and (r.source == "given" or r.score >= threshold)):
        body += ('<p class="err">The answer passes, but the tool use is not correct (below): '
                 "the interaction is wrong.</p>")
    return f'<div class="verdict">{body}</div>'


def _tools(tool: Any, batch: Batch | None) -> str:
    if tool is None and (batch is None or (batch.agentic is None
                                           and batch.ground_truth_agentic is None)):
        return ""
    out = ['<div class="tool"><h4>Expected and called tools</h4>']
    if tool is not None:
        parts = [("selection", tool.tool_selection_correct), ("parameters", tool.parameter_accuracy),
                 ("sequence", tool.sequence_correct), ("utilization", tool.result_utilization),
                 ("overall", tool.overall_correctness)]
        out.append("<p>" + " &middot; ".join(f"{n} {fmt(v)}" for n, v in parts)
                   + f' &middot; <span class="badge {"full" if tool.is_correct else "wrong"}">'
                   f'tools {"correct" if tool.is_correct else "not correct"}</span></p>')
    if batch is not None:
        out.append(_diff_table(batch))
    if tool is not None and tool.reasoning:
        out.append(long_text(tool.reasoning, cls="reason"))
    out.append("</div>")
    return "".join(out)


def tool_diff_rows(batch: Batch) -> list[tuple[str, str, str, str]]:
    """(status, expected call, called, differences): expected calls paired with the calls made
    by tool name in order, then the calls nothing expected ('extra'). Empty when no tool was
    expected: then a call is not 'extra' to anything, and the transcript lists it."""
    expected = list(batch.ground_truth_agentic.expected_tools) if batch.ground_truth_agentic else []
    if not expected:
        return []
    used = list(batch.agentic.tools_used) if batch.agentic else []
    free = list(range(len(used)))
    rows = []
    for exp in expected:
        match = next((i for i in free if used[i].tool_name == exp.tool_name), None)
        if match is None:
            rows.append(("missing", _call(exp.tool_name, exp.parameters), "", ""))
            continue
        free.remove(match)
        got = used[match]
        diff = _param_diff(exp.parameters, got.parameters)
        rows.append(("params differ" if diff else "match", _call(exp.tool_name, exp.parameters),
                     _call(got.tool_name, got.parameters), diff))
    rows += [("extra", "", _call(used[i].tool_name, used[i].parameters), "") for i in free]
    return rows


def _diff_table(batch: Batch) -> str:
    rows = tool_diff_rows(batch)
    if not rows:
        made = len(batch.agentic.tools_used) if batch.agentic else 0
        given = ("an empty list of expected tools" if batch.ground_truth_agentic is not None
                 else "no expected tools")
        return (f'<p class="muted">The data gives {given}: nothing to compare the '
                f"{made} call(s) made with.</p>")
    css = {"match": "full", "params differ": "wrong", "missing": "wrong", "extra": "unknown"}
    body = "".join(f'<tr><td><span class="badge {css[s]}">{s}</span></td><td><code>{esc(e)}</code>'
                   f"</td><td><code>{esc(u)}</code></td><td>{esc(d)}</td></tr>"
                   for s, e, u, d in rows)
    return ('<table class="grid diff"><thead><tr><th></th><th>expected</th><th>called</th>'
            f"<th>differences</th></tr></thead><tbody>{body}</tbody></table>")


def _call(name: str, params: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in params.items())
    return f"{name}({args})"


def _param_diff(expected: dict[str, Any], got: dict[str, Any]) -> str:
    out = []
    for key in expected:
        if key not in got:
            out.append(f"{key}: missing")
        elif got[key] != expected[key]:
            out.append(f"{key}: {json.dumps(got[key], default=str)} vs expected "
                       f"{json.dumps(expected[key], default=str)}")
    out += [f"{key}: not expected" for key in got if key not in expected]
    return "; ".join(out)
