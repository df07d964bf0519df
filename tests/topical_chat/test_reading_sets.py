"""Reading sets drawn from the knowledge store in the release's four configurations: which entities a
topic gets, what each partner's factual sections hold, and where the article is (not in C)."""

from __future__ import annotations

import pytest

from collect.tasktypes.topical_chat.config import Topic, config_parse
from collect.tasktypes.topical_chat.reading_sets import (
    reading_sets_build,
    shortened_lead,
    sources_of,
    textrank_summary,
    topic_article,
    topic_knowledge,
)
from collect.tasktypes.topical_chat.release import AGENT_1, AGENT_2, SHORTENED, SUMMARIZED
from tests.topical_chat.conftest import ENTITIES, TOPIC

pytestmark = pytest.mark.django_db


@pytest.fixture
def knowledge(jazz_source):
    config = config_parse({"topics": [TOPIC], "fun_facts": 2})
    article = topic_article(source_id=jazz_source.pk, title=TOPIC)
    return topic_knowledge(article, Topic(TOPIC), config)


def test_a_topic_gets_the_entities_it_names_each_with_facts_that_name_it(knowledge) -> None:
    assert knowledge.title == TOPIC and knowledge.url == "https://en.wikipedia.org/wiki/Jazz"
    assert [e.title for e in knowledge.entities] == ENTITIES  # in the order the topic names them
    for entity in knowledge.entities:
        assert len(entity.fun_facts) == 4  # twice fun_facts: configuration A gives each agent their own
        assert all(entity.title in fact for fact in entity.fun_facts), entity.fun_facts
        assert not any(fact.startswith(("Jazz ", "It ", "He ")) for fact in entity.fun_facts)
    orleans = knowledge.entities[0]
    assert orleans.shortened.startswith("New Orleans is a city in Louisiana")
    # Four sections of whole sentences from the topic's own article, in order.
    assert len(knowledge.sections) == 4 and knowledge.sections[0].startswith("Jazz is a music genre")
    assert " ".join(knowledge.sections).endswith("in the 1930s and 1940s.")


@pytest.mark.parametrize("config", ["A", "B", "C", "D"])
def test_each_configuration_gives_each_partner_what_the_release_gave(knowledge, config: str) -> None:
    sets, article = reading_sets_build(knowledge, config=config, fun_facts=2)
    first, second = sets[AGENT_1], sets[AGENT_2]
    assert [e["key"] for e in first] == [e["key"] for e in second] == ["FS1", "FS2", "FS3"]
    assert [e["entity"] for e in first] == [e["entity"] for e in second] == ENTITIES
    facts = [(a["fun_facts"], b["fun_facts"]) for a, b in zip(first, second)]
    if config == "A":  # different fun facts, the same shortened leads
        assert all(len(a) == len(b) == 2 and not set(a) & set(b) for a, b in facts)
    else:
        assert all(a == b and len(a) == 2 for a, b in facts)
    wiki = {(a["wiki_field"], b["wiki_field"]) for a, b in zip(first, second)}
    assert wiki == ({(SHORTENED, SUMMARIZED)} if config == "B" else {(SHORTENED, SHORTENED)})
    if config == "C":
        assert article == [["url", "https://en.wikipedia.org/wiki/Jazz"]]
        assert sources_of(first, article) == ["FS1", "FS2", "FS3", "Personal Knowledge"]
    else:
        assert [key for key, _ in article] == ["url", "headline", "AS1", "AS2", "AS3", "AS4"]
        assert dict(article)["headline"] == TOPIC
        assert sources_of(first, article) == ["FS1", "FS2", "FS3", "AS1", "AS2", "AS3", "AS4", "Personal Knowledge"]


def test_the_shortened_lead_keeps_whole_sentences_within_its_length() -> None:
    lead = ["One two three.", "Four five six seven.", "Eight."]
    assert shortened_lead(lead, max_chars=35) == lead[:2]
    assert shortened_lead(lead, max_chars=5) == lead[:1]  # never empty


def test_textrank_keeps_the_central_sentences_in_their_order() -> None:
    sentences = [
        "The cat sat on the mat.",
        "Stock prices fell sharply on Monday.",
        "A cat likes a warm mat and a sunny window.",
        "The cat and the dog share the warm mat.",
        "Quantum chromodynamics describes quarks.",
    ]
    summary = textrank_summary(sentences, count=3)
    assert summary == [sentences[0], sentences[2], sentences[3]]
    assert textrank_summary(sentences[:2], count=3) == sentences[:2]
