"""A real daphne serving HTTP requests against PostgreSQL: a request's database connection is
closed when the request ends, not left to the garbage collector (a burst of joins then ran
PostgreSQL out of connections). Second CI pass only: it counts PostgreSQL's own sessions."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from http.client import HTTPConnection

import pytest
from django.db import connection, connections

from collect.models import Campaign
from tests.live import daphne_running  # the fork hook comes with it

pytestmark = [
    pytest.mark.backends,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="needs PostgreSQL"),
]


@pytest.fixture
def server(settings):
    from channels.testing.live import make_application
    from daphne.testing import DaphneProcess

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1"]
    connections.close_all()  # the forked child must not share our database socket
    with daphne_running(DaphneProcess("127.0.0.1", partial(make_application, static_wrapper=None))) as process:
        yield process.port.value


def other_sessions() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def test_requests_leave_no_database_connection_open(server: int, campaign) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(platform="prolific")

    def join(i: int) -> int:
        http = HTTPConnection("127.0.0.1", server, timeout=30)
        http.request("GET", f"/join/{campaign.slug}/?PROLIFIC_PID=p{i}&STUDY_ID=s1&SESSION_ID=x{i}")
        status = http.getresponse().status
        http.close()
        return status

    # Sessions of this test process's other threads (earlier tests' socket calls) are not the server's.
    before = other_sessions()
    with ThreadPoolExecutor(max_workers=10) as pool:
        assert set(pool.map(join, range(40))) == {302}  # into the waiting room
    # Each request closes its connection as it ends (just after its response is sent).
    deadline = time.monotonic() + 60  # waited for: a busy machine ends its requests late
    while (left := other_sessions()) > before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left <= before
