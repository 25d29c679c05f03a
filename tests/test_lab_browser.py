"""End to end: JupyterLab on 127.0.0.1, the quickstart notebook run in headless Chromium.

Debian's chromium, driven by Playwright with its executable path set (no browser download).
Skipped when chromium or playwright is missing; ``.ci/run`` installs chromium, so CI runs it.
The screenshots are written to ``out/test-artifacts/`` (ignored by git).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(os.environ.get("AGENTEVAL_TEST_ARTIFACTS", REPO / "out" / "test-artifacts"))
NOTEBOOK = "01_quickstart.ipynb"
# every cell in the DOM (not only those in view), and no news pop-up over the screenshot
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False},
}
WAIT_MS = int(os.environ.get("LAB_WAIT_MS", "150000"))  # a hang guard under a loaded CI machine, not a speed assertion

pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} not installed"),
    pytest.mark.browser,
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """JupyterLab serving a copy of notebooks/ and data/ (the repo's notebook is never saved)."""
    root = tmp_path / "root"
    shutil.copytree(REPO / "notebooks", root / "notebooks")
    shutil.copytree(REPO / "data", root / "data")
    settings = tmp_path / "settings"
    for name, values in SETTINGS.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(values))
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ,
           "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(settings),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
           "IPYTHONDIR": str(tmp_path / "ipython")}
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           "--LabApp.extension_manager=readonly", "--allow-root"]
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail("JupyterLab did not start:\n" + (tmp_path / "lab.log").read_text()[-3000:])
                time.sleep(0.5)
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()


def test_quickstart_runs_in_jupyterlab_and_renders_results(lab: tuple[str, str]) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    base, token = lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000}, device_scale_factor=1)
            page.set_default_timeout(WAIT_MS)
            page.goto(f"{base}/lab/tree/notebooks/{NOTEBOOK}?token={token}")
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell")
            # the project's kernel, chosen by the notebook's metadata, is up and idle
            page.wait_for_selector(".jp-NotebookPanel-toolbar >> text=agenteval (.venv)")
            page.wait_for_selector(".jp-NotebookPanel-toolbar [data-status='idle']")

            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.locator(".lm-Menu").get_by_role("menuitem", name="Run All Cells", exact=True).click()

            code_cells = page.locator(".jp-NotebookPanel .jp-CodeCell")
            count = code_cells.count()
            assert count >= 8
            # every code cell has run: its prompt shows a number, none is still [*]
            page.wait_for_function(
                """(n) => {
                    const prompts = [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .jp-InputPrompt')];
                    return prompts.length === n && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
                }""", arg=count)
            page.wait_for_selector(".jp-NotebookPanel-toolbar [data-status='idle']")

            errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
            assert errors.count() == 0, errors.all_inner_texts()

            # the magic's results: the summary table, the per-conversation table, the figure
            results = page.locator(".jp-OutputArea-output .agenteval").first
            results.wait_for()
            assert "37 of 73 conversations fully correct" in results.inner_text()
            assert results.locator("table").count() >= 3
            figure = results.locator("img.agenteval-posterior")
            figure.wait_for()
            assert page.evaluate("(img) => img.complete && img.naturalWidth > 300",
                                 figure.element_handle())
            # the prior explorer: ipywidgets rendered by JupyterLab, with its figure
            page.locator(".widget-dropdown select").wait_for()
            explorer_img = page.locator(".widget-output img").first
            explorer_img.wait_for()

            # the long per-conversation table starts collapsed and opens on a click
            details = results.locator("details.conversations")
            assert not details.get_attribute("open") and not details.locator("table").is_visible()

            page.screenshot(path=str(ARTIFACTS / "jupyterlab-page.png"))
            # the magic's cell, whole, in a window tall enough to hold it; and its top part
            # (summary, figure, comparisons) for the README
            page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").click()
            page.set_viewport_size({"width": 1500, "height": 2600})
            cell = page.locator(".jp-NotebookPanel .jp-CodeCell").nth(1)
            cell.scroll_into_view_if_needed()
            cell.screenshot(path=str(ARTIFACTS / "jupyterlab-results-cell.png"))
            top = cell.bounding_box()
            end = results.locator("p:has-text('Agent comparisons') + table").bounding_box()
            page.screenshot(path=str(ARTIFACTS / "jupyterlab-results.png"), clip={
                "x": top["x"], "y": top["y"], "width": top["width"],
                "height": end["y"] + end["height"] + 8 - top["y"]})

            details.locator("summary").click()
            details.locator("table").wait_for(state="visible")
            assert details.locator("tbody tr").count() == 73
        finally:
            browser.close()
