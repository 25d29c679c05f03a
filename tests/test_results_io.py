"""results.json reloads into the same results (no re-judging) and carries a manifest."""

from __future__ import annotations

import hashlib
import io
import json
from importlib import metadata
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import agenteval
from agenteval import AgenticResults, BayesianMode, FrequentistMode
from agenteval.cli import main
from agenteval.errors import DataError
from agenteval.results.io import load_results, mode_from_spec, mode_spec
from agenteval.results.manifest import _without_secrets
from tests.conftest import DEMO


def _mixed_data(tmp_path: Path) -> Path:
    """Demo conversations plus some the offline judge cannot score (NaN and None fields)."""
    lines = DEMO.read_text().splitlines()
    extra = {"session_id": "no-ref", "assistant_id": "agent-gpt-small", "task_id": "calc-discount",
             "conversation": [{"qa_id": "q1", "query": "1+1?", "assistant": "2"},
                              {"qa_id": "q2", "query": "2+2?", "assistant": "4",
                               "ground_truth_assistant": "4"}]}
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([*lines, json.dumps(extra)]) + "\n")
    return path


MODES = [FrequentistMode(), FrequentistMode(interval="clopper-pearson", ci_level=0.9),
         BayesianMode(), BayesianMode(beta_prior_a=0.5, beta_prior_b=2.0, rng_seed=7, mc_samples=999),
         BayesianMode(method="empirical_bayes", prior_mu=(0.123456789, 2.0))]


def _save(results: AgenticResults, path: Path) -> Path:
    path.write_text(json.dumps(results.to_json()), encoding="utf-8")
    return path


def _untimed(summary: dict) -> dict:
    """A fit's wall time is the one thing a recomputation may change."""
    diagnostics = [{k: v for k, v in d.items() if k != "seconds"} for d in summary.get("diagnostics", [])]
    return {**summary, "diagnostics": diagnostics}


def _assert_same(a: AgenticResults, b: AgenticResults) -> None:
    assert len(a) == len(b) and a.k == b.k and a.method == b.method
    assert repr(a.settings.mode) == repr(b.settings.mode)
    assert_frame_equal(a.to_dataframe(), b.to_dataframe())
    assert_frame_equal(a.interactions_dataframe(), b.interactions_dataframe())
    sa, sb = a.summary(), b.summary()
    assert_frame_equal(sa.to_dataframe(), sb.to_dataframe())
    assert_frame_equal(sa.comparisons_dataframe(), sb.comparisons_dataframe())
    if not sa.diagnostics:
        assert sa.to_text() == sb.to_text()
    ja, jb = a.to_json(), b.to_json()
    assert _untimed(ja["summary"]) == _untimed(jb["summary"])
    assert ja["conversations"] == jb["conversations"]


@pytest.mark.parametrize("mode", MODES, ids=repr)
@pytest.mark.parametrize("recompute", [False, True])
def test_round_trip_restores_summary_dataframes_and_comparisons(tmp_path: Path, mode, recompute) -> None:
    original = agenteval.Agentic.run(str(_mixed_data(tmp_path)), k=3, statistical_mode=mode)
    assert original.summary().comparisons and any(m.judge_errors for m in original)
    path = _save(original, tmp_path / "results.json")
    loaded = load_results(path, recompute=recompute)
    assert (loaded._summary is None) == recompute     # recompute: rebuilt through summary()
    _assert_same(original, loaded)
    assert loaded.judge_run == original.judge_run


def test_from_json_and_the_out_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    # frequentist: the same files without the posterior figures, which only cost time here
    assert main(["run", str(DEMO), "--k", "2", "--mode", "frequentist", "--out", str(out)]) == 0
    capsys.readouterr()
    data = json.loads((out / "results.json").read_text())
    by_method = AgenticResults.from_json(data)
    by_folder = agenteval.load_results(out)
    fresh = agenteval.Agentic.run(str(DEMO), k=2, statistical_mode=FrequentistMode())
    _assert_same(fresh, by_method)
    _assert_same(fresh, by_folder)
    # the summary CSV the run wrote is the reloaded summary's, written the same way
    again = io.StringIO(by_folder.summary().to_dataframe().to_csv())
    assert_frame_equal(pd.read_csv(out / "summary.csv", index_col="group"),
                       pd.read_csv(again, index_col="group"))


