"""Your own graders: rubric criteria, Python functions and script graders (AgentV's contract).

    >>> from agenteval import Agentic
    >>> from agenteval.graders import ScriptGrader
    >>> results = Agentic.run("data/agentic_demo.jsonl", k=3,
    ...                       rubric="The answer states a number",
    ...                       graders=["data/graders/cites_number.py:grade",
    ...                                ScriptGrader("python data/graders/mentions_reference.py")]
    ...                       )                                             # doctest: +SKIP

See :mod:`agenteval.graders.base` (what a grader sees and returns), ``python`` (the Python
signature and ``judge.ask``), ``script`` (AgentV's stdin/stdout contract), ``proxy`` (AgentV's
provider proxy backed by the run's judge), ``run`` (running them) and ``summary`` (results).
"""

from __future__ import annotations

from agenteval._util.lazy import lazy_exports

_EXPORTS = {
    "GraderCase": "agenteval.graders.base",
    "Score": "agenteval.graders.base",
    "Check": "agenteval.graders.base",
    "GraderRaised": "agenteval.graders.base",
    "PythonGrader": "agenteval.graders.python",
    "GraderJudge": "agenteval.graders.python",
    "load_grader": "agenteval.graders.python",
    "ScriptGrader": "agenteval.graders.script",
    "agentv_payload": "agenteval.graders.script",
    "GraderProxy": "agenteval.graders.proxy",
    "RubricGrader": "agenteval.graders.run",
    "grader_summary": "agenteval.graders.summary",
    "graders_dataframe": "agenteval.graders.summary",
    "checks_dataframe": "agenteval.graders.summary",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports("agenteval.graders", _EXPORTS, globals())
