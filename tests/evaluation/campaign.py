"""A finished model-chat campaign written straight into the tables collect.tasktypes.modelchat reads: two
models and the human control, topics seen and unseen, ratings, per-turn labels and latencies."""

from __future__ import annotations

from typing import Any

from collect.tasktypes.modelchat.models import EvalModel, ModelChat, ModelTurn
from collect.models import Assignment, Campaign, Message, Room, Worker
from retrieval.models import KnowledgeSource

PASSAGE = ["Jazz is a music genre.", "It originated in New Orleans.", "Jazz uses swing and blue notes."]


def make_campaign(slug: str = "eval-mc") -> Campaign:
    source, _ = KnowledgeSource.objects.get_or_create(slug="eval-kb", defaults={"name": "Eval KB"})
    return Campaign.objects.create(
        slug=slug,
        name="Eval campaign",
        protocol="model_chat",
        knowledge_source=source,
        protocol_config={"models": {"good-bot": 3, "bad-bot": 3}, "control": 2, "unseen_topics": ["Tea"],
                         "problems": ["repetitive", "off_topic"]},
    )


def add_chat(
    campaign: Campaign, n: int, *, model: str | None, rating: int, topic: str = "Jazz", replies: list[str],
    problems: list[list[str]] | None = None, latencies: list[int] | None = None,
) -> Room:
    room = Room.objects.create(campaign=campaign, status="complete", first_speaker="apprentice", turns_required=2,
                               topic=topic, topic_passage=PASSAGE)
    human = Worker.objects.create(external_id=f"h{n}-{campaign.slug}")
    partner_worker = Worker.objects.create(external_id=f"p{n}-{campaign.slug}")
    evaluator = Assignment.objects.create(campaign=campaign, worker=human, status="paired", room=room, role="apprentice")
    partner = Assignment.objects.create(campaign=campaign, worker=partner_worker, status="paired", room=room, role="wizard")
    eval_model = EvalModel.objects.get_or_create(name=model, defaults={"dotted_path": "x.Y"})[0] if model else None
    ModelChat.objects.create(room=room, arm="model" if model else "human", model=eval_model, seen=topic != "Tea",
                             answers={"engagingness": rating})
    seq = 0
    for k, reply in enumerate(replies):
        for assignment, text in ((evaluator, f"question {k}"), (partner, reply)):
            seq += 1
            message = Message.objects.create(room=room, seq=seq, sender=assignment, role=assignment.role, client_id=f"{room.pk}-{seq}", text=text)
            if assignment is partner and eval_model:
                ModelTurn.objects.create(message=message, model=eval_model, latency_ms=(latencies or [100] * 9)[k],
                                         problems=(problems or [["none"]] * 9)[k])
    return room


def populate(campaign: Campaign) -> dict[str, Any]:
    """good-bot: ratings 4, 5, 5 (one unseen topic), on-topic replies, fast; bad-bot: 1, 2, 1,
    repetitive, slow; human control: 5, 4."""
    good = ["Jazz originated in New Orleans.", "Jazz uses swing and blue notes."]
    for n, (rating, topic) in enumerate([(4, "Jazz"), (5, "Jazz"), (5, "Tea")]):
        add_chat(campaign, n, model="good-bot", rating=rating, topic=topic, replies=good, latencies=[100, 200])
    for n, rating in enumerate([1, 2, 1], start=10):
        add_chat(campaign, n, model="bad-bot", rating=rating, replies=["I like cheese.", "I like cheese."],
                 problems=[["none"], ["repetitive", "off_topic"]], latencies=[900, 1100])
    for n, rating in enumerate([5, 4], start=20):
        add_chat(campaign, n, model=None, rating=rating, replies=["Jazz is a music genre from New Orleans.", "Yes, swing!"])
    return {"conversations": 8}
