"""A persistent, content-addressed cache of judge verdicts (SQLite, WAL).

The key is the sha256 of a canonical JSON of everything that determines a verdict (model,
endpoint without credentials, mode, temperature, prompt version, verdict schema, the full
request messages), so a re-run pays nothing, an interrupted run resumes where it stopped and
any change of prompt or model misses. Only verdicts and token usage are stored, never a key.
WAL mode plus a busy timeout make concurrent writers (threads and processes) safe; every write
is its own short transaction so nothing finished is lost when a run is interrupted.

The cache never ends a run. A file that is not SQLite, a corrupt row, a folder that cannot be
created, a read-only or full disk: the cache warns once (:class:`JudgeCacheWarning`, and
:attr:`JudgeCache.problem` for the run record), keeps what it could not write in memory for the
rest of the process, goes on reading and writing what still works, and the run keeps its
verdicts. A corrupt row is a miss (asked again, then overwritten).

Claims let two processes share one cache without paying twice: before sending, a judgment
claims its key (:meth:`JudgeCache.claim`); a second process that finds the claim held waits
for the verdict instead of sending (:meth:`JudgeCache.wait_for`), and takes the item over when
the claim is released without a verdict, expires, or its process is gone.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

from agenteval.errors import ConfigError

CACHE_FILE = "judge.sqlite3"
_SCHEMA = """CREATE TABLE IF NOT EXISTS verdicts (
    key TEXT PRIMARY KEY,
    verdict TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL
)"""
_CLAIMS = """CREATE TABLE IF NOT EXISTS claims (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    expires REAL NOT NULL
)"""
_FAILURES = (sqlite3.Error, OSError)
"""What a cache operation may fail with (a broken file, a full or read-only disk)."""


class JudgeCacheWarning(UserWarning):
    """The judge cache could not be read or written: the run goes on, verdicts kept in memory."""


def default_cache_path() -> Path:
    """``$AGENTEVAL_CACHE_DIR/judge.sqlite3``, else ``$XDG_CACHE_HOME`` (or ~/.cache)/agenteval."""
    base = os.environ.get("AGENTEVAL_CACHE_DIR")
    if base:
        return Path(base).expanduser() / CACHE_FILE
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg).expanduser() / "agenteval" / CACHE_FILE


def cache_key(payload: dict[str, Any]) -> str:
    """sha256 of the canonical JSON (sorted keys, no whitespace, UTF-8) of ``payload``.

    A lone surrogate (``"\\ud800"``, which UTF-8 cannot encode) is hashed through
    ``surrogatepass``, so one odd record never crashes a run here.
    """
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class JudgeCache:
    """Verdict store keyed by :func:`cache_key`; safe to share between threads and processes."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 30.0) -> None:
        self.path = Path(path).expanduser()
        if self.path.is_dir():
            self.path = self.path / CACHE_FILE
        self._busy_timeout = busy_timeout
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self._memory: dict[str, dict[str, Any]] = {}
        self._dead = False
        self._read_only = False
        self.problem: str | None = None
        """The first problem met (None while the file works); the run record shows it."""
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self._fail(f"its folder cannot be created ({exc.strerror or exc})", dead=True)

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.path)!r})"

    # ---- degrading ---------------------------------------------------------------------------

    def _fail(self, what: str, *, dead: bool = False) -> None:
        """Note a problem; warn the first time. ``dead``: stop using the file at all."""
        self._dead = self._dead or dead
        if self.problem is None:
            self.problem = what
            warnings.warn(f"agenteval: the judge cache {str(self.path)!r} {what}; judging goes "
                          "on, with the verdicts it cannot store kept in memory for this run",
                          JudgeCacheWarning, stacklevel=4)

    def _connect(self) -> sqlite3.Connection:
        # A connection must not cross a fork; reopen in a child process.
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        conn = sqlite3.connect(self.path, timeout=self._busy_timeout, isolation_level=None,
                               check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout * 1000)}")
            deadline = time.monotonic() + self._busy_timeout
            while True:  # switching to WAL needs a moment of exclusivity; retry while others hold it
                try:
                    conn.execute("PRAGMA journal_mode=WAL")
                    conn.execute("PRAGMA synchronous=NORMAL")
                    conn.execute(_SCHEMA)
                    conn.execute(_CLAIMS)
                    break
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc) and "busy" not in str(exc):
                        raise
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.01)
        except BaseException:
            conn.close()
            raise
        self._conn, self._pid = conn, os.getpid()
        return conn

    def _open_read_only(self) -> sqlite3.Connection | None:
        """A read-only connection (a read-only disk: the verdicts stored there still count)."""
        if not self.path.is_file():
            return None
        try:
            conn = sqlite3.connect(self.path.resolve().as_uri() + "?mode=ro&immutable=1",
                                   uri=True, check_same_thread=False)
            conn.execute("SELECT COUNT(*) FROM verdicts").fetchone()
        except _FAILURES:
            return None
        self._conn, self._pid, self._read_only = conn, os.getpid(), True
        return conn

    def _run(self, sql: str, args: tuple[Any, ...] = (), *, fetch: bool = False,
             writing: bool = False) -> Any:
        """One statement, or None (after noting the problem) when the file fails."""
        if self._dead:
            return None
        with self._lock:
            if writing and self._read_only:
                return None
            try:
                conn = self._connect()
            except _FAILURES as exc:
                conn = self._open_read_only()
                if conn is None:
                    self._fail(f"cannot be opened ({_reason(exc)})", dead=True)
                    return None
                self._fail(f"can only be read ({_reason(exc)}): new verdicts are not stored")
                if writing:
                    return None
            try:
                cursor = conn.execute(sql, args)
                return cursor.fetchall() if fetch else True
            except _FAILURES as exc:
                broken = isinstance(exc, sqlite3.DatabaseError) and not isinstance(
                    exc, sqlite3.OperationalError)  # malformed, not a database
                self._fail(f"cannot be {'written' if writing else 'read'} ({_reason(exc)})",
                           dead=broken)
                return None

    # ---- verdicts ----------------------------------------------------------------------------

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry (``verdict`` dict, ``prompt_tokens``, ``completion_tokens``) or None."""
        kept = self._memory.get(key)
        if kept is not None:
            return kept
        rows = self._run("SELECT verdict, prompt_tokens, completion_tokens FROM verdicts "
                         "WHERE key = ?", (key,), fetch=True)
        if not rows:
            return None
        text, prompt, completion = rows[0]
        try:
            verdict = json.loads(text)
            if not isinstance(verdict, dict):
                raise ValueError("not an object")
            entry = {"verdict": verdict, "prompt_tokens": int(prompt),
                     "completion_tokens": int(completion)}
        except (TypeError, ValueError, RecursionError) as exc:
            self._fail(f"holds a corrupt row ({type(exc).__name__}; treated as not cached)")
            return None
        return entry

    def put(self, key: str, verdict: dict[str, Any], *, prompt_tokens: int = 0,
            completion_tokens: int = 0) -> None:
        """Store one verdict (an autocommitted single-row write; in memory if that fails)."""
        text = json.dumps(verdict, sort_keys=True)  # ASCII escapes: any text stores safely
        done = self._run("INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?)",
                         (key, text, int(prompt_tokens), int(completion_tokens), time.time()),
                         writing=True)
        if done:
            self._memory.pop(key, None)
        else:
            self._memory[key] = {"verdict": json.loads(text), "prompt_tokens": int(prompt_tokens),
                                 "completion_tokens": int(completion_tokens)}

    def __len__(self) -> int:
        rows = self._run("SELECT key FROM verdicts", fetch=True) or []
        return len({row[0] for row in rows} | set(self._memory))

    def clear(self) -> None:
        """Forget every stored verdict."""
        self._memory.clear()
        self._run("DELETE FROM verdicts", writing=True)

    # ---- claims (two processes, one cache) ---------------------------------------------------

    def claim(self, key: str, lease: float) -> bool:
        """True when this process may judge ``key`` now (it holds the claim, or claims fail).

        False while another live process holds an unexpired claim on it.
        """
        now = time.time()
        host, pid = socket.gethostname(), os.getpid()
        if self._run("INSERT OR IGNORE INTO claims VALUES (?, ?, ?, ?, ?)",
                     (key, self.owner, host, pid, now + lease), writing=True) is None:
            return True
        rows = self._run("SELECT owner, host, pid, expires FROM claims WHERE key = ?", (key,),
                         fetch=True)
        if not rows:
            return True
        owner, their_host, their_pid, expires = rows[0]
        if owner == self.owner:
            return True
        if expires < now or (their_host == host and not _alive(int(their_pid))):
            self._run("UPDATE claims SET owner = ?, host = ?, pid = ?, expires = ? "
                      "WHERE key = ? AND owner = ?",
                      (self.owner, host, pid, now + lease, key, owner), writing=True)
            rows = self._run("SELECT owner FROM claims WHERE key = ?", (key,), fetch=True)
            return not rows or rows[0][0] == self.owner
        return False

    def release(self, key: str) -> None:
        """Drop this process's claim on ``key`` (after its verdict or failure)."""
        self._run("DELETE FROM claims WHERE key = ? AND owner = ?", (key, self.owner),
                  writing=True)

    async def wait_for(self, key: str, lease: float, *, poll: float = 0.1) -> bool:
        """Wait while another process holds ``key``: True once its verdict is stored, False
        when this process should judge it (the claim was released without a verdict, or
        expired, or its owner died; this process then holds the claim)."""
        while True:
            if self.get(key) is not None:
                return True
            if self.claim(key, lease):
                return self.get(key) is not None
            await asyncio.sleep(poll)
            poll = min(poll * 1.5, 1.0)

    def close(self) -> None:
        """Close this process's connection (it reopens on next use)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "busy_timeout": self._busy_timeout}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], busy_timeout=state["busy_timeout"])  # type: ignore[misc]


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def resolve_cache(cache: str | os.PathLike[str] | bool | JudgeCache | None) -> JudgeCache | None:
    """``True`` -> default location, ``False``/``None`` -> no cache, a path -> that file."""
    if isinstance(cache, JudgeCache):
        return cache
    if cache is False or cache is None:
        return None
    if cache is True:
        return JudgeCache(default_cache_path())
    if isinstance(cache, (str, os.PathLike)):
        return JudgeCache(cache)
    raise ConfigError(f"cache must be True, False, None or a path, got {cache!r}")
