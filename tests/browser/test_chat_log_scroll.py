"""The newest message stays in sight (issue 47): a banner above the chat ("Your partner is not
connected…"), an error in the composer ("too long") or a tag under the last message take room from
the message log, and the log keeps its newest message, tags included, fully within what it shows.
On a phone's width and on a desktop."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from collect.models import Assignment, Campaign, Message, Room
from collect.tasktypes.wow import protocol as wow
from tests.browser.test_narrow_screens import DESKTOP, PHONE, open_seat
from tests.collect.conftest import make_room
from tests.curiosity.test_curiosity_browser import curiosity_campaign, pair_curiosity  # noqa: F401 (fixture)

pytestmark = [pytest.mark.backends, pytest.mark.browser]

LINE = "The blues grew out of work songs and spirituals in the Deep South, and every town had its own sound."


def wait_in_view(page: Page) -> None:
    # A condition, not a sleep: the check fails if the log has not caught up within the timeout.
    page.wait_for_function(
        """() => {
          const log = document.getElementById("messages").getBoundingClientRect();
          const last = document.querySelector("#messages > li:last-child").getBoundingClientRect();
          return last.bottom <= Math.min(log.bottom, window.innerHeight) + 1 && last.top >= Math.max(log.top, 0) - 1;
        }""",
        timeout=3_000,
    )


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "desktop"])
def test_a_banner_or_an_error_leaves_the_newest_message_in_view(
    browser: Browser, daphne_server: str, wow_campaign: Campaign, viewport: dict
) -> None:
    paired = make_room(wow_campaign, topic="Blues")
    seats = {wow.WIZARD: paired.wizard.assignment, wow.APPRENTICE: paired.apprentice.assignment}
    # Eleven messages, the wizard first: the apprentice's turn, with more than the log can show.
    for seq in range(1, 12):
        role = wow.WIZARD if seq % 2 else wow.APPRENTICE
        Message.objects.create(room=paired.room, seq=seq, sender=seats[role], role=role, client_id=f"c{seq}", text=f"{seq}. {LINE}")
    # The wizard never connects: after a few seconds the page says so in a banner above the chat.
    page = open_seat(browser, daphne_server, paired.room, paired.apprentice, viewport)
    expect(page.get_by_test_id("message")).to_have_count(11)
    page.locator("#messages > li:last-child").scroll_into_view_if_needed()  # where a reader would be
    wait_in_view(page)
    expect(page.get_by_test_id("partner-status")).to_contain_text("not connected", timeout=10_000)
    wait_in_view(page)

    page.get_by_test_id("message-input").fill("x" * 1001)
    page.get_by_test_id("message-input").press("Enter")
    expect(page.get_by_test_id("error")).to_contain_text("too long")
    wait_in_view(page)
    assert page.script_errors == []  # type: ignore[attr-defined]


def test_a_tag_under_the_newest_message_stays_in_view(curiosity_campaign: Campaign, browser: Browser, daphne_server: str) -> None:
    """Curiosity: the assistant sees "Liked by the user" appear under its newest message."""
    user, assistant = pair_curiosity(browser, daphne_server, curiosity_campaign)
    user.get_by_test_id("known-submit").click()
    expect(assistant.locator("#room")).to_have_attribute("data-status", "chatting")
    # Ten messages stored at once, the newest the assistant's; both pages catch up on a reload.
    room = Room.objects.get(campaign=curiosity_campaign)
    seats = {a.role: a for a in Assignment.objects.filter(room=room)}
    for seq in range(1, 11):
        role = room.first_speaker if seq % 2 else next(r for r in seats if r != room.first_speaker)
        Message.objects.create(room=room, seq=seq, sender=seats[role], role=role, client_id=f"c{seq}", text=f"{seq}. {LINE}")
    last = room.messages.order_by("seq").last()
    assert last is not None and last.role == "assistant"
    for page in (user, assistant):
        page.reload()
        expect(page.get_by_test_id("message")).to_have_count(10)
    wait_in_view(assistant)
    user.locator(f'[data-testid="message"][data-seq="{last.seq}"] [data-testid="like-button"]').click()
    expect(assistant.locator(f'[data-testid="message"][data-seq="{last.seq}"] [data-testid="liked-badge"]')).to_be_visible()
    wait_in_view(assistant)
    assert assistant.script_errors == []  # type: ignore[attr-defined]
