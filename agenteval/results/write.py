"""Writing a run's outputs into a folder as one set: ``save`` (what ``agenteval run --out`` and
``agenteval rag --out`` write), every file atomically.

How: every file is first written into a hidden staging folder inside the output folder (the
same file system), then each is renamed into place (``os.replace``: atomic per file, and it
replaces a path, never writes through one). A failure while writing (a full disk, no
permission) removes the staging folder and leaves the previous run's files as they were, with
one :class:`~agenteval.errors.OutputError` naming the file; ``results.json`` is renamed last, so
it always describes a complete set. What a run wrote is recorded in its manifest
(``manifest.outputs``), and the files a previous run of the same kind wrote that this run does
not are removed, so a folder never mixes two runs (the report never embeds another run's
figures). A symbolic link at an output path, or a linked folder on the way, is refused (a
ConfigError) before anything is written.

The posterior's NetCDF file is written by a forked child process where the platform has
``fork``: the HDF5 library can crash the process (SIGSEGV) after a failed write on a full disk,
and a crash of the child is reported as one line instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from agenteval._util.files import check_no_link, fsync_file, output_error
from agenteval.errors import ConfigError, OutputError

__all__ = ["AGENTIC_FILES", "DEFAULT_FIGURES", "FIGURES", "FIGURE_FORMATS", "Staging",
           "check_out_dir", "rag_files", "save", "save_rag", "write_netcdf"]

RESULTS_FILE = "results.json"
AGENTIC_FILES = ("conversations.csv", "interactions.csv", "summary.csv", "quality.csv",
                 "comparisons.csv", "ranking.csv", "graders.csv", "grader_checks.csv",
                 "calibration.csv", "calibration_agreement.csv",
                 "calibration_disagreements.csv", "calibration_comparisons.csv",
                 "summary.tex", "comparisons.tex", "posterior.nc", "posterior_conversation.nc",
                 "report.html", RESULTS_FILE)
"""Every top-level file an agentic run can write (which ones depends on the mode, the agents,
the graders and the labels)."""
CONVERSATION_FILE_LIMIT = 2_000
"""Most conversations for which --out writes posterior_conversation.nc beside posterior.nc (its
log-likelihood and replicated counts are draws x conversations: 15-30 s and 1 GB at 10,000 on a
loaded 2-core machine);
``results.to_netcdf(path, level="conversation")`` writes it at any size."""
FIGURES = ("pass_posterior", "forest", "shrinkage", "prior_pull", "prior_posterior")
"""The posterior figures of the Bayesian modes, each as ``figures/<name>.<format>``."""
FIGURE_FORMATS = ("png", "pdf", "svg")
DEFAULT_FIGURES = ("png",)
"""Figure files --out writes by default: the report embeds PNG; each further format costs about
as much again as the whole offline evaluation of the demo (PDF: font embedding)."""
_FIGURE = re.compile(r"figures/[A-Za-z0-9][A-Za-z0-9_.-]*\.(?:pdf|png|svg)")
_STAGING = ".agenteval-staging-"


def rag_files(metric: str) -> tuple[str, ...]:
    """The files of one RAG metric's run (``precision`` or ``recall``); a precision run and a
    recall run share a folder without touching each other's files."""
    return (f"{metric}_cases.csv", f"{metric}_details.csv", f"{metric}_summary.csv",
            f"{metric}_report.html", f"{metric}.json")


def _owns_agentic(name: str) -> bool:
    return name in AGENTIC_FILES or _FIGURE.fullmatch(name) is not None


