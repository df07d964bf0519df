"""What a walk-through as a new worker found, in real browsers: the turn timeout warns with a
countdown (and the instructions state it), "End chat" and "Leave the study" ask once more, no
"Leave" once the wait is over, the partner-back notice goes away, DuConv's marks survive a reload,
and the chat header's badge and turn counter share a row on a 390×844 phone.

Set GROUNDWORK_SCREENSHOT_DIR to keep the pictures (docs/screens.md lists what to look at)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from collect.lifecycle.links import join_link
from collect.models import Assignment, AssignmentStatus, Campaign, Outcome, Room, RoomStatus
from tests.browser.test_narrow_screens import PHONE, box, open_seat, shoot
from tests.collect.conftest import make_room
from tests.curiosity.test_curiosity_browser import curiosity_campaign  # noqa: F401 (fixture)
from tests.duconv.test_duconv_browser import duconv_campaign  # noqa: F401 (fixture)

pytestmark = [pytest.mark.backends, pytest.mark.browser]

DESKTOP = {"width": 1280, "height": 800}


def _apprentice_first(campaign: Campaign):
    """A chatting WoW room where the apprentice speaks first (no knowledge to tick)."""
    return make_room(campaign, first_speaker="apprentice", topic="Blues")


def _send(page: Page, text: str, seq: int) -> None:
    expect(page.get_by_test_id("send-button")).to_be_enabled()
    page.get_by_test_id("message-input").fill(text)
    page.get_by_test_id("send-button").click()
    expect(page.locator(f'[data-testid="message"][data-seq="{seq}"]')).to_have_attribute("data-state", "sent")


def test_the_turn_timeout_warns_with_a_countdown(browser: Browser, daphne_server: str, wow_campaign: Campaign, tmp_path: Path) -> None:
    Campaign.objects.filter(pk=wow_campaign.pk).update(turn_timeout_seconds=600)
    paired = _apprentice_first(wow_campaign)
    # The room has been idle for 9 min 30 s of its 10: half a minute is left.
    Room.objects.filter(pk=paired.room.pk).update(activity_at=timezone.now() - timedelta(seconds=570))
    apprentice = open_seat(browser, daphne_server, paired.room, paired.apprentice, DESKTOP)
    wizard = open_seat(browser, daphne_server, paired.room, paired.wizard, DESKTOP)
    for page in (apprentice, wizard):
        expect(page.locator("#room")).to_have_attribute("data-status", "chatting")
        expect(page.get_by_test_id("turn-timeout-rule")).to_contain_text("reply within 10 minutes")
    mine, theirs = apprentice.get_by_test_id("turn-timeout-warning"), wizard.get_by_test_id("turn-timeout-warning")
    expect(mine).to_be_visible()
    expect(mine).to_contain_text(re.compile(r"Please send your message: the chat ends in 0:[0-3]\d"))
    expect(theirs).to_contain_text(re.compile(r"Your partner has 0:[0-3]\d left to reply"))
    # It counts down.
    first = int(mine.get_attribute("data-left"))
    apprentice.wait_for_function(f"() => Number(document.getElementById('turn-timeout-warning').dataset.left) < {first}")
    shoot(apprentice, tmp_path, "walk-turn-timeout-1280.png")
    # A message restarts the clock: both warnings go.
    _send(apprentice, "What is the blues?", 1)
    expect(mine).to_be_hidden()
    expect(theirs).to_be_hidden()
    assert apprentice.script_errors == [] and wizard.script_errors == []  # type: ignore[attr-defined]


def test_end_chat_asks_before_it_ends(browser: Browser, daphne_server: str, wow_campaign: Campaign, tmp_path: Path) -> None:
    paired = _apprentice_first(wow_campaign)
    Room.objects.filter(pk=paired.room.pk).update(turns_required=0)  # "End chat" is offered at once
    apprentice = open_seat(browser, daphne_server, paired.room, paired.apprentice, DESKTOP)
    end = apprentice.get_by_test_id("end-button")
    expect(end).to_be_visible()
    end.click()
    expect(apprentice.get_by_test_id("confirm")).to_contain_text("End the chat now?")
    expect(end).to_be_hidden()
    shoot(apprentice, tmp_path, "walk-end-confirm-1280.png")
    apprentice.get_by_test_id("confirm-no").click()
    expect(end).to_be_visible()
    expect(apprentice.get_by_test_id("confirm")).to_be_hidden()
    assert Room.objects.get(pk=paired.room.pk).status == RoomStatus.CHATTING  # one click changed nothing
    end.click()
    apprentice.get_by_test_id("confirm-yes").click()
    expect(apprentice.locator("#room")).to_have_attribute("data-status", "rating")
    assert Room.objects.get(pk=paired.room.pk).status == RoomStatus.RATING


def test_leave_the_study_asks_first_and_is_gone_once_the_wait_is_over(
    browser: Browser, daphne_server: str, wow_campaign: Campaign, tmp_path: Path
) -> None:
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(join_link(base=daphne_server, campaign_slug=wow_campaign.slug, worker="erin"))
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    page.get_by_test_id("leave").click()
    expect(page.get_by_test_id("confirm")).to_contain_text("no completion code")
    shoot(page, tmp_path, "walk-leave-confirm-390.png")
    page.get_by_test_id("confirm-no").click()
    expect(page.get_by_test_id("leave")).to_be_visible()
    assert Assignment.objects.get(worker__external_id="erin").status == AssignmentStatus.WAITING
    # The Leave row and the instructions below it do not run together.
    leave, instructions = box(page, ".waiting-leave"), box(page, ".waiting .instructions")
    assert instructions["y"] >= leave["y"] + leave["height"] + 8
    # The wait runs out; the page stays (its move to the finish page is held here) and offers no Leave.
    Campaign.objects.filter(pk=wow_campaign.pk).update(wait_timeout_seconds=2)
    page.route(re.compile(r".*/done/$"), lambda route: route.fulfill(status=204))  # a 204 leaves the page as it is
    expect(page.get_by_test_id("timeout")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("leave")).to_be_hidden()
    shoot(page, tmp_path, "walk-wait-over-390.png")
    assert Assignment.objects.get(worker__external_id="erin").outcome == Outcome.NO_PARTNER


def test_the_partner_back_notice_goes_away(browser: Browser, daphne_server: str, wow_campaign: Campaign) -> None:
    paired = _apprentice_first(wow_campaign)
    apprentice = open_seat(browser, daphne_server, paired.room, paired.apprentice, DESKTOP)
    wizard = open_seat(browser, daphne_server, paired.room, paired.wizard, DESKTOP)
    notice = apprentice.get_by_test_id("partner-status")
    expect(apprentice.locator("#room")).to_have_attribute("data-status", "chatting")
    wizard.context.close()
    expect(notice).to_contain_text("Your partner has disconnected")
    wizard = open_seat(browser, daphne_server, paired.room, paired.wizard, DESKTOP)
    expect(notice).to_have_text("Your partner is back.")
    _send(apprentice, "Hello again", 1)  # state frames after the return
    expect(notice).to_be_hidden(timeout=20_000)


def test_duconv_marks_survive_a_reload(browser: Browser, daphne_server: str, duconv_campaign: Campaign) -> None:  # noqa: F811
    room = make_room(duconv_campaign)
    agent = open_seat(browser, daphne_server, room.room, room.agent, DESKTOP)
    triples = agent.get_by_test_id("triple")
    expect(triples.first).to_be_visible()
    for n in (0, 2):
        triples.nth(n).get_by_test_id("use-button").click()
    expect(agent.get_by_test_id("used-count")).to_have_text("2")
    agent.get_by_test_id("message-input").fill("你好")
    agent.reload()
    expect(agent.get_by_test_id("message-input")).to_have_value("你好")  # the draft, as before
    expect(agent.get_by_test_id("used-count")).to_have_text("2")
    for n in (0, 2):
        expect(triples.nth(n).get_by_test_id("use-button")).to_have_attribute("aria-pressed", "true")
    expect(triples.nth(1).get_by_test_id("use-button")).to_have_attribute("aria-pressed", "false")
    # Sent: the marks go with the message, and a reload does not bring them back.
    expect(agent.get_by_test_id("send-button")).to_be_enabled()
    agent.get_by_test_id("send-button").click()
    expect(agent.locator('[data-testid="message"][data-seq="1"] .message-meta')).to_have_text("2 facts used")
    agent.reload()
    expect(triples.first).to_be_visible()
    expect(agent.get_by_test_id("used-count")).to_have_text("0")
    expect(agent.locator('[data-testid="use-button"][aria-pressed="true"]')).to_have_count(0)


def test_the_duconv_counter_names_what_the_end_waits_for(browser: Browser, daphne_server: str, duconv_campaign: Campaign) -> None:  # noqa: F811
    room = make_room(duconv_campaign)
    Room.objects.filter(pk=room.room.pk).update(turns_required=1)
    agent = open_seat(browser, daphne_server, room.room, room.agent, DESKTOP)
    user = open_seat(browser, daphne_server, room.room, room.user, DESKTOP)
    _send(agent, "你看过《Inception》吗？", 1)  # topic A, not B
    _send(user, "看过。", 2)
    expect(agent.get_by_test_id("turn-counter")).to_have_text("Your turns: 1 of 1 (topic B has not come up yet)")
    expect(user.get_by_test_id("turn-counter")).to_have_text("Your turns: 1 of 1 (your partner ends the chat once their goal is reached)")


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
@pytest.mark.parametrize("protocol", ["wow", "duconv", "curiosity"])
def test_the_header_keeps_badge_and_counter_in_place(
    request: pytest.FixtureRequest, browser: Browser, daphne_server: str, wow_campaign: Campaign, protocol: str, viewport: dict, tmp_path: Path
) -> None:
    if protocol == "curiosity":
        from collect.services import rooms

        paired = make_room(request.getfixturevalue("curiosity_campaign"))
        frame = {"type": "mark_known", "entities": []}
        rooms.room_act(room_id=paired.room.id, assignment=paired.user.assignment, name="mark_known", frame=frame)
        room, seats = paired.room, {"user": paired.user, "assistant": paired.assistant}
    elif protocol == "wow":
        paired = make_room(wow_campaign, topic="Blues")
        room, seats = paired.room, {"wizard": paired.wizard, "apprentice": paired.apprentice}
    else:
        paired = make_room(request.getfixturevalue("duconv_campaign"))
        room, seats = paired.room, {"agent": paired.agent, "user": paired.user}
    for role, seat in seats.items():
        page = open_seat(browser, daphne_server, room, seat, viewport)
        expect(page.locator("#room")).to_have_attribute("data-status", "chatting")
        expect(page.get_by_test_id("turn-counter")).to_have_text(re.compile(r"^Your turns: 0 of \d"))
        header, badge, counter = box(page, ".chat-header"), box(page, "[data-testid=role-badge]"), box(page, "[data-testid=turn-counter]")
        # Both end at the header's right edge on a desktop; on a phone they share one row under the
        # topic (their boxes overlap vertically), the badge at the left, the counter at the right edge.
        assert abs((counter["x"] + counter["width"]) - (header["x"] + header["width"])) < 2
        if viewport is PHONE:
            assert badge["y"] < counter["y"] + counter["height"] and counter["y"] < badge["y"] + badge["height"]
            assert abs(badge["x"] - header["x"]) < 2
        # Every protocol's role is a coloured badge, not plain text.
        background = page.get_by_test_id("role-badge").evaluate("node => getComputedStyle(node).backgroundColor")
        assert background not in ("rgba(0, 0, 0, 0)", "transparent")
        if role == "agent":
            where = "pane-where-narrow" if viewport is PHONE else "pane-where-wide"  # "below the chat" on a phone
            expect(page.get_by_test_id(where)).to_be_visible()
            chat, panel = box(page, ".chat-pane"), box(page, "[data-testid=goal-panel]")
            assert panel["y"] >= chat["y"] + chat["height"] if viewport is PHONE else panel["x"] >= chat["x"] + chat["width"]
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        shoot(page, tmp_path, f"walk-{protocol}-{role}-{viewport['width']}.png")
        assert page.script_errors == []  # type: ignore[attr-defined]
