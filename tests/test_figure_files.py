"""The figures ``save`` writes: drawn in a forked child beside the other files (a warm one under
``agenteval run``), the same bytes as in-process, and every failure of that child raised in the
parent with the previous run left whole. Real forks of a real run on the demo."""

from __future__ import annotations

import filecmp
import os
import signal
from pathlib import Path

import pytest

from agenteval import Agentic, BayesianMode
from agenteval._util import forked
from agenteval.cli import main
from agenteval import plots
from agenteval.results import figure_files
from tests.conftest import DEMO

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="no fork on this platform")


@pytest.fixture(scope="module")
def results():
    return Agentic.run(str(DEMO), k=3, progress=False,
                       statistical_mode=BayesianMode(method="empirical_bayes"))


def _figures(out: Path) -> dict[str, Path]:
    return {p.name: p for p in sorted((out / "figures").iterdir())}


@pytest.fixture(scope="module")
def drawn_here(results, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The figures drawn in this process (no spare core: no child)."""
    out = tmp_path_factory.mktemp("here")
    spare, forked.spare_core = forked.spare_core, lambda: False
    try:
        results.save(out)
    finally:
        forked.spare_core = spare
    return _figures(out)


class _Counting(forked.Forked):
    started = 0

    def __init__(self, work) -> None:
        _Counting.started += 1
        super().__init__(work)


def test_a_child_draws_the_same_bytes_as_this_process(results, drawn_here, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    if not forked.spare_core():
        pytest.skip("one core: the figures are drawn in-process")
    monkeypatch.setattr(forked, "Forked", _Counting)
    _Counting.started = 0
    results.save(tmp_path / "late")
    assert _Counting.started == 3   # the figures' child and the two NetCDF writers
    assert set(drawn_here) == {"forest.png", "pass_posterior.png", "prior_posterior.png",
                               "shrinkage.png"}
    for name, path in _figures(tmp_path / "late").items():
        assert filecmp.cmp(path, drawn_here[name], shallow=False), name


def test_the_warm_worker_is_taken_by_the_first_save_and_draws_the_same(
        results, drawn_here, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not forked.spare_core():
        pytest.skip("one core: no warm worker")
    with figure_files.warm_worker():
        (warm,) = figure_files._WARM
        pid = warm.child._pid
        monkeypatch.setattr(forked, "Forked", _Counting)
        _Counting.started = 0
        results.save(tmp_path / "warm")
        assert not figure_files._WARM and warm.child._pid is None   # taken, waited for
        fresh_for_figures = _Counting.started - 2   # posterior.nc, posterior_conversation.nc
        results.save(tmp_path / "second")          # a second save forks its own child
    assert fresh_for_figures == 0
    assert _gone(pid)
    for out in ("warm", "second"):
        for name, path in _figures(tmp_path / out).items():
            assert filecmp.cmp(path, drawn_here[name], shallow=False), (out, name)


def test_a_warm_worker_nothing_took_is_stopped(tmp_path: Path) -> None:
    if not forked.spare_core():
        pytest.skip("one core: no warm worker")
    with figure_files.warm_worker():
        pid = figure_files._WARM[0].child._pid
    assert _gone(pid) and not figure_files._WARM


def test_results_that_do_not_pickle_get_a_fresh_child(results, drawn_here, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    if not forked.spare_core():
        pytest.skip("one core: the figures are drawn in-process")
    monkeypatch.setattr(results, "unpicklable", lambda: None, raising=False)
    with figure_files.warm_worker():
        pid = figure_files._WARM[0].child._pid
        results.save(tmp_path / "out")
    assert _gone(pid)
    for name, path in _figures(tmp_path / "out").items():
        assert filecmp.cmp(path, drawn_here[name], shallow=False), name


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _previous_run(out: Path) -> dict[str, bytes]:
    assert main(["run", str(DEMO), "--k", "3", "--out", str(out), "--quiet"]) == 0
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def _unchanged(out: Path, before: dict[str, bytes]) -> bool:
    now = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    return now == before


@pytest.mark.parametrize("warm", [True, False])
def test_a_bug_in_a_figure_is_raised_with_its_traceback_and_nothing_is_lost(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warm: bool) -> None:
    """An exception of agenteval's own inside the figures' child propagates (a bug must
    raise, not become a line of output), from ``agenteval run`` as from ``save``."""
    out = tmp_path / "out"
    before = _previous_run(out)

    def planted(*args, **kwargs):
        raise TypeError("planted in plot_forest")

    monkeypatch.setattr(plots, "plot_forest", planted)
    if warm:
        with pytest.raises(TypeError, match="planted in plot_forest") as raised:
            main(["run", str(DEMO), "--k", "3", "--out", str(out), "--quiet"])
    else:
        results = Agentic.run(str(DEMO), k=3, progress=False, statistical_mode=BayesianMode())
        with pytest.raises(TypeError, match="planted in plot_forest") as raised:
            results.save(out)
    if forked.spare_core():
        assert "in planted" in "\n".join(raised.value.__notes__)
    assert _unchanged(out, before)


def test_a_crash_of_the_figures_child_is_one_line_and_nothing_is_lost(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    if not forked.spare_core():
        pytest.skip("one core: the figures are drawn in-process")
    out = tmp_path / "out"
    before = _previous_run(out)
    capsys.readouterr()
    monkeypatch.setattr(plots, "plot_forest",
                        lambda *a, **k: os.kill(os.getpid(), signal.SIGSEGV))
    assert main(["run", str(DEMO), "--k", "3", "--out", str(out), "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"agenteval: error: cannot write {out}/figures: the figure writer crashed "
                   f"(signal {int(signal.SIGSEGV)})"]
    assert _unchanged(out, before)


def test_a_frequentist_run_draws_no_figure_and_starts_no_child(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "Forked", _Counting)
    _Counting.started = 0
    assert main(["run", str(DEMO), "--k", "3", "--mode", "frequentist", "--out",
                 str(tmp_path), "--quiet"]) == 0
    assert _Counting.started == 0 and not (tmp_path / "figures").exists()
