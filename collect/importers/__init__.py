"""Importers of existing dialogue datasets into collect's rooms (so they can be annotated and
exported again). One module per dataset: `curiosity.curiosity_import`, `duconv.duconv_import`.

An imported file keeps its split: the one given (`--split`), else the one its name says; a file
whose name says none is refused until one is given. `--split hash` (RESPLIT) is the explicit
request to let every export draw the split by hash instead, stored as "".
"""

from __future__ import annotations

from pathlib import Path
from re import Pattern

RESPLIT = "hash"


def split_chosen(*, path: Path, given: str | None, splits: tuple[str, ...], name: Pattern[str], fail: type[ValueError],
                 named: str, items: str) -> str:
    """The split to store. `name` finds the split in the file name (group 1); `named` shows how a
    file names it and `items` what the export would split, for the message; `fail` is raised."""
    if given:
        if given == RESPLIT:
            return ""
        if given not in splits:
            raise fail(f"--split must be one of {', '.join(splits)} or {RESPLIT}, not {given!r}")
        return given
    match = name.search(path.name.lower())
    if match is None or match.group(1) not in splits:
        raise fail(f"{path.name} does not name its split ({named}): give --split {'|'.join(splits)}, "
                   f"or --split {RESPLIT} to have the export split its {items} by hash")
    return match.group(1)
