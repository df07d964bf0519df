"""Production (GROUNDWORK_PRODUCTION=1): every cookie the site sets is Secure, and superusers need
a second factor. The settings are read in a fresh process, as a deployment reads them; the pages
are then run under those settings."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.test import Client

from groundwork import production
from tests.security.test_second_factor import ENROL, PASSWORD, enrolment_key
from tests.staff import admin_login, totp_code

pytestmark = pytest.mark.backends

ROOT = Path(__file__).resolve().parents[2]
PRINT = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({n: getattr(s, n) for n in ('COOKIES_SECURE', 'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', "
    "'LANGUAGE_COOKIE_SECURE', 'SECOND_FACTOR_REQUIRED')}))"
)


def production_settings(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "DATABASE_URL", "REDIS_URL") and not k.startswith("GROUNDWORK_")}
    env.update(DJANGO_SETTINGS_MODULE="groundwork.settings", GROUNDWORK_VAR_DIR=str(tmp_path), GROUNDWORK_PRODUCTION="1",
               SECRET_KEY=secrets.token_urlsafe(50), **extra)
    return subprocess.run([sys.executable, "-c", PRINT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_production_makes_every_cookie_secure_and_superusers_enrol(tmp_path: Path) -> None:
    result = production_settings(tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "COOKIES_SECURE": True, "SESSION_COOKIE_SECURE": True, "CSRF_COOKIE_SECURE": True,
        "LANGUAGE_COOKIE_SECURE": True, "SECOND_FACTOR_REQUIRED": "superusers",
    }
    refused = production_settings(tmp_path, GROUNDWORK_SECOND_FACTOR_REQUIRED="none")
    assert refused.returncode != 0 and "GROUNDWORK_SECOND_FACTOR_REQUIRED=none is refused" in refused.stderr


@pytest.fixture
def in_production(settings) -> None:
    for name in dir(production):
        if name.isupper():
            setattr(settings, name, getattr(production, name))
    settings.SECOND_FACTOR_REQUIRED = "superusers"


class CookieJar:
    """Every Set-Cookie the responses carried, by name (the last one of each)."""

    def __init__(self) -> None:
        self.seen: dict[str, dict[str, str]] = {}

    def note(self, response: HttpResponse) -> HttpResponse:
        for name, morsel in response.cookies.items():
            self.seen[name] = {"secure": morsel["secure"], "httponly": morsel["httponly"]}
        return response


def test_every_cookie_is_secure_under_the_production_settings(in_production, campaign, tmp_path: Path) -> None:
    jar = CookieJar()
    https = {"HTTP_X_FORWARDED_PROTO": "https"}  # what the trusted proxy reports
    worker = Client(**https)
    jar.note(worker.get(f"/join/{campaign.slug}/", {"worker": "w1"}))
    User.objects.create_user("rita", password=PASSWORD, is_staff=True, is_superuser=True)
    staff = Client(**https)
    jar.note(staff.get("/admin/login/"))
    assert jar.note(admin_login(staff, "rita", PASSWORD, **https)).status_code == 302
    # The superuser is sent to enrol first; the page's confirmation comes in a messages cookie.
    assert jar.note(staff.get("/research/")).url.startswith("/staff/second-factor/")
    key = enrolment_key(staff)
    assert jar.note(staff.post(ENROL, {"token": totp_code(key), "next": "/research/"}, **https)).status_code == 302
    jar.note(staff.get("/research/"))
    assert {"gw_browser", "sessionid", "csrftoken", "messages"} <= set(jar.seen)
    assert {name: flags["secure"] for name, flags in jar.seen.items()} == {name: True for name in jar.seen}


def test_outside_production_cookies_work_over_plain_http(db, campaign) -> None:
    """The check above is not vacuous: the embedded mode sets the same cookies without the flag."""
    response = Client().get(f"/join/{campaign.slug}/", {"worker": "w1"})
    assert response.cookies["gw_browser"]["secure"] == "" and response.cookies["sessionid"]["secure"] == ""
