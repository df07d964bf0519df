"""Wizard of Wikipedia style knowledge: a JSON object {title: [sentence, ...]}; the sentences are
kept as given and the lead is their join."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from retrieval.importers.records import BadRecord, Record, check_record, surrogate_problem
from retrieval.importers.whole_json import read_object


def read(path: Path) -> Iterator[Record | BadRecord]:
    for number, (title, sentences) in enumerate(read_object(path).items(), start=1):
        where = f"record {number}"
        if bad := surrogate_problem(where, {title: sentences}):
            yield bad
        elif not isinstance(sentences, list):
            kind = type(sentences).__name__
            yield BadRecord(where, f"the value of {title!r} must be a list of sentences, not {kind}")
        else:
            yield check_record(where, title=title, lead=None, sentences=sentences)
