"""Topical-Chat fixtures: a small knowledge source about jazz, entity-linked, whose topic "Jazz"
names three entities (New Orleans, Louis Armstrong, Duke Ellington) that other articles name in
five sentences each (their fun facts); campaigns on it; rooms where alice is agent_1 and bob
agent_2 (charlie is an outsider)."""

from __future__ import annotations

from pathlib import Path

import pytest

from collect.models import Campaign
from collect.tasktypes.topical_chat.models import TopicalConversation
from collect.tasktypes.topical_chat.release import AGENT_1, AGENT_2
from retrieval.entities import link_source
from retrieval.models import KnowledgeSource
from tests.collect.conftest import PairedRoom, Seat
from tests.collect.conftest import make_room as seat_room
from tests.conftest import import_articles

ARTICLES = [
    ("Jazz", "Jazz is a music genre that originated in New Orleans in the late 19th century. Louis Armstrong was one of "
             "its first stars. Duke Ellington led one of the most famous big bands. Jazz is known for swing, blue notes "
             "and improvisation. Big bands played jazz for dancing in the 1930s and 1940s."),
    ("New Orleans", "New Orleans is a city in Louisiana on the Mississippi River. The city is famous for its music, "
                    "its food and its carnival."),
    ("Louis Armstrong", "Louis Armstrong was an American trumpeter and singer born in New Orleans. His nickname was "
                        "Satchmo, and his gravelly voice was known all over the world."),
    ("Duke Ellington", "Duke Ellington was an American composer, pianist and bandleader. Duke Ellington led his "
                       "orchestra for more than fifty years and wrote over a thousand pieces."),
    ("Mardi Gras", "Mardi Gras is a carnival celebrated on the day before Lent begins. The biggest Mardi Gras parade in "
                   "the United States takes place in New Orleans every year. Revellers in New Orleans throw strings of "
                   "beads from the parade floats."),
    ("Mississippi River", "The Mississippi River is the second-longest river in North America. The Mississippi River "
                          "flows past New Orleans before it reaches the Gulf of Mexico."),
    ("Hurricane Katrina", "Hurricane Katrina struck the Gulf Coast of the United States in August 2005. Four fifths of "
                          "New Orleans were flooded when the levees around the city failed."),
    ("What a Wonderful World", "What a Wonderful World is a song first recorded by Louis Armstrong in 1967. In 1988 "
                               "the recording by Louis Armstrong was heard in the film Good Morning, Vietnam."),
    ("Satchmo at Symphony Hall", "Satchmo at Symphony Hall is a live album that Louis Armstrong recorded in Boston in "
                                 "1947. Critics count Satchmo at Symphony Hall among the best concerts Louis Armstrong "
                                 "ever gave."),
    ("Ella Fitzgerald", "Ella Fitzgerald was an American singer known as the First Lady of Song. Ella Fitzgerald "
                        "recorded three albums of duets with Louis Armstrong in the 1950s. Ella Fitzgerald also "
                        "recorded a songbook of the music of Duke Ellington in 1957."),
    ("Cotton Club", "The Cotton Club was a nightclub in Harlem, New York City. Duke Ellington and his orchestra were the "
                    "house band of the Cotton Club from 1927 to 1931. Radio broadcasts from the Cotton Club made Duke "
                    "Ellington famous across the country."),
    ("Mood Indigo", "Mood Indigo is a jazz song that Duke Ellington composed in 1930 with Barney Bigard. Mood Indigo "
                    "was one of the first songs written for a microphone."),
    ("Take the A Train", "Take the A Train is a jazz standard written by Billy Strayhorn in 1939. Take the A Train "
                         "became the signature tune of the orchestra of Duke Ellington in the 1940s."),
    ("Tea", "Tea is an aromatic beverage prepared by pouring hot water over cured leaves of the tea plant."),
]
TOPIC = "Jazz"
ENTITIES = ["New Orleans", "Louis Armstrong", "Duke Ellington"]


@pytest.fixture
def jazz_source(db, index_dir: Path, tmp_path: Path) -> KnowledgeSource:
    return jazz_source_make(tmp_path)


def jazz_source_make(tmp_path: Path, slug: str = "jazz-wiki") -> KnowledgeSource:
    source = import_articles(tmp_path, slug, ARTICLES)
    link_source(source_id=source.pk)
    return source


def make_campaign(source: KnowledgeSource, **config) -> Campaign:
    config.setdefault("topics", [TOPIC])
    config.setdefault("fun_facts", 2)
    return Campaign.objects.create(
        slug=f"topical-{Campaign.objects.count() + 1}",
        name="Topical-Chat test",
        protocol="topical_chat",
        knowledge_source=source,
        min_turns=2,
        max_turns=2,
        turn_limit=4,
        protocol_config=config,
    )


class TopicalRoom(PairedRoom):
    """A Topical-Chat room: alice is agent_1 (`first`: she speaks first), bob agent_2 (`second`)."""

    @property
    def first(self) -> Seat:
        return self.seats[AGENT_1]

    @property
    def second(self) -> Seat:
        return self.seats[AGENT_2]

    @property
    def conversation(self) -> TopicalConversation:
        return TopicalConversation.objects.get(room=self.room)


def make_room(campaign: Campaign) -> TopicalRoom:
    paired = seat_room(campaign)
    return TopicalRoom(paired.room, paired.seats, paired.outsider)


@pytest.fixture
def campaign(jazz_source: KnowledgeSource) -> Campaign:
    return make_campaign(jazz_source, configs=["B"])


@pytest.fixture
def paired(campaign: Campaign) -> TopicalRoom:
    return make_room(campaign)
