"""Importers: one small module per file format, each a `read(path)` that yields records."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from retrieval.importers import demo, jsonl, wow
from retrieval.importers.records import BadRecord, Record

Reader = Callable[[Path], Iterator[Record | BadRecord]]

READERS: dict[str, Reader] = {"demo": demo.read, "jsonl": jsonl.read, "wow": wow.read}
