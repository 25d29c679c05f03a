"""The results as columns (``agenteval.results.columns``) and the writers that stream them.

Every object read back from the columns equals the one the run made, field for field and type
for type (checked against objects built independently by pydantic's validating constructor from
the dumps); the streamed files are byte for byte those written from one frame / one dict.
"""

from __future__ import annotations

import json
import math

import pytest

from agenteval import Agentic, BayesianMode
from agenteval.results import write
from agenteval.results.columns import Columns, Texts
from agenteval.schemas.results import AgenticMetric

DEMO = "data/agentic_demo.jsonl"


@pytest.fixture(scope="module")
def demo():
    return Agentic.run(DEMO, k=3, statistical_mode=BayesianMode())


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def test_texts_keep_every_value():
    values = ["a", None, "", "é ü 中", "a", "\ud800 lone", None, "x" * 1000]
    t = Texts.of(values)
    assert t.tolist() == values
    assert [t[i] for i in range(len(values))] == values
    both = Texts.concat([t, Texts.of(["b", None]), Texts.of([])])
    assert both.tolist() == values + ["b", None]
    assert both.tolist(3, 9) == (values + ["b", None])[3:9]


def test_objects_from_the_columns_are_the_runs(demo):
    dumps = [m.model_dump() for m in demo]
    # an independent rebuild: pydantic validates each dump into a fresh object
    rebuilt = [AgenticMetric.model_validate(d) for d in dumps]
    assert len(demo) == 73 and demo.columns.held is None
    for got, want in zip(demo, rebuilt):
        assert _same(got.model_dump(), want.model_dump())
    assert _same(demo[-1].model_dump(), dumps[-1])
    assert [m.session_id for m in demo[5:9]] == [d["session_id"] for d in dumps[5:9]]
    with pytest.raises(IndexError):
        demo[73]
    # the columns of validated objects are the run's columns
    again = Columns.from_metrics(rebuilt)
    assert again.held is None
    assert all(_same(a.model_dump(), b.model_dump()) for a, b in zip(again.metrics(), demo))
    blocks = Columns.concat([Columns.from_metrics(rebuilt[:10]), Columns.from_metrics(rebuilt[10:])])
    assert all(_same(a.model_dump(), b) for a, b in zip(blocks.metrics(), dumps))


def test_lists_that_do_not_follow_from_interactions_are_held(demo):
    odd = demo[0].model_copy(update={"correctness_scores": [0.5]})
    cols = Columns.from_metrics([odd, demo[1]])
    assert cols.held is not None and cols.metrics()[0].correctness_scores == [0.5]


def test_counts_and_frames_from_columns_match_the_objects(demo):
    import pandas as pd

    metrics = list(demo)
    skip = {"correctness_scores", "correct_indices", "tool_correctness_scores", "interactions"}
    pd.testing.assert_frame_equal(demo.to_dataframe(),
                                  pd.DataFrame([m.model_dump(exclude=skip) for m in metrics]))
    assert len(demo.interactions_dataframe()) == sum(len(m.interactions) for m in metrics)
    assert demo.counts.n.tolist() == [m.total_interactions for m in metrics]
    assert demo.counts.c.tolist() == [m.correct_interactions for m in metrics]
    assert demo.judged_share()[1] == sum(len(m.interactions) for m in metrics)


def test_streamed_writers_write_the_same_bytes(demo, tmp_path, monkeypatch):
    whole = tmp_path / "whole"
    demo.save(whole)
    monkeypatch.setattr(write, "_BLOCK", 7)   # 73 conversations: 11 blocks
    blocks = tmp_path / "blocks"
    demo.save(blocks)
    for name in ("conversations.csv", "interactions.csv"):
        assert (whole / name).read_bytes() == (blocks / name).read_bytes()
    a, b = (json.loads((d / "results.json").read_text()) for d in (whole, blocks))
    a["manifest"].pop("created", None), b["manifest"].pop("created", None)
    assert a["conversations"] == b["conversations"] == json.loads(json.dumps(demo.to_json()))[
        "conversations"]


def test_json_stream_is_json_dump(tmp_path):
    head = {"a": 1, "b": {"c": [1, 2]}}
    items = [{"x": [1, {"y": "z\n"}]}, {"w": None}]
    for rows in (items, []):
        path = tmp_path / "s.json"
        write._write_json_stream(path, head, "rows", iter(rows))
        assert path.read_text() == json.dumps({**head, "rows": rows}, indent=2) + "\n"


def test_drill_down_and_tool_means_from_columns_match_the_objects():
    from agenteval.cli.run import _mean_tool_score
    from agenteval.present.report import drill_down_order

    records = [json.loads(line) for line in open(DEMO, encoding="utf-8")]
    for i, rec in enumerate(records):   # some references missing: judge errors, unknowns
        if i % 4 == 0:
            rec["conversation"][0].pop("ground_truth_assistant", None)
    res = Agentic.run(records, k=3)
    objects = list(res)
    assert sum(m.judge_errors for m in objects) > 0
    assert drill_down_order(res) == drill_down_order(objects)
    assert res.tool_means() == [_mean_tool_score(m) for m in objects]


def test_task_draws_in_blocks_are_one_calls_numbers_and_capped_like_conversations(demo):
    import numpy as np

    from agenteval.statistical import suite

    n, c = np.array([3, 5, 2, 4]), np.array([1, 5, 0, 2])
    whole = np.random.default_rng(7).beta(1 + c, 1 + n - c, size=(1001, 4))
    blocks = np.concatenate(list(suite.conjugate_unit_draw_blocks(n, c, draws=1001, seed=7,
                                                                  rows=64)))
    assert np.array_equal(whole, blocks)
    fit = demo.task_fit()
    assert np.array_equal(fit.unit_draws().reshape(-1, demo.counts.tasks.size),
                          np.concatenate(list(fit.unit_draw_blocks(100))))
    from agenteval.statistical.draws import _unit_draws

    from agenteval.statistical.hierarchical import fit_empirical_bayes

    conv = fit_empirical_bayes(demo.counts.n, demo.counts.c, demo.counts.agent, draws=700)
    assert np.array_equal(_unit_draws(conv), conv.unit_draws())
    full, capped = demo.posterior_draws(), demo.posterior_draws(max_conversations=5)
    assert "p_task" in full.posterior and "p_task" not in capped.posterior
    for key in ("task_pass_at_k", "task_pass_pow_k", "task_pass_at_k_all", "task_pass_pow_k_all"):
        assert np.array_equal(full.posterior[key], capped.posterior[key], equal_nan=True)
    # the per-agent task means are the means of the held p_task draws
    p = full.posterior["p_task"].reshape(-1, demo.counts.tasks.size)
    agent = demo.counts.tasks.agent
    for g in np.unique(agent):
        np.testing.assert_allclose(full.posterior["task_pass_pow_k"].reshape(p.shape[0], -1)[:, g],
                                   (p[:, agent == g] ** 3).mean(axis=1), rtol=1e-12)


def test_the_report_index_from_the_overview_is_the_objects(demo):
    from agenteval.present.report_index import conversation_index

    objects = list(demo)
    drilled = {0: 0, 5: 1}
    assert (conversation_index(demo.overview(), drilled, capped_note="x")
            == conversation_index(objects, drilled, capped_note="x"))
