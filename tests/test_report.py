"""The HTML report as a viewer: complete, escaped, self-contained; driven in headless Chromium.

The static tests read the page's HTML and its JSON block against the run's results.json; the
browser tests load the file in Debian's Chromium (tests/browser.py: every request but file://
and data: is aborted and recorded) and click: the grid, sorting, filtering, permalinks, tool
outputs, and hostile text that must show as text and run nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
import zlib
from pathlib import Path
from urllib.parse import quote

import pytest

from agenteval.cli import main
from tests.browser import chromium_missing, offline_page, report_data
from tests.conftest import DEMO, REPO

HOSTILE = ('<img src="https://evil.example/x.png" onerror="alert(1)"><script>alert(2)</script>'
           '</textarea><a href="javascript:alert(3)">click me</a><svg onload="alert(4)"></svg>'
           "\u202eevil\u0000nul")
HOSTILE_ID = 'evil"><svg onload=alert(5)>#\u202e'
"""A session id that is markup, holds the permalink's own '#', and an RTL override."""
TOOL_OUTPUT = "LOOKUP-OUTPUT-7: the order ships Tuesday"
LONG_OUTPUT = "".join(f"row {i}: {'x' * 40}\n" for i in range(200))
needs_chromium = pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))


def _png(width: int = 24, height: int = 12) -> bytes:
    """A valid RGB PNG of one colour, written by hand (no imaging library needed)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\x22\x88\xcc" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


EXTRA = [
    {"session_id": "hostile-1", "assistant_id": "agent-gpt-small", "task_id": "calc-discount",
     "conversation": [{"qa_id": "h1", "query": "What is 2+2?", "assistant": HOSTILE,
                       "ground_truth_assistant": "4"}]},
    {"session_id": HOSTILE_ID, "assistant_id": "agent-planner-v2", "task_id": HOSTILE,
     "context": HOSTILE,
     "conversation": [{"qa_id": "e1", "query": HOSTILE, "assistant": "4",
                       "ground_truth_assistant": "4",
                       "agentic": {"tools_used": [{"tool_name": "lookup", "parameters": {"q": HOSTILE},
                                                   "result": HOSTILE}]}}]},
    {"session_id": "no-ref-1", "assistant_id": "agent-planner-v2",
     "conversation": [{"qa_id": "n1", "query": "Say hi", "assistant": "hi"}]},
    {"session_id": "tools-no-truth", "assistant_id": "agent-planner-v2",
     "conversation": [{"qa_id": "t1", "query": "When does order 7 ship?",
                       "assistant": "On Tuesday.", "ground_truth_assistant": "Tuesday",
                       "agentic": {"tools_used": [
                           {"tool_name": "lookup", "parameters": {"order": 7},
                            "result": TOOL_OUTPUT, "step": 1},
                           {"tool_name": "dump", "parameters": {}, "result": LONG_OUTPUT,
                            "step": 2}]}}]},
    {"session_id": "one-wrong", "assistant_id": "agent-planner-v2", "task_id": "single",
     "conversation": [{"qa_id": "w1", "query": "Pick a door", "assistant": "door 3",
                       "score": 0.0}]},
]


def _make_run(folder: Path) -> Path:
    """The demo plus the conversations above, evaluated by the CLI into an --out folder that
    already holds a figure."""
    data = folder / "data.jsonl"
    data.write_text(DEMO.read_text() + "".join(json.dumps(e) + "\n" for e in EXTRA))
    out = folder / "out"
    out.mkdir()
    (out / "pass_k_posterior.png").write_bytes(_png())
    assert main(["run", str(data), "--out", str(out), "--min-judged", "0"]) == 0
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run shared by the read-only report tests (the run draws figures: seconds)."""
    return _make_run(tmp_path_factory.mktemp("report-run"))


def _shown(text: str) -> str:
    """``text`` as the report shows it: bidirectional overrides as visible escapes."""
    return text.replace("\u202e", "\\u202e")


def _article(page: str, position: int) -> str:
    start = page.index(f'<article class="conv" id="c-{position}" hidden>')
    return page[start:page.index("</article>", start)]


