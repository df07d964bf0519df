"""`manage.py simulate topical_chat` runs whole conversations through the real websocket stack: every
message marked from its sender's reading set, every message rated by the partner (the last one at
the end), both conversation ratings given, and the export in the release's shape."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from collect.models import Campaign, Message, Room, RoomStatus
from collect.tasktypes.topical_chat.models import TopicalConversation, TopicalTurn
from collect.tasktypes.topical_chat.reading_sets import sources_of
from collect.tasktypes.topical_chat.release import SENTIMENTS, SPLITS
from tests.authenticity.exported import assert_carried
from tests.topical_chat.conftest import make_campaign
from tests.topical_chat.schema import conversations_problems, reading_sets_problems

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


def test_it_simulates_and_exports_complete_conversations(jazz_source, tmp_path: Path) -> None:
    campaign = make_campaign(jazz_source)
    out = io.StringIO()
    call_command("simulate", "topical_chat", dialogues=3, concurrency=2, campaign=campaign.slug, stdout=out)
    assert "simulated 3 complete dialogues" in out.getvalue()
    rooms = list(Room.objects.filter(campaign=campaign))
    assert len(rooms) == 3 and all(room.status == RoomStatus.COMPLETE for room in rooms)
    for room in rooms:
        conversation = TopicalConversation.objects.get(room=room)
        assert conversation.rating_agent_1 and conversation.rating_agent_2
        turns = {t.seq: t for t in TopicalTurn.objects.filter(room=room)}
        messages = list(Message.objects.filter(room=room).order_by("seq"))
        assert [m.role for m in messages] == ["agent_1", "agent_2"] * (len(messages) // 2) + ["agent_1"] * (len(messages) % 2)
        assert sorted(turns) == [m.seq for m in messages] and len(messages) >= 4
        for message in messages:
            turn = turns[message.seq]
            allowed = sources_of(conversation.reading_sets[message.role], conversation.article)
            assert turn.knowledge_source and set(turn.knowledge_source) <= set(allowed)
            assert turn.sentiment in SENTIMENTS and turn.turn_rating  # every message rated, the last at the end

    export = tmp_path / "export"
    call_command("export_dataset", "topical_chat", out=export, campaigns=[campaign.slug], stdout=io.StringIO())
    exported = {}
    for split in SPLITS:
        data = json.loads((export / "conversations" / f"{split}.json").read_text(encoding="ascii"))
        sets = json.loads((export / "reading_sets" / "post-build" / f"{split}.json").read_text(encoding="ascii"))
        assert reading_sets_problems(sets, "post-build", data) == []
        exported.update(data)
    assert len(exported) == 3 and conversations_problems(exported) == []
    assert_carried("topical_chat", rooms, tmp_path / "with-authenticity", "--campaign", campaign.slug)


def test_it_refuses_a_campaign_whose_topics_cannot_fill_a_reading_set(jazz_source) -> None:
    campaign = make_campaign(jazz_source, topics=["Tea"])  # Tea names no other article
    with pytest.raises(CommandError, match="topic 'Tea' has 0 entities with at least 2 fun facts"):
        call_command("simulate", "topical_chat", dialogues=1, campaign=campaign.slug, stdout=io.StringIO())
    assert not Room.objects.filter(campaign=campaign).exists()
    assert Campaign.objects.filter(pk=campaign.pk).exists()
