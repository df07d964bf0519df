"""The Curiosity analysis page in a real browser: its like-rate chart is drawn by the vendored
chart library under the page's CSP, with no script errors."""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from playwright.sync_api import expect

from collect.models import Campaign
from tests.annotate.test_browser import screenshot
from tests.browser.charts import charts_drawn
from tests.chromium import CHROMIUM, launched
from tests.curiosity.test_views import imported  # noqa: F401 (fixture)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed"),
]


def test_the_like_rate_chart_is_drawn(live_server, imported: Campaign) -> None:  # noqa: F811
    staff = Client()
    staff.force_login(User.objects.create(username="rita", is_staff=True))
    cookie = staff.cookies[settings.SESSION_COOKIE_NAME].value
    with launched(timeout_ms=10_000) as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(f"{live_server.url}/research/curiosity/?campaign={imported.slug}")
        expect(page.get_by_test_id("like-row")).to_have_count(4)
        expect(page.get_by_test_id("curiosity-analysis")).not_to_contain_text("collect.charts.Chart")  # no template comment shows
        (chart,) = charts_drawn(page, count=1)
        assert chart["title"].startswith("Like rate by fact source") and chart["font"] >= 13
        screenshot(page, "curiosity-analysis-1280.png")
        assert errors == []