def test_report_indexes_every_conversation_and_drills_down_escaped(run_dir: Path) -> None:
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    convs = json.loads((run_dir / "results.json").read_text())["conversations"]
    data = report_data(page)
    rows = data["records"]
    # one row per conversation, in the run's order, with its own outcome, c, n and errors
    assert [r["session"] for r in rows] == [c["session_id"] for c in convs]
    outcome = {True: "ok", False: "bad", None: "unk"}
    for r, c in zip(rows, convs):
        assert (r["agent"], r["task"], r["outcome"], r["c"], r["n"], r["errors"]) == (
            c["assistant_id"], c["task_id"], outcome[c["is_fully_correct"]],
            c["correct_interactions"], c["total_interactions"], c["judge_errors"])
        scores = [s for s in c["correctness_scores"] if s is not None]
        assert r["score"] == (pytest.approx(sum(scores) / len(scores), abs=1e-4) if scores else None)
    # the grid: every conversation once, under its agent and task
    cells = [(g["name"], line[0], i) for g in data["grid"] for line in g["rows"] for i in line[1]]
    assert sorted(i for _, _, i in cells) == list(range(len(convs)))
    for agent, task, i in cells:
        assert convs[i]["assistant_id"] == agent
        assert (convs[i]["task_id"] or "(no task_id)") == task
    # every conversation drilled down (fewer than the cap), every interaction in it
    assert [r["drill"] for r in rows] == list(range(len(convs)))
    assert page.count('<article class="conv"') == len(convs)
    assert page.count('<section class="turn">') == sum(len(c["interactions"]) for c in convs)
    # summary first, then the judge, the grid, the list, the opened conversation
    order = ['id="summary"', 'id="judge"', 'id="tasks"', 'id="conversations"', 'id="conversation"']
    assert [page.index(o) for o in order] == sorted(page.index(o) for o in order)
    judged = sum(c["total_interactions"] for c in convs)
    total = sum(len(c["interactions"]) for c in convs)
    assert f"{total - judged} of {total} interactions could not be judged" in page
    assert page.index('class="banner"') < page.index('id="summary"')
    # the transcript: queries, answers, tool calls with their outputs, the diff, the reasons
    assert "What is 15% of 240?" in page and "Multiply the number by the percentage over 100." in page
    assert "no ground_truth_assistant to compare with" in page and "judge's reason" not in page
    first = _article(page, 0)  # calc-discount-gpt-small-1: a missing and an extra call
    assert ">extra<" in first and "web_search(query=" in first and "every number and word" in first
    no_truth = _article(page, [r["session"] for r in rows].index("tools-no-truth"))
    assert TOOL_OUTPUT in no_truth and ">extra<" not in no_truth and "no expected tools" in no_truth
    assert '<details class="long">' in no_truth and "200 lines" in no_truth  # the long output
    # a failed 0-of-1 conversation: its own outcome, no per-conversation pass@k anywhere on it
    one = [r for r in rows if r["session"] == "one-wrong"][0]
    assert (one["outcome"], one["c"], one["n"]) == ("bad", 0, 1)
    assert "pass@" not in _article(page, one["drill"]) and "not fully correct" in _article(page, one["drill"])


def test_the_judge_section_words_its_counts_once(run_dir: Path) -> None:
    """The judge section says how many interactions were judged in its sentence, from the
    results' own record of them (summary.judge['interactions'] in results.json), and shows no
    Python repr of that record beside it."""
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="judge">'):]
    section = section[:section.index("</section>")]
    counts = json.loads((run_dir / "results.json").read_text())["summary"]["judge"]["interactions"]
    total, judged = counts["total"], counts["judged"]
    assert f"<b>{judged} of {total} interactions judged ({judged / total:.1%}).</b>" in section
    assert "{" not in section and "&#x27;total&#x27;" not in section


