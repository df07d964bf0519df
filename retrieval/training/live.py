"""Which retrained model is live, as the chat processes and workers see it: the manifest's
"current" version, re-read when the manifest changes. The check is one stat() of the manifest, at
most every settings.RANKER_RELOAD_S seconds (5; 0: on every rerank), so a promotion or
a rollback reaches every process within that time, without a restart."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from retrieval.training import registry

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Promoted:
    version: str
    directory: Path


_lock = threading.Lock()
_state: dict[str, object] = {"checked_at": None, "stamp": None, "promoted": None, "dir": None}
_refused: set[tuple[str, object]] = set()


def promoted_model() -> Promoted | None:
    """The promoted version, or None for the shipped model (none promoted, or an unreadable manifest)."""
    every = settings.RANKER_RELOAD_S
    path = registry.manifest_path()
    now = time.monotonic()
    with _lock:
        checked_at = _state["checked_at"]
        if checked_at is not None and _state["dir"] == path and now - checked_at < every:  # type: ignore[operator]
            return _state["promoted"]  # type: ignore[return-value]
        _state["checked_at"], _state["dir"] = now, path
        try:
            info = path.stat()
            stamp: object = (info.st_mtime_ns, info.st_size, info.st_ino)
        except FileNotFoundError:
            stamp = None
        if stamp != _state["stamp"]:
            _state["stamp"], _state["promoted"] = stamp, _read() if stamp else None
        return _state["promoted"]  # type: ignore[return-value]


def promoted_refuse(promoted: Promoted, error: Exception) -> None:
    """A promoted model that does not load: logged once per manifest state; the shipped one is used."""
    key = (promoted.version, _state["stamp"])
    if key not in _refused:
        _refused.add(key)
        log.error("ranker %s does not load (%s); the shipped model ranks instead", promoted.version, error)


def promoted_forget() -> None:
    """Read the manifest again on the next call (tests; a process that must see a change at once)."""
    with _lock:
        _state.update(checked_at=None, stamp=None, promoted=None, dir=None)


def _read() -> Promoted | None:
    try:
        current = registry.manifest_read()["current"]
    except ValueError as error:
        log.error("%s; the shipped model ranks", error)
        return None
    return Promoted(current, registry.version_dir(current)) if isinstance(current, str) and current else None
