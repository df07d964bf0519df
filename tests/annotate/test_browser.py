"""Both annotation screens in a real browser, driven by the keyboard as annotators use them.

Set GROUNDWORK_SCREENSHOT_DIR to keep pictures of the screens (annotate-relevance.png,
annotate-dialog-acts.png)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from annotate.models import Assignment, AssignmentStatus
from collect.models import Worker
from tests.annotate.conftest import make_job
from tests.chromium import CHROMIUM

pytestmark = [
    pytest.mark.backends,
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed"),
]
SCREENSHOT_DIR = os.environ.get("GROUNDWORK_SCREENSHOT_DIR", "")


def open_job(chromium, slug: str, worker: str) -> Page:
    browser, base_url = chromium
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.script_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.script_errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(f"{base_url}/annotate/join/{slug}/?worker={worker}")
    expect(page).to_have_url(re.compile(rf"/annotate/{slug}/$"))
    return page


def screenshot(page: Page, name: str) -> None:
    if SCREENSHOT_DIR:
        Path(SCREENSHOT_DIR).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOT_DIR) / name), full_page=True)


def test_it_votes_relevance_with_the_keyboard(chromium) -> None:
    job = make_job("relevance", slug="rel-browser", items=2, overlap=2, completion_code="GW-ANNOT-OK",
                   instructions="Select every sentence the assistant could use.")
    page = open_job(chromium, job.slug, "alice")
    expect(page.get_by_test_id("topic")).to_have_text("Blues")
    expect(page.get_by_test_id("turn")).to_have_count(3)
    expect(page.get_by_test_id("turn").last).to_have_class(re.compile("turn-last"))
    expect(page.get_by_test_id("candidate")).to_have_count(5)
    expect(page.locator("legend")).to_have_text(["Blues", "Guitar"])
    expect(page.get_by_test_id("shortcuts")).to_contain_text("none of these")
    first_item = page.locator("#annotate").get_attribute("data-item-id")

    page.keyboard.press("Enter")  # nothing chosen yet: refused on the page, nothing sent
    expect(page.get_by_test_id("answer-error")).to_contain_text("None of these")
    page.keyboard.press("x")  # the first sentence has the focus
    page.keyboard.press("j")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Space")
    expect(page.get_by_test_id("selected-count")).to_have_text("2 selected")
    expect(page.get_by_test_id("answer-error")).to_be_hidden()
    screenshot(page, "annotate-relevance.png")
    page.keyboard.press("Enter")

    expect(page.locator("#annotate")).not_to_have_attribute("data-item-id", first_item)
    expect(page.get_by_test_id("progress")).to_contain_text("You: 1 done")
    page.keyboard.press("n")
    expect(page.get_by_test_id("selected-count")).to_have_text("None of these")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/annotate/[a-z0-9-]+/done/$"))  # the finish page, with the code
    expect(page.get_by_test_id("done").locator("h1")).to_have_text("All done — thank you!")
    expect(page.get_by_test_id("completion-code")).to_have_text("GW-ANNOT-OK")
    assert page.script_errors == []  # type: ignore[attr-defined]

    answers = list(Assignment.objects.filter(worker__external_id="alice", status=AssignmentStatus.SUBMITTED).order_by("submitted_at"))
    assert [a.answer for a in answers] == [{"selected": [0, 2]}, {"selected": []}]
    assert all(a.time_spent_ms and a.time_spent_ms > 0 for a in answers)


def test_it_labels_dialog_acts_and_reports_a_dialog(chromium) -> None:
    job = make_job("dialog_acts", slug="acts-browser", items=2, overlap=2)
    page = open_job(chromium, job.slug, "bob")
    expect(page.get_by_test_id("topic")).to_have_text("Uruguay")
    expect(page.get_by_test_id("aspects")).to_have_text("EconomyCulture")
    messages = page.get_by_test_id("act-message")
    expect(messages).to_have_count(3)
    expect(messages.nth(0)).to_contain_text("User")
    expect(messages.nth(1)).to_contain_text("Assistant")
    expect(page.get_by_test_id("act-palette").locator("[data-act]")).to_have_count(16)
    expect(page.get_by_test_id("act-request_topic")).to_contain_text("1")

    page.keyboard.press("1")  # request_topic on message 1
    page.keyboard.press("j")
    page.keyboard.press("q")  # inform_response on message 2
    page.get_by_test_id("act-offer_aspect").click()
    page.keyboard.press("q")  # and off again
    page.keyboard.press("q")
    expect(page.get_by_test_id("act-inform_response")).to_have_attribute("aria-pressed", "true")
    # The chips read as the palette does, not as the stored keys.
    expect(messages.nth(1).get_by_test_id("act-tags").locator(".act-tag")).to_have_text(["inform response", "offer aspect"])
    messages.nth(2).click()
    page.keyboard.press("a")  # feedback_positive on message 3
    expect(messages.nth(2)).to_have_class(re.compile("is-current"))
    screenshot(page, "annotate-dialog-acts.png")
    first_item = page.locator("#annotate").get_attribute("data-item-id")
    page.keyboard.press("Enter")

    expect(page.locator("#annotate")).not_to_have_attribute("data-item-id", first_item)
    page.get_by_test_id("report-button").click()
    page.get_by_test_id("report-send").click()
    expect(page.get_by_test_id("report-error")).to_contain_text("what is wrong")
    # 1000 characters as the server counts them; maxlength (UTF-16 units) only caps pasting far past.
    page.get_by_test_id("report-reason").focus()
    page.keyboard.insert_text("好" * 1001)
    page.get_by_test_id("report-send").click()
    expect(page.get_by_test_id("report-error")).to_have_text("Your reason is too long (at most 1000 characters).")
    expect(page.get_by_test_id("report-form")).to_be_visible()  # nothing was sent
    page.get_by_test_id("report-reason").fill("The user only says hello.")
    page.get_by_test_id("report-send").click()
    expect(page).to_have_url(re.compile(r"/annotate/[a-z0-9-]+/done/$"))  # the finish page, with the code
    expect(page.get_by_test_id("done").locator("h1")).to_have_text("All done — thank you!")
    # The report form's error belonged to that dialogue: nothing of it stays above "All done".
    expect(page.locator("[role=alert]").filter(visible=True)).to_have_count(0)
    assert page.script_errors == []  # type: ignore[attr-defined]

    bob = Worker.objects.get(external_id="bob")
    labeled, reported = Assignment.objects.filter(worker=bob, status=AssignmentStatus.SUBMITTED).order_by("submitted_at")
    assert labeled.answer == {"acts": [["request_topic"], ["inform_response", "offer_aspect"], ["feedback_positive"]]}
    assert reported.report_reason == "The user only says hello." and reported.answer == {"acts": [[], [], []]}
