"""`manage.py simulate` runs whole dialogues through the real websocket stack."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command

from collect.models import Campaign, Message, Room, RoomStatus

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


def test_it_runs_complete_dialogues(campaign: Campaign) -> None:
    out = io.StringIO()
    call_command("simulate", "wow", dialogues=3, concurrency=2, stdout=out)
    assert "simulated 3 complete dialogues" in out.getvalue()
    rooms = list(Room.objects.filter(campaign=campaign))
    assert len(rooms) == 3
    for room in rooms:
        assert room.status == RoomStatus.COMPLETE and 1 <= room.rating <= 5
        assert room.topic in ("Guitar", "Blues") and room.topic_passage
        messages = list(room.messages.order_by("seq"))
        assert len(messages) == 4  # min_turns = max_turns = 2 each
        assert {m.sender.worker_id for m in messages} == {m.worker_id for m in room.members.all()}
        for message in messages:
            assert message.retrieved_passages is not None
            if message.role == "wizard":
                (key,) = message.checked_sentence
                assert key == "no_passages_used" or key.split("_")[0] in ("chosen", "partner", "self")
                # The wizard says the sentence they checked, in their own frame.
                (sentence,) = message.checked_sentence.values()
                assert key == "no_passages_used" or sentence[1:40] in message.text, (sentence, message.text)
        assert len({m.text for m in messages}) == len(messages)  # nobody repeats a line
    assert Message.objects.filter(role="wizard").exclude(checked_sentence__has_key="no_passages_used").exists()


def test_the_apprentice_asks_about_names_the_knowledge_mentions(campaign: Campaign) -> None:
    # Blues' passage names the Deep South and the United States: the apprentice asks about them.
    campaign.personas.update(topics=["Blues"])
    call_command("simulate", "wow", dialogues=2, concurrency=2, stdout=io.StringIO())
    for room in Room.objects.filter(campaign=campaign):
        heard = " ".join([*room.topic_passage, *room.messages.filter(role="wizard").values_list("text", flat=True)])
        asked = list(room.messages.filter(role="apprentice").values_list("text", flat=True))
        named = [n for q in asked for n in re.findall(r"[A-Z]\w+(?: [A-Z]\w+)*", q) if n not in ("Blues", "I") and n in heard]
        assert named, asked


def test_it_rates_a_dialogue_that_the_turn_limit_ends(campaign: Campaign) -> None:
    # Turns drawn up to the limit: no one may end the chat before the limit ends it.
    Campaign.objects.filter(pk=campaign.pk).update(turn_limit=campaign.max_turns)
    call_command("simulate", "wow", dialogues=1, stdout=io.StringIO())
    room = Room.objects.get(campaign=campaign)
    assert room.status == RoomStatus.COMPLETE and room.end_reason == "turn limit reached"
    assert room.messages.count() == 4 and 1 <= room.rating <= 5


def test_it_needs_one_campaign(campaign: Campaign) -> None:
    with pytest.raises(CommandError, match="exactly one"):
        call_command("simulate", "wow", campaign="nope")
    with pytest.raises(CommandError, match="at least 1"):
        call_command("simulate", "wow", dialogues=0)
