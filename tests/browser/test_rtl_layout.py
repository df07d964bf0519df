"""A right-to-left language (the Arabic stub catalog) lays the chat out from the right without
breaking it: the page is dir=rtl, and the composer, the messages and the wizard's knowledge stay
inside the window, on a wide screen and a narrow one."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from collect.models import Campaign
from tests.browser.test_wow_browser import choose_topic, pair, send, wait_for_knowledge
from tests.catalogs import compiled_catalogs  # noqa: F401  (fixture)

pytestmark = [pytest.mark.backends, pytest.mark.browser, pytest.mark.usefixtures("compiled_catalogs")]


def inside_window(page: Page, selector: str) -> None:
    width = page.evaluate("() => document.documentElement.clientWidth")
    boxes = [box for box in (element.bounding_box() for element in page.locator(selector).all()) if box]
    assert boxes, selector
    for box in boxes:
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (selector, box, width)


def test_the_chat_keeps_its_layout_right_to_left(browser: Browser, daphne_server: str, wow_campaign: Campaign) -> None:
    Campaign.objects.filter(pk=wow_campaign.pk).update(language="ar")  # a stub: set outside the admin
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    choose_topic(wizard, apprentice, room, "Blues")
    for page in (wizard, apprentice):
        expect(page.locator("html")).to_have_attribute("dir", "rtl")
        expect(page.locator("html")).to_have_attribute("lang", "ar")
        expect(page.get_by_test_id("send-button")).to_have_text("إرسال")
        assert page.evaluate("() => getComputedStyle(document.querySelector('#composer')).direction") == "rtl"
    expect(wizard.get_by_test_id("role-badge")).to_have_text("أنت الحكيم")
    # What the stub lacks shows in English, from the templates and from the modules alike.
    expect(wizard.locator("#knowledge-heading")).to_have_text("Wikipedia knowledge")
    expect(wizard.get_by_test_id("turn-counter")).to_contain_text("Your turns: ")

    first, second = (wizard, apprentice) if room.first_speaker == "wizard" else (apprentice, wizard)
    if first is wizard:
        wait_for_knowledge(wizard, after_seq=0)
        wizard.get_by_test_id("no-sentence").click()
    send(first, second, "مرحبا! Blues من الجنوب الأمريكي، صحيح؟", 1)
    if second is wizard:
        wait_for_knowledge(wizard, after_seq=1)
        wizard.get_by_test_id("no-sentence").click()
    send(second, first, "نعم، منذ ستينيات القرن التاسع عشر.", 2)

    for width in (1400, 420):
        for page in (wizard, apprentice):
            page.set_viewport_size({"width": width, "height": 900})
            inside_window(page, "#message-input")
            inside_window(page, "#send-button")
            inside_window(page, "[data-testid=message]")
            # The page scrolls down, never sideways.
            assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        inside_window(wizard, "[data-testid=knowledge-panel]")
    # Mirrored: the partner's messages start at the right, one's own sit at the left end.
    first.set_viewport_size({"width": 1400, "height": 900})
    own = first.locator('[data-testid="message"].message-own').first.bounding_box()
    theirs = first.locator('[data-testid="message"].message-partner').first.bounding_box()
    assert own and theirs
    assert own["x"] < theirs["x"] and own["x"] + own["width"] < theirs["x"] + theirs["width"]
