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


# ----------------------------------------------------------------------------- incomplete logs


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Logs Inspect wrote in the states a run ends in short of complete (issue 18.5):
    cancelled by SIGINT, stopped by an error, complete, and epochs beyond the configured count."""
    out = tmp_path_factory.mktemp("inspect-states")
    env = dict(os.environ, XDG_DATA_HOME=str(out / "xdg"), INSPECT_LOG_DIR=str(out / "default"))
    subprocess.run([sys.executable, str(HERE / "make_inspect_logs.py"), str(out), "--states"],
                   check=True, env=env, capture_output=True, text=True, timeout=300)
    return {p.stem: p for p in (out / "states").glob("*.eval")}


def _expected_incomplete(path: Path) -> dict[str, bool]:
    """session -> incomplete?, from Inspect's own reader: the log's status, its configured
    epochs, and the epochs each sample has in the log (errored unscored ones left out)."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path))
    configured = log.eval.config.epochs or 1
    kept = [s for s in log.samples if not (s.error is not None and not s.scores)]
    have: dict[str, set[int]] = {}
    for s in kept:
        have.setdefault(s.id, set()).add(s.epoch)
    return {f"{log.eval.model}/{log.eval.task}/{s.id}/epoch-{s.epoch}":
            log.status != "success" or s.epoch > configured
            or len(have[s.id] & set(range(1, configured + 1))) < configured for s in kept}


def test_inspect_wrote_the_states_the_tests_need(states):
    from inspect_ai.log import read_eval_log

    status = {name: read_eval_log(str(p), header_only=True).status for name, p in states.items()}
    assert status == {"cancelled": "cancelled", "error": "error", "success": "success",
                      "beyond": "success"}
    assert read_eval_log(str(states["beyond"]), header_only=True).eval.config.epochs == 2


@pytest.mark.parametrize("state", ["cancelled", "error", "beyond"])
def test_incomplete_logs_are_marked_per_sample_and_warned(states, state):
    """Before: these loaded as complete, exit 0 and no warning. After: every conversation of an
    incomplete sample says why in metadata['incomplete'], and one warning names the log."""
    from agenteval.core.inspect_logs import IncompleteLogWarning

    path = states[state]
    with pytest.warns(IncompleteLogWarning) as caught:
        datasets = load_datasets(path, scorer="match")
    [warning] = [w for w in caught if issubclass(w.category, IncompleteLogWarning)]
    text = str(warning.message)
    assert str(path) in text and "--strict" in text
    expected = _expected_incomplete(path)
    assert {ds.session_id: bool(ds.metadata.get("incomplete")) for ds in datasets} == expected
    assert any(expected.values())
    if state == "beyond":
        assert "beyond the configured 2" in text
        assert {ds.attempt for ds in datasets if ds.metadata.get("incomplete")} == {3}
        assert all("epoch 3 is beyond the configured 2" == ds.metadata["incomplete"]
                   for ds in datasets if ds.attempt == 3)
    else:
        assert f"status is {state!r}" in text and "fewer than the configured 3" in text
        assert all(f"status {state!r}" in ds.metadata["incomplete"] for ds in datasets)


def test_a_complete_log_loads_without_a_mark(states):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        datasets = load_datasets(states["success"], scorer="match")
    assert len(datasets) == 9 and not any("incomplete" in ds.metadata for ds in datasets)
    assert not any(_expected_incomplete(states["success"]).values())


@pytest.mark.parametrize("state", ["cancelled", "error", "beyond"])
def test_strict_makes_an_incomplete_log_an_error(states, state, capsys):
    from agenteval.core import InspectLogRetriever

    path = states[state]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(DataError, match="incomplete Inspect log") as err:
            Agentic.run(str(path), k=2, scorer="match", strict=True)
        assert err.value.source == str(path)
        with pytest.raises(DataError, match=r"incomplete Inspect log \(strict\)"):
            InspectLogRetriever(path, scorer="match", strict=True).load_dataset()
        assert main(["run", str(path), "--k", "2", "--scorer", "match", "--strict"]) == 2
        err_text = capsys.readouterr().err
        assert err_text.rstrip().splitlines()[-1].startswith(f"agenteval: error: {path}")
        assert main(["run", str(path), "--k", "2", "--scorer", "match"]) == 0
    assert Agentic.run(str(states["success"]), k=2, scorer="match", strict=True)


# ----------------------------------------------------------------------------- type errors


def _rewrite_eval(src: Path, dst: Path, entry: str, mutate) -> None:
    """Copy an .eval archive, one member's JSON changed by ``mutate`` (deflate: Inspect reads it)."""
    import zipfile

    pytest.importorskip("zipfile_zstd")  # Inspect's own zstd support for zipfile on Python < 3.14
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == entry:
                obj = json.loads(data)
                mutate(obj)
                data = json.dumps(obj).encode()
            zout.writestr(info.filename, data)


def test_a_type_error_in_a_log_is_one_line_naming_file_sample_and_field(states, tmp_path, capsys):
    """Before: 'ValidationError: 5 validation errors for EvalLog' and pydantic's multi-line
    dump cut at 200 characters. After: one line with the file, the sample, the field, what
    Inspect expects and what the file holds."""
    from inspect_ai.log import read_eval_log, write_eval_log

    def bad_role(sample):
        sample["messages"][1]["role"] = 5

    bad_eval = tmp_path / "bad.eval"
    _rewrite_eval(states["success"], bad_eval, "samples/s2_epoch_2.json", bad_role)
    copy = tmp_path / "copy.eval"
    _rewrite_eval(states["success"], copy, "", bad_role)
    assert len(load_datasets(copy, scorer="match")) == 9  # the rewrite alone is harmless
    with pytest.raises(DataError) as err:
        load_datasets(bad_eval, scorer="match")
    text = str(err.value)
    assert "\n" not in text and err.value.source == str(bad_eval)
    assert err.value.field == "samples[4].messages[1].role"
    assert "sample 's2' epoch 2" in text
    assert "Input should be 'system', 'user', 'assistant' or 'tool', got 5" in text

    good_json = tmp_path / "log.json"
    write_eval_log(read_eval_log(str(states["success"])), str(good_json), format="json")
    raw = json.loads(good_json.read_text())
    raw["samples"][1]["epoch"] = "second"
    bad_json = tmp_path / "bad.json"
    bad_json.write_text(json.dumps(raw))
    assert main(["run", str(bad_json), "--k", "1", "--scorer", "match"]) == 2
    line = capsys.readouterr().err
    assert line.count("\n") == 1, line
    assert line.startswith(f"agenteval: error: {bad_json}, field 'samples[1].epoch': ")
    assert "sample 's2' epoch 'second'" in line and "valid integer" in line
    assert "got 'second'" in line and "errors.pydantic.dev" not in line
