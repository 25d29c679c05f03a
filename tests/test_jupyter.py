"""The %agentic_eval magic in a real IPython shell: line and cell forms, variables, -o, errors.

Every case runs through ``shell.run_cell`` (IPython's own input transformations, so
``r = %agentic_eval ...`` is tested as a user types it) and is compared with the same evaluation
through the public function.
"""

from __future__ import annotations

import json
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
    for name in ("r", "saved", "convs", "df", "one", "rows", "bad", "h"):
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
        out = run(shell, f"r = %agentic_eval one --k 1 --judge llm --judge-model m "
                         f"--base-url {server.base_url} --no-cache")
    assert out.success  # a failed judge call is a reported error, not an exception
    r = shell.user_ns["r"]
    assert r[0].judge_errors == 1 and r[0].total_interactions == 0
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
     "%%agentic_eval cell, line 14, field 'conversation[0].query': missing required field"),  # where the item starts
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
