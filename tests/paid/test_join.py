"""Join links: signatures, platforms, the browser binding, caps and blocking. A refused join
changes nothing."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client

from collect.lifecycle.links import JOB_LINKS, join_link, link_signature, signature_for
from collect.models import Assignment, Campaign, Platform, Worker
from tests.factories import make_campaign, make_room

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_only(settings) -> None:
    settings.UNSIGNED_LINKS = False


def link(campaign: Campaign, worker: str) -> str:
    return join_link(base="", campaign_slug=campaign.slug, worker=worker)


def test_a_signed_link_enters_the_waiting_room(client: Client, signed_only) -> None:
    campaign = make_campaign()
    response = client.get(link(campaign, "alice"))
    assignment = Assignment.objects.get()
    assert response.status_code == 302 and response.url == f"/a/{assignment.pk}/wait/"
    assert assignment.worker.external_id == "alice"


@pytest.mark.parametrize(
    ("query", "status", "text"),
    [
        ("?worker=alice", 403, b"has no signature"),
        ("?worker=alice&sig=" + "0" * 32, 403, b"signature does not match"),
        ("?worker=alice&sig=abc", 403, b"signature does not match"),
        ("?worker=alice%0A&sig=" + "0" * 32, 400, b"Ids may hold only"),
    ],
)
def test_it_refuses_unsigned_and_tampered_links(client: Client, signed_only, query: str, status: int, text: bytes) -> None:
    campaign = make_campaign()
    response = client.get(f"/join/{campaign.slug}/{query}")
    assert response.status_code == status and text in response.content
    assert not Worker.objects.exists() and not Assignment.objects.exists()


def test_a_signature_is_valid_for_its_own_campaign_and_worker_only(client: Client, signed_only) -> None:
    one, other = make_campaign(), make_campaign()
    sig = link_signature(campaign_slug=one.slug, worker="alice")
    assert client.get(f"/join/{other.slug}/?worker=alice&sig={sig}").status_code == 403
    assert client.get(f"/join/{one.slug}/?worker=bob&sig={sig}").status_code == 403
    assert not Assignment.objects.exists()


def test_a_prolific_id_on_an_mturk_campaign_is_refused(client: Client) -> None:
    campaign = make_campaign(platform=Platform.MTURK)
    response = client.get(f"/join/{campaign.slug}/?PROLIFIC_PID=5f0c9a1b2c3d4e5f6a7b8c9d&STUDY_ID=s&SESSION_ID=x")
    assert response.status_code == 400 and b"does not take Prolific links" in response.content
    assert not Worker.objects.exists()


def test_mturk_params_on_a_prolific_campaign_are_refused(client: Client) -> None:
    campaign = make_campaign(platform=Platform.PROLIFIC)
    response = client.get(f"/join/{campaign.slug}/?assignmentId=A1&hitId=H1&workerId=W1&turkSubmitTo=https://www.mturk.com")
    assert response.status_code == 400 and b"does not take MTurk links" in response.content


@pytest.mark.parametrize(
    "query",
    [
        "?PROLIFIC_PID=5f0c9a1b2c3d4e5f6a7b8c9d",
        "?PROLIFIC_PID=5f0c9a1b2c3d4e5f6a7b8c9d&STUDY_ID=s1",
        "?PROLIFIC_PID=5f0c9a1b2c3d4e5f6a7b8c9d&SESSION_ID=x1",
        "?PROLIFIC_PID=5f0c9a1b2c3d4e5f6a7b8c9d&STUDY_ID=&SESSION_ID=x1",
    ],
)
def test_a_prolific_link_without_its_study_and_session_is_refused(client: Client, query: str) -> None:
    campaign = make_campaign(platform=Platform.PROLIFIC)
    response = client.get(f"/join/{campaign.slug}/{query}")
    assert response.status_code == 400 and b"STUDY_ID and SESSION_ID" in response.content
    assert not Worker.objects.exists() and not Assignment.objects.exists()


def test_a_complete_prolific_link_keeps_its_study_and_session(client: Client) -> None:
    campaign = make_campaign(platform=Platform.PROLIFIC)
    response = client.get(f"/join/{campaign.slug}/?PROLIFIC_PID=5f0c9a1b2c3d4e5f6a7b8c9d&STUDY_ID=s1&SESSION_ID=x1")
    assignment = Assignment.objects.get()
    assert response.status_code == 302 and (assignment.study_id, assignment.session_id) == ("s1", "x1")


@pytest.mark.parametrize("platform", [Platform.PROLIFIC, Platform.MTURK])
@pytest.mark.parametrize("signed", [True, False])
def test_an_inhouse_link_on_a_crowd_platform_study_is_refused(client: Client, platform: str, signed: bool) -> None:
    campaign = make_campaign(platform=platform)
    url = link(campaign, "alice") if signed else f"/join/{campaign.slug}/?worker=alice"
    response = client.get(url)
    assert response.status_code == 400 and b"does not take in-house links" in response.content
    assert not Worker.objects.exists() and not Assignment.objects.exists()


def test_a_jobs_signed_link_does_not_open_a_campaign_of_the_same_slug(client: Client, signed_only) -> None:
    campaign = make_campaign()
    sig = signature_for(kind=JOB_LINKS, slug=campaign.slug, worker="alice")
    response = client.get(f"/join/{campaign.slug}/?worker=alice&sig={sig}")
    assert response.status_code == 403 and b"signature does not match" in response.content
    assert not Worker.objects.exists()


def test_entering_as_a_worker_gives_the_browser_a_new_session_key(client: Client, signed_only) -> None:
    campaign = make_campaign()
    session = client.session
    session["planted"] = True
    session.save()
    planted = client.cookies["sessionid"].value
    client.get(link(campaign, "alice"))
    assert client.cookies["sessionid"].value != planted and client.session["worker_id"]


def test_the_mturk_preview_shows_the_task_without_joining(client: Client) -> None:
    campaign = make_campaign(platform=Platform.MTURK, instructions="Chat about a topic.")
    response = client.get(f"/join/{campaign.slug}/?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1")
    assert response.status_code == 200 and b"previewing this HIT" in response.content and b"Chat about a topic." in response.content
    assert not Worker.objects.exists()


@pytest.mark.parametrize("submit_to", ["https://evil.example", "https://www.mturk.com/x", "javascript:alert(1)"])
def test_an_mturk_link_must_post_back_to_mturk(client: Client, submit_to: str) -> None:
    campaign = make_campaign(platform=Platform.MTURK)
    response = client.get(f"/join/{campaign.slug}/", {"assignmentId": "A1", "hitId": "H1", "workerId": "W1", "turkSubmitTo": submit_to})
    assert response.status_code == 400 and b"turkSubmitTo" in response.content
    assert not Worker.objects.exists()


def test_a_link_works_only_in_the_browser_that_opened_it_first(signed_only) -> None:
    campaign = make_campaign()
    first, second = Client(), Client()
    assert first.get(link(campaign, "alice")).status_code == 302
    refused = second.get(link(campaign, "alice"))
    assert refused.status_code == 403 and b"first opened in another browser" in refused.content
    assert first.get(link(campaign, "alice")).status_code == 302  # the first browser still may
    assert Assignment.objects.count() == 1


def test_a_second_workers_link_does_not_take_over_a_browser_in_use(client: Client, signed_only) -> None:
    campaign = make_campaign()
    client.get(link(campaign, "alice"))
    alice = Worker.objects.get(external_id="alice")
    refused = client.get(link(campaign, "bob"))
    assert refused.status_code == 409 and b"already taking part as another worker" in refused.content
    assert client.session["worker_id"] == alice.pk
    assert not Assignment.objects.filter(worker__external_id="bob").exists()


def test_a_blocked_worker_cannot_join(client: Client) -> None:
    campaign = make_campaign()
    Worker.objects.create(external_id="mallory", blocked=True)
    response = client.get(f"/join/{campaign.slug}/?worker=mallory")
    assert response.status_code == 403 and b"cannot take part" in response.content
    assert not Assignment.objects.exists()


def test_a_worker_at_the_cap_gets_their_own_result_again_not_a_new_chat(client: Client) -> None:
    campaign = make_campaign(max_per_worker=1)
    client.get(f"/join/{campaign.slug}/?worker=alice")
    alice = Worker.objects.get(external_id="alice")
    Assignment.objects.filter(worker=alice).delete()
    room = make_room(campaign, wizard=alice, status="complete")
    first = client.get(f"/join/{campaign.slug}/?worker=alice")
    mine = Assignment.objects.get(room=room, worker=alice)
    assert first.status_code == 302 and first.url == f"/a/{mine.pk}/done/"
    done = client.get(first.url)
    assert done.status_code == 200 and campaign.completion_code.encode() in done.content
    again = client.get(client.get(f"/join/{campaign.slug}/?worker=alice").url)  # a replayed completion
    assert again.content == done.content and Assignment.objects.filter(worker=alice).count() == 1


def test_the_daily_cap_counts_all_campaigns(client: Client) -> None:
    campaign, other = make_campaign(max_per_worker_per_day=1), make_campaign()
    worker = Worker.objects.create(external_id="alice")
    make_room(other, wizard=worker, status="complete")
    response = client.get(f"/join/{campaign.slug}/?worker=alice")
    assert response.status_code == 403 and b"today" in response.content
    assert not Assignment.objects.filter(campaign=campaign).exists()


def test_pseudonyms_are_salted_hashes_never_the_platform_id(client: Client, settings) -> None:
    campaign = make_campaign()
    client.get(f"/join/{campaign.slug}/?worker=alice")
    pseudonym = Worker.objects.get(external_id="alice").pseudonym
    assert "alice" not in pseudonym and len(pseudonym) == 16
    from collect.lifecycle.links import pseudonym_for

    settings.PSEUDONYM_SALT = "another deployment"
    assert pseudonym_for(platform="inhouse", external_id="alice") != pseudonym


def test_the_command_prints_links_that_the_join_view_accepts(client: Client, signed_only, capsys) -> None:
    campaign = make_campaign()
    call_command("signed_links", campaign.slug, "carol", "--count", "2", "--base", "http://testserver")
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("carol\thttp://testserver/join/")
    assert Client().get(lines[1].split("\t")[1]).status_code == 302


def test_the_command_refuses_bad_ids() -> None:
    campaign = make_campaign()
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="bad worker ids"):
        call_command("signed_links", campaign.slug, "not ok")


def test_a_replayed_mturk_assignment_id_is_refused_and_writes_nothing() -> None:
    campaign = make_campaign(platform=Platform.MTURK)
    hit = {"assignmentId": "3ASSIGN", "hitId": "3HIT", "turkSubmitTo": "https://www.mturk.com"}
    assert Client().get(f"/join/{campaign.slug}/", {**hit, "workerId": "VICTIM"}).status_code == 302
    workers, assignments = Worker.objects.count(), Assignment.objects.count()
    replay = Client().get(f"/join/{campaign.slug}/", {**hit, "workerId": "ATTACKER"})
    assert replay.status_code == 403 and b"belongs to another worker" in replay.content
    assert (Worker.objects.count(), Assignment.objects.count()) == (workers, assignments)


def test_a_spent_mturk_assignment_shows_its_result_instead_of_a_second_chat() -> None:
    campaign = make_campaign(platform=Platform.MTURK, max_per_worker=0)
    hit = {"assignmentId": "3ASSIGN", "hitId": "3HIT", "workerId": "W1", "turkSubmitTo": "https://www.mturk.com"}
    client = Client()
    client.get(f"/join/{campaign.slug}/", hit)
    first = Assignment.objects.get()
    Assignment.objects.filter(pk=first.pk).update(status="timed_out", outcome="no_partner", completion_code="GW-NP")
    again = client.get(f"/join/{campaign.slug}/", hit)
    assert again.status_code == 302 and again.url == f"/a/{first.pk}/done/"
    assert Assignment.objects.count() == 1
