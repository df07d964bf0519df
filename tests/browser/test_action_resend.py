"""A state-changing frame other than a message — here the apprentice's rating — lost on its way to
the server is resent by the page until acknowledged: after the reconnect that follows a dropped
connection, and on an open socket that swallowed it. The room completes; the rating is stored once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from collect.models import ActionReceipt, Campaign, Room, RoomStatus
from tests.browser.test_wow_browser import FlakyNetwork, choose_topic, pair, send, wait_for_knowledge

pytestmark = pytest.mark.browser


class SilentLoss(FlakyNetwork):
    """Loses the chosen frame without dropping the connection: the socket stays open and says
    nothing, as when the server process that read the frame lost its database under it."""

    def _lost(self, number: int, frame: dict, *, to_page: bool) -> bool:
        worker = self.connections[number][0]
        if self.losing != (worker, frame.get("type"), to_page):
            return False
        self.losing = None
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
