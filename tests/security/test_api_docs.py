"""The OpenAPI schema and the browsable API are for staff, unless GROUNDWORK_API_DOCS_PUBLIC is set."""

from __future__ import annotations

import pytest
from django.test import Client

from annotate.identity import worker_token
from collect.models import Worker

pytestmark = pytest.mark.django_db
SCHEMA = "/api/annotate/schema/?format=json"
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def test_the_schema_is_refused_to_anonymous_visitors_and_annotators(client: Client) -> None:
    assert client.get(SCHEMA).status_code == 403
    token = worker_token(Worker.objects.create(external_id="ann"))
    assert client.get(SCHEMA, HTTP_AUTHORIZATION=f"Bearer {token}").status_code in (401, 403)


def test_staff_get_the_schema(admin_client: Client) -> None:
    response = admin_client.get(SCHEMA)
    assert response.status_code == 200 and "/api/annotate/jobs/" in response.json()["paths"]


def test_a_setting_makes_the_schema_public(client: Client, settings) -> None:
    settings.API_DOCS_PUBLIC = True
    assert client.get(SCHEMA).status_code == 200


def test_the_browsable_api_is_html_only_for_staff(client: Client, admin_client: Client) -> None:
    token = worker_token(Worker.objects.create(external_id="ann"))
    annotator = client.get("/api/annotate/jobs/", HTTP_ACCEPT=BROWSER_ACCEPT, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert annotator.status_code == 200 and annotator["Content-Type"].startswith("application/json")
    staff = admin_client.get("/api/annotate/jobs/", HTTP_ACCEPT=BROWSER_ACCEPT)
    assert staff.status_code == 200 and staff["Content-Type"].startswith("text/html")
