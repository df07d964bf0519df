"""Onboarding: role instructions and a quiz before the waiting room; a pass is a qualification
reused by other campaigns; running out of attempts is `screened_out`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from collect.lifecycle.onboarding import onboarding_problems
from collect.lifecycle.sweep import sweep_run
from collect.models import Assignment, AssignmentStatus, Outcome, Platform, Qualification
from collect.review.selectors import base_pay_cents
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db

ONBOARDING = {
    "qualification": "wow-basics",
    "pass_mark": 1.0,
    "max_attempts": 2,
    "roles": {
        "wizard": {"instructions": "Answer with the knowledge you are shown.", "good": ["Blues began in the Deep South."], "bad": ["idk"]},
        "apprentice": {"instructions": "Be curious and ask questions."},
    },
    "quiz": [
        {"question": "What does the wizard check?", "choices": ["Nothing", "The sentence used"], "answer": 1},
        {"question": "May you paste a whole sentence?", "choices": ["Yes", "No, rephrase it"], "answer": 1},
    ],
}


def start(client: Client, campaign) -> Assignment:
    response = client.get(f"/join/{campaign.slug}/?worker=alice")
    assignment = Assignment.objects.get(campaign=campaign)
    assert response.url == f"/a/{assignment.pk}/onboarding/"
    return assignment


def test_roles_and_the_quiz_come_before_the_waiting_room(client: Client) -> None:
    campaign = make_campaign(onboarding=ONBOARDING)
    assignment = start(client, campaign)
    page = client.get(f"/a/{assignment.pk}/onboarding/").content.decode()
    assert "Answer with the knowledge you are shown." in page and "Be curious" in page and "idk" in page
    assert client.get(f"/a/{assignment.pk}/wait/").url == f"/a/{assignment.pk}/onboarding/"  # no skipping
    passed = client.post(f"/a/{assignment.pk}/onboarding/", {"q0": "1", "q1": "1"})
    assert passed.url == f"/a/{assignment.pk}/wait/"
    assert client.get(passed.url).status_code == 200
    assert Qualification.objects.get(name="wow-basics").passed


def test_a_passed_qualification_is_reused_by_another_campaign(client: Client) -> None:
    first, second = make_campaign(onboarding=ONBOARDING), make_campaign(onboarding=ONBOARDING)
    assignment = start(client, first)
    client.post(f"/a/{assignment.pk}/onboarding/", {"q0": "1", "q1": "1"})
    response = client.get(f"/join/{second.slug}/?worker=alice")
    assert response.url.endswith("/wait/")


def test_failing_every_attempt_is_screened_out_with_its_code(client: Client) -> None:
    campaign = make_campaign(onboarding=ONBOARDING)
    assignment = start(client, campaign)
    retry = client.post(f"/a/{assignment.pk}/onboarding/", {"q0": "0", "q1": "1"})
    assert retry.status_code == 200 and b"1 attempt left" in retry.content
    out = client.post(f"/a/{assignment.pk}/onboarding/", {"q0": "1", "q1": "0"})
    assert out.url == f"/a/{assignment.pk}/done/"
    assignment.refresh_from_db()
    assert (assignment.outcome, assignment.status) == (Outcome.SCREENED_OUT, AssignmentStatus.LEFT)
    assert assignment.completion_code == campaign.outcome_codes["screened_out"]
    assert client.get(f"/a/{assignment.pk}/wait/").url == f"/a/{assignment.pk}/done/"


@pytest.mark.parametrize("platform", [Platform.INHOUSE, Platform.PROLIFIC])
def test_a_screened_out_worker_keeps_that_ending_and_is_never_left_waiting(settings, platform) -> None:
    settings.PROLIFIC_COMPLETE_URL = "https://app.prolific.com/submissions/complete"
    pay = {"completed": 300, "screened_out": 25, "no_partner": 50}
    campaign = make_campaign(platform=platform, onboarding=ONBOARDING, outcome_pay_cents=pay, wait_timeout_seconds=60)
    code = campaign.outcome_codes["screened_out"]
    link = f"/join/{campaign.slug}/?" + ("worker=alice" if platform == Platform.INHOUSE else "PROLIFIC_PID=P1&STUDY_ID=S&SESSION_ID=X")
    client = Client()
    alice = Assignment.objects.get(pk=client.get(link).url.split("/")[2])
    client.post(f"/a/{alice.pk}/onboarding/", {"q0": "0", "q1": "1"})

    out = client.post(f"/a/{alice.pk}/onboarding/", {"q0": "1", "q1": "0"})

    alice.refresh_from_db()
    assert out.url == f"/a/{alice.pk}/done/"
    assert (alice.outcome, alice.status, alice.completion_code) == (Outcome.SCREENED_OUT, AssignmentStatus.LEFT, code)
    assert base_pay_cents(alice) == 25
    finish = client.get(out.url)
    if platform == Platform.PROLIFIC:
        assert finish.url == f"https://app.prolific.com/submissions/complete?cc={code}"
    else:
        assert finish.status_code == 200 and code in finish.content.decode()
    # The link opened again: no new attempt and no wait to run out as no_partner, the same ending.
    assert client.get(link).url == f"/a/{alice.pk}/done/"
    sweep_run(now=timezone.now() + timedelta(hours=1))
    assert set(Assignment.objects.values_list("outcome", "completion_code")) == {(Outcome.SCREENED_OUT, code)}
    assert Assignment.objects.count() == 1  # no second assignment, so no second pay


def test_a_qualification_used_up_elsewhere_screens_out_at_once(client: Client) -> None:
    first, second = make_campaign(onboarding=ONBOARDING), make_campaign(onboarding=ONBOARDING)
    assignment = start(client, first)
    for answers in ({"q0": "0", "q1": "0"}, {"q0": "0", "q1": "0"}):
        client.post(f"/a/{assignment.pk}/onboarding/", answers)
    onboarding = client.get(f"/join/{second.slug}/?worker=alice").url
    later = Assignment.objects.get(campaign=second)
    assert client.get(onboarding).url == f"/a/{later.pk}/done/"
    later.refresh_from_db()
    assert (later.outcome, later.completion_code) == (Outcome.SCREENED_OUT, second.outcome_codes["screened_out"])


@pytest.mark.parametrize("answers", [{}, {"q0": "1"}, {"q0": "9", "q1": "1"}, {"q0": "x", "q1": "1"}])
def test_an_incomplete_or_bad_answer_sheet_is_refused_without_using_an_attempt(client: Client, answers) -> None:
    campaign = make_campaign(onboarding=ONBOARDING)
    assignment = start(client, campaign)
    response = client.post(f"/a/{assignment.pk}/onboarding/", answers)
    assert response.status_code == 400 and b"Answer question" in response.content
    assert not Qualification.objects.exists()


def test_it_names_what_is_wrong_with_an_onboarding_setting() -> None:
    assert onboarding_problems({}) == []
    assert onboarding_problems(ONBOARDING) == []
    problems = onboarding_problems({"quiz": [{"question": "Q", "choices": ["a"], "answer": 0}], "pass_mark": 2})
    assert problems == ["onboarding.quiz[1] needs a question and at least two choices", "onboarding.pass_mark must be a number in (0, 1]"]


def test_a_waiting_worker_can_return_the_task(client: Client) -> None:
    campaign = make_campaign()
    client.get(f"/join/{campaign.slug}/?worker=alice")
    assignment = Assignment.objects.get()
    assert client.get(f"/a/{assignment.pk}/leave/").status_code == 405
    response = client.post(f"/a/{assignment.pk}/leave/")
    assert response.url == f"/a/{assignment.pk}/done/"
    assignment.refresh_from_db()
    assert (assignment.outcome, assignment.completion_code) == (Outcome.RETURNED, "")
    assert b"no completion code" in client.get(response.url).content
    assert Client().post(f"/a/{assignment.pk}/leave/").status_code == 403


def test_a_seated_worker_cannot_return_from_the_waiting_room(client: Client) -> None:
    from tests.factories import make_room

    campaign = make_campaign()
    client.get(f"/join/{campaign.slug}/?worker=alice")
    alice = Assignment.objects.get().worker
    Assignment.objects.all().delete()
    room = make_room(campaign, wizard=alice)
    seat = Assignment.objects.get(room=room, worker=alice)
    response = client.post(f"/a/{seat.pk}/leave/")
    assert response.status_code == 409
    seat.refresh_from_db()
    assert seat.outcome == "" and seat.status == AssignmentStatus.PAIRED
