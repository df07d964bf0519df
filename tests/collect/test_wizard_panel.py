"""The wizard's panel holds each article once: the topic passage, then what was retrieved for the
apprentice's last turn, then for the wizard's own previous one, an article retrieved twice shown
where it first comes; the wizard checks only what the panel shows, and the stored keys name the
passage in its own turn's retrieval (the export's checked_passage)."""

from __future__ import annotations

import pytest

from collect.errors import ProtocolError
from collect.models import Campaign, Message
from collect.tasktypes.wow import protocol as wow
from collect.services import rooms
from tests.collect.conftest import PairedRoom, make_room

pytestmark = pytest.mark.django_db


def passages(*titles: str) -> list[dict[str, list[str]]]:
    return [{title: [f"{title} one.", f"{title} two."]} for title in titles]


@pytest.fixture
def panel_room(campaign: Campaign) -> PairedRoom:
    """Topic Guitar; the wizard said something (Blues, Guitar, Jazz retrieved for it), then the
    apprentice (Jazz, Guitar, Tea)."""
    paired = make_room(campaign, first_speaker=wow.WIZARD, topic="Guitar")
    Message.objects.create(room=paired.room, seq=1, sender=paired.wizard.assignment, role=wow.WIZARD, client_id="w1",
                           text="Hello!", retrieved_passages=passages("Blues", "Guitar", "Jazz"))
    Message.objects.create(room=paired.room, seq=2, sender=paired.apprentice.assignment, role=wow.APPRENTICE,
                           client_id="a1", text="Tell me more.", retrieved_passages=passages("Jazz", "Guitar", "Tea"))
    return paired


def test_each_article_is_shown_once_where_it_first_comes(panel_room: PairedRoom) -> None:
    panel = wow.WOW.knowledge_for(room=panel_room.room, role=wow.WIZARD)

    shown = [(p["source"], p["passage"], p["title"]) for p in panel["passages"]]
    assert shown == [("chosen", 0, "Guitar"), ("partner", 0, "Jazz"), ("partner", 2, "Tea"), ("self", 0, "Blues")]
    assert panel["after_seq"] == 2


def test_the_wizard_checks_only_what_was_shown_and_the_key_names_its_turn(panel_room: PairedRoom) -> None:
    def post(checked: dict, client_id: str) -> Message:
        frame = {"checked": {**checked, "knowledge_seq": 2}}
        return rooms.message_post(room_id=panel_room.room.pk, assignment=panel_room.wizard.assignment,
                                  client_id=client_id, text="Jazz it is.", frame=frame).message

    with pytest.raises(ProtocolError, match="not in the knowledge you were shown"):
        post({"source": "self", "passage": 2, "sentence": 0}, "w2")  # Jazz: shown under partner, not self

    message = post({"source": "partner", "passage": 2, "sentence": 1}, "w2")

    assert message.checked_sentence == {"partner_Tea_1": "Tea two."}
    assert message.checked_passage == {"partner_2_Tea": "Tea"}
    assert [(p["source"], p["title"]) for p in message.knowledge_shown] == [
        ("chosen", "Guitar"), ("partner", "Jazz"), ("partner", "Tea"), ("self", "Blues")]
