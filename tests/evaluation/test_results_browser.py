"""The staff results page in a real browser: every chart drawn, no script errors.

Set GROUNDWORK_SCREENSHOT_DIR to keep a picture of it (eval-results.png)."""

from __future__ import annotations

import io
import os

import pytest
from django.core.management import call_command
from django.test import Client
from playwright.sync_api import Browser, expect

from annotate.models import Job
from collect.models import Worker
from tests.annotate.conftest import Api
from tests.annotate.test_browser import screenshot
from tests.annotate.test_pairwise import answer_all
from tests.browser.charts import charts_drawn, staff_page
from tests.chromium import CHROMIUM
from tests.evaluation.campaign import make_campaign, populate

# Each annotator's order of preference: every model wins and loses some pairs, so every model's
# distance to the others is bounded and gets an interval, whichever side each conversation is shown
# on (that draw hashes the job's key and the rooms' random ids).
PREFERENCES = {
    "alice": ("good-bot", "human", "bad-bot"),
    "bob": ("human", "good-bot", "bad-bot"),
    "carol": ("bad-bot", "good-bot", "human"),
}

pytestmark = [
    pytest.mark.backends,
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed"),
]


def test_the_results_page_draws_its_charts(live_server, chromium_browser: Browser) -> None:
    browser = chromium_browser
    populate(make_campaign())
    call_command("create_annotation_job", "mc-pairs", "--kind", "pairwise", "--campaign", "eval-mc", "--overlap", "3",
                 stdout=io.StringIO())
    job = Job.objects.get(slug="mc-pairs")
    # 7 pairs (3 + 2 + 2), 3 annotators each: 12–15 battles a model, past the 10 an interval needs.
    for name, order in PREFERENCES.items():
        assert answer_all(Api(Client(), Worker.objects.create(external_id=name)), job, check_right=True, prefer=order) == 7
    page, errors = staff_page(browser, live_server.url, height=900)
    page.goto(f"{live_server.url}/annotate/results/eval-mc/")
    expect(page.get_by_test_id("results-title")).to_have_text("Eval campaign: results")
    expect(page.get_by_test_id("interval-chart")).to_have_count(2)  # engagingness, leaderboard
    expect(page.get_by_test_id("interval-chart").first.get_by_test_id("chart-table").locator("tbody tr")).to_have_count(3)
    expect(page.get_by_test_id("chart")).to_have_count(2)  # Wiki F1, problem share
    expect(page.get_by_test_id("leaderboard-row")).to_have_count(3)
    expect(page.get_by_test_id("model-row").first).to_contain_text("bad-bot")
    drawn = charts_drawn(page, count=4)
    assert all(chart["font"] >= 13 for chart in drawn)
    # The per-model table scrolls inside its card instead of running past it.
    table = page.get_by_test_id("per-model-scroll").bounding_box()
    card = page.get_by_test_id("per-model-card").bounding_box()
    assert table["x"] + table["width"] <= card["x"] + card["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    # Every other table too: none runs past its card (a wider one scrolls inside it).
    past = page.evaluate("""() => [...document.querySelectorAll('.report-table')].filter((t) => {
        const card = t.closest('.card').getBoundingClientRect();
        const shown = (t.closest('.table-scroll') || t).getBoundingClientRect();
        return shown.right > card.right + 0.5;
    }).length""")
    assert past == 0
    screenshot(page, "eval-results.png")
    assert errors == []
