"""A Curiosity campaign on knowledge imported in a generic article format (no fact db): facts are
the articles' sentences, entities come from linking against the store's titles, popularity from
in-links, and aspects the articles lack leave their places to general facts (the admin refuses a
campaign whose topics cannot fill the bank, collect.tasktypes.curiosity.protocol.campaign_problems)."""

from __future__ import annotations

import pytest

from collect.tasktypes.curiosity.models import CuriosityDialog
from collect.tasktypes.curiosity.protocol import CURIOSITY, bank_ensure, campaign_prepare
from retrieval.models import Article
from tests.curiosity.conftest import make_campaign

pytestmark = pytest.mark.django_db


def test_a_generic_source_can_run_curiosity(knowledge) -> None:
    campaign = make_campaign(
        knowledge, topics=[{"title": "Science fiction", "aspects": ["Themes", "History"]}], related_entities=5
    )
    # Two lead sentences and no sections, and "time travel" is a common noun (its text writes it in
    # lower case), not an entity to mark: the admin refuses such a campaign, naming the topic...
    assert campaign_prepare(campaign) == [
        "topic 'Science fiction' has no entities for the user to mark (its facts name no other article)",
        "topic 'Science fiction' cannot fill the fact bank of 9: 2 facts, 0 mentioning an entity (rooted; 3 needed), "
        "0 in its aspects' sections (3 needed)",
    ]
    assert Article.objects.get(source=knowledge, title="Time travel").inlinks >= 1
    # ...but one made anyway still opens rooms, with what the article has.
    room = CURIOSITY.room_create(campaign=campaign)
    dialog = CuriosityDialog.objects.get(room=room)
    assert room.topic == "Science fiction" and sorted(dialog.aspects) == ["History", "Themes"]
    assert dialog.related_entities == []
    assert dialog.summary.startswith("Science fiction is a genre")
    # A known entity set by hand (the room offered none): of the two lead sentences, the one that
    # mentions it is rooted, the other general.
    dialog.first_aspect, dialog.known_entities = dialog.aspects[0], ["Time travel"]
    bank = bank_ensure(room, dialog, count=0)
    sources = [fact["source"] for fact in bank["facts"]]
    assert sorted(sources) == ["known", "random"]


def test_the_entities_to_mark_are_names_with_articles_of_their_own(tmp_path, index_dir) -> None:
    from collect.tasktypes.curiosity.prior import related_entity_titles, source_prepare
    from tests.conftest import import_articles

    source = import_articles(tmp_path, "countries", [
        ("Japan", "Japan is an island country in East Asia. Its oldest history is told in the Book of Han. "
                  "The Flower Festival and War museums draw visitors; Tokyo is its capital. The Sea of Korea lies west."),
        ("Tokyo", "Tokyo is the capital of Japan."),
        ("East Asia", "East Asia is the eastern region of Asia."),
        ("Book", "A book is a medium for recording information."),
        ("Flower", "A flower is the reproductive structure of flowering plants."),
        ("War", "War is an armed conflict. A war can last years."),
        ("Korea", "Korea is a peninsular region in East Asia."),
    ])
    source_prepare(source.pk)
    japan = Article.objects.get(source=source, title="Japan")
    mentioned = set(japan.sentences.values_list("mentions__title", flat=True)) - {None}
    assert {"Book", "Flower", "War", "Korea", "Tokyo", "East Asia"} <= mentioned  # what the linker found
    # Common nouns and a name seen only inside a longer one ("Sea of Korea") are not offered.
    assert related_entity_titles(japan) == ["East Asia", "Tokyo"]
