"""A persistent, content-addressed cache of judge verdicts (SQLite, WAL).

The key is the sha256 of a canonical JSON of everything that determines a verdict (model,
endpoint without credentials, mode, temperature, prompt version, verdict schema, the full
request messages), so a re-run pays nothing, an interrupted run resumes where it stopped and
any change of prompt or model misses. Only verdicts and token usage are stored, never a key.
WAL mode plus a busy timeout make concurrent writers (threads and processes) safe; every write
is its own short transaction so nothing finished is lost when a run is interrupted.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
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
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cache must be a writable path, got {str(path)!r}: {exc}") from None
        self._busy_timeout = busy_timeout
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.path)!r})"

    def _connect(self) -> sqlite3.Connection:
        # A connection must not cross a fork; reopen in a child process.
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        conn = sqlite3.connect(self.path, timeout=self._busy_timeout, isolation_level=None,
                               check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout * 1000)}")
        deadline = time.monotonic() + self._busy_timeout
        while True:  # switching to WAL needs a moment of exclusivity; retry while others hold it
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(_SCHEMA)
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        self._conn, self._pid = conn, os.getpid()
        return conn

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry (``verdict`` dict, ``prompt_tokens``, ``completion_tokens``) or None."""
        with self._lock:
            row = self._connect().execute(
                "SELECT verdict, prompt_tokens, completion_tokens FROM verdicts WHERE key = ?",
                (key,)).fetchone()
        if row is None:
            return None
        return {"verdict": json.loads(row[0]), "prompt_tokens": row[1],
                "completion_tokens": row[2]}

    def put(self, key: str, verdict: dict[str, Any], *, prompt_tokens: int = 0,
            completion_tokens: int = 0) -> None:
        """Store one verdict (an autocommitted single-row write)."""
        text = json.dumps(verdict, sort_keys=True)  # ASCII escapes: any text stores safely
        with self._lock:
            self._connect().execute(
                "INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?)",
                (key, text, int(prompt_tokens), int(completion_tokens), time.time()))

    def __len__(self) -> int:
        with self._lock:
            return int(self._connect().execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])

    def clear(self) -> None:
        """Forget every stored verdict."""
        with self._lock:
            self._connect().execute("DELETE FROM verdicts")

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
