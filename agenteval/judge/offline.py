"""A deterministic, offline judge of answer correctness: no model, no network, no key.

Scoring, first rule that applies wins (texts are normalised SQuAD-style: NFKC, lower case,
``%`` read as the word "percent", punctuation and articles dropped except a minus sign written
before a digit, whitespace collapsed):

1. wrong number: the reference contains numbers and one of them is not in
   the answer (``numbers_match``; signs count: "-5" is not "5")    -> token F1, capped at 0.5
2. exact match: the normalised answer equals the normalised reference        -> 1.0
3. numbers: when the reference contains numbers (all found, by rule 1) and
   every other word of the normalised reference is a word of the answer
   (any order; words fused to a number, like the "°C" of "23°C", and a
   number's %, currency or scale word count as part of it, on either side:
   "23°C" and "23 °C" agree; the answer may say more, including other
   numbers)                                                                  -> 1.0
4. containment: the normalised reference is a whole-word part of the answer  -> 1.0
5. otherwise token-level F1 (SQuAD style) between answer and reference       -> graded score

Numbers come first so that normalisation, which drops punctuation, cannot make two different
numbers equal ("1.5" and "1 5", "-$5" and "$5"). So "The result is 8." against "8" is correct,
"Paris" against "The capital is Paris" gets the F1 of their tokens, "42" against "The total is
42 dollars" gets F1 0.4 (the words "total" and "dollars" are missing), and "9" against "8" or
"-5°C" against "5°C" is 0.

Numbers are read by the parser shared with the tool scorer (:mod:`agenteval._util.numbers`):
``1,234.5``, ``$12.50``, ``-3``, ``1e3``, ``2.5 million``, ``42%``. See ``numbers_match`` for
when two of them are the same.
"""

from __future__ import annotations

import functools
import math
import re
import string
import unicodedata
from collections.abc import Sequence
from decimal import Context, Decimal
from typing import Any

from agenteval._util.numbers import ParsedText, WrittenNumber, find_numbers, parse_text, to_float
from agenteval.judge.base import AnswerItem, Judge, JudgeFailure, JudgeOutcome, Verdict

# Both patterns start with the characters they can match at, so the scan skips every other
# position in C; the lookbehinds after that first character say what the original leading
# assertions said: ``\b(a|an|the)\b`` and ``(?<![\w.])[-\u2212](?=\.?\d)``.
_ARTICLES = re.compile(r"(?:a(?<!\wa)(?:n\b|\b)|the(?<!\wthe)\b)")
_KEPT_MINUS = "\ue000"  # private-use stand-in for a minus sign, so punctuation removal skips it
# A minus sign (ASCII or U+2212) that starts a number: not after a word or a dot ("5-3", "x-1"
# are not negative numbers, as in the number parser) and directly before a digit or ".5".
_MINUS = re.compile(r"[-\u2212](?<![\w.][-\u2212])(?=\.?\d)")
# ASCII text (its NFKC form is itself) goes through bytes.translate, ten times faster than
# str.translate: punctuation to a space, and NUL, which then marks a kept minus, to "-".
_ASCII_PUNCT = bytes(ord("-") if b == 0 else ord(" ") if chr(b) in string.punctuation else b
                     for b in range(256))
# Other text goes through bytes.translate too, in UTF-8, which writes every other character in
# bytes from 0x80 (left as they are): ASCII punctuation to a space, NUL kept; "%" and a minus
# sign not kept are replaced before (what str.translate of a table of them did, 8x slower).
_UTF8_PUNCT = bytes(ord(" ") if chr(b) in string.punctuation else b for b in range(256))


