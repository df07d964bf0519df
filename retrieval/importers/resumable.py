"""Importing a whole Wikipedia: batches committed one by one, and after each commit a checkpoint
file recording where in the input the import stands. An interrupted import (Ctrl-C, a killed
worker, a reboot) run again with the same input and source starts after the last committed batch;
a batch that was committed but not yet checkpointed is read again and its titles, already present,
are skipped, so nothing is stored twice.

The checkpoint is a small JSON file beside the input (or where --checkpoint says), written
atomically. It names the input's size and modification time and refuses to resume a changed file."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from django.db import transaction

from retrieval.importers.load import BadRecordError, ImportResult, OnError, _store
from retrieval.importers.records import BadRecord, Record
from retrieval.models import KnowledgeSource

PositionedReader = Callable[[Path, int], Iterator[tuple[Record | BadRecord, int]]]


class CheckpointMismatch(ValueError):
    pass


@dataclass
class Checkpoint:
    source: str
    input: str
    input_size: int
    input_mtime_ns: int
    position: int = 0  # reader-specific: a byte offset (JSON Lines), a rowid (DrQA)
    records: int = 0
    done: bool = False
    result: dict[str, int] = field(default_factory=dict)


def checkpoint_path_for(path: Path, slug: str) -> Path:
    return path.with_name(f"{path.name}.{slug}.import-checkpoint.json")


def checkpoint_load(checkpoint: Path, *, path: Path, slug: str) -> Checkpoint:
    """The saved checkpoint of this input and source, or a fresh one; CheckpointMismatch when the
    saved one is for another source or the input has changed since."""
    stat = path.stat()
    fresh = Checkpoint(source=slug, input=str(path.resolve()), input_size=stat.st_size, input_mtime_ns=stat.st_mtime_ns)
    if not checkpoint.exists():
        return fresh
    saved = Checkpoint(**json.loads(checkpoint.read_text()))
    if (saved.source, saved.input_size, saved.input_mtime_ns) != (slug, stat.st_size, stat.st_mtime_ns):
        raise CheckpointMismatch(
            f"{checkpoint} belongs to another source or an older version of {path.name}; "
            "delete it (or pass --restart) to import from the start"
        )
    return saved


def articles_import_resumable(
    *,
    slug: str,
    name: str,
    language: str,
    path: Path,
    reader: PositionedReader,
    checkpoint: Path,
    on_error: OnError = "fail",
    on_bad: Callable[[BadRecord], None] = lambda bad: None,
    on_records: Callable[[int], None] = lambda n: None,
    batch_size: int = 1000,
    limit: int | None = None,
) -> tuple[ImportResult, Checkpoint]:
    """Import `path` from where its checkpoint says, committing and checkpointing every batch.
    With on_error="fail" a bad record stops the import after the batches before it (committed and
    checkpointed) and raises BadRecordError; "skip" reports it through `on_bad` and goes on."""
    state = checkpoint_load(checkpoint, path=path, slug=slug)
    result = ImportResult(**state.result)
    if state.done:
        return result, state
    source, _ = KnowledgeSource.objects.get_or_create(slug=slug, defaults={"name": name, "language": language})
    batch: dict[str, Record] = {}
    position, pending = state.position, 0

    def commit() -> None:
        nonlocal batch, pending
        with transaction.atomic():
            _store(source, batch, result)
        state.position, state.records = position, state.records + pending
        state.result = asdict(result)
        _save(checkpoint, state)
        on_records(pending)
        batch, pending = {}, 0

    for item, after in reader(path, state.position):
        if limit is not None and state.records + pending >= limit:
            break
        if isinstance(item, BadRecord):
            if on_error == "fail":
                commit()  # the batch before it is kept; the checkpoint stops before the bad record
                raise BadRecordError(item)
            result.bad += 1
            on_bad(item)
        elif item.title in batch:
            result.already_present += 1
        else:
            batch[item.title] = item
        position, pending = after, pending + 1
        if pending >= batch_size:
            commit()
    else:
        state.done = True
    commit()
    return result, state


def _save(checkpoint: Path, state: Checkpoint) -> None:
    staged = checkpoint.with_name(f".{checkpoint.name}.tmp")
    staged.write_text(json.dumps(asdict(state), indent=1))
    os.replace(staged, checkpoint)
