"""agenteval's RAG scores against DeepEval's and RAGAS's own scoring code, verdict for verdict.

The reference packages live in their own venv (``.cache/ref-venv``, built by ``make test``
through its stamp from ``constraints-ref.txt``); ``rag_reference_scores.py`` runs there in a
subprocess and scores the same verdicts with their methods (DeepEval's
``ContextualPrecisionMetric._calculate_score`` / ``ContextualRecallMetric._calculate_score``,
RAGAS's ``_calculate_average_precision`` of its three context-precision metrics and
``LLMContextRecall._compute_score``), and runs their public calls (DeepEval's ``measure``,
RAGAS v0.4's ``ContextPrecisionWithReference.ascore`` / ``ContextRecall.ascore``) with a model
that replays the verdicts; no LLM is called and no formula is written here.

Where the definitions differ, the test says so and checks agenteval's documented choice:
- RAGAS divides by ``R + 1e-10`` (R = relevant nodes), so its precision is agenteval's times
  R / (R + 1e-10): lower by less than 1e-10, never exactly 1.0. DeepEval's equals agenteval's.
- No relevant node, or no node at all: 0.0 in all three (DeepEval returns the int 0; RAGAS
  v0.4's ``ascore`` refuses an empty context list with a ValueError).
- Recall with no statement: agenteval gives no score (NaN; a case's score is None with a judge
  error) like RAGAS (NaN); DeepEval returns 0.
- A case with several searches: DeepEval and RAGAS score one list; agenteval scores each search
  against them and takes the mean over searches, or with ``flatten=True`` the one concatenated
  list, which then equals theirs.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from agenteval.metrics.rag import ContextualPrecision, ContextualRecall
from agenteval.statistical import rag as rm

from tests.conftest import REPO

DEMO = REPO / "data" / "rag_demo.jsonl"
SCRIPT = Path(__file__).with_name("rag_reference_scores.py")
REF_VENV = REPO / ".cache" / "ref-venv"
ENV_VAR = "AGENTEVAL_RAG_REFERENCE_PYTHON"
RAGAS_EPS = 1e-10  # RAGAS's own denominator term (ragas/metrics/_context_precision.py)


def _reference_python() -> str:
    """The ref venv's python; a failure under CI or when make named it, a skip locally."""
    named = os.environ.get(ENV_VAR)
    python = Path(named) if named else REF_VENV / "bin" / "python"
    if not python.is_absolute():  # make passes a path relative to the checkout; tests may chdir
        python = REPO / python     # (never resolve(): the venv's python is a symlink)
    if python.exists() and (named or (REF_VENV / ".ref-stamp").exists()):
        return str(python)
    why = (f"the DeepEval/RAGAS reference venv is missing ({python}); build it with "
           "`make .cache/ref-venv/.ref-stamp` (make test does)")
    if named or os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


def _generated(seed: int = 20261202) -> tuple[list[list[int]], list[list[int]]]:
    """Ranked relevance lists of lengths 1-20 (random, all irrelevant, all relevant) and the
    empty list; attribution lists of lengths 0-20 likewise."""
    rng = np.random.default_rng(seed)
    precision: list[list[int]] = [[]]
    recall: list[list[int]] = [[]]
    for n in range(1, 21):
        precision += [[0] * n, [1] * n]
        recall += [[0] * n, [1] * n]
        for p in rng.uniform(0.05, 0.95, size=12):
            precision.append(rng.binomial(1, p, size=n).tolist())
            recall.append(rng.binomial(1, p, size=n).tolist())
    return precision, recall


def _demo_verdicts() -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
    """Per search, per flattened case and per case: the offline judge's (and labels') verdicts."""
    per_search = ContextualPrecision.run(DEMO)
    flat = ContextualPrecision.run(DEMO, flatten=True)
    recall = ContextualRecall.run(DEMO)
    return ([[int(n.relevant) for n in s.nodes] for c in per_search for s in c.searches],
            [[int(n.relevant) for s in c.searches for n in s.nodes] for c in flat],
            [[int(s.attributable) for s in c.statements] for c in recall])


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict:
    python = _reference_python()
    precision, recall = _generated()
    searches, flat, statements = _demo_verdicts()
    lists = {"precision": precision + searches + flat, "recall": recall + statements}
    run = subprocess.run([python, str(SCRIPT)], input=json.dumps(lists), capture_output=True,
                         text=True, timeout=600, cwd=tmp_path_factory.mktemp("ref"),
                         env={**os.environ, "PYTHONPATH": ""})
    if run.returncode != 0:
        pytest.fail(f"the reference scorer failed ({run.returncode}):\n{run.stderr[-4000:]}")
    out = json.loads(run.stdout)
    assert len(out["precision"]) == len(lists["precision"])
    assert len(out["recall"]) == len(lists["recall"])
    return {"lists": lists, "out": out, "generated": (len(precision), len(recall)),
            "demo": (len(searches), len(flat), len(statements))}


