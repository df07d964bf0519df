"""Prolific and MTurk calls go through their real HTTP clients to a local stand-in server."""

from __future__ import annotations

import pytest

from collect.models import Assignment, Outcome, Platform
from collect.models_paid import ProviderStatus, ReviewAction
from collect.review.services import ReviewRequest, review_apply
from tests.factories import make_campaign, make_room, make_worker
from tests.paid.standin import StandIn

pytestmark = pytest.mark.django_db


def finished_seat(platform: str, **ids: str) -> Assignment:
    campaign = make_campaign(platform=platform)
    worker = make_worker(platform=platform, external_id=ids.pop("worker"))
    room = make_room(campaign, wizard=worker, status="complete")
    Assignment.objects.filter(room=room).update(outcome=Outcome.COMPLETED, status="finished", **ids)
    return Assignment.objects.get(room=room, worker=worker)


def act(seat: Assignment, action: str, **fields) -> ReviewAction:
    (done,) = review_apply(campaign=seat.campaign, assignment_ids=[seat.pk], request=ReviewRequest(action=action, **fields), staff="rita")
    done.refresh_from_db()
    return done


@pytest.fixture
def prolific(settings, standin: StandIn) -> StandIn:
    settings.PROLIFIC_API_URL, settings.PROLIFIC_API_TOKEN = standin.url, "tok-123"
    return standin


@pytest.fixture
def mturk(settings, standin: StandIn) -> StandIn:
    settings.MTURK_ENDPOINT, settings.MTURK_ACCESS_KEY_ID, settings.MTURK_SECRET_ACCESS_KEY = standin.url, "AKIDEXAMPLE", "secret"
    return standin


def test_prolific_approve_and_bonus(prolific: StandIn) -> None:
    seat = finished_seat(Platform.PROLIFIC, worker="5f0c9a1b2c3d4e5f6a7b8c9d", session_id="subm-1", study_id="study-9")
    prolific.replies["/api/v1/submissions/bonus-payments/"] = (201, {"id": "bonus-77"})
    assert act(seat, "approve").provider_status == ProviderStatus.SENT
    bonus = act(seat, "bonus", amount_cents=125, message="thanks")
    assert (bonus.provider_status, bonus.provider_detail) == (ProviderStatus.SENT, "bonus bonus-77 paid")
    approve, setup, pay = prolific.requests
    assert (approve.path, approve.json(), approve.headers["Authorization"]) == (
        "/api/v1/submissions/subm-1/transition/", {"action": "APPROVE"}, "Token tok-123"
    )
    assert setup.json() == {"study_id": "study-9", "csv_bonuses": "5f0c9a1b2c3d4e5f6a7b8c9d,1.25"}
    assert pay.path == "/api/v1/bulk-bonus-payments/bonus-77/pay/"


def test_prolific_reject_sends_the_reason_and_a_refusal_is_recorded_as_failed(prolific: StandIn) -> None:
    seat = finished_seat(Platform.PROLIFIC, worker="5f0c9a1b2c3d4e5f6a7b8c9d", session_id="subm-2")
    prolific.replies["/api/v1/submissions/subm-2/transition/"] = (400, {"error": "already approved"})
    done = act(seat, "reject", message="Did not use the knowledge")
    assert done.provider_status == ProviderStatus.FAILED and "400" in done.provider_detail and "already approved" in done.provider_detail
    assert prolific.requests[0].json()["message"] == "Did not use the knowledge"
    seat.refresh_from_db()
    assert seat.decision == "rejected"  # our decision stands; the failure is shown for a retry by hand


def test_mturk_calls_are_signed_json_targets(mturk: StandIn) -> None:
    seat = finished_seat(Platform.MTURK, worker="A1WORKER", session_id="3ASSIGN", study_id="3HIT")
    act(seat, "approve", message="Good work")
    act(seat, "bonus", amount_cents=50, message="nice")
    act(seat, "block", message="spam")
    approve, bonus, block = mturk.requests
    assert approve.headers["X-Amz-Target"] == "MTurkRequesterServiceV20170117.ApproveAssignment"
    assert approve.json() == {"AssignmentId": "3ASSIGN", "RequesterFeedback": "Good work"}
    auth = approve.headers["Authorization"]
    assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") and "/us-east-1/mturk-requester/aws4_request" in auth
    assert "SignedHeaders=content-type;host;x-amz-date;x-amz-target" in auth
    assert bonus.json()["BonusAmount"] == "0.50" and bonus.json()["WorkerId"] == "A1WORKER"
    assert bonus.json()["UniqueRequestToken"].startswith("groundwork-")
    assert block.headers["X-Amz-Target"].endswith("CreateWorkerBlock")


def test_without_credentials_decisions_are_recorded_for_the_csv(settings, standin: StandIn) -> None:
    settings.PROLIFIC_API_TOKEN = ""
    seat = finished_seat(Platform.PROLIFIC, worker="5f0c9a1b2c3d4e5f6a7b8c9d", session_id="subm-3")
    assert act(seat, "approve").provider_status == ProviderStatus.RECORDED
    assert standin.requests == []


def test_an_unreachable_platform_is_a_failed_call_not_a_crash(settings) -> None:
    settings.PROLIFIC_API_URL, settings.PROLIFIC_API_TOKEN = "http://127.0.0.1:9", "tok"
    seat = finished_seat(Platform.PROLIFIC, worker="5f0c9a1b2c3d4e5f6a7b8c9d", session_id="subm-4")
    done = act(seat, "approve")
    assert done.provider_status == ProviderStatus.FAILED and "could not reach" in done.provider_detail
