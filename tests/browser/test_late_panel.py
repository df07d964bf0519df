"""The wizard's panel for a turn whose knowledge does not come (its frames lost on the way) is asked
for again with a `sync` 2.5 s after the partner's message and 5 s after that, and not again once the
panel stops waiting at 10 s and gives the wizard back the previous turn's sentences
(collect/tasktypes/wow/static/wow/knowledge.js): a server that is late because it is busy is not sent more work. The
wizard's clock is Playwright's, paused and moved on by hand, and the page notes the clock's time of
every frame it sends."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from collect.models import Campaign
from tests.browser.test_wow_browser import FlakyNetwork, pair, reload_under_paused_clock, send, to_the_apprentices_turn

pytestmark = [pytest.mark.backends, pytest.mark.browser]


class LostKnowledge(FlakyNetwork):
    """Loses every knowledge frame (retrieved or reranked) to one worker's page while `losing_to`
    names it, without dropping the connection."""

    losing_to: str | None = None

    def _lost(self, number: int, frame: dict, *, to_page: bool) -> bool:
        worker = self.connections[number][0]
        return to_page and worker == self.losing_to and str(frame.get("type", "")).startswith("knowledge")


def test_a_late_panel_is_asked_for_less_often_and_not_after_the_panel_stops_waiting(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    network = LostKnowledge()
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign, room_proxy=network)
    seq = to_the_apprentices_turn(wizard, apprentice, room)

    def panel_shown() -> None:
        expect(wizard.get_by_test_id("knowledge-panel")).to_have_attribute("data-after-seq", str(seq))
        expect(wizard.get_by_test_id("knowledge-updating")).to_be_hidden()

    reload_under_paused_clock(wizard, panel_shown)

    network.losing_to = wizard.worker  # type: ignore[attr-defined]
    send(apprentice, wizard, "Where does the blues come from?", seq + 1)
    arrived = wizard.evaluate("performance.now()")  # the clock has not moved since the message came
    expect(wizard.get_by_test_id("knowledge-updating")).to_be_visible()

    def syncs() -> list[float]:
        return [(at - arrived) / 1000 for at, kind in wizard.evaluate("window.sentAt") if kind == "sync" and at >= arrived]

    for step_s in (2, 1, 4, 1.5, 1, 1):  # to 2, 3, 7, 8.5, 9.5 and 10.5 s after the message
        wizard.clock.fast_forward(step_s * 1000)
    expect(wizard.get_by_test_id("knowledge-updating")).to_be_hidden()  # it stopped waiting
    expect(wizard.get_by_test_id("knowledge-sentence").first.locator("input")).to_be_enabled()
    wizard.clock.fast_forward(60_000)
    assert syncs() == [3, 8.5]
    assert wizard.script_errors == []  # type: ignore[attr-defined]
