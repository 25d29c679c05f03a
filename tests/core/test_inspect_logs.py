"""Inspect AI logs written by Inspect itself (mock model, no network), read through Inspect's
reader and checked against what Inspect's own ``read_eval_log`` says about every sample."""

from __future__ import annotations

import json
import os
import subprocess
import warnings
import sys
from math import comb
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from agenteval import Agentic, BayesianMode  # noqa: E402
from agenteval.cli import main  # noqa: E402
from agenteval.core import load_datasets  # noqa: E402
from agenteval.core.inspect_logs import score_to_outcome  # noqa: E402
from agenteval.errors import ConfigError, DataError  # noqa: E402

HERE = Path(__file__).resolve().parent

# Inspect's documented default value_to_float mapping, written out independently
INSPECT_VALUE = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    """Two models x (.eval, .json), 3 samples x 3 epochs, written by Inspect in a subprocess
    (its state stays out of the test process; its data folder is a temporary one)."""
    out = tmp_path_factory.mktemp("inspect-logs")
    env = dict(os.environ, XDG_DATA_HOME=str(out / "xdg"), INSPECT_LOG_DIR=str(out / "default"))
    subprocess.run([sys.executable, str(HERE / "make_inspect_logs.py"), str(out)], check=True,
                   env=env, capture_output=True, text=True, timeout=300)
    return {fmt: sorted((out / fmt).glob(f"*.{fmt}")) for fmt in ("eval", "json")}


def _inspect_samples(path: Path):
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path))
    return log.eval.model, log.eval.task, log.samples


@pytest.mark.parametrize("fmt", ["eval", "json"])
@pytest.mark.parametrize("scorer", ["match", "graded"])
def test_every_sample_epoch_is_a_conversation_as_inspect_reads_it(logs, fmt, scorer):
    paths = logs[fmt]
    assert len(paths) == 2
    with pytest.warns(UserWarning, match=r"1 sample\(s\) errored .* s3 \(epoch 2\)"):
        datasets = load_datasets(paths, scorer=scorer)
    by_session = {ds.session_id: ds for ds in datasets}
    expected = 0
    for path in paths:
        model, task, samples = _inspect_samples(path)
        for sample in samples:
            session = f"{model}/{task}/{sample.id}/epoch-{sample.epoch}"
            if sample.error is not None:
                assert session not in by_session  # unscored by Inspect: left out, with a warning
                continue
            expected += 1
            ds = by_session[session]
            assert ds.assistant_id == model and ds.task_id == f"{task}/{sample.id}"
            assert ds.attempt == sample.epoch
            value = sample.scores[scorer].value
            want = INSPECT_VALUE[value] if isinstance(value, str) else float(value)
            assert ds.outcome == want
            calls_in = [(c.function, c.arguments) for m in sample.messages
                        if m.role == "assistant" for c in (m.tool_calls or [])]
            calls_out = [(t.tool_name, t.parameters) for b in ds.conversation
                         for t in b.agentic.tools_used]
            assert calls_out == calls_in and calls_in  # every call, with its arguments
            results = [m.text for m in sample.messages if m.role == "tool"]
            assert [str(t.result) for b in ds.conversation for t in b.agentic.tools_used] == results
            last = ds.conversation[-1]
            assert last.assistant == sample.output.completion
            assert last.ground_truth_assistant == sample.target
            assert ds.conversation[0].query == sample.input
    assert len(datasets) == expected == 17  # 2 models x 3 samples x 3 epochs, one errored
    if scorer == "graded":  # every kind of value occurs
        assert {ds.outcome for ds in datasets} == {0.0, 0.25, 0.5, 1.0}


def test_pass_k_per_task_from_epochs_equals_direct_count(logs):
    """Epochs are attempts: per-task pass^k is the mean over (model, sample) of C(c, k)/C(n, k)
    with c the epochs Inspect scored C, computed here from Inspect's reader."""
    k = 2
    with pytest.warns(UserWarning):
        results = Agentic.run([str(p) for p in logs["eval"]], k=k, scorer="match",
                              statistical_mode=BayesianMode())
    per_agent = {}
    for path in logs["eval"]:
        model, _, samples = _inspect_samples(path)
        counts: dict[str, list[int]] = {}
        for s in samples:
            if s.error is None:
                counts.setdefault(s.id, []).append(int(s.scores["match"].value == "C"))
        per_agent[model] = [comb(sum(v), k) / comb(len(v), k) for v in counts.values()]
    summary = results.summary()
    rows = {r.group: r for r in summary.rows}
    for model, values in per_agent.items():
        assert rows[model].tasks_with_k == 3
        assert rows[model].unbiased_pass_pow_k == pytest.approx(sum(values) / len(values), abs=1e-12)
    assert summary.judge["calls"] == 0 and summary.judge["conversations_given"] == 17