def test_report_is_offline_and_only_its_own_script_may_run(run_dir: Path) -> None:
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    # hostile text is text: never markup, never able to close the JSON block
    for bad in ("<script>alert(2)</script>", "onerror=\"alert(1)\">", "<svg onload",
                'href="javascript:', "</textarea><a", "\u202e", "\x00"):
        assert bad not in page, bad
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page and "\\u202eevil\\u0000nul" in page
    assert page.count("<script") == 2  # the JSON block and the one script
    # nothing refers to the network; the figures are inline
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "@import" not in page and "url(" not in page
    assert f"data:image/png;base64,{base64.b64encode(_png()).decode()}" in page
    made = sorted((run_dir / "figures").glob("*.png")) if (run_dir / "figures").is_dir() else []
    assert page.count("<figure>") == 1 + len(made)
    # the policy: no fetch of any kind, and only the script whose hash it names
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in policy and "img-src data:" in policy
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy
    assert page.index("Content-Security-Policy") < page.index("<script")


def test_harness_grades_are_shown_as_the_harness_gave_them(tmp_path: Path) -> None:
    """Inspect AI's scorer value and explanation and tau-bench's reward parts, from the
    bundled harness logs, instead of 'given with the data'."""
    from agenteval import Agentic, FrequentistMode
    from agenteval.core import load_datasets
    from agenteval.present.report import render_report

    for source, scorer, expect in (
            (REPO / "data" / "inspect_demo" / "model-a.eval", "match",
             ["Graded by the harness: Inspect AI scorer", "<th>explanation</th>", "<th>value</th>"]),
            (REPO / "data" / "taubench_demo.json", None,
             ["Graded by the harness: tau-bench reward", "<th>r_actions</th>",
              "<th>user instruction</th>"])):
        datasets = load_datasets(source, scorer=scorer)
        results = Agentic.run(datasets, k=1, statistical_mode=FrequentistMode(), progress=False)
        page = render_report(results, datasets=datasets)
        assert "given with the data" not in page
        for text in expect:
            assert page.count(text) >= len(datasets) if text.startswith("Graded") else text in page
        if scorer == "match":  # the first sample: scorer match, value C, explanation '3'
            first = _article(page, 0)
            assert re.search(r"<th>value</th><td><pre class=\"text\">C</pre>", first)
            meta = datasets[0].metadata
            assert f'<pre class="text">{meta["score_explanation"]}</pre>' in first
            assert "graded by the harness&#x27;s grade above" in first
            assert "add(x=1, y=2)" in first  # the tool call, with its output
        else:
            info = datasets[0].metadata["info"]["reward_info"]
            assert f'<th>reward</th><td><pre class="text">{datasets[0].outcome}</pre>' in _article(page, 0)
            assert info["info"]["r_actions"] == datasets[0].outcome


