"""A waiting page whose wait was ended elsewhere (the sweep, another process) while the push that
says so was lost still learns it: its periodic `status` question is answered with the ending."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from collect.lifecycle.outcomes import assignment_outcome_set
from collect.models import Outcome
from collect.services import matchmaking
from tests.collect.conftest import session_cookie
from tests.collect.ws import connect, receive_until
from tests.factories import make_campaign

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


@database_sync_to_async
def waiting_worker():
    campaign = make_campaign()
    worker = matchmaking.worker_get_or_create(platform="inhouse", external_id="alice")
    return matchmaking.assignment_start(campaign=campaign, worker=worker), session_cookie(worker)


@pytest.mark.parametrize("outcome", [Outcome.LEFT, Outcome.NO_PARTNER])
async def test_a_status_question_after_the_wait_ended_gets_the_ending(outcome: str) -> None:
    assignment, cookie = await waiting_worker()
    socket = await connect(f"/ws/wait/{assignment.pk}/", cookie)
    assert (await socket.receive_json_from(timeout=5))["type"] == "waiting"
    # Ended with no push to this page (as when the group message is lost between processes).
    assert await database_sync_to_async(assignment_outcome_set)(assignment_id=assignment.pk, outcome=outcome)
    await socket.send_json_to({"type": "status"})
    ended = await receive_until(socket, "timeout", timeout=5)
    assert ended["done_url"] == reverse("collect:finish", args=[assignment.pk])
    await socket.disconnect()
