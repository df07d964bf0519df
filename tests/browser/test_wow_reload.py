"""Reloading the wizard's page in the middle of a turn: the panel comes back in the reranked order
the wizard was reading, with the same sentence ticked and the half-typed message still there."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from collect.models import Campaign, Message
from tests.browser.test_wow_browser import choose_topic, pair, send, wait_for_knowledge

pytestmark = [pytest.mark.backends, pytest.mark.browser]


def test_a_reload_keeps_the_reranked_panel_the_tick_and_the_draft(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    choose_topic(wizard, apprentice, room, "Blues")
    seq = 0
    if room.first_speaker == "apprentice":
        send(apprentice, wizard, "Where did the blues come from? I love the guitar.", 1)
        seq = 1
    wait_for_knowledge(wizard, after_seq=seq)

    item = wizard.get_by_test_id("knowledge-sentence").filter(visible=True).nth(1)
    item.click()
    ticked = item.locator("input").get_attribute("value")
    ticked_text = item.locator(".sentence-text").inner_text()
    wizard.get_by_test_id("message-input").fill("It started in the Deep South, around")
    order_before = wizard.get_by_test_id("knowledge-sentence").locator(".sentence-text").all_text_contents()

    wizard.reload()

    panel = wizard.get_by_test_id("knowledge-panel")
    expect(panel).to_have_attribute("data-after-seq", str(seq))
    expect(panel).to_have_attribute("data-ranked", "true")
    expect(wizard.get_by_test_id("knowledge-sentence").locator(".sentence-text")).to_have_text(order_before)
    expect(wizard.locator(f'input[name="checked-sentence"][value="{ticked}"]')).to_be_checked()
    expect(wizard.get_by_test_id("message-input")).to_have_value("It started in the Deep South, around")

    # The restored tick is what the message is stored with; the draft is spent once sent.
    wizard.get_by_test_id("message-input").fill("It started in the Deep South, around the 1860s.")
    send(wizard, apprentice, "It started in the Deep South, around the 1860s.", seq + 1)
    stored = Message.objects.get(room=room, seq=seq + 1)
    assert list(stored.checked_sentence.values()) == [ticked_text]
    wizard.reload()
    expect(wizard.locator('[data-testid="message"][data-seq]')).to_have_count(seq + 1)
    expect(wizard.get_by_test_id("message-input")).to_have_value("")
    assert wizard.script_errors == []  # type: ignore[attr-defined]
