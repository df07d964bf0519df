"""From join to the platform: Prolific gets the outcome's code by redirect, MTurk by the HIT's post
back to turkSubmitTo. The platforms are a local stand-in HTTP server."""

from __future__ import annotations

import re
import urllib.request
from html import unescape
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.utils import timezone

from collect.lifecycle.outcomes import room_outcomes_set

from collect.models import Assignment, Outcome, Platform, RoomStatus
from collect.services import matchmaking, rooms
from tests.factories import make_campaign
from tests.paid.standin import StandIn

pytestmark = pytest.mark.django_db


def pair(campaign, first: tuple[Client, str], second: tuple[Client, str]) -> list[Assignment]:
    """Both join by their links and are paired (as the waiting sockets do)."""
    for client, query in (first, second):
        assert client.get(f"/join/{campaign.slug}/?{query}").status_code == 302
    assignments = list(Assignment.objects.filter(campaign=campaign).order_by("pk"))
    Assignment.objects.filter(campaign=campaign).update(connected=True, last_seen=timezone.now())  # on the waiting page
    room = matchmaking.room_pair(assignment_id=assignments[0].pk)
    assert room is not None
    return list(Assignment.objects.filter(campaign=campaign).order_by("pk"))


def test_prolific_workers_are_redirected_with_their_outcomes_code(settings, standin: StandIn) -> None:
    settings.PROLIFIC_COMPLETE_URL = f"{standin.url}/submissions/complete"
    campaign = make_campaign(platform=Platform.PROLIFIC)
    alice, bob = Client(), Client()
    pid_a, pid_b = "5f0c9a1b2c3d4e5f6a7b8c9d", "60aa9a1b2c3d4e5f6a7b8c9e"
    first, second = pair(
        campaign,
        (alice, f"PROLIFIC_PID={pid_a}&STUDY_ID=study1&SESSION_ID=sess1"),
        (bob, f"PROLIFIC_PID={pid_b}&STUDY_ID=study1&SESSION_ID=sess2"),
    )
    room = first.room
    room.status = RoomStatus.RATING
    room.save()
    apprentice = Assignment.objects.get(room=room, role="apprentice")
    rooms.rating_submit(room_id=room.pk, assignment=apprentice, frame={"type": "rate", "rating": 5})
    for client, assignment in ((alice, first), (bob, second)):
        response = client.get(f"/a/{assignment.pk}/done/")
        assert response.status_code == 302 and response.url == f"{standin.url}/submissions/complete?cc={campaign.completion_code}"
        with urllib.request.urlopen(response.url) as reply:  # the worker's browser follows it
            assert reply.status == 200
    assert [r.query["cc"] for r in standin.requests] == [[campaign.completion_code]] * 2
    # A replayed completion gives the same code and changes nothing.
    assert alice.get(f"/a/{first.pk}/done/").url.endswith(f"cc={campaign.completion_code}")
    assert Assignment.objects.filter(outcome=Outcome.COMPLETED).count() == 2


def test_a_prolific_worker_who_waited_in_vain_gets_the_no_partner_code(settings, standin: StandIn) -> None:
    settings.PROLIFIC_COMPLETE_URL = f"{standin.url}/submissions/complete"
    campaign = make_campaign(platform=Platform.PROLIFIC, wait_timeout_seconds=0)
    client = Client()
    client.get(f"/join/{campaign.slug}/?PROLIFIC_PID=5f0c9a1b2c3d4e5f6a7b8c9d&STUDY_ID=s&SESSION_ID=x")
    assignment = Assignment.objects.get()
    assert matchmaking.waiting_expire(assignment_id=assignment.pk)
    response = client.get(f"/a/{assignment.pk}/done/")
    assert response.url.endswith(f"cc={campaign.outcome_codes['no_partner']}")


def test_an_mturk_hit_posts_the_outcome_back_to_turk_submit_to(settings, standin: StandIn) -> None:
    settings.MTURK_SUBMIT_HOSTS = [standin.url]
    campaign = make_campaign(platform=Platform.MTURK)
    alice, bob = Client(), Client()

    def hit(worker: str, assignment: str) -> str:
        return urlencode({"assignmentId": assignment, "hitId": "3HITID", "workerId": worker, "turkSubmitTo": standin.url})

    first, second = pair(campaign, (alice, hit("A1WORKER", "3ASSIGNA")), (bob, hit("A2WORKER", "3ASSIGNB")))
    assert (first.session_id, first.study_id, first.turk_submit_to) == ("3ASSIGNA", "3HITID", standin.url)
    # bob's partner stops replying: the sweep's outcome for him is partner_stalled.
    room = first.room
    room.status = RoomStatus.INCOMPLETE
    room.save()
    stalled_role = first.role
    room_outcomes_set(room=room, outcomes={stalled_role: Outcome.STALLED, second.role: Outcome.PARTNER_STALLED})
    page = bob.get(f"/a/{second.pk}/done/")
    html = page.content.decode()
    action = unescape(re.search(r'<form method="post" action="([^"]+)"', html).group(1))
    fields = {unescape(n): unescape(v) for n, v in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html)}
    assert action == f"{standin.url}/mturk/externalSubmit"
    request = urllib.request.Request(action, data=urlencode(fields).encode(), method="POST")
    with urllib.request.urlopen(request) as reply:
        assert reply.status == 200
    (seen,) = standin.requests
    form = seen.form()
    assert (seen.path, form["assignmentId"], form["outcome"]) == ("/mturk/externalSubmit", ["3ASSIGNB"], ["partner_stalled"])
    assert form["completion_code"] == [campaign.outcome_codes["partner_stalled"]]
    # The one who stalled: no code, so no post back with one.
    stalled_page = alice.get(f"/a/{first.pk}/done/").content.decode()
    assert 'data-testid="no-code"' in stalled_page and 'name="completion_code" value=""' in stalled_page
