"""Worker entry by link and the pages' access rules."""

from __future__ import annotations

import pytest
from django.test import Client

from collect.models import Assignment, AssignmentStatus, Campaign, RoomStatus, Worker
from tests.collect.conftest import PairedRoom

pytestmark = pytest.mark.django_db


def test_it_enters_a_prolific_worker_into_the_waiting_room(client: Client, campaign: Campaign) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(platform="prolific")
    response = client.get(f"/join/{campaign.slug}/?PROLIFIC_PID=p123&STUDY_ID=s1&SESSION_ID=x9")
    assignment = Assignment.objects.get()
    assert response.status_code == 302 and response.url == f"/a/{assignment.pk}/wait/"
    assert (assignment.worker.platform, assignment.worker.external_id) == ("prolific", "p123")
    assert (assignment.study_id, assignment.session_id, assignment.status) == ("s1", "x9", AssignmentStatus.WAITING)
    page = client.get(response.url)
    assert page.status_code == 200 and f"/ws/wait/{assignment.pk}/".encode() in page.content


def test_it_reuses_the_place_of_a_worker_who_clicks_twice(client: Client, campaign: Campaign) -> None:
    first = client.get(f"/join/{campaign.slug}/?worker=alice")
    second = client.get(f"/join/{campaign.slug}/?worker=alice")
    assert first.url == second.url and Assignment.objects.count() == 1


@pytest.mark.parametrize(
    ("query", "status", "text"),
    [
        ("", 400, b"must carry worker="),
        ("?worker=", 400, b"Ids may hold only"),
        ("?worker=<script>", 400, b"Ids may hold only"),
        ("?worker=ok&sig=" + "x" * 101, 403, b"signature does not match"),
    ],
)
def test_it_refuses_a_bad_join_link(client: Client, campaign: Campaign, query: str, status: int, text: bytes) -> None:
    response = client.get(f"/join/{campaign.slug}/{query}")
    assert response.status_code == status and text in response.content
    assert not Worker.objects.exists()


def test_it_says_when_a_study_is_closed_or_unknown(client: Client, campaign: Campaign) -> None:
    assert client.get("/join/nope/?worker=a").status_code == 404
    Campaign.objects.filter(pk=campaign.pk).update(is_active=False)
    response = client.get(f"/join/{campaign.slug}/?worker=a")
    assert response.status_code == 410 and b"not taking part" in response.content


def login(client: Client, worker: Worker) -> None:
    session = client.session
    session["worker_id"] = worker.pk
    session.save()


def test_a_third_worker_cannot_enter_a_full_room(client: Client, paired: PairedRoom) -> None:
    login(client, paired.outsider)
    response = client.get(f"/room/{paired.room.id}/")
    assert response.status_code == 403 and b"belongs to other workers" in response.content
    assert client.get(f"/room/{paired.room.id}/done/").status_code == 403
    assert paired.room.members.count() == 2


def test_a_member_gets_the_room_page_and_later_the_completion_code(client: Client, paired: PairedRoom) -> None:
    login(client, paired.apprentice.worker)
    page = client.get(f"/room/{paired.room.id}/")
    assert page.status_code == 200 and page.context["role"] == "apprentice"
    assert client.get(f"/room/{paired.room.id}/done/").status_code == 302  # not finished yet
    paired.room.status = RoomStatus.COMPLETE
    paired.room.save()
    done = client.get(f"/room/{paired.room.id}/done/")
    assert done.status_code == 200 and paired.room.campaign.completion_code.encode() in done.content


def test_a_worker_cannot_see_another_workers_waiting_page(client: Client, campaign: Campaign) -> None:
    client.get(f"/join/{campaign.slug}/?worker=alice")
    assignment = Assignment.objects.get()
    other = Client()
    other.get(f"/join/{campaign.slug}/?worker=bob")
    assert other.get(f"/a/{assignment.pk}/wait/").status_code == 403