def normalize_text(text: str) -> str:
    """NFKC, lower-case, ``%`` -> "percent", drop punctuation and articles, collapse whitespace.

    Keeping the percent sign as a word stops "0.5%" from equalling "0.5"; keeping a minus sign
    before a digit (as ``-``) stops "-5" from equalling "5". "5 - 3" loses its ``-``.
    """
    if text.isascii() and "\0" not in text:
        text = text.lower()
        if "-" in text:
            text = _MINUS.sub("\0", text)
        if "%" in text:
            text = text.replace("%", " percent ")
        text = text.encode("ascii").translate(_ASCII_PUNCT).decode("ascii")
    else:
        text = unicodedata.normalize("NFKC", text).lower().replace(_KEPT_MINUS, " ")
        text = _MINUS.sub(_KEPT_MINUS, text)
        if "%" in text:
            text = text.replace("%", " percent ")
        if "\u2212" in text:  # a minus sign not kept is punctuation
            text = text.replace("\u2212", " ")
        # surrogatepass: a lone surrogate (JSON may hold one) goes through as it came
        text = (text.encode("utf-8", "surrogatepass").translate(_UTF8_PUNCT)
                .decode("utf-8", "surrogatepass").replace(_KEPT_MINUS, "-"))
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def extract_numbers(text: str) -> list[float]:
    """Numbers written in a text, as written: '1,234.5', '-3', '42%' -> 42.0, '$12.50' -> 12.5,
    '2.5 million' -> 2500000.0."""
    return [to_float(n.value) for n in find_numbers(text)]  # +-inf beyond float range


def _surely_different(ref: WrittenNumber, ans: WrittenNumber, rel_tol: float) -> bool:
    """True when floats alone prove the two numbers differ by more than either tolerance.

    Each float is correctly rounded (relative error <= 2**-53), so a float difference beyond
    the tolerances plus a margin of 1e-12 of the magnitude settles it; anything closer, or
    outside the normal float range, goes to exact arithmetic. Only the "no" is decided here.
    """
    shift_r = -2 if ref.percent and not ans.percent else 0
    shift_a = -2 if ans.percent and not ref.percent else 0
    r, a = ref.float_value(shift_r), ans.float_value(shift_a)
    big = max(abs(r), abs(a))
    if not 1e-290 < big < 1e290:
        return False
    half = ans.float_half(shift_a) if ans.decimals > 0 else 0.0
    return abs(r - a) > (max(rel_tol, 0.0) * big + half) * (1 + 1e-9) + 1e-12 * big


def _exactly_equal(ref: WrittenNumber, ans: WrittenNumber) -> bool:
    """The exact values ``_same_number`` compares are equal (its ``diff == 0``), from the
    digits: a percentage against a plain number is a hundredth of its written value."""
    kr, ka = ref.value_key, ans.value_key
    if kr is None or ka is None:
        return kr is ka  # both zero
    shift = (-2 if ref.percent else 2) if ref.percent != ans.percent else 0
    return kr[0] == ka[0] and kr[1] == ka[1] and kr[2] + shift == ka[2]


def _same_number(ref: WrittenNumber, ans: WrittenNumber, rel_tol: float) -> bool:
    """``numbers_match``'s rule for one pair, in exact arithmetic: both values and the half unit
    are integers times powers of ten, so scaled to the smallest power they are integers."""
    if _surely_different(ref, ans, rel_tol):
        return False
    if _exactly_equal(ref, ans):
        return True
    r, er = ref.scaled_integer()
    a, ea = ans.scaled_integer()
    eh = ans.half_exponent()  # the half unit is 5 * 10**eh
    if ref.percent != ans.percent:  # a percentage against a plain number: as fractions
        if ref.percent:
            er -= 2
        else:
            ea, eh = ea - 2, eh - 2
    low = min(er, ea, eh)
    r, a = r * 10 ** (er - low), a * 10 ** (ea - low)
    diff = abs(r - a)
    p, q = rel_tol.as_integer_ratio()  # Fraction(rel_tol) is exactly p / q, q > 0
    if diff == 0 or diff * q <= p * max(abs(r), abs(a)):
        return True
    return ans.decimals > 0 and diff < 5 * 10 ** (eh - low)


