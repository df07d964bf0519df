"""Staff logins under attack (django-axes): failed logins are counted per account and per client
address, and past the limit that account or address is refused, the right password included,
until the cool-off has passed. The address is the one groundwork/proxies.py settled on."""

from __future__ import annotations

import logging
import re
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from channels.testing import HttpCommunicator
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from groundwork.asgi import application
from groundwork.proxies import networks_parse
from tests.staff import admin_login

pytestmark = pytest.mark.backends

PASSWORD = "correct horse battery"
LIMIT = 10


@pytest.fixture
def staff(db, settings) -> User:
    settings.AXES_FAILURE_LIMIT = LIMIT
    return User.objects.create_user("rita", password=PASSWORD, is_staff=True, is_superuser=True)


def logged_in(client: Client) -> bool:
    return client.get("/research/").status_code == 200


def cool_off_passes() -> None:
    """What the clock does over the cool-off: every counted failure becomes older than it."""
    from django.conf import settings

    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(seconds=1))


def test_40_wrong_passwords_lock_the_account_from_every_address(staff: User, caplog) -> None:
    caplog.set_level(logging.WARNING, logger="groundwork.lockouts")
    # A distributed attack: every attempt from another address.
    statuses = [admin_login(Client(), "rita", f"guess{i}", REMOTE_ADDR=f"198.51.100.{i}").status_code for i in range(40)]
    assert statuses == [200] * (LIMIT - 1) + [429] * (40 - LIMIT + 1)
    refused = Client()
    response = admin_login(refused, "rita", PASSWORD, REMOTE_ADDR="192.0.2.200")
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode() and int(response["Retry-After"]) >= 60
    assert not logged_in(refused)
    assert "staff login locked out: username='rita'" in caplog.text
    cool_off_passes()
    welcome = Client()
    assert admin_login(welcome, "rita", PASSWORD, REMOTE_ADDR="192.0.2.200").status_code == 302
    assert logged_in(welcome)


def test_40_wrong_logins_from_one_address_lock_that_address(staff: User) -> None:
    # Password spraying: one address, another account name each time.
    statuses = [admin_login(Client(), f"user{i}", "guess", REMOTE_ADDR="198.51.100.9").status_code for i in range(40)]
    assert statuses.count(429) == 40 - LIMIT + 1
    blocked = Client()
    assert admin_login(blocked, "rita", PASSWORD, REMOTE_ADDR="198.51.100.9").status_code == 429
    assert not logged_in(blocked)
    # The account itself is not locked: from another address the right password works.
    elsewhere = Client()
    assert admin_login(elsewhere, "rita", PASSWORD, REMOTE_ADDR="192.0.2.10").status_code == 302
    assert logged_in(elsewhere)


def test_staff_see_the_current_lockouts_on_the_research_page(staff: User) -> None:
    for i in range(LIMIT):
        admin_login(Client(), "mallory-target", "guess", REMOTE_ADDR=f"198.51.100.{i}")
    viewer = Client()
    viewer.force_login(staff)
    table = viewer.get("/research/").content.decode().split('data-testid="lockouts"')[1].split("</table>")[0]
    assert "account <code>mallory-target</code>" in table and f"<td>{LIMIT}</td>" in table
    assert "198.51.100.1<" not in table  # one failure per address: no address is locked
    # Every failed login, in the admin's Axes pages.
    attempts = viewer.get("/admin/axes/accessattempt/")
    assert attempts.status_code == 200 and attempts.content.decode().count("mallory-target") >= LIMIT
    cool_off_passes()
    assert "None now." in viewer.get("/research/").content.decode()


def test_a_success_under_the_limit_starts_the_count_again(staff: User) -> None:
    for _ in range(LIMIT - 1):
        admin_login(Client(), "rita", "guess", REMOTE_ADDR="198.51.100.1")
    assert admin_login(Client(), "rita", PASSWORD, REMOTE_ADDR="198.51.100.1").status_code == 302
    assert admin_login(Client(), "rita", "guess", REMOTE_ADDR="198.51.100.1").status_code == 200


async def asgi_post_login(username: str, password: str, *, peer: str, forwarded_for: str) -> int:
    """A login through the whole ASGI application (the trusted-proxy middleware included), with
    the CSRF cookie and token a browser would send."""
    page = HttpCommunicator(application, "GET", "/admin/login/", headers=[(b"host", b"127.0.0.1")])
    page.scope["client"] = [peer, 40000]
    response = await page.get_response(timeout=30)
    cookie = next(v for k, v in response["headers"] if k == b"Set-Cookie" and v.startswith(b"csrftoken=")).split(b";")[0]
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', response["body"]).group(1)
    body = b"csrfmiddlewaretoken=" + token + f"&username={username}&password={password}&next=/admin/".encode()
    headers = [(b"host", b"127.0.0.1"), (b"cookie", cookie), (b"content-type", b"application/x-www-form-urlencoded"),
               (b"x-forwarded-for", forwarded_for.encode())]
    post = HttpCommunicator(application, "POST", "/admin/login/", body=body, headers=headers)
    post.scope["client"] = [peer, 40000]
    return (await post.get_response(timeout=30))["status"]


@pytest.mark.django_db(transaction=True)
async def test_lockouts_count_the_address_the_trusted_proxy_settled_on(settings) -> None:
    settings.AXES_FAILURE_LIMIT = 3
    settings.TRUSTED_PROXIES = networks_parse(["10.0.0.5"])
    await User.objects.acreate(username="rita", password="!", is_staff=True)
    # An untrusted client rotating X-Forwarded-For is counted under its own address.
    statuses = [await asgi_post_login(f"user{i}", "guess", peer="203.0.113.7", forwarded_for=f"198.51.100.{i}") for i in range(4)]
    assert statuses == [200, 200, 429, 429]
    assert {a.ip_address async for a in AccessAttempt.objects.all()} == {"203.0.113.7"}
    # Behind the trusted proxy, each client it reports has its own count.
    assert await asgi_post_login("user9", "guess", peer="10.0.0.5", forwarded_for="192.0.2.44") == 200
    assert await AccessAttempt.objects.filter(ip_address="192.0.2.44").aexists()
