"""The DuConv demo `make run` offers: the project's film graph and a campaign that opens rooms."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from collect.tasktypes.duconv.config import campaign_problems
from collect.tasktypes.duconv.demo import duconv_demo_ensure
from collect.tasktypes.duconv.protocol import DUCONV

pytestmark = pytest.mark.django_db


def test_the_demo_campaign_generates_goals_from_the_film_graph() -> None:
    campaign = duconv_demo_ensure()
    assert duconv_demo_ensure().pk == campaign.pk  # idempotent
    assert campaign.protocol == "duconv" and campaign.is_active and (campaign.min_turns, campaign.turn_limit) == (4, 8)
    assert campaign.knowledge_source.triples.count() > 200
    assert campaign_problems(campaign) == []
    room = DUCONV.room_create(campaign=campaign)
    assert 11 <= len(room.duconv.knowledge) <= 21 and room.first_speaker == "agent"
    out = io.StringIO()
    call_command("print_links", stdout=out)
    assert f"/join/{campaign.slug}/?worker=alice" in out.getvalue()


def test_a_campaign_goal_naming_an_unknown_entity_is_reported(films) -> None:
    from tests.duconv.conftest import make_campaign

    campaign = make_campaign(films, goals=[{"goal": [["START", "Inception", "Nobody Known"]]}])
    assert campaign_problems(campaign) == ["goal 1: the goal names 'Nobody Known', which has no triples in the knowledge graph"]
    bad = make_campaign(films, goals="all")
    assert "'goals' must be a list" in campaign_problems(bad)[0]
