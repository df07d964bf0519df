"""Export layers of annotation jobs. `wowpp` is registered in collect.exporters.EXPORTERS."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from collect.exporters import export_progress_tick


def write_json_object(path: Path, entries: Iterable[tuple[str, object]]) -> int:
    """Write {key: value, ...} one entry at a time, byte for byte what json.dumps(dict) writes (the
    released WOW++ files are exactly that), renamed into place only when complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    count = 0
    try:
        with temp.open("w", encoding="utf-8") as handle:
            handle.write("{")
            for key, value in entries:
                handle.write(f"{', ' if count else ''}{json.dumps(key)}: {json.dumps(value)}")
                count += 1
                export_progress_tick()
            handle.write("}")
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
    return count
