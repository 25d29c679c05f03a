"""Offline RAG verdicts by token overlap: node relevance, statements, attribution. No model.

Texts become *content terms*: NFKC, lower case, words and numbers (``1,083`` -> ``1083``,
``3.5`` kept whole), English stop words and one-letter words dropped, a light plural strip
(``metres`` -> ``metre``, ``cities`` -> ``city``). Then, with documented thresholds:

- **Node relevance**: the expected answer is split into statements (below); a statement's *key
  terms* are its terms that are not already in the question (the question's own words say what
  the search was about, not whether a node answers it; when a statement adds no new term, all
  its terms; with no expected answer, the question's terms). A node is relevant when it
  contains at least ``RELEVANCE_THRESHOLD`` (0.5) of the key terms of at least one statement:
  it helps produce part of the answer. "How tall is the Eiffel Tower?" / "330 metres": a
  node about the tower's designer shares "eiffel", "tower" with the question but no key term.
- **Statements**: the expected answer split into sentences (``.``, ``!``, ``?``, ``;`` followed
  by a space, or a line break; bullets and numbering dropped); fragments without a content
  term are dropped.
- **Attribution**: a statement is attributable to a node when the node contains every number of
  the statement and at least ``ATTRIBUTION_THRESHOLD`` (0.7) of its terms; the supporting node
  is the one covering the most terms (first on ties).

These rules are a transparent baseline that runs without a key (and the reference the tests
check the metrics on); they know nothing of synonyms or paraphrase, so use an LLM judge or
labels where wording varies.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from collections.abc import Sequence
from dataclasses import dataclass

RELEVANCE_THRESHOLD = 0.5
"""Share of the key terms a node must contain to count as relevant."""
ATTRIBUTION_THRESHOLD = 0.7
"""Share of a statement's terms a node must contain (with all its numbers) to support it."""

STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in into is it
its itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves
""".split())

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+")


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _number(token: str) -> str:
    """``1,083`` -> ``1083``; ``3.50`` -> ``3.5``; a comma between digits groups thousands
    when three digits follow, else it is a decimal comma."""
    if token.isdigit():
        return token
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", token):
        token = token.replace(",", "")
    token = token.replace(",", ".")
    if "." in token:
        token = token.rstrip("0").rstrip(".") or "0"
    return token


def terms(text: str) -> list[str]:
    """Content terms of a text, in order (see the module docstring).

    >>> terms("The Eiffel Tower is 330 metres (1,083 ft) tall.")
    ['eiffel', 'tower', '330', 'metre', '1083', 'ft', 'tall']
    """
    return list(_terms(text))


@lru_cache(maxsize=65536)
def _terms(text: str) -> tuple[str, ...]:
    """Cached: a node's terms are needed once per statement it is checked against."""
    out = []
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", text).lower()):
        if token[0].isdigit():
            out.append(_number(token))
        elif len(token) > 1 and token not in STOP_WORDS:
            out.append(_stem(token))
    return tuple(out)


def _is_number(term: str) -> bool:
    return term[0].isdigit()


@dataclass(frozen=True)
class OverlapNodeVerdict:
    """Relevance of one node by key-term coverage."""

    relevant: bool
    reasoning: str
    score: float
    """Share of the key terms the node contains."""


@dataclass(frozen=True)
class OverlapRelevance:
    """One verdict per node of an item, in order (the shape of the LLM judge's verdict)."""

    verdicts: tuple[OverlapNodeVerdict, ...]


@dataclass(frozen=True)
class OverlapStatements:
    """The sentences of a text."""

    statements: tuple[str, ...]


@dataclass(frozen=True)
class OverlapAttribution:
    """Whether one statement is supported, and by which node (0-based, None when none)."""

    attributed: bool
    reasoning: str
    score: float
    node: int | None


@dataclass(frozen=True)
class OverlapAttributions:
    """One verdict per statement of an item, in order."""

    verdicts: tuple[OverlapAttribution, ...]


def _listed(words: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(words[:limit])
    return shown + (", ..." if len(words) > limit else "")


@lru_cache(maxsize=4096)
def key_terms(question: str, expected_answer: str | None) -> tuple[tuple[tuple[str, ...], str], ...]:
    """Per statement of the expected answer, (the terms a relevant node covers, the statement).

    Cached: every node of a case asks for the same key terms."""
    q = tuple(dict.fromkeys(_terms(question)))
    if expected_answer is None:
        return ((q, "the question"),) if q else ()
    asked = set(q)
    out = []
    for statement in split_statements(expected_answer) or (expected_answer,):
        own = tuple(dict.fromkeys(_terms(statement)))
        new = tuple(t for t in own if t not in asked)
        if new or own:
            out.append((new or own, repr(_clip(statement))))
    return tuple(out)


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def node_relevance(question: str, expected_answer: str | None, node: str) -> OverlapNodeVerdict | None:
    """Relevance of one node, or None when there is no content term to compare with."""
    keys = key_terms(question, expected_answer)
    if not keys:
        return None
    have = set(_terms(node))
    best = max(keys, key=lambda kv: sum(t in have for t in kv[0]) / len(kv[0]))
    key, origin = best
    found = [t for t in key if t in have]
    share = len(found) / len(key)
    missing = [t for t in key if t not in have]
    reason = (f"contains {len(found)} of {len(key)} key terms of {origin}"
              + (f" ({_listed(found)})" if found else "")
              + (f"; missing {_listed(missing)}" if missing else "")
              + f"; relevant when >= {RELEVANCE_THRESHOLD:g}")
    return OverlapNodeVerdict(relevant=share >= RELEVANCE_THRESHOLD, reasoning=reason, score=share)


def split_statements(text: str) -> tuple[str, ...]:
    """Sentences of ``text`` that hold at least one content term.

    >>> split_statements("Paris is the capital. It has 2.1 million people.\\n- The Seine")
    ('Paris is the capital.', 'It has 2.1 million people.', 'The Seine')
    """
    parts = (_BULLET.sub("", p).strip() for p in _SENTENCE.split(text))
    return tuple(p for p in parts if p and terms(p))


def attribution(statement: str, nodes: Sequence[str]) -> OverlapAttribution:
    """Is ``statement`` supported by one of ``nodes``? (rule in the module docstring)."""
    wanted = list(dict.fromkeys(terms(statement)))
    if not wanted:
        return OverlapAttribution(False, "the statement has no content term", 0.0, None)
    numbers = [t for t in wanted if _is_number(t)]
    best, best_share, best_missing = None, -1.0, wanted
    for i, node in enumerate(nodes):
        have = set(_terms(node))
        missing = [t for t in wanted if t not in have]
        share = 1.0 - len(missing) / len(wanted)
        numbers_ok = all(t in have for t in numbers)
        if numbers_ok and share > best_share:
            best, best_share, best_missing = i, share, missing
    if best is None:
        return OverlapAttribution(False, f"no node contains all its numbers ({_listed(numbers)})",
                                  0.0, None)
    ok = best_share >= ATTRIBUTION_THRESHOLD
    reason = (f"node {best} contains {len(wanted) - len(best_missing)} of {len(wanted)} of its "
              "terms" + (f" (missing {_listed(best_missing)})" if best_missing else "")
              + f"; supported when >= {ATTRIBUTION_THRESHOLD:g} with every number")
    return OverlapAttribution(ok, reason, best_share, best if ok else None)
