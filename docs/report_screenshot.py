"""Make the report's screenshots from the demo run, in headless Chromium (Debian's, offline).

    make demo && .venv/bin/python docs/report_screenshot.py out/demo/report.html docs/img/report.png

Writes PNG (the top of the report: summary, grid and list), and beside it ``report_grid.png``
(the task x attempt grid and the conversation list) and ``report_transcript.png`` (one failed
conversation opened by its permalink, with its tool calls, outputs and verdicts).
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WIDTH = 1400
"""Viewport width: the report's widest summary table (quality) fits unscrolled."""
TRANSCRIPT = "calc-discount-gpt-small-1"
"""The demo conversation the transcript screenshot opens: a wrong answer, a missing and an extra
tool call, and tool outputs."""


def _page(browser, width: int, height: int):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:"))
               else r.abort())
    return page


def main(report: str, png: str) -> None:
    url = Path(report).resolve().as_uri()
    out = Path(png)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = _page(browser, WIDTH, 1900)
        page.goto(url)
        page.wait_for_selector("html[data-ready]")
        page.screenshot(path=str(out))
        top = page.locator("#tasks").evaluate("e => e.getBoundingClientRect().top + scrollY")
        bottom = page.locator("#conversations").evaluate(
            "e => e.getBoundingClientRect().bottom + scrollY")
        page.screenshot(path=str(out.with_name("report_grid.png")),
                        clip={"x": 0, "y": top - 8, "width": WIDTH, "height": bottom - top + 16},
                        full_page=True)
        page.close()
        page = _page(browser, WIDTH, 1500)
        page.goto(f"{url}#session={TRANSCRIPT}")
        page.wait_for_selector("html[data-ready]")
        top, bottom = page.locator("#conversation").evaluate("""e => {
            const top = e.getBoundingClientRect().top + scrollY;
            let bottom = top + 200;  // down to the end of the last whole interaction that fits
            for (const t of e.querySelectorAll('article:not([hidden]) section.turn')) {
                const b = t.getBoundingClientRect().bottom + scrollY;
                if (b - top > 1900) break;
                bottom = b;
            }
            return [top, bottom]; }""")
        page.screenshot(path=str(out.with_name("report_transcript.png")),
                        clip={"x": 0, "y": top - 8, "width": WIDTH, "height": bottom - top + 20},
                        full_page=True)
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:3])
