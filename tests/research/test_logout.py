"""Every researcher's page has a way out: the staff header's log out ends the session."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/research/", "/annotate/jobs/", "/research/exports/", "/research/ranker/"])
def test_staff_pages_offer_log_out_and_it_ends_the_session(path: str) -> None:
    client = Client()
    client.force_login(User.objects.create(username="rita", is_staff=True))
    page = client.get(path)
    assert page.status_code == 200
    assert b'data-testid="staff-logout"' in page.content and b'action="/admin/logout/"' in page.content
    assert client.post("/admin/logout/").status_code in (200, 302)
    assert client.get(path).status_code in (302, 403)  # signed out: the staff page is closed


def test_a_worker_page_shows_no_staff_header() -> None:
    assert b"staff-logout" not in Client().get("/").content