def numbers_match(reference: str, answer: str, *, rel_tol: float = 1e-9) -> bool:
    """Every number in the reference appears in the answer (which may hold other numbers too).

    A reference number r and an answer number a are the same when, in exact decimal arithmetic:

    - they are equal, or within ``rel_tol`` relative difference (noise in long decimals); or
    - the answer shows at least one decimal and r lies strictly within half a unit of the
      answer's last displayed digit, i.e. r rounds to a at the answer's precision, a tie is not
      a match: 3.14 matches 3.14159, 0.1 does not match 0.15, 8 does not match 8.4.

    Scale words count ("2.5 million" is 2500000, its displayed unit 0.1 million). Percentages:
    both percentages, or both plain, compare as written; a percentage against a plain number
    compares as fractions, so "50%" matches 0.5 (either side can be the percentage) but not 50.
    """
    return _numbers_match(parse_text(reference).numbers, parse_text(answer).numbers, rel_tol)


def _numbers_match(ref_numbers: Sequence[WrittenNumber], answer_numbers: Sequence[WrittenNumber],
                   rel_tol: float) -> bool:
    if not ref_numbers:
        return False
    # An answer number equal to r settles r (equal numbers are the same); most are written
    # alike (``written``), the others of equal value are found by their value keys, built only
    # then, and only the rest are compared one by one.
    written = {a.written for a in answer_numbers}
    equal: set[tuple[Any, bool]] | None = None
    for r in ref_numbers:
        if r.written in written:
            continue
        if equal is None:
            equal = {(a.value_key, a.percent) for a in answer_numbers}
        key = r.value_key
        if (key, r.percent) in equal:
            continue
        # a percentage equals the plain number a hundredth of it, and 0% is 0
        other = key if key is None else (key[0], key[1], key[2] + (-2 if r.percent else 2))
        if (other, not r.percent) in equal:
            continue
        if not any(_same_number(r, a, rel_tol) for a in answer_numbers):
            return False
    return True


def token_f1(answer: str, reference: str) -> float:
    """Token-level F1 between two texts after normalisation (SQuAD)."""
    return _token_f1(normalize_text(answer), normalize_text(reference))


def _token_f1(norm_answer: str, norm_reference: str) -> float:
    a_tokens = norm_answer.split()
    r_tokens = norm_reference.split()
    if not a_tokens or not r_tokens:
        return float(a_tokens == r_tokens)
    overlap = _shared_count(a_tokens, r_tokens)
    if overlap == 0:
        return 0.0
    precision = overlap / len(a_tokens)
    recall = overlap / len(r_tokens)
    return 2 * precision * recall / (precision + recall)


def _shared_count(a_tokens: list[str], r_tokens: list[str]) -> int:
    """``sum((Counter(a_tokens) & Counter(r_tokens)).values())``: the tokens both have, each as
    often as the side with fewer of it, in one dict (two Counters cost three times as much)."""
    left: dict[str, int] = {}
    for t in r_tokens:
        left[t] = left.get(t, 0) + 1
    overlap = 0
    for t in a_tokens:
        n = left.get(t, 0)
        if n:
            left[t] = n - 1
            overlap += 1
    return overlap


def _show(number: WrittenNumber) -> str:
    """A number for a message, as ``:g`` shows it; beyond float range from the exact value, so
    1e400 is not shown as "inf" nor 1e-400 as "0"."""
    x = number.float_value()  # the value correctly rounded, as to_float(number.value)
    if math.isfinite(x) and (x != 0 or number.is_zero):
        text = f"{x:g}"
    else:
        ctx = Context(prec=6)
        exact = ctx.divide(Decimal(number.value.numerator), Decimal(number.value.denominator))
        text = f"{exact.normalize(ctx):g}"
    return text + ("%" if number.percent else "")


