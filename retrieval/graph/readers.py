"""Readers of triple files. Each yields a (subject, property, value) tuple or a BadRecord naming the
line; text is kept exactly as in the file (DuConv's is word-segmented with spaces)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from retrieval.importers.records import BadRecord, UnreadableFile, json_object

Triple = tuple[str, str, str]
FIELD_MAX = 300  # subject and property; values may be longer (comments)


def read_tsv(path: Path) -> Iterator[Triple | BadRecord]:
    """`subject \\t property \\t value` lines; blank lines and lines starting with "#" are skipped."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            where = f"line {number}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                yield BadRecord(where, "not valid UTF-8")
                continue
            line = line.rstrip("\r\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 3:
                yield BadRecord(
                    where, f"expected 3 tab-separated fields (subject, property, value), found {len(fields)}"
                )
                continue
            yield check_triple(where, fields)


def read_duconv(path: Path) -> Iterator[Triple | BadRecord]:
    """DuConv sessions or test samples (JSON Lines with `goal` and `knowledge`): every knowledge
    triple and every relation triple of the goal (its first, START, entry names no fact)."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            where = f"line {number}"
            if not raw.strip():
                continue
            obj = json_object(where, raw)
            if isinstance(obj, BadRecord):
                yield obj
                continue
            goal, knowledge = obj.get("goal"), obj.get("knowledge")
            if not isinstance(goal, list) or not isinstance(knowledge, list):
                yield BadRecord(where, "a DuConv line needs a 'goal' list and a 'knowledge' list")
                continue
            for position, triple in enumerate([*goal[1:], *knowledge]):
                yield check_triple(f"{where}, triple {position + 1}", triple)


def check_triple(where: str, fields: object) -> Triple | BadRecord:
    if not isinstance(fields, list) or len(fields) != 3 or not all(isinstance(f, str) for f in fields):
        return BadRecord(where, f"a triple must be 3 strings [subject, property, value], not {json.dumps(fields, ensure_ascii=False)[:80]}")
    subject, prop, value = fields
    for name, text in (("subject", subject), ("property", prop), ("value", value)):
        if not text.strip():
            return BadRecord(where, f"empty {name}")
    for name, text in (("subject", subject), ("property", prop)):
        if len(text) > FIELD_MAX:
            return BadRecord(where, f"the {name} is longer than {FIELD_MAX} characters")
    return subject, prop, value


READERS = {"triples": read_tsv, "duconv": read_duconv}

__all__ = ["READERS", "UnreadableFile", "check_triple", "read_duconv", "read_tsv"]
