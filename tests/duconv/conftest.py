"""DuConv fixtures: the demo film graph, a campaign on it, and the shared dev sample (skipped when
../shared is absent)."""

from __future__ import annotations

from pathlib import Path

from collect.tasktypes.duconv.demo import DEMO_TSV

import pytest
from django.core.management import call_command

from collect.models import Campaign
from tests.collect.conftest import DuConvRoom, make_room
from retrieval.models import KnowledgeSource

SAMPLE = Path(__file__).resolve().parents[3] / "shared" / "data" / "duconv" / "dev_sample.jsonl"


@pytest.fixture
def sample_path() -> Path:
    if not SAMPLE.is_file():
        pytest.skip(f"{SAMPLE} is absent (shared development data)")
    return SAMPLE


@pytest.fixture
def films(db) -> KnowledgeSource:
    call_command("import_knowledge", "triples", str(DEMO_TSV), source="films", verbosity=0)
    return KnowledgeSource.objects.get(slug="films")


def make_campaign(source: KnowledgeSource, **config) -> Campaign:
    return Campaign.objects.create(
        slug=f"duconv-{Campaign.objects.count() + 1}",
        name="DuConv test",
        protocol="duconv",
        knowledge_source=source,
        min_turns=2,
        max_turns=4,
        turn_limit=4,
        protocol_config=config,
    )


@pytest.fixture
def campaign(films: KnowledgeSource) -> Campaign:
    return make_campaign(films)


GOAL = [["START", "Inception", "Christopher Nolan"], ["Inception", "directed by", "Christopher Nolan"]]


@pytest.fixture
def paired(films: KnowledgeSource) -> DuConvRoom:
    return make_room(make_campaign(films, goals=[{"goal": GOAL}]))