class Staging:
    """The files of one run, written into a staging folder and then renamed into ``out``."""

    def __init__(self, out: Path, owns: Callable[[str], bool]) -> None:
        self.out = out
        self.owns = owns
        self.root = Path(tempfile.mkdtemp(prefix=_STAGING, dir=out))
        self.names: list[str] = []
        self.current = "a file"
        """The output being written (what an error without a file name is about)."""

    def path(self, name: str) -> Path:
        """Where to write output ``name`` (a path relative to ``out``, e.g. ``figures/x.png``)."""
        if not self.owns(name):
            raise ValueError(f"{name!r} is not one of this run's outputs")
        check_no_link(self.out / name, self.out)
        target = self.root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name not in self.names:
            self.names.append(name)
        self.current = name
        return target

    def name_of(self, path: str | Path) -> str:
        """The output name of a path inside the staging folder (for error messages)."""
        try:
            return Path(path).resolve().relative_to(self.root.resolve()).as_posix()
        except (ValueError, OSError):
            return str(path)

    def commit(self, previous: Iterable[str]) -> list[Path]:
        """Rename every staged file into place (``results.json`` last), then remove what the
        previous run of this kind wrote that this one did not. Returns the files in ``out``."""
        order = sorted(self.names, key=lambda n: n == RESULTS_FILE)
        for name in order:
            check_no_link(self.out / name, self.out)
            fsync_file(self.root / name)
        done = []
        for name in order:
            final = self.out / name
            final.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.root / name, final)
            done.append(final)
        for name in sorted(set(previous) - set(self.names)):
            stale = self.out / name
            if self.owns(name) and (stale.is_file() or stale.is_symlink()):
                check_no_link(stale.parent, self.out)
                stale.unlink()
        with contextlib.suppress(OSError):
            (self.out / "figures").rmdir()  # only when empty: no figures this run
        return done

    def discard(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def check_out_dir(out: str | Path, names: Iterable[str] = AGENTIC_FILES) -> Path:
    """Create ``out`` if needed and check that it can take the outputs: a folder, writable, no
    symbolic link at an output's path. Called before judging, so a bad ``--out`` costs nothing;
    its errors are ConfigErrors (bad usage: the CLI exits 2)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out}: exists and is not a directory; choose a directory "
                          "path (it is created if missing)")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ConfigError(f"--out {out}: cannot write there ({reason}); choose a directory "
                          "you can write to, e.g. --out out/run1") from None
    for name in [*names, "figures"]:
        check_no_link(out / name, out)
    return out


def _previous(out: Path, index: str, known: Sequence[str], owns: Callable[[str], bool]
              ) -> set[str]:
    """What the last run of this kind left: the outputs its manifest lists (only names this
    kind of run writes: a manifest never names other files to delete), and, for folders of
    runs before manifests listed them, the known names present."""
    found = {name for name in known if (out / name).is_file() or (out / name).is_symlink()}
    found |= {f"figures/{stem}.{ext}" for stem in FIGURES for ext in FIGURE_FORMATS
              if owns(f"figures/{stem}.{ext}") and (out / "figures" / f"{stem}.{ext}").is_file()}
    try:
        with open(out / index, encoding="utf-8") as fh:
            listed = (json.load(fh).get("manifest") or {}).get("outputs") or []
    except (OSError, ValueError, AttributeError):
        listed = []
    if isinstance(listed, list):
        found |= {n for n in listed if isinstance(n, str) and owns(n) and ".." not in n}
    return found


def _write_set(out: str | Path, owns: Callable[[str], bool], known: Sequence[str], index: str,
               build: Callable[[Staging, set[str]], None]) -> list[Path]:
    out = check_out_dir(out, known)
    previous = _previous(out, index, known, owns)
    try:
        stage = Staging(out, owns)
    except OSError as exc:
        raise output_error(out, exc) from None
    try:
        build(stage, previous)
        return stage.commit(previous)
    except OSError as exc:
        name = stage.name_of(exc.filename) if exc.filename else stage.current
        raise output_error(out / name, exc) from None
    except OutputError as exc:  # from a writer that names its (staged) file: name the output
        raise OutputError(str(exc).replace(f"{stage.root}{os.sep}", f"{out}{os.sep}")) from None
    finally:
        stage.discard()


class _Streamed:
    """JSON data ``{**head, key: list(items)}`` whose items are written one at a time."""

    def __init__(self, head: dict[str, Any], key: str, items: Iterable[Any]) -> None:
        self.head, self.key, self.items = head, key, items


def _write_json(path: Path, data: Any) -> None:
    if isinstance(data, _Streamed):
        _write_json_stream(path, data.head, data.key, data.items)
        return
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2)
        fh.write("\n")


_BLOCK = 20_000
"""Conversations per block when a writer streams (the CSV files, results.json): what is held
at once while writing is one block's rows, whatever the suite's size."""


def _write_json_stream(path: Path, head: dict[str, Any], key: str, items: Iterable[Any]) -> None:
    """``_write_json(path, {**head, key: list(items)})`` (the same text, byte for byte), with
    the items serialised one at a time."""
    text = json.dumps({**head, key: []}, indent=2)
    tail = "[]\n}"
    assert text.endswith(tail)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text[:-len(tail)])
        first = True
        for item in items:
            fh.write("[\n    " if first else ",\n    ")
            fh.write(json.dumps(item, indent=2).replace("\n", "\n    "))
            first = False
        fh.write("[]\n}\n" if first else "\n  ]\n}\n")


def _conversation_records(results: Any) -> Iterable[Any]:
    from agenteval._util.jsonsafe import json_safe

    for m in results:
        yield json_safe(m.model_dump())


def _csv_blocks(results: Any, frame: str, path: Path) -> None:
    """One CSV file written a block of conversations at a time (``results.<frame>(start,
    stop)``); a column whose type pandas would infer differently in a block than in the whole
    (integers beside missing values: floats) is given its whole-column type, so the file is
    the one a single frame writes."""
    from agenteval._util.sanitize import csv_frame

    make = getattr(results, frame)
    size = len(results)
    if size <= _BLOCK:
        csv_frame(make()).to_csv(path, index=False)
        return
    floats = _int_columns_with_gaps(results) if frame == "conversations_frame" else set()
    with open(path, "w", encoding="utf-8", newline="") as fh:
        for start in range(0, size, _BLOCK):
            part = make(start, start + _BLOCK)
            for name in floats & set(part.columns):
                part[name] = part[name].astype(float)
            csv_frame(part).to_csv(fh, index=False, header=start == 0)


def _int_columns_with_gaps(results: Any) -> set[str]:
    """Per-conversation integer columns with some values missing (``attempt``): pandas reads
    them as floats in one frame."""
    columns = getattr(results, "columns", None)
    if columns is None or columns.held is not None:
        return set()
    _, none = columns.conv["attempt"]
    return {"attempt"} if none.any() and not none.all() else set()


def _write_text(text: str, path: Path) -> None:
    path.write_text(text, encoding="utf-8")


def _csv(frame: Any, path: Path, **kwargs: Any) -> None:
    """A CSV file whose cells cannot start a spreadsheet formula (``_util.sanitize``)."""
    from agenteval._util.sanitize import csv_frame

    csv_frame(frame).to_csv(path, **kwargs)


def save(results: Any, out: str | Path, *, datasets: Sequence[Any] | None = None,
         max_conversations: int | None = None,
         figures: Sequence[str] = DEFAULT_FIGURES) -> list[Path]:
    """Write what ``agenteval run --out OUT`` writes: conversations.csv, interactions.csv,
    summary.csv, quality.csv, summary.tex (with several agents also comparisons.csv, ranking.csv
    and comparisons.tex; with graders graders.csv and grader_checks.csv), results.json,
    report.html and, in the Bayesian modes, posterior.nc (ArviZ data of the default fit level:
    tasks where there are task_ids), posterior_conversation.nc (the conversation level, up to
    ``CONVERSATION_FILE_LIMIT`` conversations) and the figures in ``figures/``
    (``figures``: their formats, any of png, pdf, svg; the report embeds the PNG ones).
    Returns the files written.

    ``datasets`` (the conversations evaluated) give the report the queries, answers and tool
    calls; without them they are read again from the data file the manifest names when it is
    unchanged, else the report shows the verdicts only. ``max_conversations`` caps the report's
    drill-down (default 500).
    """
    from agenteval.present.report import DEFAULT_MAX_CONVERSATIONS, write_report

    cap = DEFAULT_MAX_CONVERSATIONS if max_conversations is None else max_conversations
    formats = tuple(dict.fromkeys(f.lower().lstrip(".") for f in figures))
    unknown = [f for f in formats if f not in FIGURE_FORMATS]
    if unknown:
        raise ConfigError(f"figure format {unknown[0]!r}: use any of {', '.join(FIGURE_FORMATS)}")
    summary = results.summary()
    if datasets is None:
        datasets = _report_datasets(results, cap)

    def build(stage: Staging, previous: set[str]) -> None:
        from agenteval.results.figure_files import FigureJob

        drawn = results.settings.mode.get_result_type() == "distribution"
        with FigureJob(results, stage.root, formats if drawn else ()) as drawing:
            # drawn beside the files below (in a child where a core is spare)
            _csv_blocks(results, "conversations_frame", stage.path("conversations.csv"))
            _csv_blocks(results, "interactions_frame", stage.path("interactions.csv"))
            _csv(summary.to_dataframe(), stage.path("summary.csv"))
            _csv(results.quality(), stage.path("quality.csv"), index=False)
            if summary.comparisons:
                _csv(summary.comparisons_dataframe(), stage.path("comparisons.csv"), index=False)
                _csv(summary.ranking_dataframe(), stage.path("ranking.csv"), index=False)
            _write_text(summary.to_latex(), stage.path("summary.tex"))  # paper tables (booktabs)
            if summary.comparisons:
                _write_text(summary.to_latex("comparisons"), stage.path("comparisons.tex"))
            _write_graders(results, stage)
            _write_calibration(results, stage)
            if drawn:
                _write_posterior(results, stage)
            for name in drawing.wait():
                stage.path(name)
        write_report(results, stage.path("report.html"), datasets=datasets,
                     figures=_report_figures(stage, previous), lists_dir=stage.root,
                     max_conversations=cap)
        path = stage.path(RESULTS_FILE)
        if hasattr(results, "json_head"):
            head = results.json_head()
            head["manifest"]["outputs"] = sorted(stage.names)
            _write_json(path, _Streamed(head, "conversations", _conversation_records(results)))
        else:
            data = results.to_json()
            data["manifest"]["outputs"] = sorted(stage.names)
            _write_json(path, data)

    return _write_set(out, _owns_agentic, AGENTIC_FILES, RESULTS_FILE, build)


def _report_datasets(results: Any, cap: int | None) -> Any:
    """The conversations the report drills down into, read again from the data file the
    manifest names (``present.report.datasets_from_manifest``); from a JSONL file only those
    the report shows are kept (a block at a time: a big suite is never held whole)."""
    from agenteval.core.retriever import iter_dataset_blocks, streams
    from agenteval.present.report import datasets_from_manifest, drill_down_order
    from agenteval.results.manifest import describe_source

    data = (getattr(results, "provenance", {}) or {}).get("data") or {}
    path = next((p for p in (data.get("path"), data.get("resolved")) if p and Path(p).is_file()),
                None)
    if path is None or not streams(path) or cap is None or cap >= len(results):
        return datasets_from_manifest(results)
    try:
        if describe_source(path).get("sha256") != data.get("sha256"):
            return None
        wanted = {results.session_ids[i] for i in drill_down_order(results)[:cap]}
        return [ds for block in iter_dataset_blocks(path) for ds in block
                if ds.session_id in wanted]
    except (OSError, ValueError):
        return None


def _report_figures(stage: Staging, previous: set[str]) -> list[Path]:
    """The PNG figures the report embeds: the user's own in the folder (neither this run's nor
    one a previous run wrote), then this run's."""
    from agenteval.present.report import find_figures

    ours = previous | set(stage.names)
    theirs = [p for p in find_figures(stage.out) if p.relative_to(stage.out).as_posix() not in ours]
    return theirs + find_figures(stage.root)


