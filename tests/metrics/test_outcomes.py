"""Outcomes from any grader: given outcomes and scores replace the judge everywhere downstream."""

from __future__ import annotations

import json
from math import comb

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import betaln

from agenteval import Agentic, BayesianMode
from agenteval.cli import main
from agenteval.core import load_datasets
from agenteval.errors import ConfigError, DataError
from agenteval.metrics.outcomes import outcome_success


def batch(qa, answer="8", truth="8", **extra):
    return {"qa_id": qa, "query": "4+4?", "assistant": answer, "ground_truth_assistant": truth,
            **extra}


def conv(sid, *batches, agent="a", task=None, **extra):
    return {"session_id": sid, "assistant_id": agent, "task_id": task,
            "conversation": list(batches), **extra}


def test_success_rule():
    assert outcome_success(True) and not outcome_success(False)
    assert outcome_success(1.0) and outcome_success(1 - 1e-6) and not outcome_success(1 - 2e-6)
    assert not outcome_success(0.99) and outcome_success(0.99, threshold=0.9)
    assert outcome_success(0.5, threshold=0.5) and not outcome_success(0.49, threshold=0.5)
    assert outcome_success(False, threshold=0.0) is False  # a bool is its own verdict


def test_given_outcome_is_one_graded_unit_and_no_judge_is_asked():
    data = [
        conv("s1", batch("q1", answer="wrong"), batch("q2", answer="wrong"), outcome=True),
        conv("s2", batch("q1"), batch("q2"), outcome=0.0),
        conv("s3", batch("q1"), batch("q2", answer="9")),  # judged: one of two right
    ]
    results = Agentic.run(data, k=2)
    s1, s2, s3 = results
    assert (s1.total_interactions, s1.correct_interactions, s1.is_fully_correct) == (1, 1, True)
    assert (s2.total_interactions, s2.correct_interactions, s2.is_fully_correct) == (1, 0, False)
    assert (s3.total_interactions, s3.correct_interactions, s3.is_fully_correct) == (2, 1, False)
    assert [m.source for m in results] == ["given", "given", "judged"]
    assert [r.source for r in s1.interactions] == ["given", "given"]
    assert s1.correctness_scores == [1.0, 1.0] and s2.correctness_scores == [0.0, 0.0]
    assert results.summary().judge["calls"] == 2  # only s3's interactions
    assert results.summary().judge["conversations_given"] == 2
    # frequentist plug-in with n=1: pass@k = 1-(1-c)^k
    assert (s1.pass_at_k, s2.pass_at_k) == (1.0, 0.0)


def test_bayesian_per_conversation_uses_the_outcome_as_one_observation():
    data = [conv("s1", batch("q1"), batch("q2"), batch("q3"), outcome=1.0),
            conv("s2", batch("q1"), outcome=False)]
    k = 3
    results = Agentic.run(data, k=k, statistical_mode=BayesianMode(beta_prior_a=1, beta_prior_b=1))
    for m, c in zip(results, (1, 0)):
        post = stats.beta(1 + c, 1 + 1 - c)
        want = post.expect(lambda p: p ** k)
        assert m.pass_pow_k == pytest.approx(want, rel=1e-9)
        assert m.pass_pow_k_ci_high == pytest.approx(post.ppf(0.975) ** k, rel=1e-9)


def test_suite_and_per_task_use_given_outcomes():
    rng = np.random.default_rng(7)
    rewards = {t: rng.choice([0.0, 1.0, 0.5], size=4, p=[0.4, 0.5, 0.1]) for t in range(5)}
    data = [conv(f"t{t}-{i}", batch("q1"), task=f"t{t}", outcome=float(r))
            for t, rs in rewards.items() for i, r in enumerate(rs)]
    for k in (1, 2, 4):
        row = Agentic.run(data, k=k).summary().rows[0]
        c = [int(np.sum(rs == 1.0)) for rs in rewards.values()]
        assert row.unbiased_pass_pow_k == pytest.approx(np.mean([comb(x, k) / comb(4, k) for x in c]))
        assert row.unbiased_pass_at_k == pytest.approx(
            np.mean([1 - comb(4 - x, k) / comb(4, k) for x in c]))
        assert row.fully_correct == sum(c) and row.complete == 20
        bayes = Agentic.run(data, k=k, statistical_mode=BayesianMode(method="conjugate")
                            ).summary().rows[0]
        # the flat prior by name, per-task posteriors Beta(1 + c, 1 + n - c):
        # E[p^k] = B(1+c+k, 1+n-c)/B(1+c, 1+n-c)
        want = np.mean([np.exp(betaln(1 + x + k, 5 - x) - betaln(1 + x, 5 - x)) for x in c])
        assert bayes.task_pass_pow_k == pytest.approx(want, rel=1e-9)
    loose = Agentic.run(data, k=1, outcome_threshold=0.5).summary().rows[0]
    assert loose.fully_correct == sum(int(np.sum(rs >= 0.5)) for rs in rewards.values())


