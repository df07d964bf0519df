"""The demo campaign `make run` serves: Wizard of Internet over the demo knowledge (the store
search backend: no search server needed), with the original collection's turns and timeouts."""

from __future__ import annotations

from collections.abc import Callable

from collect.models import Campaign
from collect.tasktypes.woi import NAME
from retrieval.models import KnowledgeSource

DEMO_SLUG = "woi-demo"


def demo_campaign_ensure(*, source: KnowledgeSource) -> Campaign:
    campaign, _ = Campaign.objects.get_or_create(
        slug=DEMO_SLUG,
        defaults={
            "name": "Wizard of Internet (demo)",
            "protocol": NAME,
            "knowledge_source": source,
            # The original: at least four turns each before either may finish.
            "min_turns": 4,
            "max_turns": 4,
            "turn_timeout_seconds": 180,
            "instructions": (
                "The apprentice creates a character and talks about their interests. The wizard looks things up "
                "with the search bar, selects the sentences each message uses, and talks about the apprentice's "
                "interests in depth. (In this demo the searches go to the demo's Wikipedia articles.)"
            ),
        },
    )
    return campaign


def demo_ensure(*, wiki: KnowledgeSource, say: Callable[[str], object]) -> None:
    """The registry's demo: the Wizard of Internet campaign over the demo knowledge."""
    campaign = demo_campaign_ensure(source=wiki)
    say(f"demo ready: campaign '{campaign.slug}' (Wizard of Internet, searching '{wiki.slug}')")
