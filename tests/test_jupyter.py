"""The %agentic_eval magic in a real IPython shell: line and cell forms, variables, -o, errors.

Every case runs through ``shell.run_cell`` (IPython's own input transformations, so
``r = %agentic_eval ...`` is tested as a user types it) and is compared with the same evaluation
through the public function.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from agenteval import Agentic, BayesianMode, FrequentistMode
from agenteval.cli import build_parser as cli_parser
from agenteval.results import AgenticResults
from tests.conftest import DEMO, REPO

sys.path.insert(0, str(REPO / "tests" / "judge"))
from openai_server import FakeOpenAI, Status  # noqa: E402

IPython = pytest.importorskip("IPython")
from IPython.core.error import UsageError  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

ONE = {"session_id": "s1", "assistant_id": "a", "task_id": "t",
       "conversation": [{"qa_id": "1", "query": "2+2?", "assistant": "The result is 4.",
                         "ground_truth_assistant": "4"},
                        {"qa_id": "2", "query": "3+3?", "assistant": "7",
                         "ground_truth_assistant": "6"}]}
TWO = {"session_id": "s2", "assistant_id": "b",
       "conversation": [{"qa_id": "1", "query": "Capital of France?", "assistant": "Paris",
                         "ground_truth_assistant": "Paris"}]}
YAML_CELL = """\
- session_id: s1
  assistant_id: a
  task_id: t
  conversation:
    - qa_id: "1"
      query: 2+2?
      assistant: The result is 4.
      ground_truth_assistant: "4"
    - qa_id: "2"
      query: 3+3?
      assistant: "7"
      ground_truth_assistant: "6"
- session_id: s2
  assistant_id: b
  conversation:
    - {qa_id: "1", query: "Capital of France?", assistant: Paris, ground_truth_assistant: Paris}
