"""The Curiosity analysis page in a real browser: its like-rate chart is drawn by the vendored
chart library under the page's CSP, with no script errors."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Browser, expect

from collect.models import Campaign
from tests.annotate.test_browser import screenshot
from tests.browser.charts import charts_drawn, staff_page
from tests.chromium import CHROMIUM
from tests.curiosity.test_views import imported  # noqa: F401 (fixture)

pytestmark = [
    pytest.mark.backends,
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed"),
]


def test_the_like_rate_chart_is_drawn(live_server, imported: Campaign, chromium_browser: Browser) -> None:  # noqa: F811
    browser = chromium_browser
    page, errors = staff_page(browser, live_server.url, height=800)
    page.goto(f"{live_server.url}/research/curiosity/?campaign={imported.slug}")
    expect(page.get_by_test_id("like-row")).to_have_count(4)
    expect(page.get_by_test_id("curiosity-analysis")).not_to_contain_text("collect.charts.Chart")  # no template comment shows
    (chart,) = charts_drawn(page, count=1)
    assert chart["title"].startswith("Like rate by fact source") and chart["font"] >= 13
    screenshot(page, "curiosity-analysis-1280.png")
    assert errors == []
