"""Python graders for ``--grader data/graders/python_graders.py:FUNCTION`` (your own code).

The signature is ``grade(case, judge)`` (or ``grade(case)``): ``case`` is an
``agenteval.graders.GraderCase`` (query, answer, expected, history, tool_calls, expected_tools,
rubric, metadata ...), ``judge.ask(prompt, schema)`` returns a typed verdict from the run's LLM
judge under its budget and cache. Return a bool, a number in [0, 1], an
``agenteval.graders.Score`` or a dict ``{pass, score, reason, checks}``.
"""

from pydantic import BaseModel, Field

from agenteval.graders import Check, Score


def used_a_tool_when_expected(case):
    """Passes when every expected tool was called at least once (no judge needed)."""
    called = {t.name for t in case.tool_calls}
    checks = tuple(Check(f"called {t.name}", t.name in called) for t in case.expected_tools)
    if not checks:
        return Score(1.0, True, "no tool expected")
    hits = sum(c.passed for c in checks)
    return Score(hits / len(checks), hits == len(checks), f"{hits}/{len(checks)} expected tools "
                 "called", checks)


class Polite(BaseModel):
    polite: bool = Field(description="True when the answer is courteous.")
    reasoning: str = Field(max_length=160, description="One short sentence: why.")


def polite(case, judge):
    """Asks the run's LLM judge (a typed verdict) whether the answer is courteous."""
    verdict = judge.ask(f"Is this assistant answer courteous?\n\nAnswer: {case.answer}", Polite)
    return {"pass": verdict.polite, "score": 1.0 if verdict.polite else 0.0,
            "reason": verdict.reasoning}
