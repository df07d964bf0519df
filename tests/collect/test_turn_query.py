"""The per-turn knowledge query of a Wizard of Wikipedia room: by default the turn's own words, the
articles it names first, and the topic's help only for a turn that says nothing of its own; a
campaign can blend every turn with its topic, or keep the turn alone; a bad setting is refused by
the admin form."""

from __future__ import annotations

from pathlib import Path

import pytest

from collect.admin import CampaignForm
from collect.models import Campaign, Message, Persona
from collect.tasktypes.wow.protocol import WOW
from collect.tasktypes.wow.turn_query import TurnQuery, TurnQueryError, turn_query_of
from retrieval.models import KnowledgeSource
from tests.collect.conftest import make_room
from tests.conftest import import_articles
from tests.campaign_forms import campaign_form_data

pytestmark = pytest.mark.django_db

TURN = "Could people ever live there? It seems so cold."
SPACE = [
    ("Mars", "Mars is the fourth planet from the Sun. Its thin atmosphere is mostly carbon dioxide."),
    ("Colonization of Mars", "Colonization of Mars is the proposed settlement of humans on Mars in domes."),
    ("Exploration of Mars", "The exploration of Mars began with flybys of robotic probes of Mars in the 1960s."),
    ("Genoa", "Genoa is a port city in Italy where many people live. Its winters are rarely cold."),
    ("Stockholm", "Stockholm is the capital of Sweden. People live on fourteen islands; winters are cold."),
    ("Cotonou", "Cotonou is the largest city of Benin. People live there by the lagoon, never cold."),
    ("Urbanization", "Urbanization is the shift of people from rural areas to cities, where they live and work."),
    ("Ice", "Ice is water frozen into a solid state; it seems cold to the touch."),
]


@pytest.fixture
def space(db, index_dir: Path, tmp_path: Path) -> KnowledgeSource:
    return import_articles(tmp_path, "space", SPACE)


MARS = {"Mars", "Colonization of Mars", "Exploration of Mars"}


def retrieved_after_turn(source: KnowledgeSource, config: dict, text: str = TURN) -> list[str]:
    campaign = Campaign.objects.create(slug=f"mars-{Campaign.objects.count()}", name="Mars", knowledge_source=source,
                                       protocol_config=config)
    Persona.objects.create(campaign=campaign, text="I want to visit space.", topics=["Mars"])
    paired = make_room(campaign, topic="Mars")
    message = Message.objects.create(
        room=paired.room, seq=1, sender=paired.apprentice.assignment, role="apprentice", client_id="c1", text=text
    )
    WOW.after_message(message=message)
    message.refresh_from_db()
    return [next(iter(passage)) for passage in message.retrieved_passages]


def test_a_turn_is_asked_by_its_own_words_by_default(space: KnowledgeSource) -> None:
    titles = retrieved_after_turn(space, {})
    assert {"Stockholm", "Genoa", "Cotonou"} <= set(titles)
    assert titles == retrieved_after_turn(space, {"turn_query": "turn"})  # it names no article


NAMING = "Do people move from rural areas to cities, as they did to Genoa?"


def test_an_article_the_turn_names_comes_first(space: KnowledgeSource) -> None:
    assert retrieved_after_turn(space, {"turn_query": "turn"}, NAMING)[0] != "Genoa"
    assert retrieved_after_turn(space, {}, NAMING)[0] == "Genoa"


def test_a_turn_with_nothing_of_its_own_is_asked_with_the_topic(space: KnowledgeSource) -> None:
    titles = retrieved_after_turn(space, {}, "Yes, I agree! That's so cool.")
    assert MARS <= set(titles)
    assert MARS <= set(retrieved_after_turn(space, {}, "Tell me more about Mars, please."))


def test_a_campaign_can_blend_every_turn_with_its_topic(space: KnowledgeSource) -> None:
    titles = retrieved_after_turn(space, {"turn_query": "topic"})
    assert MARS <= set(titles)
    assert len(titles) == 7


def test_a_campaign_can_keep_the_turn_alone(space: KnowledgeSource) -> None:
    assert not MARS & set(retrieved_after_turn(space, {"turn_query": "turn"}))
    assert retrieved_after_turn(space, {"turn_query": "turn"}, "Yes, I agree! That's so cool.") == []


def test_it_reads_and_checks_the_setting() -> None:
    assert turn_query_of({}) == TurnQuery("words", 1.0)
    assert turn_query_of({"topic_weight": 2}).weight_for("Mars") == 2.0  # for turns with nothing of their own
    assert turn_query_of({"turn_query": "topic", "topic_weight": 0.5}).weight_for("Mars") == 0.5
    assert turn_query_of({"turn_query": "turn"}).weight_for("Mars") == 0.0
    assert TurnQuery().weight_for("") == 0.0  # no topic chosen: the turn alone
    for bad, text in (({"turn_query": "both"}, "turn_query must be one of"), ({"topic_weight": 0}, "topic_weight"),
                      ({"topic_weight": "1"}, "topic_weight"), ([], "JSON object")):
        with pytest.raises(TurnQueryError, match=text):
            turn_query_of(bad)


def test_the_admin_refuses_a_bad_turn_query(space: KnowledgeSource) -> None:
    data = campaign_form_data(
        slug="wow-x", name="X", protocol="wow", knowledge_source=space.pk, completion_code="C",
        protocol_config='{"turn_query": "sometimes"}',
    )
    form = CampaignForm(data=data)
    assert not form.is_valid() and "turn_query must be one of" in str(form.errors["protocol_config"])
    form = CampaignForm(data={**data, "protocol_config": '{"turn_query": "turn"}'})
    assert form.is_valid(), form.errors