def _labelled_precision_cases(lists: list[list[int]]) -> list[dict]:
    return [{"id": f"p{i}", "question": "q", "expected_answer": "a",
             "retrieval_context": [{"text": f"node {k}", "relevant": bool(r)}
                                   for k, r in enumerate(ranks)]}
            for i, ranks in enumerate(lists)]


def _labelled_recall_cases(lists: list[list[int]]) -> list[dict]:
    return [{"id": f"r{i}", "question": "q", "expected_answer": "a", "retrieval_context": ["n"],
             "statements": [{"text": f"statement {k}", "attributable": bool(s)}
                            for k, s in enumerate(statements)]}
            for i, statements in enumerate(lists) if statements]  # data cannot say "none"


def test_reference_versions_are_the_pinned_ones(reference):
    pins = dict(line.strip().split("==") for line in (REPO / "constraints-ref.txt").read_text()
                .splitlines() if "==" in line and not line.startswith("#"))
    assert reference["out"]["versions"] == {"deepeval": pins["deepeval"], "ragas": pins["ragas"]}


def test_precision_per_list_equals_deepeval_and_ragas(reference):
    lists = reference["lists"]["precision"][:reference["generated"][0]]
    ref = reference["out"]["precision"][:len(lists)]
    ours_pure = rm.contextual_precision(rm.pad_rankings([[bool(r) for r in x] for x in lists]))
    cases = [c for c in ContextualPrecision.run(_labelled_precision_cases(lists))]
    assert [c.case_id for c in cases] == [f"p{i}" for i in range(len(lists))]
    assert all(c.judge_errors == [] for c in cases)
    ours_case = np.array([c.score for c in cases], dtype=float)
    de = np.array([r["deepeval"] for r in ref])
    # the scoring method and the whole measure() agree; so do RAGAS v0.4's method and ascore()
    assert de.tolist() == [r["deepeval_measure"] for r in ref]
    assert [r["ragas_collections"] for r in ref[1:]] == [r["ragas_collections_ascore"]
                                                        for r in ref[1:]]
    assert lists[0] == [] and math.isnan(ref[0]["ragas_collections_ascore"])  # refused
    # equal up to summation order (numpy's vs a Python loop: a few ulp at most)
    np.testing.assert_allclose(ours_pure, de, rtol=1e-15, atol=0)
    np.testing.assert_allclose(ours_case, de, rtol=1e-15, atol=0)
    relevant = np.array([sum(x) for x in lists], dtype=float)
    for key in ("ragas", "ragas_nonllm", "ragas_collections"):
        rg = np.array([r[key] for r in ref])
        # by definition: RAGAS = ours * R / (R + 1e-10), a hair below ours, 0 when R = 0
        assert (rg <= ours_case).all()
        np.testing.assert_allclose(rg, ours_case, rtol=1e-10 + 1e-15, atol=0)
        scaled = np.where(relevant > 0, ours_case * relevant / (relevant + RAGAS_EPS), 0.0)
        np.testing.assert_allclose(rg, scaled, rtol=1e-14, atol=0)
        assert not (rg == 1.0).any()  # RAGAS never reaches 1.0; agenteval and DeepEval do
    perfect = [i for i, x in enumerate(lists) if x and all(x)]
    assert len(perfect) >= 20  # all relevant, every length (and random ones that were)
    assert all(ours_case[i] == 1.0 and de[i] == 1.0 for i in perfect)


