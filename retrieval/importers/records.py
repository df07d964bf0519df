"""What every importer yields: a Record to store, or a BadRecord saying where and what was wrong."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from groundwork.surrogates import lone_surrogate
from retrieval.models import Article

TITLE_MAX = Article._meta.get_field("title").max_length
CATEGORY_MAX = Article._meta.get_field("category").max_length


class Record(NamedTuple):
    title: str
    lead: str
    sentences: list[str] | None  # None: split the lead ourselves
    category: str
    # The article's other sections in order, (heading, text) each, stored as aspects after the lead.
    sections: tuple[tuple[str, str], ...] = ()


class BadRecord(NamedTuple):
    where: str  # "line 12", "record 3"
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"


class UnreadableFile(ValueError):
    """The file as a whole cannot be read (not JSON, wrong top-level shape): nothing can be skipped."""


def check_record(
    where: str, *, title: object, lead: object, sentences: object = None, category: object = ""
) -> Record | BadRecord:
    """A Record when the fields have the right types and sizes, else a BadRecord naming the first problem."""
    if title is None:
        return BadRecord(where, "missing 'title'")
    if not isinstance(title, str):
        return BadRecord(where, f"'title' must be a string, not {type(title).__name__}")
    title = title.strip()
    if not title:
        return BadRecord(where, "empty 'title'")
    if len(title) > TITLE_MAX:
        return BadRecord(where, f"'title' is longer than {TITLE_MAX} characters")
    if not isinstance(category, str):
        return BadRecord(where, f"'category' must be a string, not {type(category).__name__}")
    if len(category) > CATEGORY_MAX:
        return BadRecord(where, f"'category' is longer than {CATEGORY_MAX} characters")
    if sentences is not None:
        if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
            return BadRecord(where, f"the sentences of {title!r} must be a list of strings")
        sentences = [s.strip() for s in sentences if s.strip()]
        if not sentences:
            return BadRecord(where, f"no sentences for {title!r}")
        return Record(title, " ".join(sentences), sentences, category.strip())
    if lead is None:
        return BadRecord(where, f"missing text for {title!r}")
    if not isinstance(lead, str):
        return BadRecord(where, f"the text of {title!r} must be a string, not {type(lead).__name__}")
    if not lead.strip():
        return BadRecord(where, f"empty text for {title!r}")
    return Record(title, lead.strip(), None, category.strip())


def json_object(where: str, raw: bytes) -> dict[str, Any] | BadRecord:
    """One JSON Lines line as an object, or a BadRecord saying what is wrong with it."""
    try:
        obj = json.loads(raw)
    except UnicodeDecodeError:
        return BadRecord(where, "not valid UTF-8")
    except json.JSONDecodeError as error:
        return BadRecord(where, f"invalid JSON ({error.msg} at column {error.colno})")
    if not isinstance(obj, dict):
        return BadRecord(where, f"expected a JSON object, got {type(obj).__name__}")
    return surrogate_problem(where, obj) or obj


def surrogate_problem(where: str, value: object) -> BadRecord | None:
    """A BadRecord when some string of `value` holds a lone surrogate: stored, it breaks every page
    and export that shows it (groundwork.surrogates)."""
    found = lone_surrogate(value)
    return None if found is None else BadRecord(where, found.problem())