@needs_chromium
def test_grid_list_sort_filter_and_permalinks_in_chromium(run_dir: Path, tmp_path: Path) -> None:
    convs = json.loads((run_dir / "results.json").read_text())["conversations"]
    n = len(convs)
    outcome = {True: "ok", False: "bad", None: "unk"}
    url = (run_dir / "report.html").as_uri()
    requests: list[str] = []
    with offline_page(height=1300) as (page, blocked):
        page.on("request", lambda req: requests.append(req.url))
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_selector("html[data-ready]")
        assert "agenteval report" in page.title()
        suite = page.locator("#summary table.grid").first
        assert suite.is_visible() and "fully_correct" in suite.inner_text()

        # the grid: one cell per conversation, coloured by its outcome
        cells = page.locator("#grid .cell")
        assert cells.count() == n
        assert page.locator("#grid .cell.wrong").count() == sum(c["is_fully_correct"] is False for c in convs)
        assert page.locator("#grid .cell.full").count() == sum(c["is_fully_correct"] is True for c in convs)
        assert page.locator("#grid h3").all_inner_texts()[0].startswith(convs[0]["assistant_id"])
        # a click on a cell opens its conversation, and the address is its permalink
        cell = page.locator("#grid .cell").nth(3)
        index = int(cell.get_attribute("data-i"))
        cell.click()
        opened = page.locator("#view article.conv:not([hidden])")
        assert opened.count() == 1 and opened.locator("b.sid").inner_text() == convs[index]["session_id"]
        assert page.evaluate("location.hash") == "#session=" + quote(convs[index]["session_id"], safe="")

        # the list: every conversation; sorting by a column, both ways
        assert page.locator("#shown").inner_text() == f"{n} of {n} shown"
        assert page.locator("#list tbody tr").count() == n

        headers = page.locator("#list thead th").all_inner_texts()
        assert "attempt" not in headers  # no conversation has one: the column is left out

        def column(j: int | str) -> list[str]:
            j = j if isinstance(j, int) else headers.index(j) + 1
            return page.locator(f"#list tbody tr td:nth-child({j})").all_inner_texts()

        page.locator("#list th", has_text="judged").click()
        judged = [int(v) for v in column('judged')]
        assert judged == sorted(c["total_interactions"] for c in convs)
        page.locator("#list th", has_text="judged").click()
        assert [int(v) for v in column('judged')] == sorted(judged, reverse=True)
        assert page.locator("#list th", has_text="judged").get_attribute("aria-sort") == "descending"
        page.locator("#list th", has_text="session").click()
        assert column(1) == [_shown(c["session_id"]) for c in sorted(convs, key=lambda c: c["session_id"])]

        # filtering: text, the agent and outcome selects, the 'needs a look' box
        page.fill("#filter", "no-ref-1")
        assert page.locator("#shown").inner_text() == f"1 of {n} shown"
        assert column(1) == ["no-ref-1"]
        page.fill("#filter", "every number and word")  # text inside the transcripts
        hits = [c["session_id"] for c in convs
                if any("every number and word" in (r["reasoning"] or "") for r in c["interactions"])]
        assert sorted(column(1)) == sorted(map(_shown, hits)) and hits
        page.fill("#filter", "")
        page.select_option("select[aria-label='outcome']", "bad")
        assert sorted(column(1)) == sorted(_shown(c["session_id"]) for c in convs
                                           if c["is_fully_correct"] is False)
        page.select_option("select[aria-label='agent']", "agent-planner-v2")
        assert sorted(column(1)) == sorted(_shown(c["session_id"]) for c in convs
                                           if c["is_fully_correct"] is False
                                           and c["assistant_id"] == "agent-planner-v2")
        page.select_option("select[aria-label='outcome']", "")
        page.select_option("select[aria-label='agent']", "")
        page.check("#only-look")
        look = sum(outcome[c["is_fully_correct"]] != "ok" or c["judge_errors"] > 0 for c in convs)
        assert page.locator("#shown").inner_text() == f"{look} of {n} shown"
        page.uncheck("#only-look")
        # a row click opens it; next / previous walk the list
        page.locator("#list tbody tr").nth(2).locator("td").nth(2).click()
        assert opened.locator("b.sid").inner_text() == column(1)[2]
        page.locator("#next").click()
        assert opened.locator("b.sid").inner_text() == column(1)[3]
        page.locator("#prev").click()
        assert opened.locator("b.sid").inner_text() == column(1)[2]
        page.keyboard.press("j")
        page.keyboard.press("j")
        assert opened.locator("b.sid").inner_text() == column(1)[4]
        page.keyboard.press("k")
        assert opened.locator("b.sid").inner_text() == column(1)[3]
        shot = tmp_path / "report.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 10_000
        assert not errors, errors

    # a permalink opens its conversation when the page loads, tool outputs visible
    with offline_page(height=1300) as (page, blocked2):
        page.goto(url + "#session=tools-no-truth")
        page.wait_for_selector("html[data-ready]")
        opened = page.locator("#view article.conv:not([hidden])")
        assert opened.locator("b.sid").inner_text() == "tools-no-truth"
        assert opened.is_visible() and opened.locator(f"text={TOOL_OUTPUT}").is_visible()
        assert page.locator("#view-title").inner_text() == "conversation tools-no-truth"
        long = opened.locator("details.long")
        assert long.count() == 1 and not long.locator("pre").is_visible()
        long.locator("summary").click()
        assert long.locator("pre").is_visible() and "row 199: " in long.locator("pre").inner_text()
        page.goto(url + "#session=not-a-session")
        page.wait_for_selector("html[data-ready]")
        assert "No conversation with that id" in page.locator("#view-empty").inner_text()
    assert not blocked and not blocked2, (blocked, blocked2)
    assert requests and all(u.startswith(("file://", "data:")) for u in requests), requests


