"""`manage.py simulate curiosity` runs whole dialogues through the real websocket stack, and their
export has every field of the schema with the facts' sources and the used/liked flags."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from collect.tasktypes.curiosity.exporter import DB_FILE, FILES
from collect.models import Campaign, Message, Room, RoomStatus
from collect.tasktypes.curiosity.models import CuriosityDialog
from retrieval.models import Sentence
from tests.authenticity.exported import assert_carried
from tests.curiosity.dialogs import md5

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]

DIALOG_KEYS = {
    "messages", "known_entities", "focus_entity", "dialog_id", "inferred_steps", "created_time", "aspects",
    "first_aspect", "second_aspect", "shuffle_facts", "related_entities", "tag", "user_id", "assistant_id",
    "is_annotated", "user_dialog_rating", "user_other_agent_rating", "assistant_dialog_rating",
    "assistant_other_agent_rating", "reported", "annotated",
}
MESSAGE_KEYS = {"message", "liked", "sender", "facts", "message_id", "dialog_acts"}


def test_it_simulates_and_exports_complete_dialogues(campaign: Campaign, tmp_path: Path) -> None:
    out = io.StringIO()
    call_command("simulate", "curiosity", dialogues=3, concurrency=2, stdout=out)
    assert "simulated 3 complete dialogues" in out.getvalue()
    rooms = list(Room.objects.filter(campaign=campaign))
    assert len(rooms) == 3 and all(room.status == RoomStatus.COMPLETE for room in rooms)
    for dialog in CuriosityDialog.objects.filter(room__in=rooms):
        assert dialog.second_aspect is not None and dialog.switched_at is not None
        assert all(getattr(dialog, f"{r}_{k}_rating") for r in ("user", "assistant") for k in ("dialog", "other_agent"))
    assistant = Message.objects.filter(room__in=rooms, role="assistant")
    assert all(len(m.facts) == 9 for m in assistant)
    texts = dict(Sentence.objects.filter(article__source=campaign.knowledge_source).values_list("pk", "text"))
    texts.update(Sentence.objects.filter(article__source=campaign.knowledge_source, fact_id__isnull=False).values_list("fact_id", "text"))
    for room in rooms:
        said = list(room.messages.values_list("text", flat=True))
        assert len(set(said)) == len(said)  # nobody repeats a line
    for message in assistant:
        # The assistant says the facts it marked used, in its own frame.
        for fact in (f for f in message.facts if f["used"]):
            assert texts[fact["fid"]][1:30] in message.text, (texts[fact["fid"]], message.text)
    assert not Message.objects.filter(room__in=rooms, role="user", liked=True).exists()

    export = tmp_path / "export"
    call_command("export_dataset", "curiosity", out=export, holdout_topics=0.0, stdout=io.StringIO())
    assert sorted(p.name for p in export.iterdir()) == sorted([*FILES.values(), DB_FILE])
    checksum = md5(export / DB_FILE)
    dialogs = []
    for name in FILES.values():
        data = json.loads((export / name).read_text(encoding="utf-8"))
        assert set(data) == {"dialogs", "db_checksum"} and data["db_checksum"] == checksum
        dialogs += data["dialogs"]
    assert len(dialogs) == 3
    by_id = {d.dialog_id: d for d in CuriosityDialog.objects.filter(room__in=rooms)}
    for exported in dialogs:
        assert set(exported) == DIALOG_KEYS
        stored = by_id[exported["dialog_id"]]
        assert exported["focus_entity"] == "Namibia" and exported["aspects"] == stored.aspects
        assert exported["known_entities"] == stored.known_entities
        assert isinstance(exported["user_id"], str) and exported["user_id"] != exported["assistant_id"]
        assert not exported["user_id"].startswith("sim-")  # pseudonyms, never the platform ids
        messages = list(Message.objects.filter(room=stored.room).order_by("seq"))
        assert [m["message"] for m in exported["messages"]] == [m.text for m in messages]
        for out_message, message in zip(exported["messages"], messages):
            assert set(out_message) == MESSAGE_KEYS
            assert out_message["liked"] == message.liked
            assert out_message["facts"] == (message.facts if message.role == "assistant" else [])
            assert out_message["message_id"].isdigit()
    assert any(m["liked"] for d in dialogs for m in d["messages"])
    assert any(f["used"] for d in dialogs for m in d["messages"] for f in m["facts"])
    # Every fid is a fact of the exported db.
    import sqlite3

    connection = sqlite3.connect(export / DB_FILE)
    fids = {row[0] for row in connection.execute("SELECT id FROM fact")}
    connection.close()
    assert {f["fid"] for d in dialogs for m in d["messages"] for f in m["facts"]} <= fids
    assert_carried("curiosity", rooms, tmp_path / "with-authenticity")


def test_it_refuses_a_campaign_that_cannot_open_rooms(facts_source) -> None:
    from django.core.management import CommandError

    from tests.curiosity.conftest import make_campaign

    make_campaign(facts_source, topics=["Atlantis"])
    with pytest.raises(CommandError, match="cannot open rooms: topic 'Atlantis' is not an article"):
        call_command("simulate", "curiosity", dialogues=1)


def test_it_rates_a_dialogue_that_the_turn_limit_ends(campaign: Campaign) -> None:
    # Turns drawn up to the limit (the demo's 4–8 turns, limit 8): no one may end the chat before
    # the limit ends it, with the assistant's last message; the script goes on to rate.
    Campaign.objects.filter(pk=campaign.pk).update(min_turns=2, max_turns=2, turn_limit=2)
    call_command("simulate", "curiosity", dialogues=1, stdout=io.StringIO())
    room = Room.objects.get(campaign=campaign)
    assert room.status == RoomStatus.COMPLETE and room.end_reason == "turn limit reached"
    assert room.messages.count() == 4
    dialog = CuriosityDialog.objects.get(room=room)
    assert all(getattr(dialog, f"{r}_{k}_rating") for r in ("user", "assistant") for k in ("dialog", "other_agent"))
