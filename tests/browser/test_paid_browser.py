"""Paid studies in real browsers: an idle partner is timed out by the server's sweep and the
worker left waiting gets `partner_stalled` and its code; a researcher reviews and pays."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, expect

from collect.models import Assignment, Campaign, Decision, Outcome
from tests.annotate.test_browser import screenshot
from tests.browser.charts import charts_drawn
from tests.browser.test_wow_browser import pair
from tests.paid.sweeper import beat_stand_in

pytestmark = [pytest.mark.backends, pytest.mark.browser]


def test_an_idle_partner_times_out_and_the_other_worker_gets_the_partner_stalled_code(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    Campaign.objects.filter(pk=wow_campaign.pk).update(turn_timeout_seconds=4)
    wow_campaign.refresh_from_db()
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    # Whoever chooses the topic never does: the other one is left waiting.
    idle, waiting = (wizard, apprentice) if room.first_speaker == "wizard" else (apprentice, wizard)
    with beat_stand_in():
        for page in (idle, waiting):
            expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/done/$"), timeout=20_000)
    expect(waiting.get_by_test_id("done")).to_have_attribute("data-outcome", "partner_stalled")
    expect(waiting.get_by_test_id("completion-code")).to_have_text(wow_campaign.outcome_codes["partner_stalled"])
    expect(idle.get_by_test_id("done")).to_have_attribute("data-outcome", "stalled")
    expect(idle.get_by_test_id("no-code")).to_be_visible()
    outcomes = dict(Assignment.objects.filter(room=room).values_list("role", "outcome"))
    assert outcomes == {room.first_speaker: Outcome.STALLED, ("apprentice" if room.first_speaker == "wizard" else "wizard"): Outcome.PARTNER_STALLED}
    assert idle.script_errors == [] and waiting.script_errors == []


def test_a_researcher_reviews_approves_and_pays_a_bonus(browser: Browser, daphne_server: str, wow_campaign: Campaign) -> None:
    from tests.factories import add_message, make_room, make_worker

    room = make_room(wow_campaign, wizard=make_worker(external_id="w-alice"), apprentice=make_worker(external_id="w-bob"), status="complete")
    add_message(room, "wizard", "Blues came from the Deep South.", checked_sentence={"no_passages_used": "no_passages_used"})
    add_message(room, "apprentice", "ok")
    Assignment.objects.filter(room=room).update(outcome=Outcome.COMPLETED, status="finished")
    wizard, apprentice = Assignment.objects.get(room=room, role="wizard"), Assignment.objects.get(room=room, role="apprentice")
    User.objects.create_user("rita", password="review-pass-1", is_staff=True)

    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(f"{daphne_server}/research/{wow_campaign.slug}/review/")
    page.fill("#id_username", "rita")
    page.fill("#id_password", "review-pass-1")
    page.click("input[type=submit]")
    expect(page.get_by_test_id("review")).to_be_visible()
    expect(page.get_by_test_id(f"row-{wizard.pk}").get_by_test_id("check").first).to_have_text("wizard did not use the knowledge")
    # A bonus before approval is refused, and nothing changes.
    page.get_by_test_id(f"select-{wizard.pk}").check()
    page.get_by_test_id("review-action").select_option("bonus")
    page.get_by_test_id("review-amount").fill("1.50")
    page.get_by_test_id("review-submit").click()
    # The refusal names the worker as the page shows them, not an internal assignment id.
    wizard_name = wizard.worker.pseudonym
    expect(page.get_by_test_id("review-error")).to_have_text(f"Not approved yet, so no bonus: {wizard_name} (wizard, completed). Approve them first.")
    # Bulk approve both, then the bonus goes through.
    page.get_by_test_id(f"select-{wizard.pk}").check()
    page.get_by_test_id(f"select-{apprentice.pk}").check()
    page.get_by_test_id("review-action").select_option("approve")
    page.get_by_test_id("review-submit").click()
    expect(page.get_by_test_id("review-done")).to_contain_text("approve: done for 2")
    expect(page.get_by_test_id(f"decision-{apprentice.pk}")).to_have_text("approved")
    page.get_by_test_id(f"select-{wizard.pk}").check()
    page.get_by_test_id("review-action").select_option("bonus")
    page.get_by_test_id("review-amount").fill("1.50")
    page.get_by_test_id("review-message").fill("Thanks for the detail")
    page.get_by_test_id("review-submit").click()
    expect(page.get_by_test_id("review-done")).to_contain_text("bonus: done for 1")
    wizard.refresh_from_db()
    assert (wizard.decision, wizard.bonus_cents) == (Decision.APPROVED, 150)
    expect(page.get_by_test_id(f"bonus-{wizard.pk}")).to_have_text("$1.50")  # not rounded to "2"
    expect(page.get_by_test_id(f"owed-{wizard.pk}")).to_have_text("$1.50")  # no base pay set, plus the bonus
    expect(page.get_by_test_id("review-rows")).to_contain_text("Owed (USD)")
    # The dialogue view shows what the wizard checked.
    page.get_by_test_id(f"row-{wizard.pk}").locator("xpath=following-sibling::tr[1]").locator("summary").click()
    expect(page.get_by_test_id("review-checked").first).to_have_text("No sentence used")
    screenshot(page, "review-1280.png")
    page.goto(f"{daphne_server}/research/{wow_campaign.slug}/dashboard/")
    expect(page.get_by_test_id("rooms-complete")).to_have_text("1")
    expect(page.get_by_test_id("owed")).to_have_text("$1.50")
    expect(page.get_by_test_id("chart").first).to_be_visible()
    # Counts on whole-number ticks only (a single room once gave 0.25-room steps).
    for chart in charts_drawn(page, count=4):
        assert chart["ticks"] and all(float(t).is_integer() for t in chart["ticks"]), chart
    screenshot(page, "dashboard-1280.png")
