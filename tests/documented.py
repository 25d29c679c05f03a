"""What the documentation shows, for the tests that run it: the README, then the site's pages
(``docs/*.md``) in the order of the site's navigation, and their fenced code blocks.

Tests that run documented commands or code read them here, so a block that moves between the
README and a page stays tested.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from tests.conftest import REPO

DOCS = REPO / "docs"


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [p for value in nav.values() for p in _nav_pages(value)]
    if isinstance(nav, list):
        return [p for item in nav for p in _nav_pages(item)]
    return []


def pages() -> list[Path]:
    """The README, then every written page of the site in navigation order (pages outside the
    navigation after them); not the generated API pages, the notebooks or the pages the build
    takes from elsewhere (``data/README.md``, ``benchmarks/README.md``)."""
    import yaml

    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    written = {p.relative_to(DOCS).as_posix(): p for p in DOCS.glob("*.md")}
    ordered = [written.pop(uri) for uri in _nav_pages(config["nav"]) if uri in written]
    return [REPO / "README.md", *ordered, *sorted(written.values())]


def page(name: str) -> str:
    """One page's text: ``"README.md"`` or a page of the site (``"rag.md"``)."""
    path = REPO / name if name == "README.md" else DOCS / name
    return path.read_text(encoding="utf-8")


def blocks(language: str, names: list[str] | None = None) -> list[tuple[str, str]]:
    """``(page name, code)`` of every fenced block in ``language``, in page order."""
    found = []
    for path in pages():
        name = "README.md" if path.name == "README.md" and path.parent == REPO else path.name
        if names is None or name in names:
            text = path.read_text(encoding="utf-8")
            found += [(name, textwrap.dedent(code))   # a block inside a list item is indented
                      for code in re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)]
    return found
