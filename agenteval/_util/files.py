"""Writing files safely: to a temporary file in the same folder, then renamed into place.

A reader (or a crash, or a full disk) never sees half a file: the old file stays whole until the
new one is complete. Nothing is written through a symbolic link: a link at the path, or at a
folder between ``root`` and the path, is refused with a ConfigError naming it (bad usage: the CLI
exits 2). Every ``OSError`` while writing (ENOSPC, EACCES, EROFS ...) becomes one
:class:`~agenteval.errors.OutputError` naming the file (the CLI exits 1).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from agenteval.errors import ConfigError, OutputError

__all__ = ["check_no_link", "fsync_file", "output_error", "temporary_path", "write_atomic"]


def output_error(path: str | Path, exc: OSError) -> OutputError:
    """One line: the file and the system's reason (``No space left on device``)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return OutputError(f"cannot write {path}: {reason}")


def check_no_link(path: str | Path, root: str | Path | None = None) -> None:
    """Refuse ``path`` when it, or a folder below ``root`` on the way to it, is a symbolic link
    (``root`` itself may be one: the user chose it)."""
    path = Path(path)
    parts = [path]
    if root is not None:
        root = Path(root)
        try:
            inner = path.relative_to(root)
        except ValueError:
            inner = None
        if inner is not None:
            parts = [root.joinpath(*inner.parts[: i + 1]) for i in range(len(inner.parts))]
    for part in parts:
        if part.is_symlink():
            raise ConfigError(f"refusing to write {path}: {part} is a symbolic link (to "
                              f"{os.readlink(part)}); agenteval never writes through a link, "
                              "remove it or choose another folder")


@contextlib.contextmanager
def temporary_path(path: str | Path) -> Iterator[Path]:
    """A fresh temporary file beside ``path`` (same folder, so the rename is atomic); removed
    unless the caller has renamed it away."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def fsync_file(path: str | Path) -> None:
    """Flush a written file to the disk before it is renamed into place."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: str | Path, data: str | bytes, *, root: str | Path | None = None,
                 encoding: str = "utf-8", errors: str = "strict") -> Path:
    """Write ``data`` to ``path`` atomically (see the module docstring); returns the path."""
    path = Path(path)
    check_no_link(path, root)
    try:
        with temporary_path(path) as tmp:
            if isinstance(data, str):
                data = data.encode(encoding, errors)
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 -> what open() would have made
            os.replace(tmp, path)
    except OSError as exc:
        raise output_error(path, exc) from None
    return path
