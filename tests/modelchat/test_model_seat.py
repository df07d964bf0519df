"""A model's seat is no worker: however a model chat ends it gets no outcome, code or pay, the
dashboard and the review page count and list only people, and the review checks judge only what
the human wrote."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from collect.lifecycle.sweep import sweep_run
from collect.tasktypes.modelchat.protocol import EVALUATOR, PARTNER
from collect.models import Assignment, AssignmentStatus, Campaign, Outcome, Room, RoomStatus
from collect.review.checks import room_checks
from collect.review.selectors import finished_assignments
from collect.review.services import ReviewError, ReviewRequest, review_apply
from collect.review.stats import campaign_stats
from collect.services.rooms import rating_submit
from tests.factories import add_message
from tests.modelchat.conftest import Evaluator, seat

pytestmark = pytest.mark.django_db

PAY = {"completed": 150, "partner_left": 150, "partner_stalled": 150}
PASTED = "Blues is a music genre that originated in the Deep South of the United States."


@pytest.fixture
def campaign(mc_campaign: Campaign) -> Campaign:
    mc_campaign.outcome_pay_cents = PAY
    mc_campaign.save(update_fields=["outcome_pay_cents"])
    return mc_campaign


@pytest.fixture
def staff() -> Client:
    client = Client()
    client.force_login(User.objects.create_user("rita", password="x", is_staff=True, is_superuser=True))
    return client


def model_seat(evaluator: Evaluator) -> Assignment:
    return Assignment.objects.get(room=evaluator.room, role=PARTNER)


def leave(evaluator: Evaluator) -> None:
    """The evaluator closes their page; the sweep ends the chat after the grace period."""
    gone_at = timezone.now()
    Assignment.objects.filter(pk=evaluator.assignment.pk).update(connected=False, left_at=gone_at, last_seen=gone_at)
    sweep_run(now=gone_at + timedelta(seconds=evaluator.room.campaign.disconnect_grace_seconds + 5))


def complete(evaluator: Evaluator) -> None:
    """The evaluator answers the final questions: the room completes."""
    Room.objects.filter(pk=evaluator.room.pk).update(status=RoomStatus.RATING)
    rating_submit(room_id=evaluator.room.pk, assignment=evaluator.assignment, frame={"answers": {"engagingness": 4}})


def test_it_gives_the_model_seat_no_outcome_or_code_when_the_human_leaves(campaign: Campaign) -> None:
    evaluator = seat(campaign, model="kb-retrieval")
    leave(evaluator)
    bot = model_seat(evaluator)
    evaluator.assignment.refresh_from_db()
    assert evaluator.assignment.outcome == Outcome.LEFT
    assert (bot.outcome, bot.completion_code, bot.ended_at) == ("", "", None)
    assert bot.status == AssignmentStatus.FINISHED  # closed with its room, and settled for good
    assert sweep_run(now=timezone.now() + timedelta(hours=1)).settled == 0


def test_it_gives_the_model_seat_nothing_when_the_human_stalls(campaign: Campaign) -> None:
    evaluator = seat(campaign, model="kb-retrieval")
    later = timezone.now() + timedelta(seconds=campaign.turn_timeout_seconds + 5)
    Assignment.objects.filter(pk=evaluator.assignment.pk).update(connected=True, left_at=None, last_seen=later)
    sweep_run(now=later)
    assert dict(evaluator.room.members.values_list("role", "outcome")) == {EVALUATOR: Outcome.STALLED, PARTNER: ""}


def test_it_counts_only_the_humans_on_the_dashboard(campaign: Campaign, staff: Client) -> None:
    for name in ("dana", "eli"):
        complete(seat(campaign, name, model="kb-retrieval"))
    leave(seat(campaign, "fay", model="kb-retrieval"))  # the human left: unpaid, and the model is paid nothing

    stats = campaign_stats(campaign=campaign)
    outcomes = {outcome: n for outcome, n, _ in stats["outcomes"]}
    assert outcomes[Outcome.COMPLETED] == 2 and outcomes[Outcome.LEFT] == 1
    assert outcomes[Outcome.PARTNER_LEFT] == outcomes[Outcome.PARTNER_STALLED] == 0
    assert stats["owed_cents"] == 2 * 150
    page = staff.get(f"/research/{campaign.slug}/dashboard/?fragment=1").content.decode()
    assert 'data-testid="owed">$3.00<' in page


def test_it_lists_no_model_on_the_review_page(campaign: Campaign, staff: Client) -> None:
    complete(seat(campaign, "dana", model="kb-retrieval"))
    leave(seat(campaign, "eli", model="kb-retrieval"))

    listing = staff.get(f"/api/research/campaigns/{campaign.slug}/assignments/").json()["assignments"]
    assert sorted(row["platform_id"] for row in listing) == ["dana", "eli"]
    page = staff.get(f"/research/{campaign.slug}/review/").content.decode()
    assert "kb-retrieval" not in page


def test_it_keeps_a_model_seat_recorded_with_an_outcome_out_of_every_worker_figure(campaign: Campaign) -> None:
    """Seats that got an outcome before models were told apart from workers stay out of the figures."""
    evaluator = seat(campaign, model="kb-retrieval")
    leave(evaluator)
    bot = model_seat(evaluator)
    Assignment.objects.filter(pk=bot.pk).update(outcome=Outcome.PARTNER_LEFT, completion_code="PAIDCODE", ended_at=timezone.now())

    stats = campaign_stats(campaign=campaign)
    assert stats["owed_cents"] == 0
    assert {outcome: n for outcome, n, _ in stats["outcomes"] if n} == {Outcome.LEFT: 1}
    assert list(finished_assignments(campaign=campaign)) == [evaluator.assignment]
    with pytest.raises(ReviewError) as refused:
        review_apply(campaign=campaign, assignment_ids=[bot.pk], request=ReviewRequest(action="approve"), staff="rita")
    assert refused.value.code == "not_found"


def test_it_does_not_flag_the_human_for_what_the_model_pasted(campaign: Campaign, staff: Client) -> None:
    evaluator = seat(campaign, model="kb-retrieval")
    Room.objects.filter(pk=evaluator.room.pk).update(topic="Blues", status=RoomStatus.CHATTING)
    add_message(evaluator.room, EVALUATOR, "Where does the blues come from, do you know?")
    add_message(evaluator.room, PARTNER, PASTED, checked_sentence={"Blues_0": PASTED})
    add_message(evaluator.room, EVALUATOR, "That is interesting, tell me more about it.")
    add_message(evaluator.room, PARTNER, PASTED, checked_sentence={"Blues_0": PASTED})
    complete(evaluator)

    assert room_checks(evaluator.room, role=EVALUATOR).flags == []
    assert room_checks(evaluator.room).pasted == 0
    (row,) = staff.get(f"/api/research/campaigns/{campaign.slug}/assignments/").json()["assignments"]
    assert row["platform_id"] == "dana" and row["checks"] == []
