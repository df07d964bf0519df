"""`export_dataset wow --authenticity`: each turn carries its versioned `authenticity` object with
the turn's flags; without the option the turns keep exactly the original keys."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from collect.authenticity.record import record_build
from collect.authenticity.signals import room_signals_compute
from collect.models import Message, RoomStatus
from collect.tasktypes.wow.exporter import ALL_DIALOGUES
from tests.factories import add_message, make_campaign, make_room

pytestmark = pytest.mark.django_db

PASTED = "Robots in fiction often explore what it means to be human, and that is why I love them."


def export(out: Path, *extra: str) -> list[dict]:
    call_command("export_dataset", "wow", "--out", str(out), *extra, stdout=io.StringIO())
    return json.loads((out / ALL_DIALOGUES).read_text())


@pytest.fixture
def room():
    room = make_room(make_campaign(protocol="wow"), status=RoomStatus.COMPLETE)
    typed = "I like the robot stories best of all."
    wizard = add_message(room, "wizard", typed, checked_sentence={"no_passages_used": "no_passages_used"},
                         checked_passage={"no_passages_used": "no_passages_used"})
    value = {"v": 1, "compose_ms": 12_000, "typing_ms": 8_000, "typed_chars": len(typed), "passages": ["Robot"]}
    Message.objects.filter(pk=wizard.pk).update(authenticity=record_build(value=value, text=typed, address="198.51.100.1"))
    apprentice = add_message(room, "apprentice", PASTED)
    pasted = {"v": 1, "compose_ms": 3_000, "paste": {"outside": {"count": 1, "chars": len(PASTED)}}}
    Message.objects.filter(pk=apprentice.pk).update(authenticity=record_build(value=pasted, text=PASTED, address="198.51.100.2"))
    add_message(room, "wizard", "An imported turn: no record.", checked_sentence={"no_passages_used": "no_passages_used"},
                checked_passage={"no_passages_used": "no_passages_used"})
    room_signals_compute(room_id=room.pk)
    return room


def test_the_authenticity_object_is_exported_only_when_asked(tmp_path: Path, room) -> None:
    [plain] = export(tmp_path / "plain")
    assert all("authenticity" not in turn for turn in plain["dialog"])
    [dialogue] = export(tmp_path / "with", "--authenticity")
    honest, pasted, imported = (turn["authenticity"] for turn in dialogue["dialog"])
    assert honest == {
        "version": 2, "status": "ok", "reason": "", "chars": 37, "compose_ms": 12_000, "typing_ms": 8_000, "typed_chars": 37,
        "inserted_chars": 0, "hidden_ms": 0, "panel_ms": 0, "compositions": 0, "paste": {}, "passages": ["Robot"],
        "timeline": None, "timeline_cut": None, "timeline_replays": None, "flags": [],
    }
    assert pasted["paste"] == {"outside": {"count": 1, "chars": len(PASTED)}} and pasted["flags"] == ["paste_outside"]
    assert imported is None
    assert "198.51.100" not in json.dumps(dialogue)
    # Everything else is the original export's, key for key.
    for a, b in zip(plain["dialog"], dialogue["dialog"]):
        assert {k: v for k, v in b.items() if k != "authenticity"} == a


def test_a_dataset_that_carries_no_authenticity_refuses_the_option(tmp_path: Path) -> None:
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="does not carry authenticity objects"):
        call_command("export_dataset", "modelchat", "--out", str(tmp_path), "--authenticity", stdout=io.StringIO())


def test_the_browser_export_has_the_checkbox_and_writes_the_commands_bytes(settings, tmp_path: Path, room) -> None:
    from django.contrib.auth.models import User
    from django.test import Client

    settings.VAR_DIR = tmp_path / "var"
    settings.CELERY_TASK_ALWAYS_EAGER = True
    client = Client()
    client.force_login(User.objects.create_user("rita", password="x", is_staff=True))
    slug = room.campaign.slug
    assert f'data-testid="export-authenticity-{slug}"'.encode() in client.get("/research/").content
    started = client.post("/research/exports/start/", {"kind": "campaign", "slug": slug, "authenticity": "on"})
    assert f"manage.py export_dataset wow --campaign {slug} --authenticity --out DIR".encode() in client.get(started["Location"]).content
    run_id = started["Location"].rstrip("/").rsplit("/", 1)[1]
    served = b"".join(client.get(f"/research/exports/{run_id}/files/{ALL_DIALOGUES}").streaming_content)
    out = tmp_path / "command"
    call_command("export_dataset", "wow", "--campaign", slug, "--authenticity", "--out", str(out), stdout=io.StringIO())
    assert served == (out / ALL_DIALOGUES).read_bytes() and b'"authenticity"' in served