"""


@pytest.fixture(scope="module")
def shell() -> Any:
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    result = ip.run_cell("%load_ext agenteval")
    assert result.success
    return ip


@pytest.fixture(autouse=True)
def _fresh_namespace(shell: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    for name in ("r", "saved", "convs", "df", "one", "rows", "bad", "h", "quiet", "long", "recs"):
        shell.user_ns.pop(name, None)


def run(shell: Any, code: str) -> Any:
    """Run one cell; return its result object (``.result``, ``.error_in_exec``)."""
    return shell.run_cell(code, store_history=False)


def same(a: AgenticResults, b: AgenticResults) -> None:
    """Identical numbers; the manifests differ only in what produced them (time, command)."""
    ja, jb = a.to_json(), b.to_json()
    ja.pop("manifest", None), jb.pop("manifest", None)
    assert ja == jb


def demo_dataframe() -> Any:
    """The demo data as a DataFrame, one row per interaction (the documented columns)."""
    import pandas as pd

    rows = []
    for line in DEMO.read_text().splitlines():
        ds = json.loads(line)
        for batch in ds["conversation"]:
            rows.append({"session_id": ds["session_id"], "assistant_id": ds["assistant_id"],
                         "task_id": ds.get("task_id"), **batch})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- line form


def test_line_magic_on_a_file_equals_the_function(shell: Any) -> None:
    out = run(shell, f"r = %agentic_eval {DEMO} --k 3 --mode bayesian --prior 2 3 -o saved")
    assert out.success
    r = shell.user_ns["r"]
    assert isinstance(r, AgenticResults) and shell.user_ns["saved"] is r
    same(r, Agentic.run(str(DEMO), k=3,
                        statistical_mode=BayesianMode(beta_prior_a=2, beta_prior_b=3)))
    manifest = r.to_json()["manifest"]
    assert manifest["command"] == f"%agentic_eval {DEMO} --k 3 --mode bayesian --prior 2 3 -o saved"
    assert manifest["data"]["path"] == str(DEMO) and len(manifest["data"]["sha256"]) == 64


def test_relative_path_is_read_from_the_working_directory(shell: Any) -> None:
    out = run(shell, "%agentic_eval data/agentic_demo.jsonl --k 2 --mode frequentist "
                     "--interval clopper-pearson")
    assert out.success and isinstance(out.result, AgenticResults)
    same(out.result, Agentic.run(str(DEMO), k=2,
                                 statistical_mode=FrequentistMode(interval="clopper-pearson")))


def test_the_magic_is_the_cells_value_and_shows_as_html(shell: Any) -> None:
    out = run(shell, f"%agentic_eval {DEMO} --k 3 --mode bayesian")
    assert isinstance(out.result, AgenticResults)
    data, _ = shell.display_formatter.format(out.result)
    assert "<table" in data["text/html"] and "data:image/png;base64," in data["text/html"]
    assert data["text/plain"].startswith("AgenticResults(73 conversations, k=3")


def test_a_dataframe_variable(shell: Any) -> None:
    shell.user_ns["df"] = demo_dataframe()
    out = run(shell, "r = %agentic_eval df --k 3 --threshold 0.5")
    assert out.success  # the CLI's default mode, Bayesian
    same(shell.user_ns["r"], Agentic.run(str(DEMO), k=3, threshold=0.5,
                                         statistical_mode=BayesianMode()))


def test_list_of_dicts_datasets_and_a_single_dict(shell: Any) -> None:
    from agenteval import load_datasets

    expected = Agentic.run([ONE, TWO], k=1, statistical_mode=FrequentistMode())
    shell.user_ns["convs"] = [ONE, TWO]
    shell.user_ns["rows"] = load_datasets([ONE, TWO])
    shell.user_ns["one"] = ONE
    same(run(shell, "%agentic_eval convs --k 1 --mode frequentist").result, expected)
    same(run(shell, "%agentic_eval rows --k 1 --mode frequentist").result, expected)
    same(run(shell, "%agentic_eval one --k 1").result,
         Agentic.run([ONE], k=1, statistical_mode=BayesianMode()))


def test_braces_expand_python_expressions(shell: Any) -> None:
    shell.user_ns["convs"] = [ONE, TWO]
    out = run(shell, "k = 2\nr = %agentic_eval convs --k {k}")
    assert out.success and shell.user_ns["r"].k == 2


def test_out_writes_the_cli_files(shell: Any, tmp_path: Path) -> None:
    shell.user_ns["convs"] = [ONE, TWO]
    assert run(shell, f"%agentic_eval convs --k 1 --out {tmp_path / 'o'}").success
    names = {p.name for p in (tmp_path / "o").iterdir()}
    assert {"conversations.csv", "interactions.csv", "results.json", "summary.csv",
            "report.html"} <= names  # what `agenteval run --out` writes


def test_llm_judge_flags_reach_the_judge(shell: Any) -> None:
    """The CLI's judge flags work in the magic: a real HTTP judge on 127.0.0.1."""
    shell.user_ns["convs"] = [ONE, TWO]
    with FakeOpenAI() as server:
        out = run(shell, f"r = %agentic_eval convs --k 1 --judge llm --judge-model m "
                         f"--base-url {server.base_url} --no-cache --max-concurrency 2")
        assert out.success
        assert len(server.requests) == 3  # one per interaction
        r = shell.user_ns["r"]
        # the fake server's verdict is 0.75 >= 0.7: every interaction correct
        assert [m.correct_interactions for m in r] == [2, 1]
        assert r.summary().judge["calls"] == 3
        server.reset()
        server.on(None, *[Status(500)] * 50)
        shell.user_ns["one"] = TWO
        before = shell.user_ns["r"]
        with capture_output() as shown:
            out = run(shell, f"r = %agentic_eval one --k 1 --judge llm --judge-model m "
                             f"--base-url {server.base_url} --no-cache -o saved")
    # nothing judged: the CLI exits 1, the magic raises (one line) after a red panel
    error = out.error_in_exec
    assert isinstance(error, UsageError) and shell.user_ns["r"] is before  # no value to assign
    assert str(error) == ("%agentic_eval: no interaction could be judged (the results are in "
                          "saved)")
    r = shell.user_ns["saved"]
    assert error.results is r and error.check.failed and error.check.judged == 0
    assert r[0].judge_errors == 1 and r[0].total_interactions == 0
    html = "".join(o.data.get("text/html", "") for o in shown.outputs)
    assert 'class="failed"' in html and "no interaction could be judged" in html
    assert "1 interaction(s) could not be judged" in html and "HTTP 500" in html
    assert "1 &times; http_5xx" in html  # grouped by kind, as the CLI prints "1 x http_5xx"
    html = shell.display_formatter.format(r)[0]["text/html"]
    assert "1 interaction(s) could not be judged" in html and "500" in html


# --------------------------------------------------------------------------- cell form


