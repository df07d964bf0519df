"""The campaign admin explains its turn settings."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_the_turn_limit_field_says_what_it_does(admin_client: Client) -> None:
    page = admin_client.get("/admin/collect/campaign/add/").content.decode()
    assert "The chat ends by itself (and goes to rating) once each worker has sent this many messages" in page
