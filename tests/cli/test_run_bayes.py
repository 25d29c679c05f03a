"""`agenteval run --mode hierarchical | empirical-bayes`: diagnostics printed, posterior files written."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenteval.cli import main
from tests.conftest import DEMO


def test_hierarchical_mode_prints_diagnostics_and_writes_posterior(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    args = ["run", str(DEMO), "--k", "3", "--mode", "hierarchical", "--draws", "300", "--tune", "300",
            "--chains", "2", "--seed", "7", "--out", str(out), "--figures", "pdf", "png"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "tasks fit (18 units" in text and "max r_hat" in text and "divergences" in text
    assert (out / "posterior.nc").stat().st_size > 10_000
    for stem in ("pass_posterior", "forest", "shrinkage", "prior_posterior"):
        for ext in ("pdf", "png"):
            assert (out / "figures" / f"{stem}.{ext}").stat().st_size > 2000
    from agenteval._util import arviz as _arviz

    post = _arviz.group(_arviz.from_netcdf(str(out / "posterior.nc")), "posterior")
    assert post.sizes["chain"] == 2 and post.sizes["draw"] == 300


def test_empirical_bayes_mode_and_flag_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(DEMO), "--k", "3", "--mode", "empirical-bayes"]) == 0
    assert "(mu, kappa) posterior by 2-D grid quadrature" in capsys.readouterr().out
    assert main(["run", str(DEMO), "--k", "3", "--mode", "bayesian", "--chains", "2"]) == 2
    assert "--chains applies to --mode hierarchical" in capsys.readouterr().err


def test_not_identified_is_one_warning_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "single.jsonl"
    data.write_text("".join(
        f'{{"session_id": "s{i}", "assistant_id": "a", "task_id": "t{i}", "conversation": [{{"qa_id": '
        f'"1", "query": "q", "assistant": "4", "ground_truth_assistant": "4"}}]}}\n' for i in range(4)))
    assert main(["run", str(data), "--k", "3", "--mode", "bayesian"]) == 0
    captured = capsys.readouterr()
    assert "agenteval: warning: one attempt per task" in captured.err
    assert "not identified" in captured.out
