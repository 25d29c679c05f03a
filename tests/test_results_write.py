"""Writing results: ``results.save`` is what ``--out`` writes, atomically and as one set; a
symbolic link is never written through; a full disk or a read-only folder is one line naming
the file and leaves the previous run whole; loading a results file never runs what it names.

The disk cases use real small file systems (tmpfs, mounted by the test where it may mount; else
skipped) and, where a mount is not possible, an OSError raised at the write.
"""

from __future__ import annotations

import base64
import errno
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

import agenteval
from agenteval import Agentic, DataError, FrequentistMode
from agenteval.cli import main
from agenteval.errors import ConfigError, OutputError
from agenteval.rag_results import RagResults
from agenteval.results import write as writer
from agenteval.results.manifest import describe_source

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "agentic_demo.jsonl"
RAG_DEMO = ROOT / "data" / "rag_demo.jsonl"
FAST = ["--k", "3", "--mode", "frequentist"]


def _run(out: Path, *extra: str) -> int:
    return main(["run", str(DEMO), *FAST, "--out", str(out), "--quiet", *extra])


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def _tiny_png() -> bytes:
    """A valid 2x1 PNG, written by hand."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"\x00" + b"\x10\x20\x30" * 2
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _no_staging(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if p.name.startswith(".agenteval-staging-")
                or p.name.endswith(".tmp")]


# --------------------------------------------------------------------------- save == --out


def test_save_writes_what_the_cli_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path / "cli") == 0
    capsys.readouterr()
    results = Agentic.run(str(DEMO), k=3, statistical_mode=FrequentistMode())
    written = results.save(tmp_path / "py")
    cli, py = _files(tmp_path / "cli"), _files(tmp_path / "py")
    assert cli == py == {p.relative_to(tmp_path / "py").as_posix() for p in written}
    for name in sorted(cli - {"results.json", "report.html"}):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "py" / name).read_bytes(), name
    a, b = (json.loads((tmp_path / d / "results.json").read_text()) for d in ("cli", "py"))
    assert a["summary"] == b["summary"] and a["conversations"] == b["conversations"]
    assert a["manifest"]["outputs"] == b["manifest"]["outputs"] == sorted(cli)
    assert a["manifest"]["command"].startswith("agenteval run")
    assert b["manifest"]["call"].startswith("Agentic.run(")


def test_cli_and_magic_select_through_the_public_function(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    from agenteval.core import selection as module

    calls = []
    real = module.select

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "select", spy)
    assert main(["run", str(DEMO), *FAST, "--agent", "agent-gpt-small", "--limit", "4",
                 "--format", "csv", "--quiet"]) == 0
    assert calls and calls[0]["agents"] == ["agent-gpt-small"] and calls[0]["limit"] == 4


def test_select_is_public_and_names_its_options() -> None:
    datasets = agenteval.load_datasets(str(DEMO))
    agents = sorted({d.assistant_id for d in datasets})
    chosen = agenteval.select(datasets, agents=[agents[0]], limit=3)
    assert [d.session_id for d in chosen] == [d.session_id for d in datasets
                                              if d.assistant_id == agents[0]][:3]
    assert agenteval.select(datasets) == datasets
    with pytest.raises(ConfigError, match=r"^agents='nobody': no such assistant_id .*have: "):
        agenteval.select(datasets, agents="nobody")
    with pytest.raises(ConfigError, match=r"^--task t9: no such task_id"):
        agenteval.select(datasets, tasks=["t9"], names={"tasks": "--task"})
    with pytest.raises(ConfigError, match=r"^limit must be an integer >= 1, got 0"):
        agenteval.select(datasets, limit=0)


def test_the_magic_imports_no_private_name() -> None:
    import ast

    tree = ast.parse((ROOT / "agenteval" / "jupyter.py").read_text())
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                and (n.module or "").startswith("agenteval") for a in n.names]
    assert imported and not [name for name in imported if name.startswith("_")]


# --------------------------------------------------------------------------- one set


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_rerun_into_a_used_out_leaves_only_its_own_files(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["run", str(DEMO), "--k", "3", "--mode", "bayesian", "--limit", "12",
                 "--figures", "png", "pdf", "--out", str(out), "--quiet"]) == 0
    first = _files(out)
    assert {"posterior.nc", "figures/forest.png", "figures/pass_posterior.pdf"} <= first
    old = [base64.b64encode((out / "figures" / f"{stem}.png").read_bytes()).decode()
           for stem in ("forest", "pass_posterior")]
    (out / "notes.txt").write_text("mine")               # not agenteval's: never touched
    mine = _tiny_png()
    (out / "figures" / "mine.png").write_bytes(mine)     # not listed by a manifest: kept
    assert _run(out) == 0
    capsys.readouterr()
    manifest = json.loads((out / "results.json").read_text())["manifest"]
    assert _files(out) == set(manifest["outputs"]) | {"notes.txt", "figures/mine.png"}
    assert not {"posterior.nc", "figures/forest.png"} & _files(out)
    report = (out / "report.html").read_text()
    assert not [b for b in old if b in report]  # the old run's figures are not this report's
    assert base64.b64encode(mine).decode() in report  # the user's own figure still is
    assert _no_staging(out)


def test_rag_runs_share_a_folder_and_use_the_same_writer(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rag"
    assert main(["rag", "recall", str(RAG_DEMO), "--out", str(out), "--quiet"]) == 0
    assert main(["rag", "precision", str(RAG_DEMO), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert _files(out) == set(writer.rag_files("recall")) | set(writer.rag_files("precision"))
    data = json.loads((out / "recall.json").read_text())
    manifest = data["manifest"]
    assert manifest["outputs"] == sorted(writer.rag_files("recall"))
    assert manifest["command"].startswith("agenteval rag recall")
    assert manifest["data"]["sha256"] == describe_source(RAG_DEMO)["sha256"]
    assert manifest["statistical_mode"]["class"].endswith("FrequentistMode")
    assert manifest["judge_run"]["judge"] == data["summary"]["judge"]["judge"]
    page = (out / "recall_report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "partial-recall" in page
    again = RagResults.from_json(out / "recall.json")
    assert again.summary().mean == pytest.approx(data["summary"]["mean"])


def test_rag_honours_the_modes_seed_and_draws() -> None:
    from agenteval import ContextualRecall
    from agenteval.statistical import rag as rm

    def run(**kwargs):
        return ContextualRecall.run(str(RAG_DEMO), statistical_mode=FrequentistMode(**kwargs))

    a, b, c = run(rng_seed=1, bootstrap_samples=300), run(rng_seed=1, bootstrap_samples=300), \
        run(rng_seed=2, bootstrap_samples=300)
    sa, sc = a.summary(), c.summary()
    assert (sa.ci_low, sa.ci_high) == (b.summary().ci_low, b.summary().ci_high)
    assert (sa.ci_low, sa.ci_high) != (sc.ci_low, sc.ci_high)
    assert "(300 seeded draws)" in sa.method
    scores = [case.score for case in a]
    mean, low, high = rm.mean_interval([float("nan") if s is None else s for s in scores],
                                       level=0.95, draws=300, seed=1)
    assert (sa.mean, sa.ci_low, sa.ci_high) == pytest.approx((mean, low, high))


# --------------------------------------------------------------------------- links


def test_a_planted_symlink_is_refused_and_not_written_through(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    (out / "summary.csv").symlink_to(victim)
    assert _run(out) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "summary.csv" in err and "symbolic link" in err
    assert victim.read_text() == "keep" and (out / "summary.csv").is_symlink()
    assert _files(out) == {"summary.csv"}  # the link, and nothing written beside it


def test_a_linked_figures_folder_is_refused(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "figures").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ConfigError, match="figures is a symbolic link"):
        writer.check_out_dir(out)
    assert list(elsewhere.iterdir()) == []


def test_the_report_of_show_is_written_atomically_and_not_through_a_link(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert _run(out) == 0
    victim = tmp_path / "victim.html"
    victim.write_text("keep")
    link = tmp_path / "report-link.html"
    link.symlink_to(victim)
    assert main(["show", str(out), "--report", str(link)]) == 2
    assert "symbolic link" in capsys.readouterr().err and victim.read_text() == "keep"


# --------------------------------------------------------------------------- disks


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[callable]:
    """Mount a tmpfs of the given size (and options) under tmp_path; skipped where the test may
    not mount (not root, no CAP_SYS_ADMIN)."""
    mounted: list[Path] = []

    def mount(size: str, *, options: str = "") -> Path:
        where = tmp_path / f"disk{len(mounted)}"
        where.mkdir()
        opts = f"size={size}" + (f",{options}" if options else "")
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def _fill(disk: Path, leave: int) -> None:
    """Take all but ``leave`` bytes of the disk."""
    free = shutil.disk_usage(disk).free
    with open(disk / "filler", "wb") as fh:
        fh.write(b"\0" * max(free - leave, 0))


def test_a_full_disk_is_one_line_and_keeps_the_previous_run(
        small_disk: callable, capsys: pytest.CaptureFixture[str]) -> None:
    disk = small_disk("4m")
    out = disk / "out"
    assert _run(out) == 0
    before = (out / "results.json").read_bytes()
    files = _files(out)
    _fill(disk, 64 * 1024)
    capsys.readouterr()
    assert _run(out, "--agent", "agent-gpt-small") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No space left on device" in err[0]
    assert err[0].startswith(f"agenteval: error: cannot write {out}/")
    assert (out / "results.json").read_bytes() == before and _files(out) == files
    json.loads(before)  # still a whole, valid file
    assert _no_staging(out)


def test_a_read_only_disk_is_a_usage_error_before_judging(
        small_disk: callable, capsys: pytest.CaptureFixture[str]) -> None:
    disk = small_disk("1m", options="ro")
    assert _run(disk / "out") == 2
    err = capsys.readouterr().err.strip()
    assert "cannot write there (Read-only file system)" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES])
def test_an_error_at_the_write_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str], code: int) -> None:
    out = tmp_path / "out"
    assert _run(out) == 0
    before = (out / "results.json").read_bytes()
    capsys.readouterr()

    def failing(path: Path, data: object) -> None:
        raise OSError(code, os.strerror(code), str(path))

    monkeypatch.setattr(writer, "_write_json", failing)
    assert _run(out) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"agenteval: error: cannot write {out / 'results.json'}: {os.strerror(code)}"
    assert (out / "results.json").read_bytes() == before and _no_staging(out)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_full_disk_while_writing_the_posterior_does_not_kill_the_process(small_disk: callable) -> None:
    """HDF5 crashes the process (SIGSEGV) after a failed write on a full disk; the NetCDF file
    is written by a child, so the run reports one line and exits 1 (here in a fresh process,
    so a crash would show as a signal exit code)."""
    disk = small_disk("1m")
    out = disk / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cli = "import sys; from agenteval.cli import main; sys.exit(main())"
    done = subprocess.run([sys.executable, "-c", cli, "run", str(DEMO), "--k", "3",
                           "--mode", "bayesian", "--out", str(out), "--quiet"],
                          capture_output=True, text=True, env=env, timeout=600)
    err = done.stderr.strip().splitlines()
    assert done.returncode == 1, done.stderr[-2000:]
    assert err[-1].startswith(f"agenteval: error: cannot write {out}/"), err[-3:]
    assert "posterior.nc" in err[-1] or "No space left on device" in err[-1]
    assert not (out / "results.json").exists() and _no_staging(out)


def test_write_netcdf_reports_a_crash_of_the_writer(small_disk: callable) -> None:
    import numpy as np

    az = pytest.importorskip("arviz")
    disk = small_disk("64k")
    data = az.from_dict(posterior={"p": np.random.default_rng(0).random((2, 4000, 3))})
    with pytest.raises(OutputError, match=r"cannot write .*posterior\.nc: "):
        writer.write_netcdf(data.to_netcdf, disk / "posterior.nc")
    assert not (disk / "posterior.nc").exists()


# --------------------------------------------------------------------------- loading runs nothing


def _hostile(tmp_path: Path, spec: dict) -> Path:
    out = tmp_path / "out"
    assert _run(out) == 0
    data = json.loads((out / "results.json").read_text())
    data["manifest"]["statistical_mode"] = spec
    (out / "results.json").write_text(json.dumps(data))
    return out


@pytest.mark.parametrize("name", ["agenteval.cli.main", "agenteval.cli.run.run_command",
                                  "agenteval.results.io.load_results", "os.system",
                                  "builtins.eval", "agenteval.statistical.modes.StatisticalMode"])
def test_a_results_file_that_names_a_callable_runs_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    sentinel = tmp_path / "sentinel"
    argv = ["run", str(DEMO), "--k", "1", "--out", str(sentinel)]
    out = _hostile(tmp_path, {"class": name, "params": {"argv": argv, "command": f"touch {sentinel}"},
                              "repr": "x"})
    capsys.readouterr()
    with pytest.raises(DataError, match="unknown statistical mode class") as info:
        agenteval.load_results(out)
    assert "\n" not in str(info.value)
    with pytest.raises(DataError, match="unknown statistical mode class"):
        agenteval.AgenticResults.from_json(json.loads((out / "results.json").read_text()))
    assert main(["show", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown statistical mode class" in err
    assert not sentinel.exists()


def test_a_results_file_may_pass_only_the_modes_own_parameters(tmp_path: Path) -> None:
    out = _hostile(tmp_path, {"class": "FrequentistMode", "params": {"__init__": "x"}})
    with pytest.raises(DataError, match="FrequentistMode has no parameter '__init__'"):
        agenteval.load_results(out)
    out = _hostile(tmp_path, {"class": "agenteval.statistical.modes.BayesianMode",
                              "params": {"mc_samples": {"nested": 1}}})
    with pytest.raises(DataError, match="parameter 'mc_samples' must be a number"):
        agenteval.load_results(out)
    out = _hostile(tmp_path, {"class": "BayesianMode", "params": {"mc_samples": 300,
                                                                  "rng_seed": 7}})
    mode = agenteval.load_results(out).settings.mode
    assert isinstance(mode, agenteval.BayesianMode) and (mode.mc_samples, mode.rng_seed) == (300, 7)
