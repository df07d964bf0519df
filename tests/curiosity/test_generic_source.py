"""A Curiosity campaign on knowledge imported in a generic article format (no fact db): facts are
the articles' sentences, entities come from linking against the store's titles, popularity from
in-links, and aspects the articles lack leave their places to general facts (the admin refuses a
campaign whose topics cannot fill the bank, collect.protocols.curiosity.campaign_problems)."""

from __future__ import annotations

import pytest

from collect.models import CuriosityDialog
from collect.protocols.curiosity import CURIOSITY, bank_ensure, campaign_prepare
from retrieval.models import Article
from tests.curiosity.conftest import make_campaign

pytestmark = pytest.mark.django_db


def test_a_generic_source_can_run_curiosity(knowledge) -> None:
    campaign = make_campaign(
        knowledge, topics=[{"title": "Science fiction", "aspects": ["Themes", "History"]}], related_entities=5
    )
    # Two lead sentences and no sections: the admin refuses such a campaign, naming the topic...
    assert campaign_prepare(campaign) == [
        "topic 'Science fiction' cannot fill the fact bank of 9: 2 facts, 1 mentioning an entity (rooted; 3 needed), "
        "0 in its aspects' sections (3 needed)"
    ]
    assert Article.objects.get(source=knowledge, title="Time travel").inlinks >= 1
    # ...but one made anyway still opens rooms, with what the article has.
    room = CURIOSITY.room_create(campaign=campaign)
    dialog = CuriosityDialog.objects.get(room=room)
    assert room.topic == "Science fiction" and sorted(dialog.aspects) == ["History", "Themes"]
    assert dialog.related_entities == ["Time travel"]  # the one title its lead mentions
    assert dialog.summary.startswith("Science fiction is a genre")
    dialog.first_aspect, dialog.known_entities = dialog.aspects[0], ["Time travel"]
    bank = bank_ensure(room, dialog, count=0)
    sources = [fact["source"] for fact in bank["facts"]]
    # Two lead sentences, one mentioning the known entity: one rooted, the other general.
    assert sorted(sources) == ["known", "random"]
