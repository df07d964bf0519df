"""Every door of the researcher's app refuses all but staff: each route that research/urls.py and
research/api/urls.py serve (the task types' staff pages included), found from the URL resolver, so
that a page added there gets the same probes as the others. A visitor is sent to log in (a page)
or refused (the API); a signed-in worker account is refused or sent to the staff login; staff get
through (the control that each probe reaches its view)."""

from __future__ import annotations

import re
import uuid

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.factories import make_campaign

pytestmark = pytest.mark.django_db

NAMESPACES = ("research", "research-api")
SLUG = "door-wow"
# A value for each path converter the routes use; a route with another converter fails below.
CONVERTERS = {"slug": SLUG, "str": "approve", "uuid": str(uuid.UUID(int=1)), "path": "dialogues.json", "int": "1"}
_PARAMETER = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>")


def _routes(patterns: list, prefix: str) -> list[str]:
    found = []
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            found += _routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            found.append(route)
    return found


def _filled(route: str) -> str:
    return "/" + _PARAMETER.sub(lambda m: CONVERTERS[m.group("converter") or "str"], route)


def research_paths() -> list[str]:
    paths = []
    for entry in get_resolver().url_patterns:
        if isinstance(entry, URLResolver) and entry.namespace in NAMESPACES:
            paths += [_filled(route) for route in _routes(entry.url_patterns, str(entry.pattern))]
    return paths


def test_the_probes_cover_every_research_page() -> None:
    # The list below is only as good as the resolver walk: the pages known today are all in it.
    paths = research_paths()
    for known in ("/research/", "/research/ranker/", "/research/exports/", "/research/exports/start/",
                  f"/research/{SLUG}/review/", f"/research/{SLUG}/dashboard/", f"/api/research/campaigns/{SLUG}/review/",
                  "/research/curiosity/"):
        assert known in paths
    assert all(path.startswith(("/research/", "/api/research/")) for path in paths)


def _refused(response, *, api: bool) -> bool:
    if response.status_code in (401, 403):
        return True
    return not api and response.status_code == 302 and response["Location"].startswith("/admin/login/")


def _client(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize("path", research_paths())
def test_only_staff_get_through(path: str) -> None:
    make_campaign(slug=SLUG, protocol="wow")
    api = path.startswith("/api/")
    worker = User.objects.create_user("wendy", password="x")
    staff = User.objects.create_user("rita", password="x", is_staff=True)
    for who in (None, worker):
        client = _client(who)
        for method in (client.get, client.post):
            response = method(path)
            assert _refused(response, api=api), (path, method.__name__, who, response.status_code)
    let_in = _client(staff).get(path)
    assert not _refused(let_in, api=api), (path, let_in.status_code)