def _write_graders(results: Any, stage: Staging) -> None:
    """graders.csv and grader_checks.csv when the run had graders."""
    from agenteval.graders.summary import checks_dataframe, graders_dataframe

    frame = graders_dataframe(results)
    if len(frame):
        _csv(frame, stage.path("graders.csv"), index=False)
        _csv(checks_dataframe(results), stage.path("grader_checks.csv"), index=False)


def _write_calibration(results: Any, stage: Staging) -> None:
    """calibration*.csv when the run was given human labels (``results.calibration``)."""
    calibration = results.calibration()
    if calibration is None:
        return
    _csv(calibration.to_dataframe(), stage.path("calibration.csv"))
    _csv(calibration.agreement_dataframe(), stage.path("calibration_agreement.csv"))
    _csv(calibration.disagreements_dataframe(), stage.path("calibration_disagreements.csv"),
         index=False)
    if calibration.comparisons:
        _csv(calibration.comparisons_dataframe(), stage.path("calibration_comparisons.csv"),
             index=False)


def _write_posterior(results: Any, stage: Staging) -> None:
    """posterior.nc (and posterior_conversation.nc where it is quick), from the draws the
    results hold (nothing is sampled again)."""
    from agenteval._util.netcdf import load_writer, write_draws
    from agenteval.results.inference_data import inference_layout, levels

    load_writer()   # once here, not in each forked writer

    shown = levels(results)   # posterior.nc: the default level (task where there are task_ids)
    if len(results) > CONVERSATION_FILE_LIMIT:   # the conversation level only where it is quick
        shown = shown[:1]
    if not shown:   # a huge suite: per-unit draws left out; the per-agent draws as they are
        write_netcdf(lambda target: write_draws(results.posterior_draws(), target),
                     stage.path("posterior.nc"), name=stage.out / "posterior.nc")
    for level in shown:
        layout = inference_layout(results, level=level)
        name = "posterior.nc" if level == shown[0] else f"posterior_{level}.nc"
        write_netcdf(lambda target, layout=layout: write_draws(layout, target),
                     stage.path(name), name=stage.out / name)


