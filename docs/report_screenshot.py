"""Make docs/img/report.png: the demo run's report in headless Chromium, one conversation open.

    make demo && .venv/bin/python docs/report_screenshot.py out/demo/report.html docs/img/report.png
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def main(report: str, png: str) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 3100})
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:"))
                   else r.abort())
        page.goto(Path(report).resolve().as_uri())
        page.locator("details.conv").nth(0).locator("summary").first.click()
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=png)
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:3])
