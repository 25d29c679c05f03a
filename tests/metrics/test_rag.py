"""RAG metrics with the offline judge and with labels: the demo data's intended scores, labels
that call no judge, results containers, and the Bayesian summaries checked against scipy."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from scipy import stats

from agenteval.errors import ConfigError, JudgeError
from agenteval.judge.base import AnswerItem, Judge, JudgeFailure
from agenteval.judge.offline import OfflineJudge
from agenteval.judge import offline_rag
from agenteval.metrics.rag import ContextualPrecision, ContextualRecall
from agenteval.statistical.modes import BayesianMode

from tests.conftest import REPO

DEMO = REPO / "data" / "rag_demo.jsonl"

# Intended scores of data/rag_demo.jsonl with the offline judge (data/README.md), by hand:
PRECISION = {
    "perfect-ranking": 1.0,             # relevant at ranks 1, 2 of 3
    "mixed-ranking": 5 / 6,             # ranks 1 and 3 of 3: (1 + 2/3) / 2
    "relevant-last": 1 / 4,             # rank 4 of 4
    "full-recall": 1.0,
    "partial-recall": 1.0,
    "zero-recall": 0.0,                 # nothing relevant
    "two-searches": (1 / 2 + 1.0) / 2,  # [no, yes] and [yes, no, no]
    "labelled-nodes": (1 / 2 + 2 / 4) / 2,  # labels [no, yes, no, yes]
    "chat-input": 1.0,
}
RECALL = {"perfect-ranking": (1, 1), "mixed-ranking": (1, 1), "relevant-last": (1, 1),
          "full-recall": (2, 2), "partial-recall": (2, 3), "zero-recall": (0, 2),
          "two-searches": (2, 2), "labelled-nodes": (1, 2), "chat-input": (1, 1)}


def test_offline_precision_on_the_demo_data():
    results = ContextualPrecision.run(DEMO)
    assert {c.case_id: c.score for c in results} == pytest.approx(PRECISION, abs=1e-12)
    by_id = {c.case_id: c for c in results}
    assert by_id["perfect-ranking"].score == 1.0 and by_id["zero-recall"].score == 0.0
    two = by_id["two-searches"]
    assert [s.query for s in two.searches] == ["Lisbon population", "Porto population"]
    assert [s.score for s in two.searches] == [0.5, 1.0]
    assert two.score_weighted == pytest.approx((2 * 0.5 + 3 * 1.0) / 5)
    assert all(c.judge_errors == [] for c in results)
    # evidence: hits and misses with the judge's reason
    mixed = by_id["mixed-ranking"]
    assert [n.rank for n in mixed.hits] == [1, 3] and [n.rank for n in mixed.misses] == [2]
    assert "key terms" in mixed.misses[0].reason and mixed.misses[0].source == "judge"
    s = results.summary()
    assert (s.cases, s.scored, s.judge_errors, s.labelled, s.judged) == (9, 9, 0, 4, 23)
    assert s.mean == pytest.approx(np.mean(list(PRECISION.values())))
    assert s.ci_low < s.mean < s.ci_high


def test_flattened_scores_one_ranking_per_case():
    flat = {c.case_id: c for c in ContextualPrecision.run(DEMO, flatten=True)}
    two = flat["two-searches"]
    assert len(two.searches) == 1 and two.flattened
    assert two.score == pytest.approx((1 / 2 + 2 / 3) / 2)      # [no, yes, yes, no, no]
    assert [n.search for n in two.searches[0].nodes] == [0, 0, 1, 1, 1]
    assert two.searches[0].query == "Lisbon population | Porto population"
    assert flat["mixed-ranking"].score == pytest.approx(5 / 6)   # one search: the same


def test_offline_recall_on_the_demo_data():
    results = ContextualRecall.run(DEMO)
    got = {c.case_id: (c.attributable, c.total) for c in results}
    assert got == RECALL
    by_id = {c.case_id: c for c in results}
    partial = by_id["partial-recall"]
    assert partial.score == pytest.approx(2 / 3)
    assert [st.attributable for st in partial.statements] == [True, True, False]
    assert [st.supporting_rank for st in partial.statements] == [1, 2, None]
    assert partial.statements[0].supporting_text.startswith("Mount Everest, at 8,849")
    two = by_id["two-searches"]        # recall checks the combined context of both searches
    assert [(st.supporting_search, st.supporting_rank) for st in two.statements] == [(0, 2), (1, 1)]
    assert [s["statements_supported"] for s in two.searches] == [1, 1]
    s = results.summary()
    pooled = s.extra["pooled"]
    assert (pooled["attributable"], pooled["statements"]) == (11, 15)


class CountingJudge(Judge):
    """A judge that records what it is asked (RAG items) and answers 'relevant' for all."""

    name = "counting"

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def ajudge_answers(self, items: Sequence[AnswerItem]) -> list:
        raise AssertionError("not used")

    async def ajudge_node_relevance(self, items: Sequence[Any]) -> list:
        self.asked += [f"node:{it.nodes[0]}" for it in items]
        assert all(len(it.nodes) == 1 for it in items)
        return [offline_rag.OverlapRelevance((offline_rag.OverlapNodeVerdict(True, "yes", 1.0),))
                for _ in items]

    async def ajudge_statements(self, items: Sequence[Any]) -> list:
        self.asked += [f"split:{it.text}" for it in items]
        return [offline_rag.OverlapStatements(("s1", "s2")) for _ in items]

    async def ajudge_attribution(self, items: Sequence[Any]) -> list:
        self.asked += [f"stmt:{it.statements[0]}" for it in items]
        return [offline_rag.OverlapAttributions((offline_rag.OverlapAttribution(
            False, "no", 0.0, None),)) for _ in items]


def labelled_case(**extra: Any) -> dict:
    base = {"id": "lab", "question": "q?", "expected_answer": "a.",
            "retrieval_context": [{"text": "n1", "relevant": True},
                                  {"text": "n2", "relevant": False},
                                  {"text": "n3", "relevant": True}],
            "statements": [{"text": "s1", "attributable": True},
                           {"text": "s2", "attributable": False},
                           {"text": "s3", "attributable": True}]}
    base.update(extra)
    return base


def test_labels_are_used_and_no_judge_is_called():
    judge = CountingJudge()
    [p] = ContextualPrecision.run([labelled_case()], judge)
    [r] = ContextualRecall.run([labelled_case()], judge)
    assert judge.asked == []
    assert p.score == pytest.approx(5 / 6) and r.score == pytest.approx(2 / 3)
    assert {n.source for s in p.searches for n in s.nodes} == {"label"}
    assert {st.source for st in r.statements} == {"label"}


def test_partial_labels_judge_only_the_rest():
    judge = CountingJudge()
    record = labelled_case(retrieval_context=[{"text": "n1", "relevant": False}, "n2"],
                           statements=["only text", {"text": "t", "attributable": True}])
    [p] = ContextualPrecision.run([record], judge)
    [r] = ContextualRecall.run([record], judge)
    assert judge.asked == ["node:n2", "stmt:only text"]
    assert p.score == pytest.approx(0.5) and r.score == pytest.approx(0.5)
    # without statements the judge splits the expected answer once, then one call per statement
    judge.asked.clear()
    [r] = ContextualRecall.run([labelled_case(statements=None)], judge)
    assert judge.asked == ["split:a.", "stmt:s1", "stmt:s2"] and r.score == 0.0


class NoRagJudge(Judge):
    name = "answers-only"

    async def ajudge_answers(self, items):  # pragma: no cover - not called
        return []


def test_a_judge_without_rag_verdicts_gives_errors_not_zeros():
    record = labelled_case(retrieval_context=["n1", {"text": "n2", "relevant": True}])
    [p] = ContextualPrecision.run([record], NoRagJudge())
    assert p.score is None and p.judge_errors and "unsupported" in p.judge_errors[0]
    assert (p.score_low, p.score_high) == (0.5, 1.0)   # [?, yes]: 0.5 if no, 1.0 if yes
    assert p.searches[0].nodes[0].source == "error"


def test_no_expected_answer_for_recall_is_reported_per_case():
    results = ContextualRecall.run([labelled_case(statements=None, expected_answer=None),
                                    labelled_case(id="ok")])
    none, ok = results
    assert none.score is None and "no expected answer" in none.judge_errors[0]
    assert ok.score == pytest.approx(2 / 3) and results.summary().scored == 1


def test_empty_retrieval_gives_zero_without_calling_a_judge():
    judge = CountingJudge()
    record = {"id": "e", "question": "q", "expected_answer": "a", "retrieval_context": []}
    [p] = ContextualPrecision.run([record], judge)
    [r] = ContextualRecall.run([dict(record, statements=["x", "y"])], judge)
    assert judge.asked == [] and p.score == 0.0 and p.score_weighted is None
    assert r.score == 0.0 and {st.source for st in r.statements} == {"rule"}


def test_bayesian_recall_matches_scipy_per_case_and_pooled():
    mode = BayesianMode(beta_prior_a=0.5, beta_prior_b=0.5, ci_level=0.9)
    results = ContextualRecall.run(DEMO, statistical_mode=mode)
    for case in results:
        a, n = RECALL[case.case_id]
        post = stats.beta(0.5 + a, 0.5 + n - a)
        assert case.posterior_mean == pytest.approx(post.mean())
        assert (case.ci_low, case.ci_high) == pytest.approx((post.ppf(0.05), post.ppf(0.95)))
    pooled = results.summary().extra["pooled"]
    a = sum(v[0] for v in RECALL.values())
    n = sum(v[1] for v in RECALL.values())
    post = stats.beta(0.5 + a, 0.5 + n - a)
    assert pooled["mean"] == pytest.approx(post.mean())
    assert (pooled["ci_low"], pooled["ci_high"]) == pytest.approx((post.ppf(0.05), post.ppf(0.95)))
    # the mean over cases is the average of the per-case posterior means (up to Monte Carlo)
    s = results.summary()
    assert s.mean == pytest.approx(np.mean([c.posterior_mean for c in results]), abs=0.01)
    assert "posterior mean" in s.method


def test_frequentist_recall_case_intervals_are_wilson():
    z = stats.norm.ppf(0.975)
    for case in ContextualRecall.run(DEMO):
        a, n = RECALL[case.case_id]
        p = a / n    # Wilson (1927), written out
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        assert (case.ci_low, case.ci_high) == pytest.approx((centre - half, centre + half))
    from agenteval.statistical.modes import FrequentistMode

    exact = ContextualRecall.run(DEMO, statistical_mode=FrequentistMode(interval="clopper-pearson"))
    partial = {c.case_id: c for c in exact}["partial-recall"]      # 2 of 3, Clopper-Pearson
    assert (partial.ci_low, partial.ci_high) == pytest.approx(
        (stats.beta.ppf(0.025, 2, 2), stats.beta.ppf(0.975, 3, 1)))


def test_containers_export_everything():
    results = ContextualPrecision.run(DEMO)
    df = results.to_dataframe()
    assert list(df["case_id"]) == list(PRECISION) and len(df) == 9
    details = results.details_dataframe()
    assert len(details) == 27 and set(details["source"]) == {"judge", "label"}
    payload = json.loads(json.dumps(results.to_json()))
    assert payload["metric"] == "contextual_precision" and len(payload["cases"]) == 9
    assert payload["cases"][6]["searches"][1]["query"] == "Porto population"
    html = results._repr_html_()
    assert "<table" in html and "two-searches" in html
    text = results.summary().to_text()
    assert "contextual_precision" in text and "never counted as irrelevant" in text
    assert results.summary().to_dataframe().loc["contextual_precision", "cases"] == 9
    recall = ContextualRecall.run(DEMO)
    assert len(recall.details_dataframe()) == 15 and "pooled" in str(recall.summary())
    assert recall.summary()._repr_html_().startswith("<p><b>contextual_recall")
    two = results[6]._repr_html_()     # one case: its searches, nodes, verdicts and reasons
    assert "Porto population" in two and "<td>yes</td>" in two and "key terms" in two
    partial = recall[4]._repr_html_()
    assert "2/3 statements attributable" in partial and "search 0 rank 2" in partial


def test_options_are_validated():
    with pytest.raises(ConfigError):
        ContextualPrecision.run(DEMO, statistical_mode="bayes")
    with pytest.raises(ConfigError):
        ContextualRecall.run(DEMO, statistical_mode=3)
    assert ContextualRecall.run(DEMO, statistical_mode="bayesian").summary().method
    with pytest.raises(ConfigError, match="flatten must be True or False"):
        ContextualPrecision.run(DEMO, flatten="yes")


class FailingJudge(CountingJudge):
    async def ajudge_node_relevance(self, items):
        return [JudgeFailure("HTTP 500", kind="error") for _ in items]


def test_strict_raises_on_the_first_failed_verdict():
    with pytest.raises(JudgeError, match="case 'c', search 0 rank 1"):
        ContextualPrecision.run([{"id": "c", "question": "q", "retrieval_context": ["n"]}],
                                FailingJudge(), strict=True)


def test_offline_rules_thresholds():
    judge = OfflineJudge()
    assert offline_rag.RELEVANCE_THRESHOLD == 0.5 and offline_rag.ATTRIBUTION_THRESHOLD == 0.7
    # 1 of 2 key terms is enough for relevance, 0 of 2 is not
    v = offline_rag.node_relevance("How tall?", "330 metres.", "It is 330 feet")
    assert v.relevant and v.score == 0.5
    assert not offline_rag.node_relevance("How tall?", "330 metres.", "It is tall").relevant
    # attribution needs every number and 70% of the terms
    assert not offline_rag.attribution("Lisbon has 545,000 inhabitants.",
                                       ["Lisbon has 545,001 inhabitants."]).attributed
    assert offline_rag.attribution("Lisbon has 545,000 inhabitants.",
                                   ["x", "Lisbon: 545000 inhabitants"]).node == 1
    out = judge.judge_sync([AnswerItem("q", "a", "a")])
    assert out[0].score == 1.0   # the answer rules are untouched


def test_demo_file_matches_its_generator():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(REPO / "data" / "make_rag_demo.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_results_reload_from_json(tmp_path):
    from agenteval.errors import DataError
    from agenteval.rag_results import RagResults

    for results in (ContextualPrecision.run(DEMO), ContextualRecall.run(DEMO, statistical_mode="bayesian")):
        path = tmp_path / "r.json"
        path.write_text(json.dumps(results.to_json()), encoding="utf-8")
        again = RagResults.from_json(path)
        assert again.to_json() == results.to_json()
        assert again.summary().to_text() == results.summary().to_text()
        assert [c.score for c in again] == [c.score for c in results]
    with pytest.raises(DataError, match="not agenteval RAG results"):
        RagResults.from_json({"version": "x"})


@pytest.mark.parametrize("metric", [ContextualPrecision, ContextualRecall])
def test_the_summary_is_the_tables_computed_once(metric):
    """The metric builds the table from the cases it scored (what their rows show), the
    results compute the summary from it and the mode once, with the mode's seed and draws."""
    from agenteval.statistical.modes import FrequentistMode
    from agenteval.statistical.rag_counts import summarise_rag

    mode = FrequentistMode(rng_seed=5, bootstrap_samples=321)
    results = metric.run(DEMO, statistical_mode=mode)
    t = results.counts
    assert t.metric == metric.name and t.size == len(results)
    assert [None if np.isnan(x) else x for x in t.score] == [c.score for c in results]
    assert t.judged.sum() + t.labelled.sum() == sum(
        len(c.statements) if metric is ContextualRecall else sum(len(s.nodes) for s in c.searches)
        for c in results) - sum(st.source == "rule" for c in results
                                for st in getattr(c, "statements", []))
    s = results.summary()
    assert results.summary() is s and "(321 seeded draws)" in s.method
    v = summarise_rag(t, mode)
    assert (s.mean, s.ci_low, s.ci_high, s.scored, s.extra) == (v.mean, v.ci_low, v.ci_high,
                                                                 v.scored, v.extra)
    other = metric.run(DEMO, statistical_mode=FrequentistMode(rng_seed=6, bootstrap_samples=321))
    assert other.summary().mean == s.mean
    assert (other.summary().ci_low, other.summary().ci_high) != (s.ci_low, s.ci_high)


def test_the_summary_is_the_values_plus_judge_and_version():
    """One definition of the summary's numbers: ``RagSummary`` extends ``RagValues`` (what
    ``summarise_rag`` returns) by the judge and the format version, in the JSON's key order."""
    from dataclasses import asdict, fields

    from agenteval.results.rag import RAG_RESULTS_VERSION, RagSummary
    from agenteval.statistical.rag_counts import RagValues, summarise_rag

    assert issubclass(RagSummary, RagValues)
    assert [f.name for f in fields(RagSummary)] == [f.name for f in fields(RagValues)] + [
        "judge", "version"]
    results = ContextualRecall.run(DEMO, statistical_mode="bayesian")
    s = results.summary()
    v = summarise_rag(results.counts, results.mode)
    assert {k: x for k, x in asdict(s).items() if k not in ("judge", "version")} == asdict(v)
    assert list(results.to_json()["summary"]) == list(asdict(v)) + ["judge", "version"]
    assert s.version == RAG_RESULTS_VERSION
