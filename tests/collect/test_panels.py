"""A reranked panel is kept on its room for a reload, beside the other roles' panels, and never
once the chat has moved past its turn."""

from __future__ import annotations

import pytest

from collect.models import Message, Room
from collect.tasktypes.wow import protocol as wow
from collect.services.panels import knowledge_reranked_save
from tests.collect.conftest import make_room

pytestmark = pytest.mark.django_db


def frame(after_seq: int, text: str) -> dict:
    return {"type": "knowledge.reranked", "after_seq": after_seq, "ranked_by": "test",
            "passages": [{"title": "Blues", "sentences": [text, "ünïcode 蓝调 \"quoted\" {}"], "scores": [0.5, None]}]}


def test_a_panel_is_kept_beside_the_other_roles_and_not_after_the_chat_moved_on(campaign) -> None:
    paired = make_room(campaign, first_speaker=wow.WIZARD, topic="Guitar")
    Room.objects.filter(pk=paired.room.pk).update(knowledge_reranked={"apprentice": frame(0, "kept")})

    assert knowledge_reranked_save(room_id=paired.room.pk, role=wow.WIZARD, frame=frame(0, "first"))
    assert Room.objects.get(pk=paired.room.pk).knowledge_reranked == {"apprentice": frame(0, "kept"), wow.WIZARD: frame(0, "first")}

    Message.objects.create(room=paired.room, seq=1, sender=paired.wizard.assignment, role=wow.WIZARD, client_id="w1", text="Hi")
    assert not knowledge_reranked_save(room_id=paired.room.pk, role=wow.WIZARD, frame=frame(0, "stale"))
    assert knowledge_reranked_save(room_id=paired.room.pk, role=wow.WIZARD, frame=frame(1, "second"))
    assert Room.objects.get(pk=paired.room.pk).knowledge_reranked == {"apprentice": frame(0, "kept"), wow.WIZARD: frame(1, "second")}


def test_a_room_without_panels_gets_its_first(campaign) -> None:
    paired = make_room(campaign, first_speaker=wow.WIZARD, topic="Guitar")
    assert knowledge_reranked_save(room_id=paired.room.pk, role=wow.WIZARD, frame=frame(0, "first"))
    assert Room.objects.get(pk=paired.room.pk).knowledge_reranked == {wow.WIZARD: frame(0, "first")}
