"""Typed verdicts an LLM judge returns, and the items the RAG judgments take.

The models are the contract with the model: their JSON schema goes into the request (structured
output) and every reply is validated against them. Every field a verdict rests on is DISCRETE, so
a decoding grammar (llama.cpp's JSON-schema grammar, vLLM's guided decoding, OpenAI's structured
outputs) can enforce it exactly: grammars enforce enums and booleans but not numeric bounds, so
a free float in [0, 1] let a small model emit 54 or 1.000000000000015.

- Answer correctness and tool-result use: ``score`` is one of :data:`GRADES`
  (0, 0.25, 0.5, 0.75, 1), each with a documented meaning (:data:`GRADE_MEANINGS`), read by
  consumers as a float in [0, 1] as before.
- RAG verdicts: ``relevant`` / ``attributed`` booleans.

The verdict comes FIRST and the reasoning after it, bounded (``maxLength``; the request also
bounds ``max_tokens``), so a reply cut at the token limit still carries its verdict: the judge
salvages such a reply when the verdict field is complete. A value outside the schema, a missing
field or a list of the wrong length is a validation error, which the judge feeds back to the
model (re-ask) a bounded number of times; it is never accepted or clipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

GRADES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The scores an LLM judge may give (answer correctness, tool-result use)."""

GRADE_MEANINGS = {
    1.0: "fully correct: the same facts as the reference",
    0.75: "correct but missing a minor detail",
    0.5: "partly correct: some key facts right, some wrong or missing",
    0.25: "mostly wrong, with a small correct part",
    0.0: "wrong, unrelated or no answer",
}
"""What each grade means (also what the prompt tells the model)."""

REASON_MAX_CHARS = 160
"""Bound on a verdict's reasoning (characters); list items get :data:`ITEM_REASON_MAX_CHARS`."""

ITEM_REASON_MAX_CHARS = 160
STATEMENT_MAX_CHARS = 200
MAX_STATEMENTS = 24

Grade = Literal[0.0, 0.25, 0.5, 0.75, 1.0]


class StrictModel(BaseModel):
    """A verdict schema: unknown fields are refused, so a reply cannot smuggle extra keys."""

    model_config = ConfigDict(extra="forbid")


def reject_bool(value: Any) -> Any:
    """A field validator: refuse booleans where a grade is expected."""
    if isinstance(value, bool):  # True == 1.0 in Python; a grade is a number
        raise ValueError("the score must be a number, not a boolean")
    return value


class AnswerVerdict(StrictModel):
    """Is the answer correct with respect to the reference (or, without one, the query)?"""

    score: Grade = Field(description="Correctness grade: 1 fully correct, 0.75 correct but "
                                     "missing a minor detail, 0.5 partly correct, 0.25 mostly "
                                     "wrong, 0 wrong or unrelated.")
    reasoning: str = Field(max_length=REASON_MAX_CHARS,
                           description="One or two short sentences: why this grade.")

    _check_score = field_validator("score", mode="before")(reject_bool)


class UtilizationVerdict(StrictModel):
    """Does the answer actually use what the tool calls returned?"""

    score: Grade = Field(description="How far the answer relies on the tool results: 1 fully "
                                     "grounded in them, 0.5 partly, 0 ignores or contradicts "
                                     "them (0.25 and 0.75 in between).")
    reasoning: str = Field(max_length=REASON_MAX_CHARS,
                           description="One or two short sentences: why this grade.")

    _check_score = field_validator("score", mode="before")(reject_bool)


class NodeVerdict(StrictModel):
    """Relevance of one retrieved node to the query and reference."""

    relevant: bool = Field(description="True when the node helps answer the query.")
    reasoning: str = Field(max_length=ITEM_REASON_MAX_CHARS,
                           description="One short sentence: why the node is or is not useful.")


class NodeRelevanceVerdict(StrictModel):
    """One verdict per retrieved node, in retrieval order."""

    verdicts: list[NodeVerdict]


class StatementsVerdict(StrictModel):
    """Atomic factual statements extracted from a text."""

    statements: list[Annotated[str, Field(max_length=STATEMENT_MAX_CHARS)]] = Field(
        max_length=MAX_STATEMENTS,
        description=f"Self-contained statements, one fact each (at most {MAX_STATEMENTS}).")


class AttributionVerdict(StrictModel):
    """Whether one statement is supported by the retrieved context."""

    attributed: bool = Field(description="True when the context supports the statement.")
    node: int | None = Field(default=None, ge=0, description="Index of the node that supports "
                             "the statement (its index attribute), or null when none does.")
    reasoning: str = Field(max_length=ITEM_REASON_MAX_CHARS,
                           description="One short sentence: which node supports it, or why none.")


class AttributionsVerdict(StrictModel):
    """One verdict per statement, in the order given."""

    verdicts: list[AttributionVerdict]


@lru_cache(maxsize=256)
def node_relevance_model(n: int) -> type[NodeRelevanceVerdict]:
    """A NodeRelevanceVerdict that accepts exactly ``n`` verdicts (so a short list is re-asked)."""
    return create_model(  # type: ignore[call-overload, no-any-return]
        "NodeRelevanceVerdict", __base__=NodeRelevanceVerdict,
        verdicts=(list[NodeVerdict], Field(min_length=n, max_length=n,
                                           description=f"Exactly {n} verdicts, one per node.")),
    )


@lru_cache(maxsize=256)
def attributions_model(n: int) -> type[AttributionsVerdict]:
    """An AttributionsVerdict that accepts exactly ``n`` verdicts."""
    return create_model(  # type: ignore[call-overload, no-any-return]
        "AttributionsVerdict", __base__=AttributionsVerdict,
        verdicts=(list[AttributionVerdict], Field(
            min_length=n, max_length=n, description=f"Exactly {n} verdicts, one per statement.")),
    )


ITEM_PLACEHOLDER = "agenteval-item-placeholder"
"""Stands for a request's item identity in a template; each request puts its own in."""


class _Echo(BaseModel):
    item: str = Field(description="The item id given in the request, copied exactly.",
                      json_schema_extra={"enum": [ITEM_PLACEHOLDER]})


@lru_cache(maxsize=512)
def echo_model(model: type[BaseModel]) -> type[BaseModel]:
    """``model`` with a leading ``item`` field: the request's item identity, echoed.

    Each request's schema allows exactly its own id (a one-value enum, which a decoding grammar
    enforces), so a verdict that names another item is a reply meant for another request (a
    server or proxy that mixed up replies): a judge error, never another item's score. The
    field comes first, so a reply cut at the token limit still carries it.
    """
    return type(model.__name__, (model, _Echo), {"__module__": model.__module__,
                                                  "__doc__": model.__doc__})


@dataclass(frozen=True)
class NodeRelevanceItem:
    """Retrieved nodes to rate against a query (and its reference answer, when known)."""

    query: str
    nodes: tuple[str, ...]
    ground_truth: str | None = None
    qa_id: str = ""
    session_id: str = ""


@dataclass(frozen=True)
class StatementsItem:
    """A text (answer or reference) to split into atomic statements."""

    query: str
    text: str
    qa_id: str = ""
    session_id: str = ""


@dataclass(frozen=True)
class AttributionItem:
    """Statements to attribute (or not) to retrieved nodes."""

    statements: tuple[str, ...]
    nodes: tuple[str, ...]
    query: str = ""
    qa_id: str = ""
    session_id: str = ""
