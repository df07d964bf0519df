"""The DuConv demo `make run` serves: an English film graph written for the project
(retrieval/graph/demo_films.tsv) and a campaign whose rooms generate goals from it."""

from __future__ import annotations

from pathlib import Path

from django.core.management import call_command

from collect.models import Campaign, Protocol
from retrieval.models import KnowledgeSource

DEMO_SLUG = "duconv-demo"
DEMO_SOURCE = "films-demo"
DEMO_TSV = Path(__file__).resolve().parents[2] / "retrieval" / "graph" / "demo_films.tsv"


def duconv_demo_ensure() -> Campaign:
    source = KnowledgeSource.objects.filter(slug=DEMO_SOURCE).first()
    if source is None or not source.triples.exists():
        call_command("import_knowledge", "triples", str(DEMO_TSV), source=DEMO_SOURCE, name="Films (demo graph)", verbosity=0)
        source = KnowledgeSource.objects.get(slug=DEMO_SOURCE)
    campaign, _ = Campaign.objects.get_or_create(
        slug=DEMO_SLUG,
        defaults={
            "name": "DuConv: goal-driven film chat (demo)",
            "protocol": Protocol.DUCONV,
            "knowledge_source": source,
            # The original's conversations: 4 to 8 turns each.
            "min_turns": 4,
            "max_turns": 8,
            "turn_limit": 8,
            "instructions": (
                "The agent leads the chat from small talk to topic A and then to topic B, using the "
                "facts on their screen and marking the ones each message uses. The user just chats."
            ),
        },
    )
    return campaign
