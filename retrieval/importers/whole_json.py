"""Formats whose file is one JSON object keyed by title. Such a file is parsed whole (the demo is
6.5 MB); the records are still yielded one at a time."""

from __future__ import annotations

import json
from pathlib import Path

from retrieval.importers.records import UnreadableFile


def read_object(path: Path) -> dict[str, object]:
    try:
        with path.open("rb") as file:
            data = json.load(file)
    except UnicodeDecodeError as error:
        raise UnreadableFile(f"not valid UTF-8 ({error.reason} at byte {error.start})") from error
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise UnreadableFile(f"invalid JSON at {where}: {error.msg}") from error
    if not isinstance(data, dict):
        raise UnreadableFile(f"expected a JSON object keyed by title, got {type(data).__name__}")
    return data
