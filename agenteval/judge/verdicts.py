"""Typed verdicts an LLM judge returns, and the items the RAG judgments take.

The models are the contract with the model: their JSON schema goes into the request (structured
output) and every reply is validated against them. A score outside [0, 1], a missing field or a
list of the wrong length is a validation error, which the judge feeds back to the model (re-ask)
a bounded number of times; it is never accepted or clipped.

``reasoning`` comes before the score in every model so the model writes its reasons first.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, create_model


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AnswerVerdict(_Strict):
    """Is the answer correct with respect to the reference (or, without one, the query)?"""

    reasoning: str = Field(description="Short justification, written before the score.")
    score: float = Field(ge=0.0, le=1.0, description="Correctness in [0, 1]; 1 = fully correct.")


class UtilizationVerdict(_Strict):
    """Does the answer actually use what the tool calls returned?"""

    reasoning: str = Field(description="Short justification, written before the score.")
    score: float = Field(ge=0.0, le=1.0,
                         description="How far the answer relies on the tool results, in [0, 1].")


class NodeVerdict(_Strict):
    """Relevance of one retrieved node to the query and reference."""

    reasoning: str = Field(description="Why the node is or is not useful.")
    relevant: bool = Field(description="True when the node helps answer the query.")


class NodeRelevanceVerdict(_Strict):
    """One verdict per retrieved node, in retrieval order."""

    verdicts: list[NodeVerdict]


class StatementsVerdict(_Strict):
    """Atomic factual statements extracted from a text."""

    statements: list[str] = Field(description="Self-contained statements, one fact each.")


class AttributionVerdict(_Strict):
    """Whether one statement is supported by the retrieved context."""

    reasoning: str = Field(description="Which part of the context supports it, or why none does.")
    attributed: bool = Field(description="True when the context supports the statement.")
    node: int | None = Field(default=None, ge=0, description="Index of the node that supports "
                             "the statement (its index attribute), or null when none does.")


class AttributionsVerdict(_Strict):
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
