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


def test_token_f1_matches_hand_computation() -> None:
    # answer tokens {paris}, reference {capital, of, france, is, paris} after dropping 'the'
    # precision 1/1, recall 1/5 -> F1 = 2 * 1 * 0.2 / 1.2
    assert token_f1("Paris", "The capital of France is Paris") == pytest.approx(2 * 0.2 / 1.2)
    assert token_f1("", "") == 1.0
    assert token_f1("x", "") == 0.0


def test_normalisation_and_numbers() -> None:
    assert normalize_text("The  Answer, is: A cat!") == "answer is cat"
    assert extract_numbers("-3 degrees, 42%, $12.50, 1,234.5 and flight AF123") == [-3, 42, 12.5, 1234.5]


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
        # the sync wrapper must work even though a loop is running (as in Jupyter)
        return OfflineJudge().judge_answers([AnswerItem("q", "The result is 8.", "8")])

    assert asyncio.run(inside())[0].score == 1.0
