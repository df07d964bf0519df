"""What Chart.js drew on a page (static/js/charts.js): each chart's title, value-axis ticks and font
size; and a staff member's page, where the charts are."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from playwright.sync_api import Browser, Page

_DRAWN = """() => [...document.querySelectorAll('[data-chart]')].map((figure) => {
  const chart = window.Chart && window.Chart.getChart(figure.querySelector('canvas'));
  if (!chart) return null;
  const axis = chart.options.indexAxis === 'y' ? chart.scales.x : chart.scales.y;
  return {title: figure.querySelector('figcaption').textContent, ticks: axis.ticks.map((t) => t.value),
          font: chart.options.font.size, width: chart.width};
})"""


def charts_drawn(page: Page, *, count: int) -> list[dict[str, Any]]:
    """Waits until `count` charts are drawn, then describes them."""
    page.wait_for_function(f"() => ({_DRAWN})().filter(Boolean).length === {count}", timeout=30_000)
    return page.evaluate(_DRAWN)


def staff_page(browser: Browser, base_url: str, *, height: int) -> tuple[Page, list[str]]:
    """A page 1280 px wide, signed in as a staff member, and the script errors it will collect
    (uncaught ones and console errors)."""
    staff = Client()
    staff.force_login(User.objects.create(username="rita", is_staff=True))
    context = browser.new_context(viewport={"width": 1280, "height": height})
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": staff.cookies[settings.SESSION_COOKIE_NAME].value,
                          "url": base_url}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    return page, errors