def test_cell_magic_json_lines(shell: Any) -> None:
    body = json.dumps(ONE) + "\n\n" + json.dumps(TWO) + "\n"
    out = run(shell, "%%agentic_eval --k 1 --mode bayesian -o saved\n" + body)
    assert out.success
    assert shell.user_ns["saved"] is out.result
    same(out.result, Agentic.run([ONE, TWO], k=1, statistical_mode=BayesianMode()))


def test_cell_magic_json_list_and_yaml(shell: Any) -> None:
    expected = Agentic.run([ONE, TWO], k=1, statistical_mode=BayesianMode())
    same(run(shell, "%%agentic_eval --k 1\n" + json.dumps([ONE, TWO], indent=2)).result, expected)
    same(run(shell, "%%agentic_eval --k 1\n" + YAML_CELL).result, expected)
    single = YAML_CELL.split("- session_id: s2")[0].replace("\n  ", "\n")[2:]
    same(run(shell, "%%agentic_eval --k 1\n" + single).result,
         Agentic.run([ONE], k=1, statistical_mode=BayesianMode()))


def test_cell_value_can_be_assigned_with_o(shell: Any) -> None:
    out = run(shell, "%%agentic_eval --k 1 -o saved\n" + json.dumps(TWO))
    assert out.success and shell.user_ns["saved"][0].session_id == "s2"


# --------------------------------------------------------------------------- errors


def _usage_error(shell: Any, capsys: pytest.CaptureFixture[str], code: str) -> str:
    from IPython.core.error import UsageError

    out = run(shell, code)
    assert isinstance(out.error_in_exec, UsageError), out.error_in_exec
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("UsageError:"), text
    return lines[0]


@pytest.mark.parametrize(("code", "message"), [
    ("%agentic_eval nothing_here --k 1", "SOURCE 'nothing_here' is neither a variable"),
    ("%agentic_eval --k 1", "the following arguments are required: SOURCE"),
    (f"%agentic_eval {DEMO} --k two", "argument --k: invalid int value: 'two'"),
    (f"%agentic_eval {DEMO} --k 0", "k must be an integer >= 1, got 0"),
    (f"%agentic_eval {DEMO} --k 1 --threshold 2", "threshold must be in [0, 1]"),
    (f"%agentic_eval {DEMO} --k 1 --mode magic", "invalid choice: 'magic'"),
    (f"%agentic_eval {DEMO} --k 1 --mode frequentist --prior 2 2", "--prior applies to --mode bayesian"),
    (f"%agentic_eval {DEMO} --k 1 --agent nobody", "--agent nobody: no such assistant_id"),
    (f"%agentic_eval {DEMO} --k 1 --max-calls 3", "--max-calls applies to --judge llm"),
    (f"%agentic_eval {DEMO} --k 1 --judge llm --judge-model m", "OPENAI_API_KEY"),
    (f"%agentic_eval {DEMO} --k 1 -o 2bad", "-o 2bad: not a valid Python variable name"),
    (f"%agentic_eval {DEMO} --k 1 --no-such-flag", "unrecognized arguments: --no-such-flag"),
    ("%agentic_eval 'unclosed --k 1", "No closing quotation"),
    ("%agentic_eval README.md --k 1", "unsupported file type '.md'"),
    ("%%agentic_eval --k 1\n", "the cell body is empty"),
    ("%%agentic_eval --k 1\n  \n", "the cell is empty"),
    ("%%agentic_eval data/agentic_demo.jsonl --k 1\n{}", "the cell body is the data; give no SOURCE"),
    ("%%agentic_eval --k 1\n" + json.dumps(ONE) + "\n{\"session_id\": \"s9\"",
     "%%agentic_eval cell, line 3: malformed JSON"),
    ("%%agentic_eval --k 1\n" + json.dumps(ONE) + "\n" + json.dumps(ONE),
     "%%agentic_eval cell, line 3, field 'session_id': duplicate session_id 's1'"),
    ("%%agentic_eval --k 1\n" + YAML_CELL.replace('query: "Capital of France?", ', ""),
     "%%agentic_eval cell, line 17, field 'conversation[0].query': missing required field"),  # the interaction's own line
    ("%%agentic_eval --k 1\n- a: 1\n  b: c: d\n",
     "%%agentic_eval cell, line 3: not JSON lines, and not valid YAML: mapping values are not allowed"),
    ("%%agentic_eval --k 1\n- just\n- words\n", "%%agentic_eval cell, line 2: expected a conversation (a mapping with session_id"),
    ("%%agentic_eval --k 1\n- {a: 1}\n---\n- {b: 2}\n", "line 2: expected a conversation"),
])
def test_user_errors_are_one_line(shell: Any, capsys: pytest.CaptureFixture[str], code: str,
                                  message: str) -> None:
    assert message in _usage_error(shell, capsys, code)


