"""A simulated WoW campaign retrains the live ranker: scripted workers chat through the real
websocket stack and their wizards check sentences; the held-out gate keeps out the model learned
from wizards who check the wrong sentence and promotes the one learned from careful wizards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync

import collect.tasktypes.wow.simulation
from collect.models import Assignment, Campaign, Decision, Persona, Room
from collect.selectors import knowledge_for
from collect.tasks import knowledge_rerank
from collect.tasktypes.wow.simulation import simulate
from retrieval.rankers.load import live_ranker, ranker_version
from retrieval.training import registry
from retrieval.training.examples import training_examples_collected
from retrieval.training.services import ranker_retrain
from tests.retrieval.retrain_fixtures import ranker_dir  # noqa: F401 - a fixture

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


NOTHING = ("I'm not sure, what do you think?", {"no_passages_used": True})


def careful(bot):
    """Checks the opening sentence of the article retrieved for the partner's last turn."""
    if not bot.knowledge:
        return NOTHING
    passages = [p for p in bot.knowledge if p["source"] == "partner"] or bot.knowledge
    return _check(bot, passages[0], 0)


def contrary(bot):
    """Checks the last sentence of the last article shown: labels that teach the wrong thing."""
    if not bot.knowledge:
        return NOTHING
    passage = bot.knowledge[-1]
    return _check(bot, passage, len(passage["sentences"]) - 1)


def _check(bot, passage, index):
    checked = {"source": passage["source"], "passage": passage["passage"], "sentence": index}
    if passage["source"] != "chosen":
        checked["knowledge_seq"] = bot.knowledge_seq
    return f"Did you know? {passage['sentences'][index]}", checked


@pytest.fixture
def campaign(knowledge, settings) -> Campaign:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    campaign = Campaign.objects.create(slug="wow-sim", name="WoW sim", knowledge_source=knowledge,
                                       min_turns=3, max_turns=3, turn_limit=5)
    for topics in (["Guitar", "Blues"], ["Cat", "Dog"], ["Tea", "Coffee"], ["Mount Everest", "Time travel"]):
        Persona.objects.create(campaign=campaign, text=f"I like {topics[0]}.", topics=topics)
    return campaign


def run(campaign: Campaign, wizard, dialogues: int, seed: int, monkeypatch) -> set:
    monkeypatch.setattr(collect.tasktypes.wow.simulation, "_wizard_reply", wizard)
    before = set(campaign.rooms.values_list("id", flat=True))
    async_to_sync(simulate)(campaign=campaign, dialogues=dialogues, concurrency=2, seed=seed, timeout=60)
    return set(campaign.rooms.values_list("id", flat=True)) - before


def review(rooms: set, decision: str) -> None:
    Assignment.objects.filter(room_id__in=rooms).update(decision=decision)


def test_a_simulated_campaign_retrains_the_ranker_through_the_gate(campaign, ranker_dir: Path, tmp_path: Path, monkeypatch) -> None:
    # The held-out set: careful wizards' turns, written as a WOW++ file, then kept out of training.
    held_rooms = run(campaign, careful, 8, seed=1000, monkeypatch=monkeypatch)
    heldout = tmp_path / "heldout.json"
    heldout.write_text(json.dumps({c.id: {"topic": c.topic, "turns": c.turns, "annotated_sentences": [
        {"label": f"{x.title} <knowledge_separator> {x.text}", "article": x.title, "confidence": float(v)}
        for x, v in zip(c.candidates, c.confidences, strict=True)]} for c in training_examples_collected().contexts}))
    review(held_rooms, Decision.SOFT_REJECTED)

    run(campaign, contrary, 12, seed=0, monkeypatch=monkeypatch)
    worse = ranker_retrain(heldout=heldout)
    assert worse["outcome"] == "kept_out", worse
    assert worse["live_version"] == "shipped-lexical" and ranker_version(live_ranker()) == "shipped-lexical"

    review(set(campaign.rooms.values_list("id", flat=True)) - held_rooms, Decision.REJECTED)
    run(campaign, careful, 12, seed=100, monkeypatch=monkeypatch)
    better = ranker_retrain(heldout=heldout)
    assert better["outcome"] == "promoted", better
    # Only the 12 careful dialogues count (some of their turns are in the held-out set too: left out).
    assert 0 < better["training"]["dialogues"] <= 12 and better["training"]["wizard_turns"] >= 10
    assert ranker_version(live_ranker()) == better["version"] == registry.manifest_read()["current"]

    # Panels stored from now on name the promoted model; those before it, the shipped one.
    # (A panel the wizard answered before its rerank finished is not stored: scripted wizards answer at once.)
    after = run(campaign, careful, 4, seed=200, monkeypatch=monkeypatch)
    ranked_by = {room.id: {frame["ranked_by"] for frame in room.knowledge_reranked.values()} for room in campaign.rooms.all()}
    assert set().union(*(ranked_by[room] for room in after)) <= {better["version"]}
    assert set().union(*(models for room, models in ranked_by.items() if room not in after)) == {"shipped-lexical"}
    # The worker's task on a room's current panel, as with a broker: stored with the promoted version.
    room_id = sorted(after)[0]
    knowledge_rerank.run(str(room_id), "wizard", knowledge_for(room_id=room_id, role="wizard"))
    assert Room.objects.get(pk=room_id).knowledge_reranked["wizard"]["ranked_by"] == better["version"]