@needs_chromium
def test_hostile_text_shows_as_text_and_runs_nothing_in_chromium(run_dir: Path) -> None:
    url = (run_dir / "report.html").as_uri()
    visible = ['<script>alert(2)</script>', '</textarea>', 'href="javascript:alert(3)"',
               '<svg onload="alert(4)">', "\\u202eevil\\u0000nul"]
    with offline_page(height=1300) as (page, blocked):
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(url + "#session=" + quote(HOSTILE_ID, safe=""))  # the hostile id's permalink
        page.wait_for_selector("html[data-ready]")
        opened = page.locator("#view article.conv:not([hidden])")
        assert opened.count() == 1
        assert opened.locator("b.sid").inner_text() == HOSTILE_ID.replace("\u202e", "\\u202e")
        text = opened.inner_text()
        for part in visible:  # in the context, the query, the task, the tool's argument and output
            assert text.count(part) >= 4, part
        # the list and the grid show the id as text too
        page.fill("#filter", "evil")
        assert page.locator("#shown").inner_text().startswith("2 of ")
        cell_title = page.locator("#grid .cell[title^='evil']").get_attribute("title")
        assert cell_title.startswith('evil"><svg onload=alert(5)>#')
        page.locator("#list tbody tr a", has_text="evil").first.click()
        # nothing ran, nothing became an element: no image, svg, script or javascript: link
        for selector in ("#view img", "#view svg", "#view script", "a[href^='javascript']",
                         "#list img", "#grid svg", "textarea"):
            assert page.locator(selector).count() == 0, selector
        hostile = page.locator("#view article.conv", has_text="hostile-1")
        page.goto(url + "#session=hostile-1")
        page.wait_for_selector("html[data-ready]")
        assert "<script>alert(2)</script>" in hostile.inner_text()
        assert not dialogs, dialogs
    assert not blocked, blocked  # the <img src=https://...> was never requested


@needs_chromium
def test_ids_that_name_javascript_properties_in_chromium(tmp_path: Path) -> None:
    """Ids such as ``__proto__`` or ``toString`` are ids: their permalinks and filters work."""
    from agenteval import Agentic, FrequentistMode
    from agenteval.present.report import write_report

    ids = [("toString", "__proto__"), ("__proto__", "hasOwnProperty"), ("constructor", "__proto__")]
    records = [{"session_id": sid, "assistant_id": agent,
                "conversation": [{"qa_id": "q1", "query": f"query of {sid}", "assistant": "a",
                                  "score": float(i % 2)}]} for i, (sid, agent) in enumerate(ids)]
    from agenteval.core import load_datasets

    datasets = load_datasets(records)
    results = Agentic.run(datasets, k=1, statistical_mode=FrequentistMode(), progress=False)
    path = write_report(results, tmp_path / "report.html", datasets=datasets)
    with offline_page() as (page, blocked):
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        for sid, _ in ids:
            page.goto(path.as_uri() + "#session=" + sid)
            page.wait_for_selector("html[data-ready]")
            opened = page.locator("#view article.conv:not([hidden])")
            assert opened.locator("b.sid").inner_text() == sid
            assert f"query of {sid}" in opened.inner_text()
        agents = page.locator("select[aria-label='agent'] option").all_inner_texts()
        assert agents == ["all", "__proto__", "hasOwnProperty"]
        page.select_option("select[aria-label='agent']", "__proto__")
        assert page.locator("#shown").inner_text() == "2 of 3 shown"
        assert not errors, errors
    assert not blocked


