"""The review page lists each worker's authenticity flags with their evidence, sorts by them,
never decides for the reviewer, and the per-turn authenticity CSV carries the record's values."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from collect.authenticity.record import record_build
from collect.models import Assignment, Message, Outcome
from tests.factories import add_message, make_campaign, make_room, make_worker

pytestmark = pytest.mark.django_db

PASTED = "Robots in fiction often explore what it means to be human, and that is why I love them."


@pytest.fixture
def staff() -> Client:
    client = Client()
    client.force_login(User.objects.create_user("rita", password="x", is_staff=True, is_superuser=True))
    return client


@pytest.fixture
def reviewed():
    """An honest wizard (alice) and an apprentice (bob) who pasted their turn from outside."""
    campaign = make_campaign()
    alice, bob = make_worker(external_id="alice"), make_worker(external_id="bob")
    room = make_room(campaign, wizard=alice, apprentice=bob, status="complete")
    typed = "I like the robot stories best of all."
    honest = {"v": 1, "compose_ms": 12_000, "typing_ms": 8_000, "typed_chars": len(typed), "paste": {}, "passages": ["Robot"]}
    pasted = {"v": 1, "compose_ms": 3_000, "typing_ms": 0, "typed_chars": 0, "paste": {"outside": {"count": 1, "chars": len(PASTED)}}}
    for role, text, value, address in (("wizard", typed, honest, "198.51.100.1"), ("apprentice", PASTED, pasted, "198.51.100.2")):
        message = add_message(room, role, text)
        Message.objects.filter(pk=message.pk).update(authenticity=record_build(value=value, text=text, address=address))
    Assignment.objects.filter(room=room).update(outcome=Outcome.COMPLETED, status="finished")
    seats = {a.role: a for a in Assignment.objects.filter(room=room)}
    return campaign, seats["wizard"], seats["apprentice"]


def test_the_review_page_shows_the_flags_with_their_evidence_and_sorts_by_them(staff: Client, reviewed) -> None:
    campaign, wizard, apprentice = reviewed
    page = staff.get(f"/research/{campaign.slug}/review/").content.decode()
    assert f'data-testid="flags-{apprentice.pk}" data-flags="1"' in page
    assert f'data-testid="flags-{wizard.pk}" data-flags="0"' in page
    assert 'data-kind="paste_outside"' in page and "turn 2" in page and f"pasted_chars: {len(PASTED)}" in page
    by_flags = staff.get(f"/research/{campaign.slug}/review/?sort=flags").content.decode()
    assert by_flags.index(f'data-testid="row-{apprentice.pk}"') < by_flags.index(f'data-testid="row-{wizard.pk}"')
    # Evidence only: nobody was rejected for it.
    assert not Assignment.objects.exclude(decision="").exists()


def test_the_authenticity_csv_has_a_row_per_human_turn(staff: Client, reviewed) -> None:
    campaign, wizard, apprentice = reviewed
    reply = staff.get(f"/research/{campaign.slug}/csv/authenticity/")
    lines = reply.content.decode().splitlines()
    assert lines[0].startswith("worker,role,room,seq,compose_ms,typing_ms,typed_chars")
    rows = {line.split(",")[1]: line for line in lines[1:]}
    assert rows["apprentice"].endswith(f",0,0,{len(PASTED)},0,0,0,ok,paste_outside")
    assert rows["wizard"].endswith(",ok,")