def test_manifest_records_versions_data_mode_and_command(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", str(DEMO), "--k", "4", "--mode", "bayesian", "--prior", "2", "3", "--format", "json"]
    assert main(args) == 0
    manifest = json.loads(capsys.readouterr().out)["manifest"]
    assert manifest["agenteval"] == agenteval.__version__
    for lib in ("numpy", "scipy", "pandas", "pydantic"):
        assert manifest["libraries"][lib] == metadata.version(lib)
    assert manifest["data"] == {"path": str(DEMO), "resolved": str(DEMO.resolve()),
                                "bytes": DEMO.stat().st_size,
                                "sha256": hashlib.sha256(DEMO.read_bytes()).hexdigest()}
    assert manifest["command"] == "agenteval " + " ".join(args)
    spec = manifest["statistical_mode"]
    assert spec["class"] == "agenteval.statistical.modes.BayesianMode"
    given = {"mc_samples": 5000, "ci_level": 0.95, "beta_prior_a": 2.0, "beta_prior_b": 3.0,
             "rng_seed": 42, "method": "empirical_bayes"}   # --mode bayesian: the pooled default
    assert {name: spec["params"].get(name) for name in given} == given
    assert manifest["settings"]["k"] == 4 and manifest["judge"] == {"judge": "offline"}
    assert manifest["created"].endswith("+00:00")


def test_python_call_is_recorded(tmp_path: Path) -> None:
    results = agenteval.Agentic.run(str(DEMO), k=2, threshold=0.8)
    manifest = results.to_json()["manifest"]
    assert manifest["call"].startswith(f"Agentic.run('{DEMO}', model=None, k=2, threshold=0.8")
    assert manifest["data"]["sha256"] == hashlib.sha256(DEMO.read_bytes()).hexdigest()
    assert "FrequentistMode" in manifest["call"] and manifest["command"] is None


@pytest.mark.parametrize("mode", [*MODES, BayesianMode(
    method="hierarchical", draws=123, tune=45, chains=3, target_accept=0.85, rng_seed=9,
    prior_mu=(0.123456789, 2.0), prior_log_kappa=(1.25, 0.75), share_across_agents=True)], ids=repr)
def test_mode_spec_rebuilds_an_equal_mode(mode) -> None:
    spec = json.loads(json.dumps(mode_spec(mode)))
    assert spec["rebuilds_exactly"] is True
    again = mode_from_spec(spec)
    assert repr(again) == repr(mode)
    for name in ("prior", "sampler", "share_across_agents", "bootstrap_samples"):
        assert getattr(again, name, None) == getattr(mode, name, None)


def test_a_mode_that_cannot_be_rebuilt_exactly_is_flagged_and_warned(tmp_path: Path) -> None:
    class Opaque(BayesianMode):
        """Keeps its prior under other names: the spec cannot see it."""

        def __init__(self, strength: float = 1.0) -> None:
            super().__init__(beta_prior_a=strength, beta_prior_b=strength)

    mode = Opaque(3.0)
    spec = mode_spec(mode)
    assert spec["rebuilds_exactly"] is False
    assert mode_spec(BayesianMode())["rebuilds_exactly"] is True
    results = agenteval.Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode())
    data = results.to_json()
    data["manifest"]["statistical_mode"]["rebuilds_exactly"] = False
    with pytest.warns(UserWarning, match="could not be rebuilt exactly"):
        AgenticResults.from_json({**data, "summary": None})


def test_mode_spec_refuses_foreign_classes() -> None:
    with pytest.raises(DataError, match="unknown statistical mode"):
        mode_from_spec({"class": "os.system", "params": {}})
    with pytest.raises(DataError, match="cannot rebuild"):
        mode_from_spec({"class": "agenteval.statistical.modes.BayesianMode",
                        "params": {"no_such_option": 1}})


def test_endpoint_secrets_are_stripped() -> None:
    assert (_without_secrets("https://user:sk-secret@example.org:8443/v1?api-key=sk-secret#x")
            == "https://example.org:8443/v1")


@pytest.mark.parametrize(("content", "message"), [
    (None, "no results.json here"),
    ("{not json", "not a results file"),
    ('{"conversations": []}', "no manifest"),
    ('[1, 2]', "not an agenteval results file"),
])
def test_bad_results_files_are_data_errors(tmp_path: Path, content: str | None, message: str) -> None:
    if content is not None:
        (tmp_path / "results.json").write_text(content)
    with pytest.raises(DataError, match=message):
        load_results(tmp_path)


def test_a_summary_from_another_schema_is_recomputed(tmp_path: Path) -> None:
    original = agenteval.Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode())
    data = original.to_json()
    data["summary"]["rows"][0]["a_field_from_the_future"] = 1
    loaded = AgenticResults.from_json(data)
    assert loaded._summary is None
    _assert_same(original, loaded)


