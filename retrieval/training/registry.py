"""Versioned learned-ranker models under var/ranker/ and the manifest that names the live one.

    var/ranker/manifest.json        {"current": "v0002" | null, "versions": [...], "promotions": [...]}
    var/ranker/versions/v0002/learned.json
    var/ranker/events.jsonl         one line per run and rollback: what happened and why
    var/ranker/retrain.lock         held (flock) by the one retraining that may run at a time

A version is written to a hidden temporary directory and renamed into versions/ only once complete,
so a run killed midway leaves no version (only a temporary directory, removed by the next run).
The manifest is replaced atomically (write, then rename); chat processes and workers watch its
mtime (retrieval.rankers.load) and pick up a promoted model without a restart. "current": null is
the model shipped in retrieval/rankers/default_models."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings

from groundwork.file_lock import file_lock_exclusive

MANIFEST = "manifest.json"
EVENTS = "events.jsonl"


class RetrainBusy(RuntimeError):
    pass


def registry_dir() -> Path:
    return Path(settings.RANKER_DIR)


def manifest_path() -> Path:
    return registry_dir() / MANIFEST


def manifest_read() -> dict[str, Any]:
    """The manifest, or an empty one (no version promoted: the shipped model is live)."""
    try:
        data = json.loads(manifest_path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{manifest_path()}: unreadable ranker manifest ({error})") from error
    return {"current": data.get("current"), "versions": list(data.get("versions", [])),
            "promotions": list(data.get("promotions", []))}


def manifest_write(manifest: dict[str, Any]) -> None:
    path = manifest_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=".manifest-", suffix=".json", delete=False) as out:
        json.dump(manifest, out, indent=1)
        out.flush()
        os.fsync(out.fileno())
    os.replace(out.name, path)


def version_dir(version: str) -> Path:
    return registry_dir() / "versions" / version


def version_next(manifest: dict[str, Any]) -> str:
    taken = {entry["version"] for entry in manifest["versions"]}
    existing = {p.name for p in (registry_dir() / "versions").glob("v*")}
    number = len(taken | existing) + 1
    while f"v{number:04d}" in taken | existing:
        number += 1
    return f"v{number:04d}"


@contextmanager
def version_staging() -> Iterator[Path]:
    """A temporary directory under versions/ for a model being written; removed unless renamed."""
    root = registry_dir() / "versions"
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=root, prefix=".partial-"))
    try:
        yield staging
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def staging_leftovers_remove() -> list[str]:
    """Temporary directories of runs that were killed (only call while holding the lock)."""
    root = registry_dir() / "versions"
    removed = []
    for leftover in root.glob(".partial-*") if root.is_dir() else ():
        shutil.rmtree(leftover, ignore_errors=True)
        removed.append(leftover.name)
    return removed


def retrain_lock() -> AbstractContextManager[None]:
    """One retraining (or rollback) at a time among the processes of this machine."""
    return file_lock_exclusive(registry_dir() / "retrain.lock", busy=RetrainBusy("another retraining is running"))


def event_record(*, outcome: str, reason: str, **extra: Any) -> dict[str, Any]:
    """Appended in one write (O_APPEND), so a run refused by the lock can record it too."""
    event = {"at": now(), "outcome": outcome, "reason": reason, **extra}
    path = registry_dir() / EVENTS
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(event) + "\n")
    return event


def events_read(*, last: int = 100) -> list[dict[str, Any]]:
    """The last `last` events, oldest first (a torn or foreign line is skipped)."""
    try:
        lines = (registry_dir() / EVENTS).read_text(encoding="utf-8").splitlines()[-last:]
    except FileNotFoundError:
        return []
    events = []
    for line in lines:
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
