"""Beside a share with unknown outcomes, the summary carries the bounds the unknowns allow (every
unknown conversation failed / every one succeeded), and the text summary shows them."""

from __future__ import annotations

import json
import random
import warnings

import pytest

from agenteval import Agentic, BayesianMode, FrequentistMode
from tests.conftest import REPO

DEMO = REPO / "data" / "agentic_demo.jsonl"


def _demo(drop: float) -> list[dict]:
    """The demo with the reference removed from a seeded share of the interactions: the offline
    judge cannot score those, so their conversations' outcomes are unknown (judge errors)."""
    rng = random.Random(7)
    records = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines()]
    for record in records:
        for turn in record["conversation"]:
            if rng.random() < drop:
                turn.pop("ground_truth_assistant", None)
    return records


@pytest.mark.parametrize("mode", [FrequentistMode(), BayesianMode()], ids=["freq", "bayes"])
def test_bounds_are_the_all_wrong_and_all_right_shares(mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = Agentic.run(_demo(0.3), k=3, statistical_mode=mode)
    outcomes = [m.is_fully_correct for m in results]   # True, False or None (unknown)
    n, right, wrong = len(outcomes), outcomes.count(True), outcomes.count(False)
    assert n - right - wrong > 0
    summary = results.summary()
    row = summary.rows[0]
    assert row.rate_unknown_wrong == pytest.approx(right / n)
    assert row.rate_unknown_right == pytest.approx((n - wrong) / n)
    assert row.rate_unknown_wrong <= row.rate <= row.rate_unknown_right
    assert (f"all                   [{right / n:.3f}, {(n - wrong) / n:.3f}]  "
            f"({n - right - wrong} unknown)") in summary.to_text()


def test_no_unknowns_no_bounds_block():
    results = Agentic.run(str(DEMO), k=3, statistical_mode=FrequentistMode())
    row = results.summary().rows[0]
    assert row.unknown == 0
    assert row.rate_unknown_wrong == row.rate_unknown_right == pytest.approx(
        row.fully_correct / row.conversations)
    assert "every unknown conversation failed" not in results.summary().to_text()
