"""The HTML report: complete, escaped, self-contained; rendered and clicked in headless Chromium."""

from __future__ import annotations

import base64
import json
import re
import struct
import zlib
from pathlib import Path

import pytest

from agenteval.cli import main
from tests.browser import chromium_missing, offline_page
from tests.conftest import DEMO, REPO

HOSTILE = '<img src="https://evil.example/x.png" onerror="alert(1)"><script>alert(2)</script>'


def _png(width: int = 24, height: int = 12) -> bytes:
    """A valid RGB PNG of one colour, written by hand (no imaging library needed)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\x22\x88\xcc" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def _make_run(folder: Path) -> Path:
    """The demo plus a conversation with a hostile answer and one the judge cannot score,
    evaluated by the CLI into an --out folder that already holds a figure."""
    extra = [
        {"session_id": "hostile-1", "assistant_id": "agent-gpt-small", "task_id": "calc-discount",
         "conversation": [{"qa_id": "h1", "query": "What is 2+2?", "assistant": HOSTILE,
                           "ground_truth_assistant": "4"}]},
        {"session_id": "no-ref-1", "assistant_id": "agent-planner-v2",
         "conversation": [{"qa_id": "n1", "query": "Say hi", "assistant": "hi"}]},
    ]
    data = folder / "data.jsonl"
    data.write_text(DEMO.read_text() + "".join(json.dumps(e) + "\n" for e in extra))
    out = folder / "out"
    out.mkdir()
    (out / "pass_k_posterior.png").write_bytes(_png())
    assert main(["run", str(data), "--out", str(out), "--min-judged", "0"]) == 0
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run shared by the read-only report tests (the run draws figures: seconds)."""
    return _make_run(tmp_path_factory.mktemp("report-run"))


def test_report_holds_every_conversation_escaped_and_offline(run_dir: Path) -> None:
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    results = json.loads((run_dir / "results.json").read_text())
    for conv in results["conversations"]:
        assert f"<b>{conv['session_id']}</b>" in page
    assert page.count('<details class="conv"') == len(results["conversations"])
    assert page.count('<details class="inter"') == sum(len(c["interactions"]) for c in results["conversations"])
    # summary first: the suite table precedes the conversations
    assert page.index('id="summary"') < page.index('id="judge"') < page.index('id="conversations"')
    # the query, reference and tool diff come from the data; the judge's error is shown
    assert "What is 15% of 240?" in page and "web_search(query=" in page and ">extra<" in page
    assert "no ground_truth_assistant to compare with" in page
    judged = sum(c["total_interactions"] for c in results["conversations"])
    total = sum(len(c["interactions"]) for c in results["conversations"])
    assert f"{total - judged} of {total} interactions could not be judged" in page
    assert page.index('class="banner"') < page.index('id="summary"')
    # hostile text is shown as text, never as markup
    assert HOSTILE not in page and "&lt;script&gt;alert(2)&lt;/script&gt;" in page
    # nothing refers to the network; the figure is inline
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "@import" not in page and "url(http" not in page
    assert f"data:image/png;base64,{base64.b64encode(_png()).decode()}" in page
    # and the run's own figures (Bayesian mode writes them to figures/), each embedded
    made = sorted((run_dir / "figures").glob("*.png")) if (run_dir / "figures").is_dir() else []
    assert page.count("<figure>") == 1 + len(made)
    for png in made:
        assert base64.b64encode(png.read_bytes()).decode() in page


@pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))
def test_report_renders_and_drills_down_in_chromium(run_dir: Path, tmp_path: Path) -> None:
    results = json.loads((run_dir / "results.json").read_text())
    convs = results["conversations"]
    not_clean = sum(c["is_fully_correct"] is not True or c["judge_errors"] > 0 for c in convs)
    requests: list[str] = []

    with offline_page(height=1300) as (page, blocked):
        page.on("request", lambda req: requests.append(req.url))
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto((run_dir / "report.html").as_uri())
        page.wait_for_load_state("load")

        assert "agenteval report" in page.title()
        suite = page.locator("#summary table.grid").first
        assert suite.is_visible() and "all" in suite.locator("thead th").nth(1).inner_text()
        assert "fully_correct" in suite.inner_text() and "what it is" in suite.inner_text()
        assert page.locator("#shown").inner_text() == f"{len(convs)} of {len(convs)} shown"
        figure = page.locator("#figures img").first
        assert figure.evaluate("img => img.complete && img.naturalWidth") == 24

        first = page.locator("details.conv").first
        query = first.locator("td.text", has_text="What is 15% of 240?")
        assert first.get_attribute("open") is None and not query.is_visible()
        first.locator("summary").first.click()
        assert first.get_attribute("open") is not None and query.is_visible()
        assert first.locator("text=judge's reason").first.is_visible()
        assert first.locator("table.diff").first.is_visible()

        page.fill("#filter", "no-ref-1")
        assert page.locator("#shown").inner_text() == f"1 of {len(convs)} shown"
        page.fill("#filter", "")
        page.check("#only-failed")
        assert page.locator("#shown").inner_text() == f"{not_clean} of {len(convs)} shown"
        page.uncheck("#only-failed")
        hostile = page.locator("details.conv", has_text="hostile-1")
        hostile.locator("summary").first.click()
        assert HOSTILE in hostile.inner_text() and not dialogs   # shown as text, never run

        page.locator("#collapse").click()
        first.locator("summary").first.click()
        shot = tmp_path / "report.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000
    assert not blocked, blocked
    assert requests and all(u.startswith(("file://", "data:")) for u in requests), requests


def test_readme_shows_the_committed_screenshot() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert "docs/img/report.png" in text
    png = (REPO / "docs" / "img" / "report.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def test_show_rewrites_the_report_with_the_data_when_unchanged(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = _make_run(tmp_path)          # its own run: this test changes the data file
    capsys.readouterr()
    again = tmp_path / "again.html"
    assert main(["show", str(run_dir), "--report", str(again)]) == 0
    assert "verdicts only" not in capsys.readouterr().err
    assert again.read_text() .count("What is 15% of 240?") >= 1
    data = Path(json.loads((run_dir / "results.json").read_text())["manifest"]["data"]["path"])
    data.write_text(data.read_text() + "\n")             # the data changed since the run
    assert main(["show", str(run_dir), "--report", str(again)]) == 0
    assert "verdicts only" in capsys.readouterr().err
    page = again.read_text()
    assert "What is 15% of 240?" not in page and "no-ref-1" in page