def test_several_scorers_need_a_choice_and_a_wrong_name_lists_them(logs):
    with pytest.raises(ConfigError, match=r"several scorers \(match, graded\).*--scorer"):
        load_datasets(logs["eval"][0])
    with pytest.raises(ConfigError, match="no scorer 'acc'.*match, graded"):
        load_datasets(logs["json"][0], scorer="acc")


def test_unscored_samples_are_judged_against_the_target_and_marked(logs, tmp_path):
    """A sample without the chosen score (here: the score removed from a real log) is judged;
    the results say which conversations were given and which judged."""
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(logs["eval"][0]))
    for sample in log.samples:
        if sample.epoch == 1:
            sample.scores = {}
    path = tmp_path / "partial.eval"
    write_eval_log(log, str(path))
    results = Agentic.run(str(path), k=1, scorer="match")
    assert [m.source for m in results if m.attempt == 1] == ["judged"] * 3
    assert {m.source for m in results if m.attempt != 1} == {"given"}
    assert results.summary().judge["calls"] == 3  # only the unscored epoch was judged
    interactions = results.interactions_dataframe()
    assert set(interactions["source"]) == {"given", "judged"}
    # model-a answers every sample from the tool's result: the offline judge agrees with match
    assert all(m.is_fully_correct for m in results if m.attempt == 1)


def test_cli_reads_several_logs_and_warns_in_one_line(logs, capsys):
    assert main(["run", *map(str, logs["eval"]), "--k", "3", "--scorer", "match",
                 "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("agenteval: warning: ") and captured.err.count("\n") == 1
    assert "s3 (epoch 2)" in captured.err
    data = json.loads(captured.out)
    assert {r["group"] for r in data["summary"]["rows"]} == {"all", "mockllm/model-a",
                                                             "mockllm/model-b"}
    assert main(["run", str(logs["json"][0]), "--k", "3", "--scorer", "nope"]) == 2
    assert "no scorer 'nope'" in capsys.readouterr().err


def test_not_a_log_is_a_data_error(tmp_path):
    bad = tmp_path / "broken.eval"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DataError, match="not a readable Inspect AI log") as err:
        load_datasets(bad)
    assert err.value.source == str(bad)


def test_score_values_map_as_documented():
    assert [score_to_outcome(v) for v in ("C", "I", "P", "N")] == [1.0, 0.0, 0.5, 0.0]
    assert [score_to_outcome(v) for v in ("yes", "No", "TRUE", "false", " 0.5 ")] == \
        [1.0, 0.0, 1.0, 0.0, 0.5]
    assert [score_to_outcome(v) for v in (True, False, 0, 1, 0.75)] == [1.0, 0.0, 0.0, 1.0, 0.75]
    for bad in ({"a": 1}, [1], 1.5, -0.1, float("nan"), "c", "maybe", None):
        assert score_to_outcome(bad) is None


def test_committed_demo_logs_load_as_inspect_reads_them():
    demo = sorted((HERE.parents[1] / "data" / "inspect_demo").glob("*.eval"))
    assert [p.name for p in demo] == ["model-a.eval", "model-b.eval"]
    with pytest.warns(UserWarning, match="errored"):
        datasets = load_datasets(demo, scorer="match")
    scored = [(m, s) for p in demo for m, _, samples in [_inspect_samples(p)] for s in samples
              if s.error is None]
    assert len(datasets) == len(scored) == 17
    assert [ds.outcome for ds in datasets] == [INSPECT_VALUE[s.scores["match"].value]
                                               for _, s in scored]


def test_input_format_forces_the_inspect_reader(logs, tmp_path):
    odd = tmp_path / "log.txt"
    odd.write_bytes(logs["json"][0].read_bytes())
    from agenteval.core import InspectLogRetriever

    # which model's log sorts first depends on Inspect's file names; count what Inspect reads
    _, _, samples = _inspect_samples(logs["json"][0])
    scored = sum(sample.error is None for sample in samples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the errored sample, when in this log
        datasets = load_datasets(odd, input_format="inspect", scorer="match")
        assert len(datasets) == scored and all(ds.outcome is not None for ds in datasets)
        assert len(InspectLogRetriever(logs["json"][0], scorer="graded").load_dataset()) == scored
    with pytest.raises(ConfigError, match="scorer applies to Inspect AI logs only"):
        load_datasets(HERE.parents[1] / "data" / "agentic_demo.jsonl", scorer="match")
