"""An entry cut short by a lost database (the server closes the request's connection mid-entry, as a
failover does) lets the worker in on the next try from the same browser: the binding of their link
to a browser is written only with the rest of the entry, and the browser gets the token it is
bound to with every answer, the error page's too. PostgreSQL only: the connection is killed by the
database itself, from a trigger on the row the entry writes."""

from __future__ import annotations

import os

import pytest
from django.test import Client

from collect.models import Assignment, AssignmentStatus, Worker
from tests.factories import make_campaign
from tests.services import connection_killed_on

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="needs a PostgreSQL DATABASE_URL"),
]


@pytest.mark.parametrize(
    ("table", "event", "status"),
    [
        ("collect_assignment", "INSERT", 500),  # inside the entry, after the binding was written
        ("django_session", "UPDATE", 400),  # the session saved after the page was made (SessionInterrupted)
    ],
)
def test_an_entry_cut_short_by_a_lost_database_lets_the_same_browser_in_on_its_next_try(table: str, event: str, status: int) -> None:
    campaign = make_campaign()
    browser = Client(raise_request_exception=False)
    with connection_killed_on(table, event):
        failed = browser.get(f"/join/{campaign.slug}/?worker=alice")
    assert failed.status_code == status
    again = browser.get(f"/join/{campaign.slug}/?worker=alice")
    assert again.status_code == 302, again.content.decode()[-400:]
    assignment = Assignment.objects.get(worker__external_id="alice")
    assert again.url == f"/a/{assignment.pk}/wait/"
    assert assignment.status == AssignmentStatus.WAITING
    # Another browser is still refused: the binding holds.
    assert Client().get(f"/join/{campaign.slug}/?worker=alice").status_code == 403
    assert Worker.objects.filter(external_id="alice").count() == 1
