"""The model-chat screen at the chat's end (issue 47): the turn limit ends the chat on the model's
last reply, and the screen says so plainly. The header says the chat has ended, the "ends by itself
once your partner has replied" notice goes, the end shows as an ordinary status, not as an error,
the composer goes away, and the final form's heading says whether there is one question or more."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from collect.models import Campaign
from tests.browser.test_modelchat_browser import mc_browser_campaign, new_page  # noqa: F401 (fixture)

pytestmark = [pytest.mark.backends, pytest.mark.browser]


ENJOY = {"key": "engagingness", "text": "How much did you enjoy talking to your partner?"}
KNOW = {"key": "knowledge", "text": "How knowledgeable was your partner?"}


@pytest.mark.parametrize(("questions", "heading"), [([ENJOY], "One last question"), ([ENJOY, KNOW], "A few last questions")],
                         ids=["one-question", "two-questions"])
def test_the_turn_limit_ends_the_model_chat_plainly(
    mc_browser_campaign, browser: Browser, daphne_server: str, questions: list[dict], heading: str
) -> None:
    Campaign.objects.filter(pk=mc_browser_campaign.pk).update(turn_limit=2, protocol_config={
        **mc_browser_campaign.protocol_config, "onboarding_attempts": 0, "questions": questions})
    page, errors = new_page(browser)
    page.goto(f"{daphne_server}/join/mc-browser/?worker=vera")
    expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
    page.get_by_test_id("topic-option").filter(has_text="Blues").click()
    partner = page.locator('[data-testid="message"][data-role="wizard"]')
    for turn, text in enumerate(["Where did the blues start?", "Who played it first?"]):
        page.get_by_test_id("message-input").fill(text)
        if turn:
            partner.nth(turn - 1).get_by_test_id("label-none").check()
        page.get_by_test_id("send-button").click()
        expect(partner).to_have_count(turn + 1, timeout=15_000)
        if turn == 0:
            expect(page.get_by_test_id("turn-counter")).to_have_text("Your turns: 1 of 2")

    # The model's reply to the last message ended the chat; its labels are still to be given.
    expect(page.get_by_test_id("chat-ended")).to_have_text(
        "The chat has ended. Label your partner's last message, then answer the final questions.")
    expect(page.get_by_test_id("chat-ended")).not_to_have_class(re.compile("notice-error"))
    expect(page.get_by_test_id("turn-counter")).to_have_text("The chat has ended.")
    expect(page.get_by_test_id("turn-limit-warning")).to_be_hidden()
    expect(page.get_by_test_id("error")).to_be_hidden()
    expect(page.get_by_test_id("message-input")).to_be_hidden()
    expect(page.get_by_test_id("send-button")).to_be_hidden()
    expect(page.get_by_test_id("continue-button")).to_be_disabled()

    partner.nth(1).get_by_test_id("label-none").check()
    page.get_by_test_id("continue-button").click()
    expect(page.get_by_test_id("answers-heading")).to_have_text(heading)
    for question in questions:
        page.get_by_test_id(f"answer-{question['key']}-5").click()
    page.get_by_test_id("answers-submit").click()
    expect(page).to_have_url(re.compile(r"/done/$"))
    assert errors == []

