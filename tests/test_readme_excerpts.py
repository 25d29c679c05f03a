"""The README's printed excerpts and values are what the code prints now (the demo run, run as
``make demo`` runs it); ``python tools/readme_excerpts.py`` rewrites them when they are not."""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest

from tests.conftest import REPO


def _tool():
    spec = importlib.util.spec_from_file_location("readme_excerpts", REPO / "tools" / "readme_excerpts.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("readme_excerpts", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):
    tool = _tool()
    out = tmp_path_factory.mktemp("readme") / "demo"
    return tool, tool.run_demo(out), out


def test_readme_excerpts_match_what_the_code_prints(demo) -> None:
    tool, sources, _ = demo
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    current = tool.render(readme, sources)
    assert current == readme, ("README excerpts are stale; run python tools/readme_excerpts.py\n"
                               + tool.differences(readme, current))


def test_a_changed_number_or_a_missing_mark_is_caught(demo) -> None:
    tool, sources, _ = demo
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    body = re.search(r"<!-- excerpt: run-demo-comparisons -->\n```text\n(.*?)```", readme, re.S)
    stale = readme.replace(body.group(1), body.group(1).replace("0.", "0.9", 1))
    assert stale != readme and tool.render(stale, sources) == tool.render(readme, sources)
    # the inline value is the one the CLI prints in its pooled plug-in line for 'all'
    value = re.search(r"<!-- value: run-demo-pooled-pass-pow-all -->(.*?)<!-- /value -->", readme)
    printed = re.search(r"^  all +pass@3 \S+ \[.*?\] +pass\^3 (\S+) ", sources["stdout"], re.M)
    assert value.group(1) == printed.group(1)
    with pytest.raises(SystemExit, match="lacks the marked excerpts"):
        tool.render(readme.replace("<!-- excerpt: run-demo-summary-tex -->", ""), sources)


def test_figure_and_tables_come_from_the_run(demo) -> None:
    _, sources, out = demo
    assert (out / "figures" / "pass_posterior.png").stat().st_size > 10_000
    assert sources["summary.tex"].startswith("\\begin{table*}") and "comparisons.tex" in sources
