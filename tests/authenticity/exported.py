"""`export_dataset NAME --authenticity` on any dataset: one turn of the exported rooms is given a
page's record, and the export must carry it at that turn only (the simulated turns' objects say
their record is absent: the scripted pages send none)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from django.core.management import call_command

from collect.authenticity.record import record_build
from collect.models import Message, Room

TYPED = {"v": 1, "compose_ms": 9_000, "typing_ms": 6_000, "passages": []}


def stamp(room: Room, seq: int = 2) -> Message:
    """Store a page's record on message `seq` of `room` (simulated turns have none)."""
    message = Message.objects.get(room=room, seq=seq)
    value = {**TYPED, "typed_chars": len(message.text)}
    Message.objects.filter(pk=message.pk).update(authenticity=record_build(value=value, text=message.text, address="192.0.2.9"))
    return message


def objects(value: Any) -> list[Any]:
    """Every `authenticity` value in an exported JSON value (a list one, DuConv's, counts by item)."""
    found: list[Any] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "authenticity":
                found += item if isinstance(item, list) else [item]
            else:
                found += objects(item)
    elif isinstance(value, list):
        for item in value:
            found += objects(item)
    return found


def exported_objects(folder: Path) -> list[Any]:
    """The `authenticity` values of every JSON or JSON Lines file under `folder`."""
    found: list[Any] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            values = [json.loads(text)]
        except ValueError:
            try:
                values = [json.loads(line) for line in text.splitlines() if line.strip()]
            except ValueError:
                continue  # not JSON: a fact db
        found += objects(values)
    return found


def assert_carried(dataset: str, rooms: list[Room], folder: Path, *options: str) -> None:
    """Export `dataset` with --authenticity after stamping one turn: one object per message of the
    rooms, the stamped turn's with its figures, the others without a record, no client address."""
    stamped = stamp(rooms[0])
    call_command("export_dataset", dataset, "--out", str(folder), "--authenticity", *options, stdout=io.StringIO())
    found = exported_objects(folder)
    assert len(found) == Message.objects.filter(room__in=rooms).count()
    [carried] = [value for value in found if value is not None and value["status"] == "ok"]
    assert all(value is None or value["status"] == "absent" for value in found if value is not carried)
    assert (carried["status"], carried["chars"], carried["typed_chars"], carried["typing_ms"]) == ("ok", len(stamped.text), len(stamped.text), 6_000)
    assert "192.0.2.9" not in json.dumps(found)
