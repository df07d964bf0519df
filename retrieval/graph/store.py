"""Writing triples: one transaction per import, each triple stored once per source."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db import connection, transaction

from retrieval.importers.load import BadRecordError
from retrieval.importers.records import BadRecord
from retrieval.models import KnowledgeSource, Triple

BATCH = 2000


@dataclass
class TriplesResult:
    read: int = 0  # triples read from the file, duplicates included
    created: int = 0  # new to the source
    bad: int = 0

    @property
    def duplicates(self) -> int:
        return self.read - self.created


def triple_digest(subject: str, prop: str, value: str) -> str:
    return hashlib.sha1(f"{subject}\x1f{prop}\x1f{value}".encode()).hexdigest()


def triple_row(source: KnowledgeSource, subject: str, prop: str, value: str) -> Triple:
    return Triple(
        source=source,
        subject=subject,
        property=prop,
        value=value,
        value_key=value[: Triple.VALUE_KEY_CHARS],
        digest=triple_digest(subject, prop, value),
    )


def triples_import(
    *,
    slug: str,
    name: str,
    language: str,
    records: Iterable[tuple[str, str, str] | BadRecord],
    on_error: str = "fail",
    on_bad: Callable[[BadRecord], None] | None = None,
) -> TriplesResult:
    """Store the records' triples in the source `slug` (created if missing), all or nothing: a bad
    record aborts the whole import (BadRecordError) unless on_error="skip"."""
    result = TriplesResult()
    with transaction.atomic():
        source, _ = KnowledgeSource.objects.get_or_create(slug=slug, defaults={"name": name, "language": language})
        before = Triple.objects.filter(source=source).count()
        batch: dict[str, Triple] = {}
        for record in records:
            if isinstance(record, BadRecord):
                if on_error != "skip":
                    raise BadRecordError(record)
                result.bad += 1
                if on_bad:
                    on_bad(record)
                continue
            result.read += 1
            row = triple_row(source, *record)
            batch[row.digest] = row
            if len(batch) >= BATCH:
                Triple.objects.bulk_create(batch.values(), ignore_conflicts=True)
                batch = {}
        if batch:
            Triple.objects.bulk_create(batch.values(), ignore_conflicts=True)
        result.created = Triple.objects.filter(source=source).count() - before
    if result.created and connection.vendor == "postgresql":
        # Fresh statistics, or the planner keeps its empty-table guesses and scans the source.
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {Triple._meta.db_table}")
    return result
