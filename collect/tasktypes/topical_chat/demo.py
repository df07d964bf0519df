"""The Topical-Chat demo `make run` serves: a campaign over the demo Wikipedia (lead paragraphs),
whose reading sets are drawn from it as for any source (reading_sets.py): each topic's own lead as
the article, three linked articles as its entities, their leads shortened and summarized, and
sentences of other demo articles naming them as fun facts. The source is entity-linked once (a few
seconds). Topics that cannot fill a reading set from the demo knowledge are left out."""

from __future__ import annotations

from typing import Callable

from collect.models import Campaign
from collect.tasktypes.topical_chat import NAME
from collect.tasktypes.topical_chat.protocol import campaign_prepare, campaign_problems
from retrieval.models import KnowledgeSource

DEMO_SLUG = "topical-chat-demo"
# Topics whose leads name, or are named by, three demo articles with five fun facts each.
TOPICS = ("Moon", "Albert Einstein", "World War II", "Mars", "Ancient Egypt", "Tea", "Mount Everest", "Blues",
          "Rock music", "Ocean", "Japan", "Novel")
# The original's conversations: at least 20 turns (10 each); the release's longest has 35.
TURNS = {"min_turns": 10, "max_turns": 10, "turn_limit": 18}


def topical_chat_demo_ensure(*, wiki: KnowledgeSource) -> Campaign:
    campaign = Campaign.objects.filter(slug=DEMO_SLUG).first()
    if campaign is not None:
        return campaign
    draft = Campaign(slug=DEMO_SLUG, protocol=NAME, knowledge_source=wiki, protocol_config={"topics": list(TOPICS)})
    campaign_prepare(draft)  # links the source's entities: fun facts and entities come from the links
    kept = [t for t in TOPICS if not campaign_problems(Campaign(slug=DEMO_SLUG, protocol=NAME, knowledge_source=wiki,
                                                               protocol_config={"topics": [t]}))]
    return Campaign.objects.create(
        slug=DEMO_SLUG,
        name="Topical-Chat: two partners and their reading sets (demo)",
        protocol=NAME,
        knowledge_source=wiki,
        protocol_config={"topics": kept},
        instructions=(
            "Chat with your partner about the topic as you would with a friend, for at least ten messages each. "
            "Your reading set is beside the chat (below it on a phone): use it, or what you know yourself. "
            "With each message, mark what it draws on and its sentiment; rate each message your partner sends."
        ),
        **TURNS,
    )


def demo_ensure(*, wiki: KnowledgeSource, say: Callable[[str], object]) -> None:
    """The registry's demo: the Topical-Chat campaign over the demo knowledge."""
    campaign = topical_chat_demo_ensure(wiki=wiki)
    topics = campaign.protocol_config["topics"]
    say(f"Topical-Chat demo ready: {len(topics)} topics of '{wiki.slug}', campaign '{campaign.slug}'")
