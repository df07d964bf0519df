"""The staff second factor (django-otp TOTP): enrolment with a first code, the admin login that
then asks for a code, sessions that never gave one, and the rule that makes superusers enrol
(production). Codes are computed here as an authenticator app computes them."""

from __future__ import annotations

import re
from base64 import b32decode
from urllib.parse import parse_qs, unquote, urlparse

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.staff import admin_login, device_code, totp_code

pytestmark = pytest.mark.backends

PASSWORD = "correct horse battery"
ENROL = "/staff/second-factor/"


@pytest.fixture
def staff(db) -> User:
    return User.objects.create_user("rita", password=PASSWORD, is_staff=True)


def enrolment_key(client: Client) -> str:
    """The key the page offers, read from its otpauth:// link as an app reads the QR code."""
    page = client.get(ENROL)
    assert page.status_code == 200
    html = page.content.decode()
    uri = re.search(r'data-testid="second-factor-uri">([^<]+)<', html).group(1).replace("&amp;", "&")
    parsed = urlparse(uri)
    assert parsed.scheme == "otpauth" and parsed.netloc == "totp" and unquote(parsed.path) == "/Groundwork:rita"
    query = parse_qs(parsed.query)
    assert query["issuer"] == ["Groundwork"] and query["digits"] == ["6"] and query["period"] == ["30"]
    assert 'src="data:image/svg+xml' in html  # the QR code, as a data: image the CSP allows
    return b32decode(query["secret"][0] + "=" * (-len(query["secret"][0]) % 8)).hex()


def enrol(client: Client) -> TOTPDevice:
    key = enrolment_key(client)
    response = client.post(ENROL, {"token": totp_code(key), "next": "/research/"})
    assert response.status_code == 302 and response.url == "/research/"
    return TOTPDevice.objects.get(user__username="rita", confirmed=True)


def test_it_enrols_a_device_only_with_a_right_first_code(staff: User) -> None:
    client = Client()
    assert admin_login(client, "rita", PASSWORD).status_code == 302
    key = enrolment_key(client)
    wrong = client.post(ENROL, {"token": f"{(int(totp_code(key)) + 1) % 10**6:06d}"})
    assert wrong.status_code == 400 and "does not match" in wrong.content.decode()
    assert not TOTPDevice.objects.exists()
    assert client.post(ENROL, {"token": "abc"}).status_code == 400
    assert not TOTPDevice.objects.exists()
    assert enrolment_key(client) == key  # the same key until confirmed: the app's entry stays good
    device = enrol(client)
    assert device.key == key
    # The enrolling session gave a code: it stays in.
    assert client.get("/admin/").status_code == 200
    assert 'data-testid="second-factor-on"' in client.get(ENROL).content.decode()


def test_once_enrolled_the_admin_login_asks_for_the_code(staff: User) -> None:
    first = Client()
    admin_login(first, "rita", PASSWORD)
    device = enrol(first)
    no_code = Client()
    response = admin_login(no_code, "rita", PASSWORD)
    assert response.status_code == 200 and "enter the 6-digit code from your authenticator app" in response.content.decode()
    assert no_code.get("/admin/").status_code == 302
    wrong = Client()
    refused = admin_login(wrong, "rita", PASSWORD, code=f"{(int(device_code(device)) + 5) % 10**6:06d}")
    assert refused.status_code == 200 and "That authentication code is not right" in refused.content.decode()
    assert wrong.get("/research/").status_code == 302
    device.refresh_from_db()
    device.throttle_reset()  # the wrong code delays the next try: what the waiting person does
    right = Client()
    # The next step's code: the one used to enrol cannot be used again.
    assert admin_login(right, "rita", PASSWORD, code=device_code(device)).status_code == 302
    assert right.get("/admin/").status_code == 200
    assert right.get("/research/").status_code == 200


def test_a_session_that_never_gave_a_code_is_sent_back_to_the_login(staff: User) -> None:
    earlier = Client()
    admin_login(earlier, "rita", PASSWORD)
    assert earlier.get("/research/").status_code == 200
    enrol_client = Client()
    admin_login(enrol_client, "rita", PASSWORD)
    enrol(enrol_client)
    # The session opened before enrolment has not given a code: no staff page, no admin, no API.
    response = earlier.get("/research/")
    assert response.status_code == 302 and response.url == "/admin/login/?next=%2Fresearch%2F"
    assert earlier.get("/admin/").status_code == 302
    assert earlier.post("/research/wow-test/review/", {}).status_code == 403


def test_staff_without_a_device_are_not_asked_for_a_code_by_default(staff: User) -> None:
    client = Client()
    assert admin_login(client, "rita", PASSWORD).status_code == 302
    assert client.get("/admin/").status_code == 200


def test_superusers_must_enrol_before_any_staff_page_when_required(db, settings) -> None:
    settings.SECOND_FACTOR_REQUIRED = "superusers"  # production's rule (test_secure_cookies.py checks it is)
    User.objects.create_user("rita", password=PASSWORD, is_staff=True, is_superuser=True)
    User.objects.create_user("sam", password=PASSWORD, is_staff=True)
    client = Client()
    assert admin_login(client, "rita", PASSWORD).status_code == 302
    for page in ("/research/", "/admin/", "/admin/collect/campaign/", "/annotate/jobs/"):
        response = client.get(page)
        assert response.status_code == 302 and response.url.startswith(f"{ENROL}?next="), page
    enrol(client)
    assert client.get("/research/").status_code == 200
    assert client.get("/admin/").status_code == 200
    # A staff member who is not a superuser may still choose.
    sam = Client()
    assert admin_login(sam, "sam", PASSWORD).status_code == 302
    assert sam.get("/research/").status_code == 200


@pytest.mark.django_db(transaction=True)
async def test_the_rule_holds_on_the_async_path_daphne_serves(settings) -> None:
    """Through Django's ASGI handler (the middleware's async branch), as daphne serves pages."""
    from django.test import AsyncClient

    settings.SECOND_FACTOR_REQUIRED = "superusers"
    user = await User.objects.acreate(username="rita", is_staff=True, is_superuser=True)
    client = AsyncClient()
    await client.aforce_login(user)
    response = await client.get("/research/")
    assert response.status_code == 302 and response.url == f"{ENROL}?next=%2Fresearch%2F"
    assert (await client.post("/research/wow-test/review/", {})).status_code == 403
    assert (await client.get(ENROL)).status_code == 200
    await TOTPDevice.objects.acreate(user=user, name="app", confirmed=True)
    # A device now, and this session never gave its code: back to the login.
    response = await client.get("/research/")
    assert response.status_code == 302 and response.url == "/admin/login/?next=%2Fresearch%2F"
