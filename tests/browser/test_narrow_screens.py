"""The room at a phone's width (390 px) and on a desktop: the wizard's hint says where the knowledge
panel really is, and the rating scale keeps its words."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from collect.models import Campaign, Room, RoomStatus
from tests.collect.conftest import Seat, make_room

pytestmark = [pytest.mark.backends, pytest.mark.browser]

SCREENSHOT_DIR = os.environ.get("GROUNDWORK_SCREENSHOT_DIR", "")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 900}


def open_seat(browser: Browser, base_url: str, room: Room, seat: Seat, viewport: dict) -> Page:
    """The worker's own room page, logged in by their session cookie."""
    context = browser.new_context(viewport=viewport)
    name, value = seat.cookie.decode().split("=", 1)
    context.add_cookies([{"name": name, "value": value, "url": base_url}])
    page = context.new_page()
    page.script_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.script_errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(f"{base_url}/room/{room.id}/")
    return page


def shoot(page: Page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / name), full_page=True)
    if SCREENSHOT_DIR:
        page.screenshot(path=str(Path(SCREENSHOT_DIR) / name), full_page=True)


def box(page: Page, selector: str) -> dict:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "desktop"])
def test_the_wizard_hint_says_where_the_knowledge_panel_is(
    browser: Browser, daphne_server: str, wow_campaign: Campaign, viewport: dict, tmp_path: Path
) -> None:
    paired = make_room(wow_campaign, topic="Blues")
    wizard = open_seat(browser, daphne_server, paired.room, paired.wizard, viewport)
    expect(wizard.locator("#room")).to_have_attribute("data-status", "chatting")
    expect(wizard.get_by_test_id("knowledge-sentence").first).to_be_attached()
    chat, panel = box(wizard, ".chat-pane"), box(wizard, "#knowledge-panel")
    if viewport is PHONE:
        expect(wizard.get_by_test_id("pane-where-narrow")).to_be_visible()
        expect(wizard.get_by_test_id("pane-where-wide")).to_be_hidden()
        assert panel["y"] >= chat["y"] + chat["height"]  # really below the chat
    else:
        expect(wizard.get_by_test_id("pane-where-wide")).to_be_visible()
        expect(wizard.get_by_test_id("pane-where-narrow")).to_be_hidden()
        assert panel["x"] >= chat["x"] + chat["width"]  # really on the right
    shoot(wizard, tmp_path, f"gw-wizard-{viewport['width']}.png")
    assert wizard.script_errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "desktop"])
def test_the_rating_scale_keeps_its_words(
    browser: Browser, daphne_server: str, wow_campaign: Campaign, viewport: dict, tmp_path: Path
) -> None:
    paired = make_room(wow_campaign, topic="Blues")
    Room.objects.filter(pk=paired.room.pk).update(status=RoomStatus.RATING)
    apprentice = open_seat(browser, daphne_server, paired.room, paired.apprentice, viewport)
    expect(apprentice.get_by_test_id("rating-form")).to_be_visible()
    labels = apprentice.locator(".rating-choice .rating-label")
    expect(labels).to_have_text(["Not at all", "A little", "Somewhat", "Quite a lot", "Very much"])
    for i in range(5):
        expect(labels.nth(i)).to_be_visible()
        label = labels.nth(i).bounding_box()
        choice = apprentice.locator(".rating-choice").nth(i).bounding_box()
        assert label and choice and label["width"] > 0
        # The word fits inside its choice: nothing spills over the neighbours.
        assert choice["x"] <= label["x"] and label["x"] + label["width"] <= choice["x"] + choice["width"] + 0.5
    shoot(apprentice, tmp_path, f"gw-rating-{viewport['width']}.png")
    assert apprentice.script_errors == []  # type: ignore[attr-defined]
