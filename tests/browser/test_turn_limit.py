"""The turn counter and the turn limit, as both workers see them: the counter stops at the minimum
and says when the chat may end; both are warned before the limit ends the chat by itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from collect.models import Campaign, Room, RoomStatus
from tests.browser.test_wow_browser import choose_topic, pair, send, wait_for_knowledge

pytestmark = [pytest.mark.backends, pytest.mark.browser]
# Set GROUNDWORK_SCREENSHOT_DIR to keep a picture of the warned wizard (gw-turn-limit.png).
SCREENSHOT_DIR = os.environ.get("GROUNDWORK_SCREENSHOT_DIR", "")


def test_the_counter_stops_at_the_minimum_and_the_limit_is_announced(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    Campaign.objects.filter(pk=wow_campaign.pk).update(turn_limit=3)  # 2 turns each required (fixture)
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    choose_topic(wizard, apprentice, room, "Blues")
    order = ["wizard", "apprentice"] if room.first_speaker == "wizard" else ["apprentice", "wizard"]
    pages = {"wizard": wizard, "apprentice": apprentice}
    first, second = pages[order[0]], pages[order[1]]

    def speak(seq: int) -> None:
        role = order[(seq - 1) % 2]
        if role == "wizard":
            wait_for_knowledge(wizard, after_seq=seq - 1)
            wizard.get_by_test_id("no-sentence").click()
        send(pages[role], pages[order[seq % 2]], f"Message number {seq} about the blues.", seq)

    speak(1)
    speak(2)
    for page in (first, second):
        expect(page.get_by_test_id("turn-counter")).to_have_text("Your turns: 1 of 2")
        expect(page.get_by_test_id("turn-limit-warning")).to_have_text(
            "The chat ends by itself after 3 messages each: you have 2 messages left."
        )
    speak(3)
    expect(first.get_by_test_id("turn-counter")).to_have_text("Your turns: 2 of 2 (waiting for your partner's turns)")
    speak(4)
    for page in (first, second):
        # Not "Your turns: 3 of 2" later on: the counter stops at the minimum.
        expect(page.get_by_test_id("turn-counter")).to_have_text("Your turns: 2 of 2 (you may end the chat)")
        expect(page.get_by_test_id("turn-limit-warning")).to_have_text(
            "The chat ends by itself after 3 messages each: you have 1 message left."
        )
        expect(page.get_by_test_id("end-button")).to_be_visible()
    if SCREENSHOT_DIR:
        wizard.screenshot(path=str(Path(SCREENSHOT_DIR) / "gw-turn-limit.png"))
    speak(5)
    expect(first.get_by_test_id("turn-counter")).to_have_text("Your turns: 2 of 2 (you may end the chat)")
    expect(first.get_by_test_id("turn-limit-warning")).to_have_text(
        "That was your last message: the chat ends by itself once your partner has replied."
    )
    speak(6)
    for page in (first, second):
        expect(page.locator("#room")).to_have_attribute("data-status", "rating")
    expect(apprentice.get_by_test_id("rating-form")).to_be_visible()
    room = Room.objects.get(pk=room.pk)
    assert room.status == RoomStatus.RATING
    assert room.end_reason == "turn limit reached"
    for page in (first, second):
        assert page.script_errors == []  # type: ignore[attr-defined]
