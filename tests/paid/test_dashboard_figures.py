"""The dashboard's words and numbers: one room is "1 room", money owed carries the campaign's
currency, and a worker still in onboarding is not counted as waiting for a partner."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from collect.models import Assignment, AssignmentStatus, Outcome, Qualification
from tests.factories import make_campaign, make_room, make_worker

pytestmark = pytest.mark.django_db

QUIZ = {"quiz": [{"question": "Who sees the knowledge?", "choices": ["Both", "The wizard"], "answer": 1}]}


def test_the_dashboard_counts_and_words(client: Client) -> None:
    campaign = make_campaign(outcome_pay_cents={"completed": 150}, currency="GBP", onboarding=QUIZ)
    make_room(campaign, wizard=make_worker(external_id="in-room"))  # one live room
    done = make_room(campaign, wizard=make_worker(external_id="done-w"), apprentice=make_worker(external_id="done-a"), status="complete")
    Assignment.objects.filter(room=done).update(outcome=Outcome.COMPLETED, status="finished")
    ready, reading = make_worker(external_id="ready"), make_worker(external_id="reading")
    Qualification.objects.create(worker=ready, name=f"campaign:{campaign.slug}", passed=True)
    for worker in (ready, reading):
        Assignment.objects.create(campaign=campaign, worker=worker, status=AssignmentStatus.WAITING)
    client.force_login(User.objects.create_user("rita", password="x", is_staff=True))
    page = client.get(f"/research/{campaign.slug}/dashboard/?fragment=1").content.decode()
    assert 'data-testid="waiting-now">1<' in page and 'data-testid="onboarding-now">1<' in page
    assert 'data-testid="rooms-live">1</strong> room in progress' in page
    assert 'data-testid="owed">£3.00<' in page and "(GBP, base pay + bonuses)" in page
    assert page.count('data-testid="chart"') == 4 and '"counts": true' in page