def test_a_bad_dataframe_names_the_row(shell: Any, capsys: pytest.CaptureFixture[str]) -> None:
    df = demo_dataframe()
    shell.user_ns["bad"] = df.drop(columns=["query"])
    assert "query" in _usage_error(shell, capsys, "%agentic_eval bad --k 1")


def test_a_real_bug_keeps_its_traceback(shell: Any) -> None:
    run(shell, "from agenteval import Retriever\n"
               "class Broken(Retriever):\n"
               "    def load_dataset(self):\n"
               "        raise RuntimeError('bug in user code')\n"
               "bad = Broken()")
    out = run(shell, "%agentic_eval bad --k 1")
    assert isinstance(out.error_in_exec, RuntimeError)


def test_help_prints_usage_and_returns_nothing(shell: Any, capsys: pytest.CaptureFixture[str]) -> None:
    out = run(shell, "h = %agentic_eval --help")
    assert out.success and shell.user_ns["h"] is None
    text = capsys.readouterr().out
    assert text.startswith("usage: %agentic_eval SOURCE --k K") and "-o NAME" in text
    out = run(shell, "%%agentic_eval -h\n{}")
    assert out.success


def test_the_magic_accepts_every_cli_option() -> None:
    """Its parser is the CLI's: a flag another module adds to `agenteval run` is there too."""
    from agenteval.jupyter import build_parser

    cli = next(a for a in cli_parser()._actions if a.dest == "command").choices["run"]
    cli_options = {s for a in cli._actions for s in a.option_strings}
    magic_options = {s for a in build_parser()._actions for s in a.option_strings}
    assert cli_options - {"-o"} <= magic_options
    assert {"-o", "--output-name"} <= magic_options


def test_label_cluster_in_the_magic_is_calibrate_with_that_cluster(shell: Any) -> None:
    """``--label-cluster task`` (the CLI's flag) gives calibrate(..., cluster='task')."""
    from agenteval._util.jsonsafe import json_safe
    from agenteval.results.calibration import calibrate

    labels = REPO / "data" / "agentic_demo_labels.jsonl"
    out = run(shell, f"r = %agentic_eval {DEMO} --k 3 --mode frequentist --labels {labels} "
                     "--label-cluster task --quiet")
    assert out.success
    r = shell.user_ns["r"]
    assert r.label_cluster == "task"
    want = calibrate(Agentic.run(str(DEMO), k=3, statistical_mode=FrequentistMode()), labels,
                     cluster="task")
    got, want = json_safe(r.calibration().model_dump()), json_safe(want.model_dump())
    assert got["corrected"] == want["corrected"] and got["comparisons"] == want["comparisons"]
    assert "cluster bootstrap" in got["corrected"][0]["method"]


def test_load_ext_registers_both_forms(shell: Any) -> None:
    magics = shell.magics_manager.magics
    assert "agentic_eval" in magics["line"] and "agentic_eval" in magics["cell"]


def test_several_files_as_the_cli_reads_them(shell: Any, tmp_path: Path) -> None:
    """SOURCE may be several files (one per agent), exactly as `agenteval run a b`."""
    from agenteval import load_datasets

    lines = DEMO.read_text().splitlines()
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("\n".join(x for x in lines if '"agent-gpt-small"' in x) + "\n")
    b.write_text("\n".join(x for x in lines if '"agent-gpt-small"' not in x) + "\n")
    out = run(shell, f"r = %agentic_eval {a} {b} --k 3")
    assert out.success
    same(shell.user_ns["r"], Agentic.run(load_datasets([str(a), str(b)]), k=3,
                                         statistical_mode=BayesianMode()))
    assert shell.user_ns["r"].to_json()["manifest"]["data"]["files"][1]["path"] == str(b)


# --------------------------------------------------------------------------- CLI parity (issue 20.4)

PART = {"session_id": "p1", "assistant_id": "a", "task_id": "t",
        "conversation": [{"qa_id": "1", "query": "2+2?", "assistant": "4",
                          "ground_truth_assistant": "4"},
                         {"qa_id": "2", "query": "3+3?", "assistant": "6",
                          "ground_truth_assistant": "6"},
                         {"qa_id": "3", "query": "4+4?", "assistant": "8"}]}  # no reference
