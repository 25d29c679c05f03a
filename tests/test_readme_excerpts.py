"""The printed excerpts and values in the README and the docs pages are what the code prints now
(the demo run, run as ``make demo`` runs it); ``python tools/readme_excerpts.py`` rewrites them
when they are not."""

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


def _texts(tool) -> dict:
    return {p: p.read_text(encoding="utf-8") for p in tool.documented()}


def test_the_documented_files_are_the_readme_and_every_docs_page(demo) -> None:
    tool, _, _ = demo
    files = tool.documented()
    assert files[0] == REPO / "README.md"
    assert REPO / "docs" / "comparisons.md" in files and REPO / "docs" / "statistics.md" in files
    assert not [p for p in files if "api" in p.relative_to(REPO).parts[1:2]]


def test_excerpts_match_what_the_code_prints(demo) -> None:
    tool, sources, _ = demo
    texts = _texts(tool)
    current = tool.render_all(sources, texts)
    stale = {p: tool.differences(texts[p], current[p], p.name) for p in texts if current[p] != texts[p]}
    assert not stale, ("excerpts are stale; run python tools/readme_excerpts.py\n"
                       + "".join(stale.values()))


def test_every_excerpt_is_marked_somewhere_and_the_readme_shows_one(demo) -> None:
    tool, sources, _ = demo
    texts = _texts(tool)
    marks = {m for text in texts.values()
             for m in re.findall(r"<!-- (?:excerpt|value): ([\w.-]+) -->", text)}
    assert marks == set(tool.EXCERPTS) | set(tool.VALUES)
    assert "<!-- excerpt: run-demo-comparisons -->" in texts[REPO / "README.md"]


def test_a_changed_number_or_a_missing_mark_is_caught(demo) -> None:
    tool, sources, _ = demo
    texts = _texts(tool)
    page = REPO / "docs" / "comparisons.md"
    body = re.search(r"<!-- excerpt: run-demo-comparisons -->\n```text\n(.*?)```", texts[page], re.S)
    stale = texts[page].replace(body.group(1), body.group(1).replace("0.", "0.9", 1))
    assert stale != texts[page]
    assert tool.render_all(sources, {**texts, page: stale})[page] == texts[page]
    # the inline value is the one the CLI prints in its pooled plug-in line for 'all'
    stats = texts[REPO / "docs" / "statistics.md"]
    value = re.search(r"<!-- value: run-demo-pooled-pass-pow-all -->(.*?)<!-- /value -->", stats)
    printed = re.search(r"^  all +pass@3 \S+ \[.*?\] +pass\^3 (\S+) ", sources["stdout"], re.M)
    assert value.group(1) == printed.group(1)
    tex = next(p for p, t in texts.items() if "<!-- excerpt: run-demo-summary-tex -->" in t)
    without = {**texts, tex: texts[tex].replace("<!-- excerpt: run-demo-summary-tex -->", "")}
    with pytest.raises(SystemExit, match="lack the marked excerpts"):
        tool.render_all(sources, without)


def test_figure_and_tables_come_from_the_run(demo) -> None:
    _, sources, out = demo
    assert (out / "figures" / "pass_posterior.png").stat().st_size > 10_000
    assert sources["summary.tex"].startswith("\\begin{table*}") and "comparisons.tex" in sources
