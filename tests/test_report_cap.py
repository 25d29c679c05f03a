"""A large run's report: the drill-down capped, the interesting conversations kept, the note.

The selection is checked by its properties against the data, not against the code's order:
no conversation that needs a look (not fully correct or with judge errors) is left out while
a better one is shown; every one is shown when there is room, the rest of the room goes to
fully correct ones; the same conversations whatever the input order; the summary is the same
as the uncapped report's; a cap at or above the run is the uncapped report byte for byte.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import pytest

from agenteval import Agentic, FrequentistMode
from agenteval.cli import main
from agenteval.errors import ConfigError
from agenteval.report import DEFAULT_MAX_CONVERSATIONS, render_report
from tests.conftest import REPO
from tests.browser import chromium_missing, offline_page, report_data


def _conversations(n: int, seed: int) -> list[dict]:
    """Graded interactions (given scores: 0, 0.5 or 1, success = 1) and, now and then, one with
    no reference, which the offline judge cannot score (a judge error)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        turns = []
        for j in range(rng.randint(1, 4)):
            if rng.random() < 0.05:
                turns.append({"qa_id": f"q{j}", "query": f"hello {i}-{j}", "assistant": "hi"})
            else:
                score = rng.choice([1.0] * 5 + [0.5, 0.0])
                turns.append({"qa_id": f"q{j}", "query": f"question {i}-{j}",
                              "assistant": f"answer {i}-{j}", "score": score})
        out.append({"session_id": f"conv-{i:04d}", "assistant_id": "agent", "conversation": turns})
    return out


def _run(records: list[dict]):
    return Agentic.run(records, k=2, statistical_mode=FrequentistMode(), progress=False)


def _shown(page: str) -> list[str]:
    """The drilled-down conversations, in their articles' order, as the JSON says and as the
    articles (their ids in the page) say."""
    rows = sorted((r for r in report_data(page)["records"] if r["drill"] >= 0),
                  key=lambda r: r["drill"])
    articles = re.findall(r'<article class="conv" id="c-(\d+)" hidden><header class="conv-head">'
                          r'<p><span class="badge \w+">[^<]*</span> <b class="sid">([^<]+)</b>', page)
    assert [int(p) for p, _ in articles] == list(range(len(rows)))
    assert [s for _, s in articles] == [r["session"] for r in rows]
    return [r["session"] for r in rows]


def _needs_look(m) -> bool:
    return m.is_fully_correct is not True or m.judge_errors > 0


def _rate(m) -> float:
    return m.correct_interactions / m.total_interactions if m.total_interactions else 0.0


@pytest.mark.parametrize("cap", [0, 1, 7, 40, 90, 150, 159])
def test_cap_keeps_the_conversations_worth_a_look(cap: int) -> None:
    records = _conversations(160, seed=cap)
    results = _run(records)
    by_id = {m.session_id: m for m in results}
    look = [m for m in results if _needs_look(m)]
    assert 20 < len(look) < 140  # the cases below all occur
    page = render_report(results, max_conversations=cap)
    shown = _shown(page)
    assert len(shown) == min(cap, len(results)) == page.count('<article class="conv"')
    assert len(report_data(page)["rows"]) == len(results)  # the list covers every conversation
    assert shown == sorted(shown)  # in the run's order
    shown_look = [s for s in shown if _needs_look(by_id[s])]
    if cap <= len(look):
        assert len(shown_look) == cap  # only conversations that need a look
        # none left out that is worse (lower share correct) than one shown
        worst_left = min((_rate(m) for m in look if m.session_id not in shown), default=2.0)
        assert all(_rate(by_id[s]) <= worst_left for s in shown)
    else:
        assert {m.session_id for m in look} <= set(shown)  # all of them, then correct ones
        assert len(shown) - len(shown_look) == cap - len(look)
    # the note: how many of how many, where the rest is
    note = re.search(r'<p class="banner" id="drill-down-note">(.*?)</p>', page).group(1)
    assert f"Drill-down for {cap:,} of {len(results):,} conversations" in note
    assert "results.to_dataframe()" in note and "conversations.csv" in note
    # the summary is complete: the same as in the uncapped report
    full = render_report(results, max_conversations=None)
    start, end = '<section id="summary">', '<section id="tasks">'
    assert page[page.index(start):page.index(end)] == full[full.index(start):full.index(end)]
    # the same conversations whatever the order of the input
    shuffled = records[:]
    random.Random(1).shuffle(shuffled)
    assert sorted(_shown(render_report(_run(shuffled), max_conversations=cap))) == shown


