"""The staff second factor in a real browser, under the Content-Security-Policy: a superuser who
must enrol is sent to the enrolment page, scans (reads) the QR code's key, confirms with a code,
and later logs in with password and code."""

from __future__ import annotations

import re
from base64 import b32decode

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page, expect

from collect.models import Campaign
from tests.staff import totp_code

pytestmark = [pytest.mark.backends, pytest.mark.browser]
PASSWORD = "correct horse battery"


@pytest.fixture
def superusers_enrol(settings, transactional_db) -> None:
    # Set before the server process is forked (daphne_server), so that it serves this rule.
    settings.SECOND_FACTOR_REQUIRED = "superusers"


def log_in(page: Page, server: str, *, code: str = "") -> None:
    page.goto(f"{server}/research/")
    page.fill("#id_username", "rita")
    page.fill("#id_password", PASSWORD)
    if code:
        page.fill("#id_otp_token", code)
    page.click("input[type=submit]")


def test_a_superuser_enrols_and_then_logs_in_with_a_code(superusers_enrol, browser: Browser, daphne_server: str, wow_campaign: Campaign) -> None:
    User.objects.create_user("rita", password=PASSWORD, is_staff=True, is_superuser=True)
    page = browser.new_context().new_page()
    blocked: list[str] = []
    page.on("console", lambda message: blocked.append(message.text) if message.type == "error" and "Content-Security-Policy" in message.text else None)
    missing: list[str] = []
    page.on("response", lambda response: missing.append(response.url) if response.status == 404 else None)
    log_in(page, daphne_server)
    expect(page).to_have_url(re.compile(r"/staff/second-factor/\?next=%2Fresearch%2F$"))
    qr = page.get_by_test_id("second-factor-qr")
    expect(qr).to_be_visible()
    assert qr.evaluate("img => img.complete && img.naturalWidth > 0")  # the data: image is allowed and drawn
    secret = page.get_by_test_id("second-factor-secret").inner_text().strip()
    key = b32decode(secret + "=" * (-len(secret) % 8)).hex()
    page.fill("#token", totp_code(key))
    page.get_by_role("button", name="Confirm").click()  # not the header's "Log out", also a submit button
    expect(page.get_by_test_id("campaigns")).to_be_visible()
    assert blocked == [], blocked
    assert missing == [], missing

    again = browser.new_context().new_page()
    log_in(again, daphne_server)
    expect(again.locator(".errornote")).to_contain_text("enter the 6-digit code")
    again.fill("#id_password", PASSWORD)
    again.fill("#id_otp_token", totp_code(key, ahead=1))
    again.click("input[type=submit]")
    expect(again.get_by_test_id("campaigns")).to_be_visible()
