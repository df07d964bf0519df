"""Jobs built from collected rooms: relevance candidates from the knowledge the wizard was shown,
dialog-act items keyed by collect Message ids, and the labels flowing back (dialog_acts_for)."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from annotate.models import Item, ItemMessage, Job
from annotate.kinds.dialog_acts.labels import dialog_acts_for
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from collect.models import RoomStatus, Worker
from tests.factories import TOPIC, TOPIC_PASSAGE, add_message, make_campaign, make_room

pytestmark = pytest.mark.django_db

PARTNER = [{"Time travel": ["Time travel is moving between points in time.", "It is common in fiction."]}]


def wow_room(campaign):
    """apprentice asks, wizard answers from the topic passage; then the wizard checks nothing."""
    room = make_room(campaign, first_speaker="apprentice", status=RoomStatus.COMPLETE)
    add_message(room, "apprentice", "What is science fiction about?", retrieved_passages=PARTNER)
    shown = [
        {"source": "chosen", "passage": 0, "title": TOPIC, "sentences": TOPIC_PASSAGE},
        {"source": "partner", "passage": 0, "title": "Time travel", "sentences": PARTNER[0]["Time travel"]},
    ]
    add_message(
        room, "wizard", "It is speculative fiction.", knowledge_shown=shown,
        checked_sentence={"chosen_Science_fiction_0": TOPIC_PASSAGE[0]},
        checked_passage={"chosen_topic_0_Science_fiction": TOPIC},
    )
    add_message(room, "apprentice", "Does it include time travel?")
    add_message(room, "wizard", "Yes, often.", knowledge_shown=shown[:1],
                checked_sentence={"no_passages_used": "no_passages_used"},
                checked_passage={"no_passages_used": "no_passages_used"})
    return room


def test_it_builds_relevance_items_from_what_the_wizard_was_shown(db) -> None:
    campaign = make_campaign(slug="wow-a")
    room = wow_room(campaign)
    make_room(campaign, status=RoomStatus.CHATTING)  # unfinished rooms are left out
    call_command("create_annotation_job", "rel-a", "--kind", "relevance", "--campaign", "wow-a", "--max-sentences-per-article", "2")
    items = list(Item.objects.filter(job__slug="rel-a").order_by("position"))
    assert len(items) == 2
    first = items[0].payload
    assert first["turns"] == ["What is science fiction about?"] and first["start_speaker"] == "Human"
    assert [(c["article"], c["sentence"]) for c in first["candidates"]] == [
        (TOPIC, TOPIC_PASSAGE[0]),
        (TOPIC, TOPIC_PASSAGE[1]),
        ("Time travel", PARTNER[0]["Time travel"][0]),
        ("Time travel", PARTNER[0]["Time travel"][1]),
    ]
    assert first["gold_sentence"] == {"chosen_Science_fiction_0": TOPIC_PASSAGE[0]}
    assert first["knowledges"][0] == {TOPIC: TOPIC_PASSAGE}
    assert items[0].message.room_id == room.id and items[0].payload["id"] == items[0].key
    assert len(items[1].payload["turns"]) == 3 and items[1].payload["gold_sentence"] == {"no_passages_used": "no_passages_used"}
    # Running it again adds nothing new.
    call_command("create_annotation_job", "rel-a", "--kind", "relevance", "--campaign", "wow-a")
    assert Item.objects.filter(job__slug="rel-a").count() == 2


def test_it_adds_the_checked_sentence_when_it_was_cut_from_the_candidates(db) -> None:
    campaign = make_campaign(slug="wow-b")
    room = make_room(campaign, first_speaker="apprentice", status=RoomStatus.COMPLETE)
    add_message(room, "apprentice", "Tell me more.")
    shown = [{"source": "chosen", "passage": 0, "title": TOPIC, "sentences": TOPIC_PASSAGE}]
    add_message(room, "wizard", "Sure.", knowledge_shown=shown,
                checked_sentence={"chosen_Science_fiction_2": TOPIC_PASSAGE[2]},
                checked_passage={"chosen_topic_0_Science_fiction": TOPIC})
    call_command("create_annotation_job", "rel-b", "--kind", "relevance", "--campaign", "wow-b", "--max-sentences-per-article", "1")
    candidates = Item.objects.get(job__slug="rel-b").payload["candidates"]
    assert [c["sentence"] for c in candidates] == [TOPIC_PASSAGE[0], TOPIC_PASSAGE[2]]


def test_it_labels_collected_messages_and_gives_the_majority_back(db) -> None:
    campaign = make_campaign(slug="wow-c")
    room = wow_room(campaign)
    call_command("create_annotation_job", "acts-c", "--kind", "dialog_acts", "--campaign", "wow-c", "--overlap", "3")
    job = Job.objects.get(slug="acts-c")
    item = Item.objects.get(job=job)
    messages = list(room.messages.order_by("seq"))
    assert [m["sender"] for m in item.payload["messages"]] == ["user", "assistant", "user", "assistant"]
    assert list(ItemMessage.objects.filter(item=item).order_by("index").values_list("message_id", flat=True)) == [m.id for m in messages]
    votes = [
        [["request_topic"], ["inform_response"], ["request_followup"], []],
        [["request_topic"], ["inform_response", "offer_topic"], [], []],
        [["request_other"], ["inform_response"], [], ["feedback_positive"]],
    ]
    for n, acts in enumerate(votes):
        worker = Worker.objects.create(external_id=f"annotator-{n}")
        assert assignment_next(job=job, worker=worker).assignment.item_id == item.id
        answer_submit(item_id=item.id, worker=worker, acts=acts)
    labels = dialog_acts_for([m.id for m in messages])
    # At least half of 3 annotators = 2 votes.
    assert labels == {
        messages[0].id: ["request_topic"],
        messages[1].id: ["inform_response"],
        messages[2].id: [],
        messages[3].id: [],
    }
    assert dialog_acts_for([999_999]) == {}
    assert job.kind == "dialog_acts"