def test_cap_at_or_above_the_run_is_the_full_report() -> None:
    results = _run(_conversations(30, seed=3))
    full = render_report(results, max_conversations=None)
    assert render_report(results, max_conversations=30) == full
    assert render_report(results, max_conversations=10_000) == full
    assert 'id="drill-down-note"' not in full and len(_shown(full)) == 30


@pytest.mark.parametrize("bad", [-1, 2.5, True, "10"])
def test_bad_cap_is_a_config_error(bad) -> None:
    results = _run(_conversations(3, seed=0))
    with pytest.raises(ConfigError, match="max_conversations"):
        render_report(results, max_conversations=bad)


def _synth_run(folder: Path, n: int, cap: int | None) -> Path:
    sys.path.insert(0, str(REPO / "benchmarks"))
    import synth

    data = folder / f"synth_{n}.jsonl"
    synth.write(data, n)
    out = folder / "out"
    argv = ["run", str(data), "--k", "3", "--mode", "frequentist", "--out", str(out), "--quiet"]
    if cap is not None:
        argv += ["--report-max-conversations", str(cap)]
    assert main(argv) == 0
    return out


def test_cli_flag_and_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _synth_run(tmp_path, DEFAULT_MAX_CONVERSATIONS + 20, None)  # the default applies
    page = (out / "report.html").read_text(encoding="utf-8")
    assert len(_shown_any(page)) == DEFAULT_MAX_CONVERSATIONS
    rows = (out / "conversations.csv").read_text().count("\n") - 1
    assert rows == DEFAULT_MAX_CONVERSATIONS + 20  # every conversation is still there
    capsys.readouterr()
    data = tmp_path / f"synth_{DEFAULT_MAX_CONVERSATIONS + 20}.jsonl"
    assert main(["run", str(data), "--out", str(tmp_path / "o2"),
                 "--report-max-conversations", "-3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--report-max-conversations must be >= 0" in err
    assert not (tmp_path / "o2").exists()  # refused before anything was judged or written


def _shown_any(page: str) -> list[str]:
    return _shown(page)


@pytest.mark.skipif(chromium_missing() is not None, reason=str(chromium_missing()))
def test_capped_report_in_chromium(tmp_path: Path) -> None:
    out = _synth_run(tmp_path, 300, 25)
    results = json.loads((out / "results.json").read_text())
    n = len(results["conversations"])
    failed = {c["session_id"] for c in results["conversations"]
              if c["is_fully_correct"] is not True or c["judge_errors"] > 0}

    with offline_page() as (page, blocked):
        page.goto((out / "report.html").as_uri())
        page.wait_for_load_state("load")
        note = page.locator("#drill-down-note")
        assert note.is_visible()
        assert f"Drill-down for 25 of {n} conversations" in note.inner_text()
        assert page.locator("#summary table.grid").first.is_visible()
        # the list and the grid cover every conversation; the drill-down 25
        assert page.locator("#shown").inner_text() == f"{n} of {n} shown"
        assert page.locator("#grid .cell").count() == n
        assert page.locator("#grid .cell.nd").count() == n - 25
        # the links in the note open the files with every conversation
        for href in note.locator("a").evaluate_all("as => as.map(a => a.href)"):
            assert href.startswith("file://") and Path(href[len("file://"):]).is_file()
        shown = page.locator("#view article.conv b.sid").all_inner_texts()
        assert len(shown) == 25 and set(shown) <= failed  # 25 of the many failures
        page.locator("#grid .cell:not(.nd)").first.click()
        opened = page.locator("#view article.conv:not([hidden])")
        assert opened.count() == 1 and opened.locator("section.turn").first.is_visible()
        # a conversation left out of the drill-down opens as its row, with where to find it
        left_out = [c for c in results["conversations"] if c["session_id"] not in shown][0]
        page.goto((out / "report.html").as_uri() + "#session=" + left_out["session_id"])
        page.wait_for_selector("html[data-ready]")
        stub = page.locator("#view .stub")
        assert stub.is_visible() and stub.locator("b.sid").inner_text() == left_out["session_id"]
        assert "Not in this report's drill-down (25 of" in stub.inner_text()
        assert "interactions.csv" in stub.inner_text()
        assert page.locator("#view article.conv:not([hidden])").count() == 0
        note.scroll_into_view_if_needed()
        shot = tmp_path / "capped.png"
        page.screenshot(path=str(shot), full_page=False)
        assert shot.stat().st_size > 10_000
    assert not blocked, blocked
