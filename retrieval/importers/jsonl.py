"""JSON Lines: one object a line with "title" and "text" (WikiExtractor's --json output also has
"id" and "url"). The first paragraph of "text" is the lead."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from retrieval.importers.records import BadRecord, Record, check_record, json_object


def read(path: Path) -> Iterator[Record | BadRecord]:
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, start=1):
            if raw.strip():
                yield _parse(f"line {number}", raw)


def _parse(where: str, raw: bytes) -> Record | BadRecord:
    obj = json_object(where, raw)
    if isinstance(obj, BadRecord):
        return obj
    text = obj.get("text")
    lead = _first_paragraph(text, obj.get("title")) if isinstance(text, str) else text
    category = obj.get("category")
    return check_record(where, title=obj.get("title"), lead=lead, category="" if category is None else category)


def _first_paragraph(text: str, title: object) -> str:
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    # Some WikiExtractor versions repeat the title as the text's first line.
    if len(paragraphs) > 1 and isinstance(title, str) and paragraphs[0] == title.strip():
        paragraphs = paragraphs[1:]
    return paragraphs[0] if paragraphs else ""
