"""Wizard of Internet fixtures: a campaign over the test knowledge (tests/conftest.py's ten
articles), and a paired room where alice is the wizard, bob the apprentice and charlie an outsider.
The apprentice's persona form is fixed (a template offering "book" and "author")."""

from __future__ import annotations

from typing import Any

import pytest

from collect.models import Campaign
from collect.tasktypes.woi import WIZARD
from collect.tasktypes.woi.models import WoiDialogue
from tests.collect.conftest import PairedRoom
from tests.collect.conftest import make_room as seat_room

TEMPLATE_FORM = {"mode": "template", "topics": ["book", "author"]}


def make_campaign(source: Any, slug: str = "woi-test", **config: Any) -> Campaign:
    return Campaign.objects.create(
        slug=slug, name="WoI test", protocol="woi", knowledge_source=source,
        min_turns=2, max_turns=2, turn_limit=4, protocol_config=config,
    )


@pytest.fixture
def campaign(knowledge) -> Campaign:
    return make_campaign(knowledge)


# alice the wizard, bob the apprentice (`paired.wizard`, `paired.apprentice`), charlie the outsider.
WoiRoom = PairedRoom


def make_room(campaign: Campaign, *, first_speaker: str = WIZARD, form: dict[str, Any] = TEMPLATE_FORM) -> WoiRoom:
    paired = seat_room(campaign, first_speaker=first_speaker)
    WoiDialogue.objects.filter(room=paired.room).update(persona_form=form)
    return paired


@pytest.fixture
def paired(campaign: Campaign) -> WoiRoom:
    return make_room(campaign)
