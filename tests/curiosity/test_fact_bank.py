"""The assistant's nine-fact bank: categories, TF-IDF re-ranking, shuffling and dropping; and the
prior-knowledge sample."""

from __future__ import annotations

import random

import pytest

from collect.tasktypes.curiosity.config import ConfigError, config_for
from collect.tasktypes.curiosity.facts import bank_select, dropped_fids, topic_facts
from collect.tasktypes.curiosity.prior import related_entities_sample
from collect.models import Campaign
from retrieval.models import Article
from tests.curiosity.conftest import make_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def namibia(facts_source) -> Article:
    return Article.objects.get(source=facts_source, title="Namibia")


def test_it_picks_three_of_each_category(namibia: Article) -> None:
    facts = topic_facts(namibia)
    bank = bank_select(facts, context="", known={"Germany"}, aspects=["Economy", "History"], seed=1)
    assert len(bank) == 9 and len({f["fid"] for f in bank}) == 9
    by_source = {s: [f for f in bank if f["source"] == s] for s in ("known", "section", "random")}
    assert [len(v) for v in by_source.values()] == [3, 3, 3]
    mentions = dict(zip(facts.fids, facts.mentions))
    sections = dict(zip(facts.fids, facts.sections))
    assert all("Germany" in mentions[f["fid"]] for f in by_source["known"])
    assert all(sections[f["fid"]] == "Economy" for f in by_source["section"])


def test_it_reranks_by_the_context(namibia: Article) -> None:
    facts = topic_facts(namibia)
    bank = bank_select(facts, context="diamond mining economy", known=set(), aspects=["Culture"], seed=3)
    general = [f["text"] for f in bank if f["source"] == "random"]
    assert "Mining of diamond deposits is the largest part of the economy." in general
    again = bank_select(facts, context="diamond mining economy", known=set(), aspects=["Culture"], seed=3)
    assert again == bank  # deterministic for the same room and turn
    shuffled = bank_select(facts, context="diamond mining economy", known=set(), aspects=["Culture"], seed=3, shuffle_seed=9)
    assert sorted(f["fid"] for f in shuffled) == sorted(f["fid"] for f in bank)


def test_short_categories_leave_their_places_to_general_facts(namibia: Article) -> None:
    bank = bank_select(topic_facts(namibia), context="", known=set(), aspects=["No such section"], per_category=3)
    assert [f["source"] for f in bank].count("random") == 9


def test_it_drops_facts_shown_often_and_never_used(namibia: Article) -> None:
    shown = [[{"fid": 1, "used": False}, {"fid": 2, "used": False}]] * 3 + [[{"fid": 2, "used": True}]]
    assert dropped_fids(shown, after=3) == {1}
    facts = topic_facts(namibia)
    dropped = set(facts.fids[:10])
    bank = bank_select(facts, context="", known=set(), aspects=["History"], dropped=dropped)
    assert not dropped & {f["fid"] for f in bank}


def test_related_entities_are_drawn_from_every_popularity_bucket(namibia: Article) -> None:
    sample = related_entities_sample(namibia, count=5, buckets=5, rng=random.Random(0))
    assert len(sample) == 5 and len(set(sample)) == 5
    # 13 entities in 5 buckets: the most obscure bucket (Herero people, Otjiwarongo) gives one.
    assert len({"Herero people", "Otjiwarongo"} & set(sample)) == 1
    assert len(related_entities_sample(namibia, count=50, buckets=10, rng=random.Random(0))) == 13


def test_the_config_has_the_papers_defaults_and_refuses_bad_values(facts_source) -> None:
    config = config_for(make_campaign(facts_source))
    assert (config.aspects_per_dialog, config.related_entities, config.popularity_buckets) == (2, 15, 10)
    assert (config.facts_per_category, config.context_turns) == (3, 3)
    for bad, message in (({"topics": []}, "topics"), ({"topics": ["X"], "facts_per_category": 0}, "facts_per_category"),
                         ({"topics": [{"title": "X", "aspects": "History"}]}, "aspects")):
        with pytest.raises(ConfigError, match=message):
            config_for(Campaign(slug="bad", protocol_config=bad))


def test_it_names_what_keeps_a_campaign_from_opening_rooms(facts_source) -> None:
    from collect.tasktypes.curiosity.protocol import CURIOSITY, campaign_problems

    assert campaign_problems(make_campaign(facts_source, topics=["Namibia", "Tahiti"])) == []
    bad = make_campaign(facts_source, topics=["Atlantis", {"title": "Tahiti", "aspects": ["History"]}])
    assert campaign_problems(bad) == [
        "topic 'Atlantis' is not an article of the knowledge source",
        "topic 'Tahiti' has fewer than 2 aspects (sections)",
        "no topic can open a room",
    ]
    with pytest.raises(ConfigError, match="no topic"):
        CURIOSITY.room_create(campaign=bad)
    assert campaign_problems(make_campaign(facts_source, topics=[])) == [
        'protocol_config.topics must be a non-empty list of titles or {"title", "aspects"} objects'
    ]
