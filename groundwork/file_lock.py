"""One holder at a time among the processes of a machine: an exclusive flock on a file, refused at
once (not waited for) when another process holds it. The kernel drops the lock of a process that
dies, so a killed holder never leaves it stuck."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def file_lock_exclusive(path: Path, *, busy: Exception) -> Iterator[None]:
    """Hold the lock on `path` (created with its folder) for the block; raise `busy` when another
    process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            raise busy from error
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
