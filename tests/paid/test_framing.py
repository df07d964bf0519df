"""Which pages another site may frame, where their forms may lead, and the cookies that keep an MTurk
HIT's session inside MTurk's cross-site frame. The browser side is tests/browser/test_mturk_frame.py."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.test import Client

from collect.models import Assignment, Platform
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db

MTURK_SITE = "https://worker.mturk.com"
SUBMIT_HOST = "https://www.mturk.com"
QUIZ = {"max_attempts": 2, "quiz": [{"question": "Who sees the knowledge?", "choices": ["Both", "The wizard"], "answer": 1}]}


def directives(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in (p.strip() for p in header.split(";")) if part}


def mturk_join(client: Client, slug: str, *, worker: str = "A1ALICE", assignment: str = "3ASSIGNALICE"):
    query = urlencode({"assignmentId": assignment, "hitId": "3HIT", "workerId": worker, "turkSubmitTo": SUBMIT_HOST})
    return client.get(f"/join/{slug}/?{query}")


@pytest.fixture(autouse=True)
def mturk_hosts(settings) -> None:
    settings.MTURK_FRAME_ANCESTORS = [MTURK_SITE]
    settings.MTURK_SUBMIT_HOSTS = [SUBMIT_HOST]


def assert_framable_by_mturk(response) -> None:
    policy = directives(response)
    assert policy["frame-ancestors"] == [MTURK_SITE]
    assert policy["form-action"] == ["'self'", SUBMIT_HOST]
    assert "X-Frame-Options" not in response


def assert_strict(response) -> None:
    policy = directives(response)
    assert (policy["frame-ancestors"], policy["form-action"]) == (["'none'"], ["'self'"])
    assert response["X-Frame-Options"] == "DENY"


def test_it_lets_mturk_frame_every_task_page_of_an_mturk_campaign() -> None:
    campaign = make_campaign(platform=Platform.MTURK)
    client = Client()
    join = mturk_join(client, campaign.slug)
    assert join.status_code == 302
    assert_framable_by_mturk(join)
    assignment = Assignment.objects.get(campaign=campaign)
    wait = client.get(f"/a/{assignment.pk}/wait/")
    assert wait.status_code == 200
    assert_framable_by_mturk(wait)
    finish = client.post(f"/a/{assignment.pk}/leave/")
    assert_framable_by_mturk(finish)
    done = client.get(finish.url)
    assert done.status_code == 200 and b"/mturk/externalSubmit" in done.content
    assert_framable_by_mturk(done)


def test_the_preview_and_a_refused_join_show_in_mturks_frame_too() -> None:
    campaign = make_campaign(platform=Platform.MTURK)
    preview = Client().get(f"/join/{campaign.slug}/?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=3HIT")
    assert preview.status_code == 200
    assert_framable_by_mturk(preview)
    refused = Client().get(f"/join/{campaign.slug}/?assignmentId=3A&hitId=3HIT&workerId=A1&turkSubmitTo=https://evil.example")
    assert refused.status_code == 400
    assert_framable_by_mturk(refused)


def test_an_mturk_hits_cookies_work_in_a_cross_site_frame() -> None:
    campaign = make_campaign(platform=Platform.MTURK, onboarding=QUIZ)
    client = Client()
    join = mturk_join(client, campaign.slug)
    quiz = client.get(join.url)  # the onboarding page, with its form's CSRF cookie
    for response, name in ((join, "sessionid"), (join, "gw_browser"), (quiz, "csrftoken")):
        cookie = response.cookies[name]
        assert cookie["secure"] is True
        assert "SameSite=None; Partitioned" in cookie.OutputString()
    # ... and the HIT goes on with them: the quiz's post passes the CSRF check.
    assert client.post(join.url, {"q0": "1"}).status_code == 302


def test_other_campaigns_keep_the_strict_policy_and_lax_cookies() -> None:
    for platform, query in ((Platform.INHOUSE, "worker=alice"), (Platform.PROLIFIC, "PROLIFIC_PID=P1&STUDY_ID=S&SESSION_ID=X")):
        campaign = make_campaign(platform=platform)
        client = Client()
        join = client.get(f"/join/{campaign.slug}/?{query}")
        assert_strict(join)
        assert join.cookies["sessionid"]["samesite"] == "Lax" and join.cookies["gw_browser"]["samesite"] == "Lax"
        assert "Partitioned" not in join.cookies["sessionid"].OutputString()
        wait = client.get(join.url)
        assert wait.status_code == 200
        assert directives(wait)["frame-ancestors"] == ["'none'"] and wait["X-Frame-Options"] == "DENY"
    assert_strict(Client().get("/"))


def test_the_policy_follows_the_pages_campaign_not_the_visitors() -> None:
    mturk, inhouse = make_campaign(platform=Platform.MTURK), make_campaign(platform=Platform.INHOUSE)
    Client().get(f"/join/{inhouse.slug}/?worker=bob")
    hit = Client()
    mturk_join(hit, mturk.slug)
    stranger = hit.get(f"/a/{Assignment.objects.get(campaign=inhouse).pk}/wait/")
    assert stranger.status_code == 403
    assert_strict(stranger)


def test_a_prolific_quiz_may_lead_to_prolifics_completion_page_and_nowhere_else(settings) -> None:
    settings.PROLIFIC_COMPLETE_URL = "https://app.prolific.com/submissions/complete"
    prolific, inhouse = make_campaign(platform=Platform.PROLIFIC, onboarding=QUIZ), make_campaign(onboarding=QUIZ)
    client = Client()
    quiz = client.get(client.get(f"/join/{prolific.slug}/?PROLIFIC_PID=P1&STUDY_ID=S&SESSION_ID=X").url)
    assert quiz.status_code == 200
    assert directives(quiz)["form-action"] == ["'self'", "https://app.prolific.com"]
    assert directives(quiz)["frame-ancestors"] == ["'none'"]
    other = Client()
    quiz = other.get(other.get(f"/join/{inhouse.slug}/?worker=bob").url)
    assert directives(quiz)["form-action"] == ["'self'"]
    # The waiting page's "Leave" on a wait that has already ended leads there too.
    waiting = Client()
    wait = waiting.get(waiting.get(f"/join/{make_campaign(platform=Platform.PROLIFIC).slug}/?PROLIFIC_PID=P2&STUDY_ID=S&SESSION_ID=Y").url)
    assert wait.status_code == 200 and b"Leave the study" in wait.content
    assert directives(wait)["form-action"] == ["'self'", "https://app.prolific.com"]
