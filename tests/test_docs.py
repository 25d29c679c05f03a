"""The documentation site: every public name has an API entry, and the site builds offline with
warnings as errors (``mkdocs build --strict``: a broken link or anchor, an API name mkdocstrings
cannot resolve, a docstring it cannot parse or a notebook that fails to execute is an error)."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.test_architecture import PINNED_ALL

API = REPO / "docs" / "api"


def _tool():
    spec = importlib.util.spec_from_file_location("api_pages", REPO / "tools" / "api_pages.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("api_pages", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _resolve(path: str) -> object:
    """The object at a dotted path: the longest importable module, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(path)


def test_the_documented_modules_are_the_pinned_public_ones() -> None:
    """A module whose ``__all__`` is pinned gets an API page (the ``_util`` helpers are private)."""
    public = {m for m in PINNED_ALL if not any(part.startswith("_") for part in m.split("."))}
    assert set(_tool().MODULES) == public


@pytest.mark.parametrize("module", _tool().MODULES)
def test_every_public_name_has_an_entry(module: str) -> None:
    """Each name of the module's ``__all__`` is a row of its page that links the entry of the very
    object the name is, and that entry is rendered (``::: path``) on one of the API pages."""
    page = (API / f"{module}.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| \[`([^`]+)`\]\[([\w.]+)\] \|", page, flags=re.M))
    rendered = {m for p in API.glob("*.md")
                for m in re.findall(r"^::: ([\w.]+)$", p.read_text(encoding="utf-8"), flags=re.M)}
    mod = importlib.import_module(module)
    missing = sorted(set(mod.__all__) - set(rows))
    assert not missing, f"no API entry for {module}.{missing}: run python tools/api_pages.py"
    for name in mod.__all__:
        target = rows[name]
        assert _resolve(target) is getattr(mod, name), (module, name, target)
        assert target in rendered, (module, name, target)


def test_the_api_pages_are_current(capsys: pytest.CaptureFixture[str]) -> None:
    assert _tool().main(["--check"]) == 0, capsys.readouterr().err


def test_a_name_added_without_its_page_fails(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import agenteval.present.tables as tables

    def a_new_helper() -> None:
        """A public function nobody documented yet."""

    a_new_helper.__module__ = tables.__name__
    monkeypatch.setattr(tables, "a_new_helper", a_new_helper, raising=False)
    monkeypatch.setattr(tables, "__all__", [*tables.__all__, "a_new_helper"])
    with pytest.raises(SystemExit, match="a_new_helper: no definition found"):
        _tool().main(["--check"])   # not in the source: griffe cannot document it
    monkeypatch.setattr(tables, "__all__", tables.__all__[1:-1])   # the last is the new one
    assert _tool().main(["--check"]) == 1     # a name left out: the pages differ
    assert "docs/api is stale" in capsys.readouterr().err


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``make docs``'s build, into a temporary folder (notebooks executed unless cached)."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1",
           "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    mkdocs = Path(sys.executable).with_name("mkdocs")
    run = subprocess.run([str(mkdocs), "build", "--strict", "--site-dir", str(out)], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stderr[-6000:]
    assert "WARNING" not in run.stderr, run.stderr[-6000:]
    return out


def test_the_site_builds_strictly_with_every_page(site: Path) -> None:
    for page in ["index", "statistics", "estimators", "comparisons", "judge-error", "cli", "report",
                 "harness-logs", "arviz", "llm-judge", "graders", "data", "data-format", "rag",
                 "speed", "architecture", "development", "notebooks", "benchmarks/index",
                 "api/index"]:
        assert (site / f"{page}.html").is_file(), page
    stats = (site / "statistics.html").read_text(encoding="utf-8")
    assert "Chen et al. 2021" in stats and "post-stratifies" in stats
    assert "bias / RMSE / coverage" in (site / "estimators.html").read_text(encoding="utf-8")


def test_the_notebooks_are_rendered_with_their_outputs(site: Path) -> None:
    notebooks = sorted((REPO / "notebooks").glob("*.ipynb"))
    assert notebooks
    for notebook in notebooks:
        html = (site / "notebooks" / f"{notebook.stem}.html").read_text(encoding="utf-8")
        assert "jp-OutputArea-output" in html, notebook.name            # outputs, not just cells
        assert "data:image/png;base64," in html or "<table" in html, notebook.name
        assert "Traceback" not in html, notebook.name


def test_every_api_entry_is_rendered_from_its_docstring(site: Path) -> None:
    tool = _tool()
    for entry in tool.entries():
        html = (site / "api" / f"{entry.home}.html").read_text(encoding="utf-8")
        assert f'id="{entry.target}"' in html, entry
    html = (site / "api" / "agenteval.results.agentic.html").read_text(encoding="utf-8")
    assert "Per-conversation results, in input order" in html      # the class's docstring


def test_the_site_fetches_nothing(site: Path) -> None:
    """No script, style sheet, font or image from the network: it opens offline, formulas too."""
    remote = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["'](?:https?:)?//""")
    found = {p.relative_to(site).as_posix(): remote.findall(p.read_text(encoding="utf-8"))
             for p in site.rglob("*.html")}
    assert not {k: v for k, v in found.items() if v}
    assert (site / "assets" / "mathjax" / "MathJax.js").is_file()
    # formulas: the site's own MathJax, told to use the web font the package ships
    for page in ["statistics.html", "notebooks/02_metric_derivation.html"]:
        html = (site / page).read_text(encoding="utf-8")
        assert "assets/mathjax/MathJax.js" in html and 'webFont: "STIX-Web"' in html, page
    fonts = site / "assets" / "mathjax" / "fonts" / "HTML-CSS" / "STIX-Web"
    assert fonts.is_dir() and any(fonts.rglob("*.woff"))