def _words_besides_numbers(parsed: ParsedText) -> list[str]:
    """Normalised words of a text other than its numbers (and what is fused to them)."""
    marked = normalize_text(parsed.without_numbers("0"))
    # an ASCII word of letters only has no digit, so no number (the parser needs a digit)
    return [w for w in marked.split()
            if w.isascii() and w.isalpha() or not parse_text(w).numbers]


def _contains_words(text: str, phrase: str) -> bool:
    """``re.search(rf"(?<!\\S){re.escape(phrase)}(?!\\S)", text)``: ``phrase`` in ``text``
    with whitespace (or an end) on both sides, by substring search (no pattern per phrase)."""
    n, size = len(phrase), len(text)
    start = text.find(phrase)
    while start >= 0:
        end = start + n
        if (start == 0 or text[start - 1].isspace()) and (end == size or text[end].isspace()):
            return True
        start = text.find(phrase, start + 1)
    return False


class _Reference:
    """A reference as the rules read it: normalised, its numbers, and (on first need) its words
    besides numbers. Every agent and attempt on a task has the same reference, so each is read
    once (``_reference``)."""

    __slots__ = ("norm", "parsed", "_words")

    def __init__(self, text: str) -> None:
        self.norm = normalize_text(text)
        self.parsed = parse_text(text)
        self._words: list[str] | None = None

    def words(self) -> list[str]:
        """``_words_besides_numbers`` of the reference."""
        if self._words is None:
            self._words = _words_besides_numbers(self.parsed)
        return self._words


_reference = functools.lru_cache(maxsize=4096)(_Reference)
"""The reference's ``_Reference``, kept for the last 4096 distinct references (small objects)."""

_EXACT = Verdict(1.0, "exact match after normalisation")
_ALL_FOUND = Verdict(1.0, "every number and word of the reference appears in the answer")
_CONTAINED = Verdict(1.0, "the answer contains the reference")
# Verdicts are frozen: the same three serve every answer they describe


def score_answer(answer: str, reference: str) -> Verdict:
    """Score one answer against its reference by the rules in the module docstring."""
    ref = _reference(reference)
    norm_answer, norm_reference = normalize_text(answer), ref.norm
    parsed_reference = ref.parsed
    ref_numbers = parsed_reference.numbers
    if ref_numbers:
        parsed_answer = parse_text(answer)
        if not _numbers_match(ref_numbers, parsed_answer.numbers, 1e-9):
            wrong = ", ".join(_show(n) for n in ref_numbers)
            f1 = _token_f1(norm_answer, norm_reference)
            return Verdict(min(f1, 0.5), f"reference number(s) {wrong} not found in the answer; "
                           f"token F1 {f1:.2f}, capped at 0.5")
    if norm_answer == norm_reference:
        return _EXACT
    if ref_numbers:
        # the answer's words, and those glued to its numbers ("-5°C" also gives "°c"); the
        # second set is built only when a reference word is not among the first
        answer_words = set(norm_answer.split())
        missing = [w for w in ref.words() if w not in answer_words]
        if missing:
            answer_words = set(normalize_text(parsed_answer.without_numbers()).split())
        if all(w in answer_words for w in missing):
            return _ALL_FOUND
    if norm_reference and _contains_words(norm_answer, norm_reference):
        return _CONTAINED
    f1 = _token_f1(norm_answer, norm_reference)
    return Verdict(f1, f"token F1 {f1:.2f}")


_PROGRESS_CHUNK = 512
"""Answers judged between two progress updates."""


def _judge_text(answer: str, reference: str | None) -> JudgeOutcome:
    if reference is None:
        return JudgeFailure("no ground_truth_assistant to compare with", kind="no_reference")
    return score_answer(answer, reference)