def write_netcdf(write: Callable[[str], Any], path: str | Path, *,
                 name: str | Path | None = None) -> Path:
    """``write(path)`` (a NetCDF writer) that cannot take the process down: run in a forked
    child where ``fork`` exists (HDF5 may crash the process after a failed write on a full
    disk), any failure reported as one OutputError naming ``name`` (default: ``path``)."""
    from agenteval._util.forked import ChildCrashed, Forked, can_fork

    path, shown = Path(path), Path(name) if name is not None else Path(path)
    if not can_fork():  # pragma: no cover - Windows
        try:
            write(str(path))
        except OSError as exc:
            raise output_error(shown, exc) from None
        return path
    try:
        with Forked(lambda: write(str(path))) as child:
            child.wait()
    except ChildCrashed as crash:
        free = shutil.disk_usage(path.parent).free
        text = (f"the NetCDF writer crashed (signal {crash.signal}) with {free} bytes free on "
                "that disk" + ("; the disk is full" if free < 1 << 20 else ""))
    except Exception as exc:  # noqa: BLE001 - any failure of the writer is one line
        reason = (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).splitlines()
        text = reason[0] if reason else "the NetCDF writer failed"
    else:
        return path
    for left in [path, *path.parent.glob(f".{path.name}.*.tmp")]:  # the writer's own temp
        with contextlib.suppress(OSError):
            left.unlink()
    raise OutputError(f"cannot write {shown}: {text}")
    read, done = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (its coverage is not collected)
        os.close(read)
        import faulthandler

        faulthandler.disable()  # a crash here is reported by the parent, in one line
        quiet = os.open(os.devnull, os.O_WRONLY)  # HDF5's dying words are not the user's line
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        message = b""
        try:
            write(str(path))
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent
            message = (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).encode()
        os.write(done, message[:4000])
        os._exit(1 if message else 0)
    os.close(done)
    chunks = []
    while chunk := os.read(read, 4096):
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        reason = b"".join(chunks).decode(errors="replace").splitlines()
        if code < 0:
            free = shutil.disk_usage(path.parent).free
            text = (f"the NetCDF writer crashed (signal {-code}) with {free} bytes free on that "
                    "disk" + ("; the disk is full" if free < 1 << 20 else ""))
        else:
            text = reason[0] if reason else "the NetCDF writer failed"
        for left in [path, *path.parent.glob(f".{path.name}.*.tmp")]:  # the writer's own temp
            with contextlib.suppress(OSError):
                left.unlink()
        raise OutputError(f"cannot write {shown}: {text}")
    return path


def save_rag(results: Any, out: str | Path) -> list[Path]:
    """Write what ``agenteval rag METRIC --out OUT`` writes, for METRIC precision or recall:
    ``METRIC_cases.csv``, ``METRIC_details.csv``, ``METRIC_summary.csv``, ``METRIC_report.html``
    and ``METRIC.json`` (with the manifest). Returns the files written."""
    from agenteval.present.rag import report_html

    metric = results.metric.removeprefix("contextual_")
    names = rag_files(metric)

    def build(stage: Staging, previous: set[str]) -> None:
        _csv(results.to_dataframe(), stage.path(names[0]), index=False)
        _csv(results.details_dataframe(), stage.path(names[1]), index=False)
        _csv(results.summary().to_dataframe(), stage.path(names[2]))
        with open(stage.path(names[3]), "w", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(report_html(results))
        data = results.to_json()
        path = stage.path(names[4])
        data["manifest"]["outputs"] = sorted(stage.names)
        _write_json(path, data)

    return _write_set(out, lambda name: name in names, names, names[4], build)
