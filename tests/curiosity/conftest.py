"""Curiosity fixtures: a knowledge source imported from a small Curiosity fact db, a campaign on
it, and rooms where alice is the user and bob the assistant (charlie is an outsider)."""

from __future__ import annotations

from pathlib import Path

import pytest

from collect.models import Campaign
from retrieval.curiosity.factdb import factdb_import
from retrieval.models import KnowledgeSource
from tests.collect.conftest import CuriosityRoom, make_room
from tests.curiosity.factdb import write_factdb


@pytest.fixture
def factdb_dir(settings, tmp_path: Path) -> Path:
    settings.CURIOSITY_FACTDB_DIR = tmp_path / "kept"
    return settings.CURIOSITY_FACTDB_DIR


@pytest.fixture
def factdb_path(tmp_path: Path) -> Path:
    path = tmp_path / "wiki_sql.sqlite.db"
    write_factdb(path)
    return path


@pytest.fixture
def facts_source(db, factdb_dir: Path, factdb_path: Path) -> KnowledgeSource:
    return factdb_import(path=factdb_path, slug="curio-facts").source


def make_campaign(source: KnowledgeSource, **config) -> Campaign:
    config.setdefault("topics", ["Namibia"])
    return Campaign.objects.create(
        slug=f"curiosity-{Campaign.objects.count() + 1}",
        name="Curiosity test",
        protocol="curiosity",
        knowledge_source=source,
        min_turns=2,
        max_turns=2,
        turn_limit=4,
        protocol_config=config,
    )


@pytest.fixture
def campaign(facts_source: KnowledgeSource) -> Campaign:
    return make_campaign(facts_source)


@pytest.fixture
def paired(campaign: Campaign) -> CuriosityRoom:
    return make_room(campaign)