class OfflineJudge(Judge):
    """Rule-based judge: numbers, exact, containment, then token F1. Fast and reproducible.

    The rules are pure CPU: ``ajudge_answers`` runs them directly, and the inherited sync
    ``judge_answers`` wraps it like any judge's (so it works inside Jupyter's running loop).
    """

    name = "offline"
    progress: bool | None = None
    """None: a progress bar once judging takes more than a moment; False: never."""

    def judge_one(self, item: AnswerItem) -> JudgeOutcome:
        return _judge_text(item.answer, item.ground_truth)

    async def ajudge_answers(self, items: Sequence[AnswerItem]) -> list[JudgeOutcome]:
        return self.judge_sync(items)

    def judge_sync(self, items: Sequence[AnswerItem]) -> list[JudgeOutcome]:
        """The same outcomes without any event loop.

        The bar counts a chunk of answers at a time: an update per answer cost about as much
        as judging one (the tool-scoring phase counts its chunks alike)."""
        from agenteval.judge.progress import Progress

        judge_one = self.judge_one
        outcomes: list[JudgeOutcome] = []
        with Progress(len(items), "judging answers (offline)", enabled=self.progress) as bar:
            for start in range(0, len(items), _PROGRESS_CHUNK):
                chunk = items[start:start + _PROGRESS_CHUNK]
                outcomes.extend([judge_one(item) for item in chunk])
                bar.update(len(chunk))
        return self._recorded(outcomes)

    def judge_texts(self, pairs: Sequence[tuple[str, str | None]]) -> list[JudgeOutcome]:
        """``judge_sync`` of ``(answer, reference)`` pairs, all the rules read of an
        ``AnswerItem``, with no progress bar: for ``Agentic.run``, which makes no item per
        interaction and shows its own bar. The rules of this class (a subclass's ``judge_one``
        is not asked)."""
        return self._recorded([_judge_text(answer, reference) for answer, reference in pairs])

    def _recorded(self, outcomes: list[JudgeOutcome]) -> list[JudgeOutcome]:
        """``outcomes``, counted in the run's record (calls, and failures among them)."""
        run = self.run_record
        run.calls += len(outcomes)
        run.errors += sum(isinstance(o, JudgeFailure) for o in outcomes)
        return outcomes

    # ---- RAG verdicts by token overlap (rules and thresholds in agenteval.judge.offline_rag) --

    async def ajudge_node_relevance(self, items: Sequence[Any]) -> list[Any]:
        """One relevance verdict per node of each ``NodeRelevanceItem`` (or a failure)."""
        from agenteval.judge import offline_rag as rag

        out: list[Any] = []
        for item in items:
            verdicts = [rag.node_relevance(item.query, item.ground_truth, n) for n in item.nodes]
            if any(v is None for v in verdicts):
                out.append(JudgeFailure("no content words in the question or expected answer to "
                                        "compare nodes with", kind="no_reference"))
            else:
                out.append(rag.OverlapRelevance(tuple(verdicts)))  # type: ignore[arg-type]
        self._count(out)
        return out

    async def ajudge_statements(self, items: Sequence[Any]) -> list[Any]:
        """The sentences of each ``StatementsItem``'s text."""
        from agenteval.judge import offline_rag as rag

        out: list[Any] = [rag.OverlapStatements(rag.split_statements(item.text)) for item in items]
        self._count(out)
        return out

    async def ajudge_attribution(self, items: Sequence[Any]) -> list[Any]:
        """One attribution verdict (with the supporting node) per statement of each item."""
        from agenteval.judge import offline_rag as rag

        out: list[Any] = [rag.OverlapAttributions(tuple(rag.attribution(s, item.nodes)
                                                        for s in item.statements))
                          for item in items]
        self._count(out)
        return out

    def _count(self, outcomes: Sequence[Any]) -> None:
        run = self.run_record
        run.calls += len(outcomes)
        run.errors += sum(isinstance(o, JudgeFailure) for o in outcomes)

    def __repr__(self) -> str:
        return "OfflineJudge()"
