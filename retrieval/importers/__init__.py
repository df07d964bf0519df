"""Importers: one small module per file format, each a `read(path)` that yields records. The formats
a whole Wikipedia comes in also have a `read_from(path, position)` yielding (record, position after
it), which the resumable import checkpoints."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from retrieval.importers import demo, drqa, jsonl, wikiextractor, wow
from retrieval.importers.records import BadRecord, Record
from retrieval.importers.resumable import PositionedReader

Reader = Callable[[Path], Iterator[Record | BadRecord]]

READERS: dict[str, Reader] = {
    "demo": demo.read,
    "jsonl": jsonl.read,
    "wow": wow.read,
    "wikiextractor": wikiextractor.read,
    "drqa": drqa.read,
}
# Imported batch by batch with a checkpoint, resumable after an interruption.
RESUMABLE: dict[str, PositionedReader] = {"wikiextractor": wikiextractor.read_from, "drqa": drqa.read_from}
