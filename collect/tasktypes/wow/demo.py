"""The demo campaign `make run` serves: WoW personas linked to topics of the demo knowledge."""

from __future__ import annotations

from typing import Callable

from collect.models import Campaign, Persona
from retrieval.models import KnowledgeSource

DEMO_SLUG = "wow-demo"

# Persona sentences in the style of WoW's, each with 2–3 linked topics from the demo corpus.
PERSONAS = [
    ("i play the guitar in a small band.", ["Guitar", "Blues", "Jazz"]),
    ("i love animals and have two pets.", ["Cat", "Dog", "Horse"]),
    ("i drink too much coffee.", ["Coffee", "Tea", "Chocolate"]),
    ("i like to look at the stars at night.", ["Moon", "Mars", "Solar System"]),
    ("i enjoy hiking in the mountains.", ["Mount Everest", "Hiking", "Volcano"]),
    ("i read a lot of science fiction.", ["Science fiction", "Star Wars", "Albert Einstein"]),
    ("i play chess every weekend.", ["Chess", "Video game"]),
    ("my favourite food is pizza.", ["Pizza", "Cheese", "Bread"]),
    ("i watch football with my friends.", ["Association football", "Olympic Games", "Basketball"]),
    ("i am fascinated by ancient history.", ["Ancient Egypt", "Dinosaur", "Leonardo da Vinci"]),
]


def demo_campaign_ensure(*, source: KnowledgeSource) -> Campaign:
    campaign, created = Campaign.objects.get_or_create(
        slug=DEMO_SLUG,
        defaults={
            "name": "Wizard of Wikipedia (demo)",
            "knowledge_source": source,
            "instructions": (
                "Chat about the topic. The wizard answers with the help of Wikipedia and checks the "
                "sentence they used; the apprentice is curious and asks questions."
            ),
        },
    )
    if created:
        Persona.objects.bulk_create(Persona(campaign=campaign, text=t, topics=topics) for t, topics in PERSONAS)
    return campaign


def demo_ensure(*, wiki: KnowledgeSource, say: Callable[[str], object]) -> None:
    """The registry's demo: the WoW campaign over the demo knowledge."""
    campaign = demo_campaign_ensure(source=wiki)
    say(f"demo ready: {wiki.articles.count()} articles in '{wiki.slug}', campaign '{campaign.slug}'")