def test_given_scores_replace_the_judge_and_tools_still_count():
    tools = {"agentic": {"tools_used": [{"tool_name": "calc", "parameters": {"x": "4+4"}, "result": 8}]},
             "ground_truth_agentic": {"expected_tools": [{"tool_name": "calc", "parameters": {"x": "4*2"}}]}}
    data = [conv("s1", batch("q1", answer="nonsense", score=1.0), batch("q2", score=0.4),
                 batch("q3", score=1.0, **tools), batch("q4"))]
    [m] = Agentic.run(data, k=1)
    assert [r.source for r in m.interactions] == ["given", "given", "given", "judged"]
    assert [r.is_correct for r in m.interactions] == [True, False, False, True]  # q3: wrong tool args
    assert (m.total_interactions, m.correct_interactions, m.source) == (4, 2, "mixed")
    assert m.correctness_scores == [1.0, 0.4, 1.0, 1.0]
    [m] = Agentic.run(data, k=1, outcome_threshold=0.3)
    assert [r.is_correct for r in m.interactions] == [True, True, False, True]


def test_mixed_data_says_which_is_which_in_tables_and_json():
    data = [conv("g", batch("q1"), outcome=True), conv("j", batch("q1")),
            conv("m", batch("q1", score=0.0), batch("q2"))]
    results = Agentic.run(data, k=1)
    df = results.to_dataframe().set_index("session_id")
    assert df.loc[["g", "j", "m"], "source"].tolist() == ["given", "judged", "mixed"]
    inter = results.interactions_dataframe()
    assert inter["source"].tolist() == ["given", "judged", "given", "judged"]
    record = results.to_json()
    assert [c["source"] for c in record["conversations"]] == ["given", "judged", "mixed"]
    assert record["summary"]["judge"]["interactions_given"] == 2


def test_dataframe_and_files_carry_outcome_score_and_attempt(tmp_path):
    df = pd.DataFrame([
        {"session_id": "s1", "assistant_id": "a", "qa_id": "q1", "query": "x", "assistant": "y",
         "outcome": 1.0, "attempt": 2, "task_id": "t"},
        {"session_id": "s2", "assistant_id": "a", "qa_id": "q1", "query": "x", "assistant": "y",
         "score": 0.25, "task_id": "t"},
    ])
    s1, s2 = load_datasets(df)
    assert (s1.outcome, s1.attempt, s2.conversation[0].score) == (1.0, 2, 0.25)
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(conv("s1", batch("q1"), outcome=True, attempt=0)) + "\n" +
                    json.dumps(conv("s2", batch("q1", score=1.0))) + "\n")
    assert [m.attempt for m in Agentic.run(str(path), k=1)] == [0, None]


@pytest.mark.parametrize("extra, field", [
    ({"outcome": 1.5}, "outcome"), ({"outcome": "yes"}, "outcome"), ({"outcome": -0.1}, "outcome"),
    ({"attempt": -1}, "attempt"),
])
def test_bad_outcomes_name_the_field(tmp_path, extra, field):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(conv("s1", batch("q1"))) + "\n" +
                    json.dumps(conv("s2", batch("q1"), **extra)) + "\n")
    with pytest.raises(DataError) as err:
        load_datasets(path)
    assert (err.value.line, err.value.field) == (2, field)


@pytest.mark.parametrize("score", [1.01, True, "1", float("nan")])
def test_bad_scores_name_the_field(score):
    with pytest.raises(DataError) as err:
        load_datasets([conv("s", batch("q1", score=score))])
    assert err.value.field == "conversation[0].score"


def test_outcome_threshold_is_validated_and_reaches_the_cli(tmp_path, capsys):
    with pytest.raises(ConfigError, match="outcome_threshold"):
        Agentic.run([conv("s", batch("q1"), outcome=0.5)], k=1, outcome_threshold=1.5)
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(conv("s", batch("q1"), outcome=0.5)) + "\n")
    assert main(["run", str(path), "--k", "1", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["conversations"][0]["is_fully_correct"] is False
    assert main(["run", str(path), "--k", "1", "--format", "json", "--outcome-threshold", "0.5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["conversations"][0]["is_fully_correct"] is True
    assert out["settings"]["outcome_threshold"] == 0.5
    assert main(["run", str(path), "--k", "1", "--outcome-threshold", "2"]) == 2


def test_results_reload_with_sources_attempts_and_settings(tmp_path, capsys):
    from agenteval.results_io import load_results

    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(conv("g", batch("q1"), outcome=0.5, attempt=1)) + "\n" +
                    json.dumps(conv("j", batch("q1"))) + "\n")
    out = tmp_path / "out"
    assert main(["run", str(path), "--k", "1", "--outcome-threshold", "0.5",
                 "--argument-matching", "*=normalized", "--out", str(out)]) == 0
    capsys.readouterr()
    reloaded = load_results(out)
    assert reloaded.settings.outcome_threshold == 0.5
    assert reloaded.settings.argument_matching == {"*": "normalized"}
    assert [(m.source, m.attempt, m.is_fully_correct) for m in reloaded] == \
        [("given", 1, True), ("judged", None, True)]
    assert [r.source for m in reloaded for r in m.interactions] == ["given", "judged"]