def test_precision_with_no_relevant_or_no_node_is_zero_everywhere(reference):
    lists = reference["lists"]["precision"][:reference["generated"][0]]
    ref = reference["out"]["precision"]
    none_relevant = [i for i, x in enumerate(lists) if sum(x) == 0]
    assert lists[0] == [] and len(none_relevant) >= 21  # [] and all-irrelevant of every length
    cases = list(ContextualPrecision.run(_labelled_precision_cases([lists[i]
                                                                   for i in none_relevant])))
    for i, case in zip(none_relevant, cases):
        got = {k: v for k, v in ref[i].items() if not (i == 0 and k == "ragas_collections_ascore")}
        assert case.score == 0.0 and all(v == 0.0 for v in got.values()), got
    assert reference["out"]["types"]["deepeval_precision_empty"] == "int"  # DeepEval's int 0


def test_recall_per_list_equals_deepeval_and_ragas(reference):
    lists = reference["lists"]["recall"][:reference["generated"][1]]
    ref = reference["out"]["recall"][:len(lists)]
    a = np.array([sum(x) for x in lists], dtype=float)
    n = np.array([len(x) for x in lists], dtype=float)
    ours_pure = np.asarray(rm.recall(a, n))
    cases = list(ContextualRecall.run(_labelled_recall_cases(lists)))
    nonempty = [i for i, x in enumerate(lists) if x]
    assert [c.case_id for c in cases] == [f"r{i}" for i in nonempty]
    de = np.array([r["deepeval"] for r in ref])
    rg = np.array([r["ragas"] for r in ref])
    assert de.tolist() == [r["deepeval_measure"] for r in ref]
    np.testing.assert_array_equal(rg, [r["ragas_collections_ascore"] for r in ref])  # NaN too
    # every non-empty list: agenteval == DeepEval == RAGAS, to the last bit
    assert all(c.judge_errors == [] for c in cases)
    assert [c.score for c in cases] == de[nonempty].tolist() == rg[nonempty].tolist()
    assert ours_pure[nonempty].tolist() == de[nonempty].tolist()
    # no statement: agenteval and RAGAS give no score (NaN), DeepEval gives 0
    empty = [i for i, x in enumerate(lists) if not x]
    assert empty == [0]
    assert math.isnan(ours_pure[0]) and math.isnan(rg[0]) and de[0] == 0.0
    assert reference["out"]["types"]["deepeval_recall_empty"] == "int"


def test_recall_case_without_statements_has_no_score():
    """agenteval's documented choice for the empty case: no score and a judge error (an expected
    answer the offline judge splits into no statement), never DeepEval's 0."""
    case = list(ContextualRecall.run([{"id": "x", "question": "q", "expected_answer": "...",
                                       "retrieval_context": ["a b"]}]))[0]
    assert case.score is None and case.total == 0 and case.judge_errors


def test_demo_data_scores_equal_the_references(reference):
    n_search, n_flat, n_case = reference["demo"]
    g_p, g_r = reference["generated"]
    ref_p = reference["out"]["precision"][g_p:]
    ref_r = reference["out"]["recall"][g_r:]
    assert len(ref_p) == n_search + n_flat and len(ref_r) == n_case
    per_search = ContextualPrecision.run(DEMO)
    searches = [s for c in per_search for s in c.searches]
    assert len(searches) == n_search > len(list(per_search))  # a case with two searches
    for s, r in zip(searches, ref_p[:n_search]):
        assert s.score == pytest.approx(r["deepeval"], rel=1e-15, abs=0)
        assert s.score == pytest.approx(r["deepeval_measure"], rel=1e-15, abs=0)
        assert s.score == pytest.approx(r["ragas"], rel=2e-10, abs=0)
        assert s.score == pytest.approx(r["ragas_collections_ascore"], rel=2e-10, abs=0)
    # a case's score is its searches' mean; flatten=True scores the one list they would
    for c in per_search:
        assert c.score == pytest.approx(np.mean([s.score for s in c.searches]), rel=1e-15)
    flat = list(ContextualPrecision.run(DEMO, flatten=True))
    assert len(flat) == n_flat
    for c, r in zip(flat, ref_p[n_search:]):
        assert c.score == pytest.approx(r["deepeval"], rel=1e-15, abs=0)
        assert c.score == pytest.approx(r["ragas_collections"], rel=2e-10, abs=0)
    two = {c.case_id: c for c in per_search}["two-searches"]
    two_flat = {c.case_id: c for c in flat}["two-searches"]
    assert two.score != two_flat.score  # the mean over searches is not the flattened list's
    recall = list(ContextualRecall.run(DEMO))
    for key in ("deepeval", "deepeval_measure", "ragas", "ragas_collections_ascore"):
        assert [c.score for c in recall] == [r[key] for r in ref_r], key
