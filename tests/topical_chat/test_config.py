"""A Topical-Chat campaign's protocol_config: every mistake refused with what and where, in the
admin too (nothing saved); topics that cannot fill a reading set named with what they lack."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from collect.models import Campaign
from collect.tasktypes.topical_chat.config import ConfigError, config_parse
from collect.tasktypes.topical_chat.protocol import campaign_problems
from retrieval.models import KnowledgeSource
from tests.campaign_forms import campaign_form_data, personas_inline
from tests.conftest import import_articles
from tests.topical_chat.conftest import ARTICLES, make_campaign

pytestmark = pytest.mark.django_db

ADD_URL = "/admin/collect/campaign/add/"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "protocol_config must be a JSON object with at least 'topics'"),
        ({}, "protocol_config.topics must be a non-empty list"),
        ({"topics": []}, "protocol_config.topics must be a non-empty list"),
        ({"topics": ["Jazz"], "config": ["A"]}, "protocol_config has unknown keys: config"),
        ({"topics": ["Jazz"], "configs": ["E"]}, "protocol_config.configs: 'E' is not a configuration; choose from A, B, C, D"),
        ({"topics": ["Jazz"], "configs": []}, "protocol_config.configs must be a non-empty list of configurations"),
        ({"topics": ["Jazz"], "configs": "ABCD"}, "protocol_config.configs must be a non-empty list"),
        ({"topics": ["Jazz"], "fun_facts": 0}, "protocol_config.fun_facts must be a whole number from 1 to 10, not 0"),
        ({"topics": ["Jazz"], "entities": 4}, "protocol_config.entities must be a whole number from 1 to 3, not 4"),
        ({"topics": ["Jazz"], "lead_chars": True}, "protocol_config.lead_chars must be a whole number from 100 to 5000, not True"),
        ({"topics": ["Jazz"], "url_base": ""}, "protocol_config.url_base must be the start of the articles' URLs"),
        ({"topics": [""]}, "protocol_config.topics[0] must be a title or an object with a 'title'"),
        ({"topics": [{"title": "Jazz", "entity": ["Tea"]}]}, "protocol_config.topics[0] has unknown keys: entity"),
        ({"topics": [{"title": "Jazz", "entities": ["Tea", "Tea"]}]}, "protocol_config.topics[0].entities names an entity twice"),
        ({"topics": [{"title": "Jazz", "entities": ["A", "B", "C", "D"]}]}, "names 4 entities; a reading set has at most 3"),
        ({"topics": [{"title": "Jazz", "entities": ["Jazz"]}]}, "protocol_config.topics[0].entities names the topic itself ('Jazz')"),
    ],
)
def test_a_bad_config_is_refused_with_what_is_wrong(raw: Any, message: str) -> None:
    with pytest.raises(ConfigError) as refused:
        config_parse(raw)
    assert message in str(refused.value)


def test_the_defaults_are_the_releases() -> None:
    config = config_parse({"topics": ["Jazz", {"title": "Tea", "entities": ["Milk"]}]})
    assert config.configs == ("A", "B", "C", "D") and config.entities == 3 and config.fun_facts == 5
    assert [t.entities for t in config.topics] == [(), ("Milk",)]


def campaign_form(source: KnowledgeSource, config: Any) -> dict:
    return campaign_form_data(
        slug="trial", name="Trial", protocol="topical_chat", knowledge_source=source.pk, completion_code="ABCD1234",
        protocol_config=config, outcome_codes={"partner_left": "LEFTCODE"}, **personas_inline([]),
    )


def test_the_admin_refuses_topics_that_cannot_fill_a_reading_set(admin_client: Client, jazz_source: KnowledgeSource) -> None:
    config = {"topics": ["Atlantis", "Tea", {"title": "Jazz", "entities": ["Louis Armstrong", "Atlantis"]}], "fun_facts": 2}
    response = admin_client.post(ADD_URL, campaign_form(jazz_source, config))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["protocol_config"] == [
        "topic 'Atlantis' is not an article of the knowledge source",
        "topic 'Tea' has 0 entities with at least 2 fun facts (3 needed): articles it names or that name it, in an entity-linked source",
        "topic 'Jazz': entity 'Atlantis' is not an article of the knowledge source",
        "no topic can open a room",
    ]
    assert not Campaign.objects.filter(slug="trial").exists()


def test_the_admin_saves_a_campaign_whose_topics_fill_their_reading_sets(admin_client: Client, jazz_source: KnowledgeSource) -> None:
    config = {"topics": ["Jazz", {"title": "Jazz", "entities": ["Duke Ellington"]}], "configs": ["A", "D"], "fun_facts": 2}
    response = admin_client.post(ADD_URL, campaign_form(jazz_source, config))
    assert response.status_code == 302
    assert Campaign.objects.get(slug="trial").protocol_config == config


def test_an_unlinked_source_is_named_with_the_command_that_links_it(db, index_dir: Path, tmp_path: Path) -> None:
    source = import_articles(tmp_path, "unlinked-jazz", ARTICLES)
    problems = campaign_problems(make_campaign(source))
    # Its topic names its entities (linked on demand), but their fun facts need the whole source linked.
    assert problems[-1] == (
        "the knowledge source 'unlinked-jazz' is not entity-linked yet, so its topics have only the entities "
        "they name: `manage.py topical_chat_prepare --source unlinked-jazz` links it"
    )


def test_the_prepare_command_links_the_source_and_checks_the_campaign(db, index_dir: Path, tmp_path: Path) -> None:
    source = import_articles(tmp_path, "unlinked-jazz", ARTICLES)
    good, bad = make_campaign(source), make_campaign(source, topics=["Tea"])
    assert campaign_problems(good) != []
    out = io.StringIO()
    call_command("topical_chat_prepare", source="unlinked-jazz", stdout=out)
    assert out.getvalue().startswith("linked unlinked-jazz:")
    assert campaign_problems(good) == []
    call_command("topical_chat_prepare", campaign=good.slug, stdout=out)
    assert f"campaign {good.slug}: every topic gives full reading sets" in out.getvalue()
    with pytest.raises(CommandError, match="topic 'Tea' has 0 entities"):
        call_command("topical_chat_prepare", campaign=bad.slug, stdout=out)
    with pytest.raises(CommandError, match="no Topical-Chat campaign 'nope'"):
        call_command("topical_chat_prepare", campaign="nope", stdout=out)
