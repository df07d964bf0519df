"""Saving a campaign in the admin: a Curiosity campaign that could not open a room is refused with
what is wrong; a good one, and any WoW campaign, saves."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils.html import escape

from collect.models import Campaign
from retrieval.models import KnowledgeSource
from tests.curiosity.conftest import make_campaign
from tests.campaign_forms import campaign_form_data, personas_inline

pytestmark = pytest.mark.django_db

ADD_URL = "/admin/collect/campaign/add/"
BAD_TOPICS = ["Atlantis", {"title": "Tahiti", "aspects": ["History"]}]
PROBLEMS = [
    "topic 'Atlantis' is not an article of the knowledge source",
    "topic 'Tahiti' has fewer than 2 aspects (sections)",
    "no topic can open a room",
]


def campaign_form(source: KnowledgeSource, *, protocol: str = "curiosity", config: Any = None, slug: str = "trial") -> dict:
    """Every field of the admin's add form, as a browser posts it (with an empty personas inline)."""
    return campaign_form_data(
        slug=slug, name="Trial", protocol=protocol, knowledge_source=source.pk, completion_code="ABCD1234",
        protocol_config=config if config is not None else {}, outcome_codes={"partner_left": "LEFTCODE"},
        **personas_inline([]),
    )


def test_it_refuses_a_curiosity_campaign_that_cannot_open_rooms(admin_client: Client, facts_source: KnowledgeSource) -> None:
    response = admin_client.post(ADD_URL, campaign_form(facts_source, config={"topics": BAD_TOPICS}))
    assert response.status_code == 200  # the form again, not a redirect to the list
    assert response.context["adminform"].form.errors["protocol_config"] == PROBLEMS
    for problem in PROBLEMS:
        assert escape(problem) in response.content.decode()
    assert not Campaign.objects.filter(slug="trial").exists()


def test_it_refuses_a_config_that_is_not_a_curiosity_config(admin_client: Client, facts_source: KnowledgeSource) -> None:
    response = admin_client.post(ADD_URL, campaign_form(facts_source, config={"topics": ["Namibia"], "context_turns": 0}))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["protocol_config"] == [
        "protocol_config.context_turns must be a whole number of at least 1, not 0"
    ]
    assert not Campaign.objects.filter(slug="trial").exists()


def test_it_saves_a_good_curiosity_campaign(admin_client: Client, facts_source: KnowledgeSource) -> None:
    response = admin_client.post(ADD_URL, campaign_form(facts_source, config={"topics": ["Namibia", "Tahiti"]}))
    assert response.status_code == 302
    campaign = Campaign.objects.get(slug="trial")
    assert campaign.protocol == "curiosity" and campaign.protocol_config == {"topics": ["Namibia", "Tahiti"]}


def test_it_leaves_a_campaign_unchanged_when_an_edit_breaks_it(admin_client: Client, facts_source: KnowledgeSource) -> None:
    campaign = make_campaign(facts_source, topics=["Namibia"])
    form = campaign_form(facts_source, config={"topics": BAD_TOPICS}, slug=campaign.slug)
    response = admin_client.post(f"/admin/collect/campaign/{campaign.pk}/change/", form)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["protocol_config"] == PROBLEMS
    campaign.refresh_from_db()
    assert campaign.protocol_config == {"topics": ["Namibia"]} and campaign.min_turns == 2


def test_a_wow_campaign_saves_as_before(admin_client: Client, facts_source: KnowledgeSource) -> None:
    # The same config a Curiosity campaign is refused for: WoW does not read it.
    response = admin_client.post(ADD_URL, campaign_form(facts_source, protocol="wow", config={"topics": BAD_TOPICS}))
    assert response.status_code == 302
    assert Campaign.objects.get(slug="trial").protocol == "wow"


def test_it_refuses_a_campaign_whose_topic_would_open_hollow_rooms(admin_client: Client, knowledge: KnowledgeSource) -> None:
    """An article with aspects but whose facts mention no other article: a room would offer no
    entities to mark and a bank of three general facts instead of nine of three kinds."""
    config = {"topics": [{"title": "Guitar", "aspects": ["Playing", "Sound"]}]}
    response = admin_client.post(ADD_URL, campaign_form(knowledge, config=config))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["protocol_config"] == [
        "topic 'Guitar' has no entities for the user to mark (its facts name no other article)",
        "topic 'Guitar' cannot fill the fact bank of 9: 3 facts, 0 mentioning an entity (rooted; 3 needed), "
        "0 in its aspects' sections (3 needed)",
    ]
    assert not Campaign.objects.filter(slug="trial").exists()


def test_the_bank_is_counted_by_the_configs_facts_per_category(facts_source: KnowledgeSource) -> None:
    from collect.tasktypes.curiosity.protocol import campaign_problems

    problems = campaign_problems(make_campaign(facts_source, topics=["Namibia", "Tahiti"], facts_per_category=40))
    assert [problem.split(" cannot fill")[0] for problem in problems] == ["topic 'Namibia'", "topic 'Tahiti'"]
    assert all("(rooted; 40 needed)" in problem for problem in problems)
