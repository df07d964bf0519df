"""The pairwise screen in a real browser: two conversations side by side, the judged speaker
highlighted, the choice by key or click, and the reason required before anything is sent.

Set GROUNDWORK_SCREENSHOT_DIR to keep a picture of it (annotate-pairwise.png)."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from annotate.models import Assignment, AssignmentStatus, Item
from annotate.services.jobs import items_add, job_create
from annotate.kinds.pairwise.pairs import pair_specs
from tests.annotate.pairwise_data import conversation
from tests.annotate.test_browser import open_job, screenshot
from tests.chromium import CHROMIUM

pytestmark = [
    pytest.mark.backends,
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed"),
]


def test_it_judges_two_conversations_with_a_reason(chromium) -> None:
    job = job_create(slug="pairs-browser", name="Which bot?", kind="pairwise", overlap=1, question="engaging",
                     completion_code="GW-PAIRS-OK")
    items_add(job=job, specs=pair_specs(job, [conversation(m, n) for m in ("kb_bot", "baseline") for n in range(2)]))
    page = open_job(chromium, job.slug, "alice")
    expect(page.get_by_test_id("question")).to_have_text("Who would you prefer to talk to for a long conversation?")
    expect(page.get_by_test_id("option-left")).to_have_text("I would prefer to talk to Speaker 1")
    expect(page.get_by_test_id("option-right")).to_have_text("I would prefer to talk to Speaker 2")
    left, right = page.get_by_test_id("conversation-left"), page.get_by_test_id("conversation-right")
    expect(left.get_by_test_id("judged-turn")).to_have_count(2)
    expect(left.get_by_test_id("partner-turn")).to_have_count(2)
    expect(right.get_by_test_id("judged-turn").first).to_contain_text("Speaker 2")
    expect(left.locator(".is-judged").first).to_have_css("outline-style", "solid")

    item = Item.objects.get(pk=int(page.locator("#annotate").get_attribute("data-item-id")))
    shown_left = item.payload["conversations"][item.payload["left"]]
    expect(left.get_by_test_id("judged-turn").first).to_contain_text(shown_left["dialog"][1]["text"])
    expect(left.get_by_test_id("pair-topic")).to_have_text(shown_left["topic"])

    page.get_by_test_id("submit").click()  # nothing chosen: refused on the page
    expect(page.get_by_test_id("error")).to_have_text("Choose one of the two speakers.")
    page.keyboard.press("2")
    expect(page.get_by_test_id("choice-right")).to_be_checked()
    expect(page.get_by_test_id("reason")).to_be_focused()
    # The minimum is said before anyone trips on it, and again when they do.
    expect(page.get_by_test_id("reason-hint")).to_have_text("At least 3 characters (at most 500).")
    page.get_by_test_id("submit").click()  # no reason yet
    expect(page.get_by_test_id("error")).to_have_text("Say briefly why you chose that speaker: at least 3 characters.")
    posted: list[str] = []
    page.on("request", lambda request: posted.append(request.url) if request.method == "POST" and "/answers/" in request.url else None)
    page.get_by_test_id("reason").fill("👍👍")  # two characters (four UTF-16 units): still too short
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("error")).to_have_text("Say briefly why you chose that speaker: at least 3 characters.")
    page.get_by_test_id("reason").fill("It answered my question.")
    screenshot(page, "annotate-pairwise.png")
    page.get_by_test_id("submit").click()

    expect(page.locator("#annotate")).not_to_have_attribute("data-item-id", str(item.pk))
    expect(page.get_by_test_id("progress")).to_contain_text("You: 1 done")
    expect(page.get_by_test_id("reason")).to_have_value("")
    page.get_by_test_id("choice-left").click()
    page.get_by_test_id("reason").fill("More fun.")
    page.get_by_test_id("submit").click()
    expect(page).to_have_url(re.compile(r"/annotate/[a-z0-9-]+/done/$"))  # the finish page, with the code
    expect(page.get_by_test_id("done").locator("h1")).to_have_text("All done — thank you!")
    expect(page.get_by_test_id("completion-code")).to_have_text("GW-PAIRS-OK")
    assert page.script_errors == []  # type: ignore[attr-defined]
    assert len(posted) == 2  # the two accepted answers: the too-short reason never left the page

    answers = list(Assignment.objects.filter(worker__external_id="alice", status=AssignmentStatus.SUBMITTED).order_by("submitted_at"))
    first_right = "b" if item.payload["left"] == "a" else "a"
    assert answers[0].answer == {"choice": "right", "winner": first_right, "reason": "It answered my question."}
    second = answers[1]
    assert second.answer == {"choice": "left", "winner": second.item.payload["left"], "reason": "More fun."}


def test_the_reason_limit_counts_characters_as_the_server_does(chromium) -> None:
    """500 characters, as the server counts them (code points): 400 emoji (800 UTF-16 units) go in
    and are stored; 501 Chinese characters are refused on the page, in words, and never sent."""
    job = job_create(slug="pairs-limit", name="Which bot?", kind="pairwise", overlap=1, question="engaging")
    items_add(job=job, specs=pair_specs(job, [conversation(m, 0) for m in ("kb_bot", "baseline")]))
    page = open_job(chromium, job.slug, "alice")
    expect(page.get_by_test_id("question")).to_be_visible()
    posted: list[str] = []
    page.on("request", lambda request: posted.append(request.url) if request.method == "POST" and "/answers/" in request.url else None)
    page.keyboard.press("1")
    reason = page.get_by_test_id("reason")
    expect(reason).to_be_focused()
    page.keyboard.insert_text("好" * 501)
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("error")).to_have_text("Your reason is too long (at most 500 characters).")
    assert posted == []
    reason.fill("")
    page.keyboard.insert_text("😀" * 400)
    expect(reason).to_have_value("😀" * 400)
    page.get_by_test_id("submit").click()
    expect(page).to_have_url(re.compile(r"/annotate/pairs-limit/done/$"))
    (answer,) = Assignment.objects.filter(worker__external_id="alice", status=AssignmentStatus.SUBMITTED)
    assert answer.answer["reason"] == "😀" * 400 and len(posted) == 1
    assert page.script_errors == []  # type: ignore[attr-defined]
