"""A state-changing frame other than a message — here the apprentice's rating — lost on its way to
the server is resent by the page until acknowledged: after the reconnect that follows a dropped
connection, and on an open socket that swallowed it, each copy there waiting twice as long as the one
before, up to a cap. The room completes; the rating is stored once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from collect.models import ActionReceipt, Campaign, Room, RoomStatus
from tests.browser.test_wow_browser import FlakyNetwork, choose_topic, pair, reload_under_paused_clock, send, wait_for_knowledge

pytestmark = [pytest.mark.backends, pytest.mark.browser]


class SilentLoss(FlakyNetwork):
    """Loses the chosen frame (its next `copies` copies) without dropping the connection: the socket
    stays open and says nothing, as when the server process that read the frame lost its database
    under it."""

    def __init__(self, copies: int = 1) -> None:
        super().__init__()
        self.copies = copies

    def _lost(self, number: int, frame: dict, *, to_page: bool) -> bool:
        if self.losing != (self.connections[number][0], frame.get("type"), to_page) or self.copies == 0:
            return False
        self.copies -= 1
        return True


def chat_to_rating(browser: Browser, base_url: str, campaign: Campaign, network: FlakyNetwork) -> tuple[Page, Page, Room]:
    """Paired, topic chosen, one message each: the turn limit (1) moves the room to rating."""
    Campaign.objects.filter(pk=campaign.pk).update(min_turns=1, max_turns=1, turn_limit=1)
    wizard, apprentice, room = pair(browser, base_url, campaign, room_proxy=network)
    choose_topic(wizard, apprentice, room, "Blues")
    first, second = (wizard, apprentice) if room.first_speaker == "wizard" else (apprentice, wizard)
    for seq, (page, partner) in enumerate(((first, second), (second, first)), start=1):
        if page is wizard:
            wait_for_knowledge(wizard, after_seq=seq - 1)
            wizard.get_by_test_id("no-sentence").click()
        send(page, partner, f"Message number {seq} about the blues.", seq)
    expect(apprentice.get_by_test_id("rating-form")).to_be_visible()
    return wizard, apprentice, room


def rate_and_finish(wizard: Page, apprentice: Page, room: Room, network: FlakyNetwork) -> None:
    network.lose(apprentice, "rate")
    apprentice.locator('[data-testid="rating-option"][data-value="4"]').click()
    apprentice.get_by_test_id("rating-submit").click()
    for page in (wizard, apprentice):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/done/$"), timeout=20000)
    room.refresh_from_db()
    assert room.status == RoomStatus.COMPLETE and room.rating == 4
    rates = [f for _, f in network.sent if f["type"] == "rate"]
    assert len(rates) >= 2 and len({f["client_id"] for f in rates}) == 1  # resent, the same frame
    assert ActionReceipt.objects.filter(room=room, kind="rate").count() == 1
    for page in (wizard, apprentice):
        assert page.script_errors == []  # type: ignore[attr-defined]


def test_a_rating_lost_with_the_connection_is_resent_after_the_reconnect(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    network = FlakyNetwork()
    wizard, apprentice, room = chat_to_rating(browser, daphne_server, wow_campaign, network)
    rate_and_finish(wizard, apprentice, room, network)


def test_a_rating_lost_on_an_open_socket_is_resent_until_acknowledged(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    network = SilentLoss()
    wizard, apprentice, room = chat_to_rating(browser, daphne_server, wow_campaign, network)
    connections = len(network.connections)
    rate_and_finish(wizard, apprentice, room, network)
    assert len(network.connections) == connections  # no reconnect was needed


def test_a_rating_left_unacknowledged_is_resent_less_often_each_time_up_to_a_cap(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    """static/js/socket.js: the copies of an unacknowledged frame on an open socket go out 5 s, 10 s
    and 20 s after the one before, then every 30 s (RESEND_MS, doubled, up to RESEND_MAX_MS). The
    apprentice's clock is Playwright's, paused and moved on by hand, and the page notes the clock's
    time of every frame it sends."""
    network = SilentLoss(copies=4)
    wizard, apprentice, room = chat_to_rating(browser, daphne_server, wow_campaign, network)

    def rating_open() -> None:
        expect(apprentice.get_by_test_id("rating-form")).to_be_visible()
        expect(apprentice.get_by_test_id("status")).to_have_attribute("data-state", "open")

    reload_under_paused_clock(apprentice, rating_open)

    def copies_become(count: int) -> None:
        for _ in range(400):
            if sum(f["type"] == "rate" for _, f in network.sent) >= count:
                break
            wizard.wait_for_timeout(50)
        assert sum(f["type"] == "rate" for _, f in network.sent) == count

    network.lose(apprentice, "rate")
    apprentice.locator('[data-testid="rating-option"][data-value="4"]').click()
    apprentice.get_by_test_id("rating-submit").click()
    copies_become(1)
    waits = (5, 10, 20, 30)  # before copies 2 to 5; copies 1 to 4 are lost, the 5th arrives
    for copy, wait_s in enumerate(waits, start=2):
        apprentice.clock.fast_forward((wait_s - 1.5) * 1000)  # too early for the next copy
        apprentice.clock.fast_forward(2000)
        copies_become(copy)
    sent = [at for at, kind in apprentice.evaluate("window.sentAt") if kind == "rate"]
    gaps = [(later - earlier) / 1000 for earlier, later in zip(sent, sent[1:])]
    assert len(gaps) == len(waits) and all(wait <= gap <= wait + 2 for gap, wait in zip(gaps, waits)), gaps
    # The fifth copy got through: its ack ends the resends.
    apprentice.clock.resume()
    expect(apprentice).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/done/$"), timeout=20000)
    rates = [f for _, f in network.sent if f["type"] == "rate"]
    assert len(rates) == 5 and len({f["client_id"] for f in rates}) == 1
    room.refresh_from_db()
    assert room.status == RoomStatus.COMPLETE and room.rating == 4
    assert ActionReceipt.objects.filter(room=room, kind="rate").count() == 1
    assert apprentice.script_errors == []  # type: ignore[attr-defined]
