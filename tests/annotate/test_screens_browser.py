"""The annotation screens' warnings, as annotators meet them: the relevance error shows where the
annotator is looking; the dialog-act screen warns before sending unlabeled messages and explains
each act with Curiosity's definition and an example."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import Page, expect

from annotate.kinds.dialog_acts.acts import ACT_GUIDE
from annotate.models import Assignment, AssignmentStatus
from tests.annotate.conftest import make_job
from tests.chromium import CHROMIUM

pytestmark = [
    pytest.mark.backends,
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed"),
]


def open_job(chromium, slug: str, worker: str, viewport: dict) -> Page:
    browser, base_url = chromium
    page = browser.new_context(viewport=viewport).new_page()
    page.script_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.script_errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(f"{base_url}/annotate/join/{slug}/?worker={worker}")
    expect(page).to_have_url(re.compile(rf"/annotate/{slug}/$"))
    return page


def test_the_relevance_error_shows_beside_the_submit_button(chromium) -> None:
    job = make_job("relevance", slug="rel-in-view", items=1, overlap=1,
                   instructions="Select every sentence the assistant could use.")
    page = open_job(chromium, job.slug, "alice", {"width": 390, "height": 640})
    expect(page.get_by_test_id("candidate")).to_have_count(5)
    page.get_by_test_id("submit").click()  # nothing selected
    error = page.get_by_test_id("answer-error")
    expect(error).to_contain_text("None of these")
    expect(error).to_be_in_viewport()
    expect(page.get_by_test_id("submit")).to_be_in_viewport()
    assert not Assignment.objects.filter(status=AssignmentStatus.SUBMITTED).exists()
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_enter_with_unlabeled_messages_warns_once_then_submits(chromium) -> None:
    job = make_job("dialog_acts", slug="acts-warn", items=1, overlap=1)
    page = open_job(chromium, job.slug, "bob", {"width": 1400, "height": 900})
    messages = page.get_by_test_id("act-message")
    expect(messages).to_have_count(3)
    item = page.locator("#annotate").get_attribute("data-item-id")
    page.keyboard.press("1")  # request_topic on message 1; messages 2 and 3 stay unlabeled
    page.keyboard.press("Enter")

    warning = page.get_by_test_id("answer-error")
    expect(warning).to_have_text("Messages 2 and 3 have no act yet. Label them, or submit again to send them without acts.")
    expect(messages.nth(1)).to_have_class(re.compile("is-current"))  # the first unlabeled one
    expect(page.locator("#annotate")).to_have_attribute("data-item-id", item)
    assert not Assignment.objects.filter(status=AssignmentStatus.SUBMITTED).exists()

    page.keyboard.press("q")  # inform_response on message 2: the warning is answered
    expect(warning).to_be_hidden()
    page.keyboard.press("Enter")
    expect(warning).to_have_text("Message 3 has no act yet. Label it, or submit again to send it without acts.")
    page.keyboard.press("Enter")  # yes, without acts
    expect(page).to_have_url(re.compile(r"/annotate/[a-z0-9-]+/done/$"))  # the finish page, with the code
    expect(page.get_by_test_id("done").locator("h1")).to_have_text("All done — thank you!")
    expect(page.locator("[role=alert]").filter(visible=True)).to_have_count(0)
    answer = Assignment.objects.get(status=AssignmentStatus.SUBMITTED).answer
    assert answer == {"acts": [["request_topic"], ["inform_response"], []]}
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_every_act_shows_its_definition_and_an_example(chromium) -> None:
    job = make_job("dialog_acts", slug="acts-guide", items=1, overlap=1)
    page = open_job(chromium, job.slug, "carol", {"width": 1400, "height": 900})
    expect(page.get_by_test_id("act-message")).to_have_count(3)
    assert len(ACT_GUIDE) == 16
    for guide in ACT_GUIDE:
        button = page.get_by_test_id(f"act-{guide.act}")
        expect(button).to_contain_text(guide.label)
        expect(button.get_by_test_id("act-definition")).to_have_text(guide.definition)
        expect(button.get_by_test_id("act-definition")).to_be_visible()
    page.get_by_test_id("act-guide").locator("summary").click()
    rows = page.get_by_test_id("act-guide-row")
    expect(rows).to_have_count(16)
    expect(page.get_by_test_id("act-example")).to_have_text([guide.example for guide in ACT_GUIDE])
    expect(rows.first).to_be_visible()
    assert all(guide.example and guide.definition for guide in ACT_GUIDE)
    assert page.script_errors == []  # type: ignore[attr-defined]