"""Two of three interactions judged: the offline judge cannot judge one without a reference."""


def test_min_judged_is_the_clis_policy(shell: Any, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Below --min-judged the CLI exits 1 and the magic raises with the same sentence; at a
    lower --min-judged both accept the run and warn with the same causes, grouped by kind."""
    from agenteval.cli import main

    path = tmp_path / "part.jsonl"
    path.write_text(json.dumps(PART) + "\n")
    shell.user_ns["convs"] = [PART]
    with capture_output() as shown:
        out = run(shell, "%agentic_eval convs --k 1 --mode frequentist -o saved")
    assert isinstance(out.error_in_exec, UsageError)
    magic_error = str(out.error_in_exec)
    assert main(["run", str(path), "--k", "1", "--mode", "frequentist", "--quiet"]) == 1
    cli_err = capsys.readouterr().err
    sentence = ("only 2 of 3 interactions (66.7%) were judged, below --min-judged 0.95, so the "
                "estimates rest on part of the data")
    assert sentence in magic_error and f"agenteval: error: {sentence}" in cli_err
    assert magic_error.endswith("(the results are in saved)")
    html = "".join(o.data.get("text/html", "") for o in shown.outputs)
    assert 'class="failed"' in html and sentence in html
    assert "1 interaction(s) could not be judged</span> (of 3, 33.3%)" in html
    assert shell.user_ns["saved"].judged_share() == (2, 3)

    out = run(shell, "r = %agentic_eval convs --k 1 --mode frequentist --min-judged 0.5")
    assert out.success and shell.user_ns["r"].judged_share() == (2, 3)
    magic_warning = capsys.readouterr().err
    assert main(["run", str(path), "--k", "1", "--mode", "frequentist", "--quiet",
                 "--min-judged", "0.5"]) == 0
    cli_warning = capsys.readouterr().err
    warning = [line for line in magic_warning.splitlines() if line.strip()]
    assert warning[0].startswith("agenteval: warning: 1 of 3 interactions (33.3%) could not be")
    assert all(line in cli_warning for line in warning)  # the same lines, the same grouping
    html = shell.display_formatter.format(shell.user_ns["r"])[0]["text/html"]
    assert 'class="failed"' not in html and "1 &times; no_reference" in html


@pytest.mark.parametrize("tail", [";", " ;", ";  "])
def test_a_trailing_semicolon_is_not_part_of_the_name(shell: Any, tail: str) -> None:
    shell.user_ns["convs"] = [ONE, TWO]
    with capture_output() as shown:  # stored as a notebook stores it: IPython's ';' check reads history
        out = shell.run_cell(f"%agentic_eval convs --k 1 -o quiet{tail}", store_history=True)
    assert out.success and not shown.outputs and "AgenticResults" not in shown.stdout  # hidden
    assert isinstance(shell.user_ns["quiet"], AgenticResults)
    assert "quiet;" not in shell.user_ns
    out = shell.run_cell(f"r = %agentic_eval convs --k 1 -o quiet{tail}", store_history=True)
    assert out.success and shell.user_ns["r"] is shell.user_ns["quiet"]  # assigned, not hidden
    assert shell.user_ns["quiet"].to_json()["manifest"]["command"] == "%agentic_eval convs --k 1 -o quiet"
    out = run(shell, "%%agentic_eval --k 1 -o saved;\n" + json.dumps(TWO))
    assert out.success and shell.user_ns["saved"][0].session_id == "s2"


def test_help_is_short_and_every_flag_in_it_is_the_clis(shell: Any,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from agenteval.jupyter import CLI_ONLY, build_parser

    assert run(shell, "%agentic_eval --help").success
    text = capsys.readouterr().out
    lines = text.rstrip("\n").splitlines()
    assert len(lines) <= 30 and max(map(len, lines)) <= 100
    parser = build_parser()
    known = {s for a in parser._actions for s in a.option_strings}
    shown = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", text)) - {"-o"}  # -o is the magic's
    assert shown <= known, shown - known
    options = text[text.index("  SOURCE"):]
    order = [options.index(flag) for flag in ("-o NAME", "--k K", "--mode", "--min-judged",
                                              "--judge", "--out", "--quiet")]
    assert order == sorted(order)  # notebook-relevant options first
    assert "--format" not in text and "--strict" not in text
    mode = next(a for a in parser._actions if a.dest == "mode")
    assert all(choice in text for choice in mode.choices)
    assert run(shell, "%agentic_eval --help-all").success
    full = capsys.readouterr().out
    assert "--strict" in full and "--argument-matching" in full and "--format" not in full
    for dest in CLI_ONLY:
        flag = "--" + dest.replace("_", "-")
        message = _usage_error(shell, capsys, f"%agentic_eval {DEMO} --k 1 {flag} json")
        assert f"{flag} is a CLI option" in message and "to_dataframe()" in message


def test_the_mcmc_fit_shows_its_progress(shell: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """A hierarchical run: one bar per NUTS fit with chains, draws and tuning, on stderr."""
    code = (f"r = %agentic_eval {DEMO} --k 3 --mode hierarchical --chains 2 --draws 1500 "
            "--tune 500 --seed 1")
    assert run(shell, code).success
    err = capsys.readouterr().err.replace("\r", "\n")
    bars = [line for line in err.splitlines() if line.startswith("NUTS fit")]
    assert bars, err[-2000:]
    assert all("2 chains x 1500 draws + 500 tune" in line for line in bars)
    assert any("4000/4000" in line for line in bars)  # chains x (tune + draws) draws counted
    assert {"(73 units", "(18 units"} <= {line[9:18] for line in bars}  # both fits
    assert run(shell, code + " --quiet").success
    assert "NUTS fit" not in capsys.readouterr().err


def test_repr_of_results_and_of_one_conversation(shell: Any) -> None:
    out = run(shell, f"r = %agentic_eval {DEMO} --k 3\nr")
    r = out.result
    text = shell.display_formatter.format(r)[0]["text/plain"]
    assert len(text.splitlines()) <= 8 and len(text) < 1000
    rows = [json.loads(line) for line in DEMO.read_text().splitlines()]
    agents = sorted({row["assistant_id"] for row in rows})
    for agent in agents:  # counted here from the results' own per-conversation fields
        mine = [m for m in r if m.assistant_id == agent]
        full = sum(m.is_fully_correct is True for m in mine)
        assert f"{agent:<25}{full}/{len(mine)} fully correct" in text
    row = r.summary().rows[0]
    assert f"p {row.rate:.3f} [{row.rate_low:.3f}, {row.rate_high:.3f}]" in text
    one = shell.display_formatter.format(r[0])[0]["text/plain"]
    m = r[0]
    assert len(one.splitlines()) == 3 and len(one) < 400, one
    assert m.session_id in one and f"c/n = {m.correct_interactions}/{m.total_interactions}" in one
    assert f"pass@3 {m.pass_at_k:.3f} [{m.pass_at_k_ci_low:.3f}, {m.pass_at_k_ci_high:.3f}]" in one
    assert " ".join(f"{i.qa_id}:" for i in m.interactions) in " ".join(
        w[: w.index(":") + 1] for w in one.splitlines()[2].split() if ":" in w)
    assert len(repr(m.interactions[0])) < 200


def test_tiny_probabilities_read_as_the_cli_prints_them(shell: Any, tmp_path: Path) -> None:
    """The HTML's P(A > B) cells are the CLI text's tokens ('< 0.001', not '0' or '1.2e-05'),
    and so are the report's."""
    from html import unescape

    out = run(shell, f"r = %agentic_eval {DEMO} --k 3\nr")
    r = out.result
    text = r.summary().to_text()
    cli = re.findall(r"P\(A > B\) (< 0\.001|> 0\.999|\d\.\d{3}|n/a|\S+)", text)
    html = r._repr_html_()
    table = html[html.index("Agent comparisons"):]
    table = table[table.index("<tbody>"):table.index("</tbody>")]
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in table.split("<tr>")[1:]]
    head = html[html.index("Agent comparisons"):]
    names = re.findall(r"<th[^>]*>(.*?)</th>", head[:head.index("</thead>")])
    col = [n.startswith("prob a better") for n in names].index(True)
    shown = [unescape(c[col]) for c in cells]
    assert shown == cli and "< 0.001" in shown
    r.save(tmp_path / "o", figures=())
    report = (tmp_path / "o" / "report.html").read_text()
    assert "&lt; 0.001" in report and not re.search(r">\d\.\de-0\d<", report)


