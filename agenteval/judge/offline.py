"""A deterministic, offline judge of answer correctness: no model, no network, no key.

Scoring, first rule that applies wins:

1. normalised exact match (case, punctuation, articles, whitespace)   -> 1.0
2. numeric match: the reference has numbers and each appears in the answer
   within tolerance, and the answer's other words do not contradict it   -> 1.0
3. containment: the normalised reference is a whole-word part of the answer -> 1.0
4. otherwise token-level F1 (SQuAD style) between answer and reference  -> graded score

So "The result is 8." against "8" is correct, "Paris" against "The capital is Paris" gets the F1
of their tokens, and "9" against "8" is 0.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Sequence

from agenteval.judge.base import AnswerItem, Judge, JudgeFailure, JudgeOutcome, Verdict

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
_PUNCT = str.maketrans({ch: " " for ch in string.punctuation})


def normalize_text(text: str) -> str:
    """Lower-case, drop punctuation and articles, collapse whitespace (SQuAD normalisation)."""
    text = text.lower().translate(_PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def extract_numbers(text: str) -> list[float]:
    """Numbers written in a text: '1,234.5', '-3', '42%' -> 42.0, '$12.50' -> 12.5."""
    return [value for value, _ in _numbers_with_decimals(text)]


def _numbers_with_decimals(text: str) -> list[tuple[float, int]]:
    found = []
    for match in _NUMBER.finditer(text):
        token = match.group().replace(",", "")
        if not any(ch.isdigit() for ch in token):
            continue
        try:
            value = float(token)
        except ValueError:
            continue
        mantissa = token.lower().split("e")[0]
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        found.append((value, decimals))
    return found


def numbers_match(reference: str, answer: str, *, rel_tol: float = 1e-6) -> bool:
    """Every number in the reference appears in the answer.

    Equal within ``rel_tol``, or equal once the reference is rounded to the decimals the answer
    shows when it shows at least one (3.14 matches 3.14159; 8 does not match 8.4).
    """
    ref_numbers = extract_numbers(reference)
    if not ref_numbers:
        return False
    answer_numbers = _numbers_with_decimals(answer)

    def same(r: float, a: float, decimals: int) -> bool:
        if math.isclose(r, a, rel_tol=rel_tol, abs_tol=1e-12):
            return True
        return decimals > 0 and abs(r - a) <= 0.5 * 10.0 ** -decimals + 1e-12

    return all(any(same(r, a, d) for a, d in answer_numbers) for r in ref_numbers)


def token_f1(answer: str, reference: str) -> float:
    """Token-level F1 between two texts after normalisation (SQuAD)."""
    a_tokens = normalize_text(answer).split()
    r_tokens = normalize_text(reference).split()
    if not a_tokens or not r_tokens:
        return float(a_tokens == r_tokens)
    common = Counter(a_tokens) & Counter(r_tokens)
    overlap = sum(common.values())
    if overlap == 0:
        return 0.0
    precision = overlap / len(a_tokens)
    recall = overlap / len(r_tokens)
    return 2 * precision * recall / (precision + recall)


def score_answer(answer: str, reference: str) -> Verdict:
    """Score one answer against its reference by the rules in the module docstring."""
    norm_answer, norm_reference = normalize_text(answer), normalize_text(reference)
    if norm_answer == norm_reference:
        return Verdict(1.0, "exact match after normalisation")
    ref_words = [w for w in norm_reference.split() if not extract_numbers(w)]
    if numbers_match(reference, answer):
        missing = [w for w in ref_words if w not in norm_answer.split()]
        if not missing:
            return Verdict(1.0, "every number in the reference appears in the answer")
    elif extract_numbers(reference):
        wrong = ", ".join(f"{x:g}" for x in extract_numbers(reference))
        f1 = token_f1(answer, reference)
        return Verdict(min(f1, 0.5), f"reference number(s) {wrong} not found in the answer; "
                       f"token F1 {f1:.2f}, capped at 0.5")
    if norm_reference and re.search(rf"(?<!\S){re.escape(norm_reference)}(?!\S)", norm_answer):
        return Verdict(1.0, "the answer contains the reference")
    f1 = token_f1(answer, reference)
    return Verdict(f1, f"token F1 {f1:.2f}")


class OfflineJudge(Judge):
    """Rule-based judge: exact, numeric, containment, then token F1. Fast and reproducible."""

    name = "offline"

    def judge_one(self, item: AnswerItem) -> JudgeOutcome:
        if item.ground_truth is None:
            return JudgeFailure("no ground_truth_assistant to compare with", kind="no_reference")
        return score_answer(item.answer, item.ground_truth)

    async def ajudge_answers(self, items: Sequence[AnswerItem]) -> list[JudgeOutcome]:
        return self.judge_sync(items)

    def judge_sync(self, items: Sequence[AnswerItem]) -> list[JudgeOutcome]:
        """Same as judge_answers without an event loop (the rules are pure CPU)."""
        run = self.run_record
        outcomes = [self.judge_one(item) for item in items]
        run.calls += len(items)
        run.errors += sum(isinstance(o, JudgeFailure) for o in outcomes)
        return outcomes

    def judge_answers(self, items: Sequence[AnswerItem]) -> list[JudgeOutcome]:
        return self.judge_sync(items)

    def __repr__(self) -> str:
        return "OfflineJudge()"
