"""Issue 18.7 and "also seen": the cache never ends a run, and two processes share it.

A file that is not SQLite, a corrupt row, a folder that cannot be created, a full disk (a small
tmpfs filled up) and a read-only disk (a tmpfs remounted read-only): the run keeps judging, warns
once, keeps its verdicts and writes what can be written. The disk cases mount a real tmpfs when
the test may (root with mount rights), else they are skipped.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from agenteval.judge.base import AnswerItem, Verdict
from agenteval.judge.cache import JudgeCacheWarning

GOOD = Verdict(0.75, "looks right")


def _items(prefix: str, n: int) -> list[AnswerItem]:
    return [AnswerItem(query=f"query {prefix}{i}", answer="a", ground_truth="ref")
            for i in range(n)]


def _judge_with_warnings(make_judge, items, **options):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        judge = make_judge(**options)
        out = judge.judge_answers(items)
    cache_warnings = [w for w in seen if issubclass(w.category, JudgeCacheWarning)]
    return judge, out, cache_warnings


def test_a_file_that_is_not_sqlite_degrades_to_memory(make_judge, fake_server, cache_file):
    cache_file.parent.mkdir(parents=True)
    cache_file.write_bytes(b"this is not a database\n" * 100)
    judge, out, seen = _judge_with_warnings(make_judge, _items("A", 6), cache=cache_file)
    assert out == [GOOD] * 6
    assert len(seen) == 1 and "cannot be opened" in str(seen[0].message)
    assert "in memory" in str(seen[0].message)
    assert "not a database" in judge.run_record.details["cache_problem"]
    # within the process the verdicts are kept: asking again costs nothing
    before = len(fake_server.requests)
    assert judge.judge_answers(_items("A", 6)) == [GOOD] * 6
    assert len(fake_server.requests) == before
    assert cache_file.read_bytes().startswith(b"this is not a database")  # never overwritten


def test_a_corrupt_row_is_a_miss_and_is_rewritten(make_judge, fake_server, cache_file):
    assert make_judge().judge_answers(_items("A", 3)) == [GOOD] * 3
    with sqlite3.connect(cache_file) as db:
        db.execute("UPDATE verdicts SET verdict = '{broken'")
    judge, out, seen = _judge_with_warnings(make_judge, _items("A", 3))
    assert out == [GOOD] * 3 and len(fake_server.requests) == 6
    assert len(seen) == 1 and "corrupt row" in str(seen[0].message)
    again = make_judge()  # the rows were written again, valid
    assert again.judge_answers(_items("A", 3)) == [GOOD] * 3
    assert again.run_record.cache_hits == 3


def test_a_folder_that_cannot_be_created_degrades_to_memory(make_judge, fake_server, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    judge, out, seen = _judge_with_warnings(make_judge, _items("A", 3),
                                            cache=blocker / "sub" / "judge.sqlite3")
    assert out == [GOOD] * 3 and len(seen) == 1
    assert "folder cannot be created" in judge.run_record.details["cache_problem"]


# ---- real small disks ------------------------------------------------------------------------

@pytest.fixture
def tmpfs(tmp_path: Path):
    """A 2 MiB tmpfs mounted for the test (skipped where mounting is not allowed)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def _fill(folder: Path) -> None:
    """Write a file until the disk is full (ENOSPC)."""
    with open(folder / "filler", "wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError:
            pass
    for extra in range(1000):  # the last partial blocks too
        try:
            (folder / f"f{extra}").write_bytes(b"\0" * 512)
        except OSError:
            break


def test_a_full_disk_keeps_judging_and_keeps_what_was_stored(make_judge, fake_server, tmpfs):
    cache = tmpfs / "judge.sqlite3"
    assert make_judge(cache=cache).judge_answers(_items("old", 4)) == [GOOD] * 4
    _fill(tmpfs)
    sent = len(fake_server.requests)
    items = _items("old", 4) + _items("new", 400)  # enough new rows to need new pages
    judge, out, seen = _judge_with_warnings(make_judge, items, cache=cache)
    assert out == [GOOD] * len(items)
    assert judge.run_record.cache_hits == 4  # what was stored before is still read
    assert len(fake_server.requests) - sent == 400
    assert len(seen) == 1 and "full" in str(seen[0].message)
    assert "cannot be written" in judge.run_record.details["cache_problem"]


def test_a_read_only_disk_keeps_judging(make_judge, fake_server, tmpfs):
    cache = tmpfs / "judge.sqlite3"
    writer = make_judge(cache=cache)
    assert writer.judge_answers(_items("old", 4)) == [GOOD] * 4
    writer.cache.close()  # no file open for writing, so the disk can be remounted read-only
    done = subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], capture_output=True)
    assert done.returncode == 0, done.stderr
    judge, out, seen = _judge_with_warnings(make_judge, _items("old", 4) + _items("new", 4),
                                            cache=cache)
    assert out == [GOOD] * 8
    assert len(seen) == 1, [str(w.message) for w in seen]
    assert "can only be read" in judge.run_record.details["cache_problem"]
    assert judge.run_record.cache_hits == 4  # the verdicts stored before still count
    assert len(fake_server.requests) == 4 + 4


# ---- two processes, one cache ------------------------------------------------------------------

_OTHER = """
import sys
from agenteval.judge.base import AnswerItem
from agenteval.judge.llm import LLMJudge
judge = LLMJudge("judge-model", base_url=sys.argv[1], api_key="sk-test-SECRET-0123456789abcdef",
                 cache=sys.argv[2], progress=False, max_concurrency=4, timeout=5.0)
judge.start_run()
items = [AnswerItem(query=f"query s{i}", answer="a", ground_truth="ref") for i in range(40)]
out = judge.judge_answers(items)
print(sum(type(o).__name__ == "Verdict" for o in out), judge.run_record.calls)
"""


def test_a_second_process_sharing_the_cache_reuses_the_first_ones_verdicts(make_judge,
                                                                          fake_server,
                                                                          cache_file):
    fake_server.latency = 0.15  # 40 items at concurrency 4: about 1.5 s for the first process
    make_judge().judge_answers(_items("warm", 1))  # the cache file and its tables exist
    fake_server.reset()
    first = subprocess.Popen([sys.executable, "-c", _OTHER, fake_server.base_url,
                              str(cache_file)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ})
    try:
        deadline = time.monotonic() + 30
        while not fake_server.requests and time.monotonic() < deadline:
            time.sleep(0.01)
        second = make_judge(max_concurrency=4)
        out = second.judge_answers(_items("s", 40))
        assert out == [GOOD] * 40
        verdicts, calls = map(int, first.communicate(timeout=60)[0].split())
    finally:
        first.kill()
    assert verdicts == 40
    # main: both processes paid for every item (80 requests)
    assert len(fake_server.requests) <= 40 + 4, len(fake_server.requests)
    assert second.run_record.details["from_other_process"] >= 30