def test_yaml_errors_name_the_fields_line_and_say_to_quote(shell: Any,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    body = YAML_CELL.replace('assistant: "7"', "assistant: 7")  # body line 11: the cell's 12
    message = _usage_error(shell, capsys, "%%agentic_eval --k 1\n" + body)
    assert message == ("UsageError: %%agentic_eval cell, line 12, field "
                       "'conversation[1].assistant': expected a string, got 7: quote it to make "
                       "it text, \"7\"; YAML reads unquoted 4, 1.5, yes, no, null as non-strings")
    body = YAML_CELL.replace("      query: 3+3?\n", "")  # interaction "2" starts at body line 9
    message = _usage_error(shell, capsys, "%%agentic_eval --k 1\n" + body)
    assert message.startswith("UsageError: %%agentic_eval cell, line 10, field "
                              "'conversation[1].query': missing required field")
    convs = [dict(ONE, conversation=[dict(ONE["conversation"][0], assistant=4)])]
    shell.user_ns["convs"] = convs  # the same hint for dicts (and JSON), without YAML's
    message = _usage_error(shell, capsys, "%agentic_eval convs --k 1")
    assert message.endswith("expected a string, got 4: quote it to make it text, \"4\"")


def test_a_dataframe_of_whole_conversations_says_how_to_reshape(
        shell: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """The obvious first try, pd.read_json(lines=True): one line naming the columns needed and
    a reshape that works when run as written."""
    run(shell, f"import pandas as pd\ndf = pd.read_json({str(DEMO)!r}, lines=True)")
    message = _usage_error(shell, capsys, "%agentic_eval df --k 3")
    assert "one row per interaction" in message
    assert "columns session_id, assistant_id, qa_id, query, assistant" in message
    recipe = message[message.index("reshape: ") + len("reshape: "):]
    assert run(shell, recipe.replace("; ", "\n")).success  # the recipe, exactly as printed
    expected = Agentic.run(str(DEMO), k=3, statistical_mode=BayesianMode())
    same(run(shell, "%agentic_eval long --k 3").result, expected)
    assert "df.to_dict('records')" in message
    run(shell, "recs = df.to_dict('records')")
    same(run(shell, "%agentic_eval recs --k 3").result, expected)


def test_in_a_jupyter_kernel_the_fit_shows_widgets_and_a_failure_a_panel() -> None:
    """The same magic in the project's real kernel (nbclient): a tqdm widget per NUTS fit, a
    failed run's HTML panel and one-line UsageError, and ``;`` hiding the value."""
    nbformat = pytest.importorskip("nbformat")
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    from nbclient import NotebookClient

    try:
        KernelSpecManager().get_kernel_spec("agenteval")
    except NoSuchKernel:  # pragma: no cover - make setup registers it
        pytest.skip("no 'agenteval' kernel (make setup registers it)")
    part = dict(TWO, conversation=[dict(TWO["conversation"][0], ground_truth_assistant=None)])
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(code) for code in (
        "%load_ext agenteval",
        f"r = %agentic_eval {DEMO} --k 3 --mode hierarchical --chains 2 --draws 1500 --tune 500",
        f"part = [{part!r}]\n%agentic_eval part --k 1 -o saved",
        "print(type(saved).__name__, saved.judged_share())",
        f"%agentic_eval {DEMO} --k 1 -o quiet;",
        "print(type(quiet).__name__)",
    )]
    NotebookClient(nb, timeout=180, kernel_name="agenteval", allow_errors=True,
                   resources={"metadata": {"path": str(REPO)}}).execute()
    out = [cell.outputs for cell in nb.cells]
    bars = [o.data["text/plain"] for o in out[1] if "application/vnd.jupyter.widget-view+json"
            in o.get("data", {})]
    nuts = [b for b in bars if b.startswith("NUTS fit")]
    assert len(nuts) == 2 and all("2 chains x 1500 draws + 500 tune" in b for b in nuts), bars
    html = "".join(o.get("data", {}).get("text/html", "") for o in out[2])
    assert 'class="failed"' in html and "no interaction could be judged" in html
    errors = [o.text for o in out[2] if o.output_type == "stream" and o.name == "stderr"]
    assert errors == ["UsageError: %agentic_eval: no interaction could be judged (the results "
                      "are in saved)\n"]
    assert out[3][0].text == "AgenticResults (0, 1)\n"
    assert out[4] == [] and out[5][0].text == "AgenticResults\n"
