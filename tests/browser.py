"""Debian's headless Chromium for the report tests: a page that may load only the report itself.

Playwright drives ``/usr/bin/chromium`` (never a downloaded browser); every request other than
``file://`` and inline ``data:`` is aborted and recorded, so a test can assert that the report
is self-contained.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not CHROMIUM.exists():
        return "Debian's chromium is not installed (.ci/run installs it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]')"
    return None


@contextmanager
def offline_page(*, width: int = 1280, height: int = 1000) -> Iterator[tuple[Any, list[str]]]:
    """(page, blocked): a fresh page whose non-local requests are aborted and listed in blocked."""
    from playwright.sync_api import sync_playwright

    blocked: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith(("file://", "data:")):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            context.route("**/*", route)
            yield context.new_page(), blocked
        finally:
            browser.close()


def report_data(page: str) -> dict[str, Any]:
    """The JSON block the report's viewer reads (columns, one row per conversation, the grid),
    with each row as a dict of its columns plus ``drill`` (article position, -1: not drilled)."""
    import json
    import re

    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page,
                      re.S)
    assert found is not None, "no report-data block"
    data = json.loads(found.group(1))
    names = [c["id"] for c in data["cols"]]
    data["records"] = [dict(zip(names, r), drill=r[len(names)], look=r[len(names) + 1])
                       for r in data["rows"]]
    return data