@needs_chromium
def test_rag_reports_in_chromium(tmp_path: Path) -> None:
    rag = REPO / "data" / "rag_demo.jsonl"
    out = tmp_path / "out"
    for metric in ("precision", "recall"):
        assert main(["rag", metric, str(rag), "--out", str(out)]) == 0
    recall = json.loads((out / "recall.json").read_text())["cases"]
    precision = json.loads((out / "precision.json").read_text())["cases"]
    with offline_page(height=1300) as (page, blocked):
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        case = next(c for c in recall if c["score"] is not None and 0 < c["score"] < 1)
        page.goto((out / "recall_report.html").as_uri() + "#case=" + quote(case["case_id"]))
        page.wait_for_selector("html[data-ready]")
        assert page.locator("#shown").inner_text() == f"{len(recall)} of {len(recall)} shown"
        opened = page.locator("#view article.conv:not([hidden])")
        text = opened.inner_text()
        assert case["question"] in text and case["expected_answer"] in text
        rows = opened.locator("table.grid tbody tr")
        assert rows.count() == len(case["statements"])
        for row, st in zip(rows.all(), case["statements"]):
            cells = row.locator("td").all_inner_texts()
            assert cells[1] == st["text"]
            assert cells[2] == {True: "yes", False: "no", None: "failed"}[st["attributable"]]
            if st["supporting_rank"] is not None:
                assert f"search {st['supporting_search'] + 1} rank {st['supporting_rank']}" in cells[5]
                assert st["supporting_text"] in cells[5]
        page.select_option("select[aria-label='score class']", "zero")
        assert sorted(page.locator("#list tbody tr td:nth-child(1)").all_inner_texts()) == sorted(
            c["case_id"] for c in recall if c["score"] == 0)

        case = next(c for c in precision if len(c["searches"]) > 1)
        page.goto((out / "precision_report.html").as_uri() + "#case=" + quote(case["case_id"]))
        page.wait_for_selector("html[data-ready]")
        opened = page.locator("#view article.conv:not([hidden])")
        tables = opened.locator("section.turn")
        assert tables.count() == len(case["searches"])
        for section, search in zip(tables.all(), case["searches"]):
            assert search["query"] in section.inner_text()
            ranks = section.locator("tbody tr td:nth-child(1)").all_inner_texts()
            assert [int(r) for r in ranks] == [nd["rank"] for nd in search["nodes"]]
            verdicts = section.locator("tbody tr td:nth-child(2)").all_inner_texts()
            assert verdicts == [{True: "yes", False: "no", None: "failed"}[nd["relevant"]]
                                for nd in search["nodes"]]
        page.locator("#list th", has_text=re.compile("^score$")).click()
        scores = page.locator("#list tbody tr td:nth-child(3)").all_inner_texts()
        assert scores == sorted(scores)
        assert not errors, errors
    assert not blocked, blocked


def test_rag_report_of_a_case_with_a_failed_verdict(tmp_path: Path) -> None:
    """A failed verdict: the case has no score, its bounds, its class 'unknown', the cause."""
    from agenteval.present.rag import report_html
    from agenteval.results.rag import RagResults

    out = tmp_path / "out"
    assert main(["rag", "recall", str(REPO / "data" / "rag_demo.jsonl"), "--out", str(out)]) == 0
    payload = json.loads((out / "recall.json").read_text())
    case = payload["cases"][0]
    case["statements"][0].update(attributable=None, source="error", error="timeout: <b>slow</b>")
    case.update(score=None, score_low=0.0, score_high=1.0,
                judge_errors=["statement 1: error: timeout: <b>slow</b>"])
    page = report_html(RagResults.from_json(payload))
    row = report_data(page)["records"][0]
    assert (row["case"], row["outcome"], row["score"], row["low"], row["high"], row["errors"]) == (
        case["case_id"], "unk", None, 0.0, 1.0, 1)
    article = _article(page, 0)
    assert "(between 0.000 and 1.000)" in article and ">failed<" in article
    assert "timeout: &lt;b&gt;slow&lt;/b&gt;" in article and "<b>slow</b>" not in page


def test_readme_shows_the_committed_screenshot() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert "docs/img/report.png" in text
    for name in ("report.png", "report_grid.png", "report_transcript.png"):
        png = (REPO / "docs" / "img" / name).read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 10_000, name


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
    assert "verdicts only, no transcript" in page
