"""The offline judge: each rule on hand-made cases, and the failure it reports without a reference."""

from __future__ import annotations

import pytest

from agenteval.judge.base import AnswerItem, JudgeFailure, Verdict
from agenteval.judge.offline import (
    OfflineJudge,
    extract_numbers,
    normalize_text,
    numbers_match,
    score_answer,
    token_f1,
)


@pytest.mark.parametrize(
    ("answer", "reference", "expected"),
    [
        ("The result is 8.", "8", 1.0),
        ("8", "8", 1.0),
        ("The capital of France is Paris.", "Paris", 1.0),
        ("  PARIS!! ", "paris", 1.0),
        ("It costs $1,234.50 in total", "1234.5", 1.0),
        ("pi is about 3.14", "3.14159", 1.0),
        ("9", "8", 0.0),
        ("Lyon", "Paris", 0.0),
        ("1e3 metres", "1000 metres", 1.0),
        # scales and percentages (S6)
        ("about 2.5 million people", "2500000 people", 1.0),
        ("2500000", "2.5 million", 1.0),
        ("50%", "0.5", 1.0),
        ("a share of 0.5", "50%", 1.0),
        ("50 percent", "50%", 1.0),
        # only the numbers and words must appear: "total" and "dollars" missing -> token F1:
        # answer {42}, reference {total, is, 42, dollars}: P 1, R 1/4, F1 = 2 * 1/4 / (5/4)
        ("42", "The total is 42 dollars", 0.4),
        ("It is 42 dollars in total", "The total is 42 dollars", 1.0),
    ],
)
def test_rules(answer: str, reference: str, expected: float) -> None:
    assert score_answer(answer, reference).score == pytest.approx(expected)


def test_wrong_number_is_capped_below_default_threshold() -> None:
    # Same words, wrong number: token F1 would be high, but a wrong number is a wrong answer.
    verdict = score_answer("The total is 41 dollars", "The total is 42 dollars")
    assert verdict.score <= 0.5
    assert "42" in verdict.reasoning


def test_rounded_answer_needs_shown_decimals() -> None:
    assert numbers_match("3.14159", "3.14")
    assert not numbers_match("8.4", "8")
    assert not numbers_match("8", "80")


@pytest.mark.parametrize(
    ("reference", "answer", "same"),
    [
        # answer 3.1 stands for [3.05, 3.15); both ends are ties, not matches
        ("3.149", "3.1", True),
        ("3.0501", "3.1", True),
        ("3.15", "3.1", False),
        ("3.05", "3.1", False),
        # the reviewer's cases: half a unit of 0.1 is 0.05 = |0.15 - 0.1| exactly
        ("0.15", "0.1", False),
        ("1.05", "1.0", False),
        ("0.149", "0.1", True),
        # the reference is not rounded to its own precision: 3.14 is not the same as 3.14159
        ("3.14", "3.14159", False),
        # scaled: "2.5 million" shows a unit of 0.1 million, half of it 50,000
        ("2549999", "2.5 million", True),
        ("2550000", "2.5 million", False),
        ("2450000", "2.5 million", False),
        # integers are exact
        ("1000000", "1000001", False),
        ("1,000", "1000", True),
        ("-3", "\u22123", True),
        ("3", "-3", False),
    ],
)
def test_half_unit_band_is_strict(reference: str, answer: str, same: bool) -> None:
    assert numbers_match(reference, answer) is same


@pytest.mark.parametrize(
    ("reference", "answer", "same"),
    [
        ("50%", "0.5", True),  # percentage vs plain: compared as fractions
        ("0.5", "50%", True),
        ("12.5%", "0.125", True),
        ("0.13", "12.5%", False),  # 12.5% = 0.125 shows a unit of 0.001: 0.13 is outside
        ("0.1254", "12.5%", True),  # |0.1254 - 0.125| = 0.0004 < 0.0005
        ("50%", "50", False),  # a plain 50 is not 50%
        ("0.5", "0.5%", False),
        ("50%", "50 per cent", True),
        ("7%", "7.0%", True),
    ],
)
def test_percent_semantics(reference: str, answer: str, same: bool) -> None:
    assert numbers_match(reference, answer) is same


def test_token_f1_matches_hand_computation() -> None:
    # answer tokens {paris}, reference {capital, of, france, is, paris} after dropping 'the'
    # precision 1/1, recall 1/5 -> F1 = 2 * 1 * 0.2 / 1.2
    assert token_f1("Paris", "The capital of France is Paris") == pytest.approx(2 * 0.2 / 1.2)
    assert token_f1("", "") == 1.0
    assert token_f1("x", "") == 0.0


def test_normalisation_and_numbers() -> None:
    assert normalize_text("The  Answer, is: A cat!") == "answer is cat"
    assert extract_numbers("-3 degrees, 42%, $12.50, 1,234.5 and flight AF123") == [-3, 42, 12.5, 1234.5]
    assert extract_numbers("2.5 million and 3k") == [2_500_000, 3000]
    # a percent sign is kept as a word, so "0.5%" and "0.5" differ after normalisation
    assert normalize_text("0.5%") == "0 5 percent" and normalize_text("0.5") == "0 5"
    assert score_answer("0.5%", "0.5").score <= 0.5


def test_judge_batch_and_missing_reference() -> None:
    judge = OfflineJudge()
    run = judge.start_run()
    items = [AnswerItem("q", "8", "8"), AnswerItem("q", "8", None)]
    outcomes = judge.judge_answers(items)
    assert isinstance(outcomes[0], Verdict) and outcomes[0].score == 1.0
    assert isinstance(outcomes[1], JudgeFailure) and outcomes[1].kind == "no_reference"
    assert run.calls == 2 and run.errors == 1


def test_async_path_inside_running_loop() -> None:
    import asyncio

    async def inside() -> list:
        return await OfflineJudge().ajudge_answers([AnswerItem("q", "The result is 8.", "8")])

    assert asyncio.run(inside())[0].score == 1.0


def test_sync_wrapper_inside_running_loop_uses_a_worker_thread() -> None:
    # As in Jupyter: a loop is running, so the inherited sync wrapper (run_sync) must hand the
    # coroutine to a thread with its own loop; asyncio.run here would raise.
    import asyncio
    import threading

    threads: list[str] = []

    class Recording(OfflineJudge):
        def judge_one(self, item: AnswerItem):
            threads.append(threading.current_thread().name)
            return super().judge_one(item)

    async def inside() -> list:
        return Recording().judge_answers([AnswerItem("q", "The result is 8.", "8")])

    assert asyncio.run(inside())[0].score == 1.0
    assert threads and threads[0] != threading.current_thread().name
    # and without a running loop, the same wrapper runs in this thread
    threads.clear()
    assert Recording().judge_answers([AnswerItem("q", "9", "8")])[0].score == 0.0
    assert threads == [threading.current_thread().name]