def test_the_summary_carries_the_interactions_every_unjudged_share_is_of(tmp_path: Path) -> None:
    """``summary.judge['interactions']``: the run's interactions and how many got a verdict; a
    file written before it was kept (neither the summary nor the judge's details hold it)
    loads, and its summary gets it from the conversations; the views read it from there."""
    from agenteval.present.html import results_html
    from agenteval.present.report import render_report

    original = agenteval.Agentic.run(str(_mixed_data(tmp_path)), k=3)
    judged, total = original.judged_share()
    assert 0 < judged < total
    want = {"total": total, "judged": judged, "not_judged": total - judged}
    assert original.summary().judge["interactions"] == want
    assert original.summary().judged_share() == (judged, total)
    old = original.to_json()
    del old["summary"]["judge"]["interactions"]
    del old["manifest"]["judge_run"]["details"]["interactions"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    loaded = load_results(path)
    assert loaded._summary is not None and loaded.summary().judge["interactions"] == want
    # every view's share is the summary's: change it there and the views follow
    loaded.summary().judge["interactions"] = {"total": 400, "judged": 300, "not_judged": 100}
    assert "100 interaction(s) could not be judged</span> (of 400, 25.0%)" in results_html(loaded)
    page = render_report(loaded)
    assert "100 of 400 interactions could not be judged (25.0%)" in page
    assert "300 of 400 interactions judged (75.0%)" in page


def test_show_prints_the_past_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["run", str(DEMO), "--mode", "frequentist", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["show", str(out)]) == 0
    text = capsys.readouterr().out
    fresh = agenteval.Agentic.run(str(DEMO), k=3, statistical_mode=FrequentistMode())
    assert fresh.summary().to_text() in text
    assert f"sha256 {hashlib.sha256(DEMO.read_bytes()).hexdigest()[:12]}" in text
    assert "agenteval run" in text and "FrequentistMode(" in text
    assert main(["show", str(out / "results.json"), "--conversations"]) == 0
    assert "calc-discount-gpt-small-1" in capsys.readouterr().out
    assert main(["show", str(out), "--format", "json"]) == 0
    parsed = json.loads(capsys.readouterr().out)
    assert parsed["summary"] == fresh.to_json()["summary"]
    assert main(["show", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("agenteval: error:") and "no results.json here" in err


def test_a_folder_source_hashes_names_and_contents(tmp_path: Path) -> None:
    from agenteval.results_io import describe_source

    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "a.json").write_text("A")
    (tmp_path / "logs" / "b.json").write_text("BB")
    got = describe_source(tmp_path / "logs")
    want = hashlib.sha256(b"a.json\0A" + b"b.json\0BB").hexdigest()
    assert got == {"path": str(tmp_path / "logs"), "resolved": str((tmp_path / "logs").resolve()),
                   "bytes": 3, "sha256": want, "files": 2}


def test_mode_spec_reads_settings_dataclasses_and_the_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    """Constructor arguments kept in a settings dataclass, or only visible in the repr."""
    from dataclasses import dataclass

    from agenteval.statistical import modes

    @dataclass(frozen=True)
    class Sampler:
        draws: int
        chains: int

    class HolderMode(BayesianMode):
        def __init__(self, *, draws: int = 10, chains: int = 2,
                     prior_mu: tuple[float, float] = (1.0, 1.0)) -> None:
            super().__init__()
            self.sampler = Sampler(draws, chains)
            self._mu = tuple(prior_mu)

        get_params = None   # opt out of BayesianMode's: the spec must find the settings itself

        def __repr__(self) -> str:
            return (f"HolderMode(draws={self.sampler.draws}, chains={self.sampler.chains}, "
                    f"prior_mu={self._mu!r})")

    HolderMode.__module__, HolderMode.__qualname__ = modes.__name__, "HolderMode"
    monkeypatch.setattr(modes, "HolderMode", HolderMode, raising=False)
    mode = HolderMode(draws=300, chains=3, prior_mu=(2.5, 0.5))
    spec = json.loads(json.dumps(mode_spec(mode)))
    assert spec["params"] == {"draws": 300, "chains": 3, "prior_mu": [2.5, 0.5]}
    # issue 18.1: a results file rebuilds only FrequentistMode / BayesianMode (an allow-list);
    # any other class, even one found in agenteval.statistical.modes, is refused, so its spec
    # says it does not rebuild and a reload uses the stored summary
    assert spec["rebuilds_exactly"] is False
    with pytest.raises(DataError, match="unknown statistical mode class 'agenteval.statistical"):
        mode_from_spec(spec)


def test_a_call_on_in_memory_data_is_described_without_the_data() -> None:
    records = [json.loads(line) for line in DEMO.read_text().splitlines()]
    manifest = agenteval.Agentic.run(records, k=1).to_json()["manifest"]
    assert manifest["call"].startswith(f"Agentic.run(<{len(records)} list items>, model=None, k=1")
    assert manifest["data"] is None


def test_reloaded_results_give_the_same_inference_data(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    original = agenteval.Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode())
    if not hasattr(original, "to_inference_data"):
        pytest.skip("no ArviZ export in this build")
    pytest.importorskip("arviz")
    loaded = load_results(_save(original, tmp_path / "results.json"))
    a, b = original.to_inference_data(), loaded.to_inference_data()
    assert list(a.groups()) == list(b.groups())
    for group in a.groups():
        for name, var in a[group].data_vars.items():
            np.testing.assert_array_equal(var.values, b[group][name].values)
