"""Imported Curiosity fact databases (wiki_sql.sqlite.db) under var/curiosity/: the Curiosity export
ships them and nothing can rebuild them, so every backup carries them (collect.backup.files)."""

from __future__ import annotations

from pathlib import Path

from retrieval.curiosity.factdb import keep_dir
from retrieval.models import FactDatabase



def factdb_paths_relocate() -> int:
    """The database records where each kept fact db lies (an absolute path): after a restore on
    another machine or into another var/, point the records at the restored copies. Returns how
    many were moved."""
    moved = 0
    for record in FactDatabase.objects.exclude(path=""):
        restored = keep_dir() / Path(record.path).name
        if restored.is_file() and Path(record.path) != restored:
            FactDatabase.objects.filter(pk=record.pk).update(path=str(restored))
            moved += 1
    return moved
