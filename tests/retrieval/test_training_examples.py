"""The training examples the collection gives: checked sentences of finished, accepted WoW dialogues
against the panel the wizard saw, and the graded votes of relevance jobs; never rejected work, rooms
still running, turns without a checked sentence, nor the held-out set."""

from __future__ import annotations

import pytest
from annotate.services.answers import answer_submit
from annotate.services.assignment import assignment_next
from annotate.services.jobs import ItemSpec, items_add, job_create
from collect.models import Decision, RoomStatus
from retrieval.rankers.wowpp import wowpp_read
from retrieval.training.examples import training_examples_collected
from tests.factories import make_campaign, make_worker
from tests.retrieval.collected import collected_rooms, heldout_file

pytestmark = pytest.mark.django_db


def test_each_checked_sentence_against_the_rest_of_its_panel() -> None:
    (room,) = collected_rooms(make_campaign(), range(3, 4))
    examples = training_examples_collected()
    (context,) = examples.contexts
    assert context.id == f"wow:{room.id}:4" and context.topic == "Island3"
    assert context.turns == ["Tell me about Island3.", "Sure, room 3.",
                             "I heard the ferry boats in the harbour are old, crew number 3."]
    assert [c.text for c in context.candidates] == [
        "Island3 is a volcanic island in the south.", "Its population grew after 1903.",
        "Ferry boats in the harbour carry an old crew, number 3.", "The harbour was dredged in 1953.",
    ]
    assert context.confidences.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert examples.counts() == {"contexts": 1, "dialogues": 1, "wizard_turns": 1, "relevance_items": 0,
                                 "held_out_skipped": 0}


def test_rejected_soft_rejected_and_unfinished_rooms_give_nothing() -> None:
    campaign = make_campaign()
    collected_rooms(campaign, range(0, 2))
    collected_rooms(campaign, range(2, 3), decision=Decision.REJECTED)
    collected_rooms(campaign, range(3, 4), decision=Decision.SOFT_REJECTED)
    (running,) = collected_rooms(campaign, range(4, 5))
    running.status = RoomStatus.CHATTING
    running.save()
    assert [c.topic for c in training_examples_collected().contexts] == ["Island0", "Island1"]
    assert [c.topic for c in training_examples_collected(max_dialogues=1).contexts] == ["Island0"]


def test_contexts_of_the_heldout_set_are_left_out(tmp_path) -> None:
    rooms = collected_rooms(make_campaign(), range(0, 2))
    last = rooms[0].messages.order_by("seq")
    held = wowpp_read(heldout_file(tmp_path / "h.json", range(0, 1)))
    held[0].turns[:] = [m.text for m in last][1:3]  # the same last two turns as room 0's checked turn
    examples = training_examples_collected(held_out=held)
    assert [c.topic for c in examples.contexts] == ["Island1"] and examples.held_out_skipped == 1


def test_relevance_votes_are_graded_examples() -> None:
    job = job_create(slug="votes", name="votes", kind="relevance", overlap=2)
    candidates = [{"article": "Blues", "sentence": s} for s in ("Blues is a genre.", "It began in the South.", "Blue notes.")]
    payload = {"topic": "Blues", "turns": ["Do you like the blues?", "Where does it come from?"], "candidates": candidates}
    items_add(job=job, specs=[ItemSpec(key="k0", payload=payload), ItemSpec(key="k1", payload={**payload, "turns": ["Hi?"]})])
    for picks in ([1], [1, 2]):
        worker = make_worker()
        item = assignment_next(job=job, worker=worker).assignment.item
        assert item.key == "k0"
        answer_submit(item_id=item.pk, worker=worker, selected=picks)
    examples = training_examples_collected()
    (context,) = examples.contexts  # k1 has no votes yet: not finished
    assert context.id == "relevance:votes:k0" and context.confidences.tolist() == [0.0, 1.0, 0.5]
    assert examples.per_source == {"wizard_turns": 0, "relevance_items": 1}
    assert training_examples_collected(sources=["wizard_turns"]).contexts == []
