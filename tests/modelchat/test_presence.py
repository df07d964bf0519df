"""A model's seat has no socket and no heartbeat: it is always present. The sweep ends a model
chat when its evaluator leaves or stalls, never because the model "left"."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from collect.lifecycle.presence import PING_SLACK_SECONDS, partner_present
from collect.lifecycle.sweep import sweep_run
from collect.tasktypes.modelchat.protocol import EVALUATOR, PARTNER
from collect.models import Assignment, Campaign, Outcome, Room, RoomStatus
from tests.modelchat.conftest import seat

pytestmark = pytest.mark.django_db


def test_a_model_chat_outlasts_the_grace_period_while_its_evaluator_is_there(mc_campaign: Campaign) -> None:
    evaluator = seat(mc_campaign, model="kb-retrieval")
    # Well past the grace period and the ping slack since the model's seat was made, within the
    # turn timeout, the evaluator's socket open and stamped.
    later = timezone.now() + timedelta(seconds=mc_campaign.disconnect_grace_seconds + PING_SLACK_SECONDS + 60)
    assert later < timezone.now() + timedelta(seconds=mc_campaign.turn_timeout_seconds)
    Assignment.objects.filter(pk=evaluator.assignment.pk).update(connected=True, left_at=None, last_seen=later)
    Room.objects.filter(pk=evaluator.room.pk).update(activity_at=later)

    assert sweep_run(now=later).rooms_ended == []
    evaluator.room.refresh_from_db()
    assert evaluator.room.status not in (RoomStatus.INCOMPLETE, RoomStatus.COMPLETE)


def test_a_model_chat_whose_evaluator_left_ends_with_them_as_the_one_who_left(mc_campaign: Campaign) -> None:
    evaluator = seat(mc_campaign, model="kb-retrieval")
    gone_at = timezone.now()
    Assignment.objects.filter(pk=evaluator.assignment.pk).update(connected=False, left_at=gone_at, last_seen=gone_at)
    later = gone_at + timedelta(seconds=mc_campaign.disconnect_grace_seconds + 5)

    assert sweep_run(now=later).rooms_ended == [str(evaluator.room.pk)]
    evaluator.room.refresh_from_db()
    assert evaluator.room.status == RoomStatus.INCOMPLETE
    outcomes = dict(evaluator.room.members.values_list("role", "outcome"))
    assert outcomes == {EVALUATOR: Outcome.LEFT, PARTNER: ""}  # the model's seat is no worker: no outcome


def test_the_evaluator_is_told_the_model_is_there(mc_campaign: Campaign) -> None:
    evaluator = seat(mc_campaign, model="kb-retrieval")
    assert partner_present(room_id=evaluator.room.pk, role=EVALUATOR)
