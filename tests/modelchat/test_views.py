"""Entering a model-chat campaign: onboarding first (limited attempts, then `screened_out`), then a
room with a model at once, or the waiting room for the human control arm; a full campaign says so."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from collect.lifecycle.sweep import sweep_run
from collect.tasktypes.modelchat.models import ModelChat, ModelChatOnboarding
from collect.tasktypes.modelchat.onboarding import SAMPLE, expected_labels
from collect.models import Assignment, AssignmentStatus, Campaign, Outcome, Platform
from collect.review.selectors import base_pay_cents

pytestmark = pytest.mark.django_db

RIGHT = {f"turn-{i}": list(labels) for i, labels in expected_labels(("contradiction", "repetitive", "off_topic", "nonsensical", "incorrect")).items()}


def test_onboarding_comes_first_then_a_room_with_a_model(mc_campaign) -> None:
    client = Client()
    response = client.get("/join/mc-test/?worker=erin")
    assert response.status_code == 302 and response["Location"] == "/join/mc-test/onboarding/"
    page = client.get("/join/mc-test/onboarding/")
    assert page.status_code == 200 and SAMPLE[1][1] in page.content.decode()

    response = client.post("/join/mc-test/onboarding/", RIGHT)

    chat = ModelChat.objects.select_related("room", "model").get()
    assert response.status_code == 302 and response["Location"] == f"/room/{chat.room_id}/"
    assert chat.arm == "model" and chat.model.name == "kb-retrieval"
    seats = dict(Assignment.objects.filter(room=chat.room).values_list("role", "worker__platform"))
    assert seats == {"apprentice": "inhouse", "wizard": "model"}
    assert client.get(f"/room/{chat.room_id}/").templates[0].name == "modelchat/room.html"
    # Joining again goes back to the same room, without onboarding.
    assert client.get("/join/mc-test/?worker=erin")["Location"] == f"/room/{chat.room_id}/"


def test_wrong_labels_use_up_the_attempts(mc_campaign) -> None:
    client = Client()
    client.get("/join/mc-test/?worker=fay")
    done = f"/a/{Assignment.objects.get().pk}/done/"
    wrong = {**RIGHT, "turn-3": ["none"]}  # the off-topic message
    for left in (2, 1):
        response = client.post("/join/mc-test/onboarding/", wrong)
        assert response.status_code == 400 and f"Attempts left: {left}" in response.content.decode()
    assert client.post("/join/mc-test/onboarding/", wrong)["Location"] == done
    assert client.post("/join/mc-test/onboarding/", RIGHT)["Location"] == done  # right, but too late
    assert client.get("/join/mc-test/onboarding/")["Location"] == done
    record = ModelChatOnboarding.objects.get()
    assert (record.attempts, record.passed) == (3, False)
    assert not ModelChat.objects.exists()


@pytest.mark.parametrize("platform", [Platform.INHOUSE, Platform.PROLIFIC])
def test_a_worker_out_of_attempts_is_screened_out_at_once_with_its_code(mc_campaign, platform, settings) -> None:
    settings.PROLIFIC_COMPLETE_URL = "https://app.prolific.com/submissions/complete"
    config = {**mc_campaign.protocol_config, "onboarding_attempts": 2}
    pay = {"completed": 300, "screened_out": 25, "no_partner": 50}
    Campaign.objects.filter(pk=mc_campaign.pk).update(platform=platform, protocol_config=config, outcome_pay_cents=pay, wait_timeout_seconds=60)
    code = mc_campaign.outcome_codes["screened_out"]
    link = "/join/mc-test/?" + ("worker=fay" if platform == Platform.INHOUSE else "PROLIFIC_PID=P1&STUDY_ID=S&SESSION_ID=X")
    client = Client()
    client.get(link)
    wrong = {**RIGHT, "turn-3": ["none"]}
    assert client.post("/join/mc-test/onboarding/", wrong).status_code == 400  # one attempt left

    out = client.post("/join/mc-test/onboarding/", wrong)

    fay = Assignment.objects.get()
    assert out.status_code == 302 and out["Location"] == f"/a/{fay.pk}/done/"
    assert (fay.outcome, fay.status, fay.completion_code) == (Outcome.SCREENED_OUT, AssignmentStatus.LEFT, code)
    assert base_pay_cents(fay) == 25
    finish = client.get(out["Location"])
    if platform == Platform.PROLIFIC:
        assert finish["Location"] == f"https://app.prolific.com/submissions/complete?cc={code}"
        assert "form-action 'self' https://app.prolific.com" in out["Content-Security-Policy"]
    else:
        assert finish.status_code == 200 and code in finish.content.decode()
    # Out of the waiting pool: the sweep past the wait timeout leaves the ending as it is.
    sweep_run(now=timezone.now() + timedelta(hours=1))
    fay.refresh_from_db()
    assert (fay.outcome, fay.completion_code) == (Outcome.SCREENED_OUT, code)
    # The link opened again: no new tries and nothing left waiting, the same ending at once.
    assert client.get(link)["Location"] == f"/a/{fay.pk}/done/"
    assert not Assignment.objects.filter(status=AssignmentStatus.WAITING).exists()
    assert Assignment.objects.count() == 1  # no second assignment, so no second pay
    assert set(Assignment.objects.values_list("outcome", "completion_code")) == {(Outcome.SCREENED_OUT, code)}


def test_the_control_arm_waits_for_a_person_and_a_full_campaign_says_so(mc_campaign) -> None:
    mc_campaign.protocol_config = {"models": {}, "control": 1, "onboarding_attempts": 0}
    mc_campaign.save()
    client = Client()
    response = client.get("/join/mc-test/?worker=gus")
    assignment = Assignment.objects.get(worker__external_id="gus")
    assert response["Location"] == f"/a/{assignment.pk}/wait/" and assignment.status == AssignmentStatus.WAITING

    # gus waits alone for the control arm: the next worker is his partner, not a model's.
    mc_campaign.protocol_config = {"models": {"kb-retrieval": 5}, "control": 1, "onboarding_attempts": 0}
    mc_campaign.save()
    Client().get("/join/mc-test/?worker=jim")
    assert Assignment.objects.get(worker__external_id="jim").role == "control"
    assert Client().get("/join/mc-test/?worker=kim")["Location"].startswith("/room/")  # the pair is forming: kim gets a model

    mc_campaign.protocol_config = {"models": {"kb-retrieval": 1}, "onboarding_attempts": 0}
    mc_campaign.save()
    response = Client().get("/join/mc-test/?worker=ivy")
    assert response.status_code == 410 and "all the conversations it needs" in response.content.decode()


def test_arms_are_balanced_by_what_each_still_needs(mc_campaign) -> None:
    from collect.tasktypes.modelchat.services import arm_counts

    mc_campaign.protocol_config = {"models": {"kb-retrieval": 2, "no-knowledge": 2, "tfidf-reply": 1}, "onboarding_attempts": 0}
    mc_campaign.save()
    for name in ("w1", "w2", "w3", "w4", "w5"):
        Client().get(f"/join/mc-test/?worker={name}")
    assert arm_counts(campaign=mc_campaign) == {"kb-retrieval": 2, "no-knowledge": 2, "tfidf-reply": 1}


def test_a_campaign_quiz_leads_on_to_the_model_chat_not_to_a_waiting_room(mc_campaign) -> None:
    from tests.paid.test_onboarding import ONBOARDING

    mc_campaign.onboarding = ONBOARDING
    mc_campaign.save()
    client = Client()
    response = client.get("/join/mc-test/?worker=fay")
    assignment = Assignment.objects.get(campaign=mc_campaign)
    assert response["Location"] == f"/a/{assignment.pk}/onboarding/"

    response = client.post(f"/a/{assignment.pk}/onboarding/", {"q0": "1", "q1": "1"})

    # Passed: on to the model chat's own sample conversation, then a room with a model.
    assert response.status_code == 302 and response["Location"] == "/join/mc-test/onboarding/"
    response = client.post("/join/mc-test/onboarding/", RIGHT)
    chat = ModelChat.objects.get()
    assert response["Location"] == f"/room/{chat.room_id}/" and chat.arm == "model"
