"""DrQA's document store: an SQLite file with a table documents(id PRIMARY KEY, text), where id is
the article title (Unicode NFD, as DrQA's build_db.py normalises it) and text the article as
WikiExtractor wrote it, starting with the title line. Read in rowid order with the rowid of each
record as its resume position; the file is opened read-only."""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from retrieval.importers.records import BadRecord, Record, UnreadableFile, check_record
from retrieval.importers.wikiextractor import split_article

FETCH = 1000


def read(path: Path) -> Iterator[Record | BadRecord]:
    for item, _ in read_from(path, 0):
        yield item


def read_from(path: Path, after_rowid: int) -> Iterator[tuple[Record | BadRecord, int]]:
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        cursor = connection.execute("SELECT rowid, id, text FROM documents WHERE rowid > ? ORDER BY rowid", (after_rowid,))
    except sqlite3.DatabaseError as error:  # not SQLite, or no documents table
        raise UnreadableFile(f"not a DrQA document store ({error})") from error
    try:
        while rows := cursor.fetchmany(FETCH):
            for rowid, doc_id, text in rows:
                yield _record(f"document {rowid}", doc_id, text), rowid
    finally:
        connection.close()


def _record(where: str, doc_id: object, text: object) -> Record | BadRecord:
    title = unicodedata.normalize("NFC", doc_id) if isinstance(doc_id, str) else doc_id
    if not isinstance(text, str):
        return check_record(where, title=title, lead=text)
    text = unicodedata.normalize("NFC", text)
    lead, sections = split_article(text, title if isinstance(title, str) else "", [])
    record = check_record(where, title=title, lead=lead)
    return record._replace(sections=tuple(sections)) if isinstance(record, Record) else record
