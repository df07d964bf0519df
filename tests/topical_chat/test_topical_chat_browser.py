"""A Topical-Chat conversation end to end in two real browsers, on a desktop and on a 390×844 phone:
pairing, each partner's reading set, messages marked with what they draw on and their sentiment
(refused until marked), each received message rated (refused until rated), the end with both
conversation ratings and the last message's rating, the completion page; then the database."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from collect.models import Campaign, Room, RoomStatus
from collect.tasktypes.topical_chat.models import TopicalConversation, TopicalTurn
from tests.browser.conftest import browser, daphne_server, wow_campaign, wow_knowledge  # noqa: F401 (fixtures)
from tests.catalogs import compiled_catalogs  # noqa: F401 (fixture)
from tests.topical_chat.conftest import ENTITIES, jazz_source_make

pytestmark = [pytest.mark.backends, pytest.mark.browser]
SCREENSHOT_DIR = os.environ.get("GROUNDWORK_SCREENSHOT_DIR", "")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 900}


@pytest.fixture
def topical_campaign(transactional_db, settings, tmp_path: Path) -> Campaign:
    settings.INDEX_DIR = tmp_path / "indexes"
    source = jazz_source_make(tmp_path, slug="browser-jazz")
    return Campaign.objects.create(
        slug="topical-browser",
        name="Topical-Chat (browser test)",
        protocol="topical_chat",
        knowledge_source=source,
        min_turns=2,
        max_turns=2,
        wait_timeout_seconds=120,
        disconnect_grace_seconds=120,
        completion_code="GW-TOPICAL-OK",
        protocol_config={"topics": ["Jazz"], "configs": ["B"], "fun_facts": 2},
    )


def open_worker(browser: Browser, base_url: str, campaign: Campaign, worker: str, viewport: dict) -> Page:
    page = browser.new_context(viewport=viewport).new_page()
    page.script_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.script_errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(f"{base_url}/join/{campaign.slug}/?worker={worker}")
    return page


def shoot(page: Page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / name), full_page=True)
    if SCREENSHOT_DIR:
        page.screenshot(path=str(Path(SCREENSHOT_DIR) / name), full_page=True)


def bubble(page: Page, seq: int):  # noqa: ANN201 (a Locator)
    return page.locator(f'[data-testid="message"][data-seq="{seq}"]')


def mark(page: Page, keys: list[str], sentiment: str) -> None:
    for key in keys:
        button = page.get_by_test_id("personal-knowledge") if key == "Personal Knowledge" else page.locator(
            f'[data-testid="use-button"][data-key="{key}"]')
        button.click()
        expect(button).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("sentiment").select_option(sentiment)


def send(page: Page, partner: Page, text: str, seq: int) -> None:
    page.get_by_test_id("message-input").fill(text)
    page.get_by_test_id("send-button").click()
    expect(bubble(page, seq)).to_have_attribute("data-state", "sent")
    expect(bubble(partner, seq).locator(".message-text")).to_have_text(text)


def rate(page: Page, seq: int, value: str) -> None:
    option = bubble(page, seq).locator(f'[data-testid="turn-rating-option"][data-value="{value}"]')
    option.click()
    expect(option).to_have_attribute("aria-pressed", "true")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "390px"])
def test_it_runs_a_topical_chat_conversation_to_completion(
    topical_campaign: Campaign, browser: Browser, daphne_server: str, tmp_path: Path, viewport: dict  # noqa: F811
) -> None:
    alice = open_worker(browser, daphne_server, topical_campaign, "alice", viewport)
    expect(alice.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    bob = open_worker(browser, daphne_server, topical_campaign, "bob", viewport)
    for page in (alice, bob):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
        expect(page.locator("#room")).to_have_attribute("data-status", "chatting")
    pages = {page.locator("#room").get_attribute("data-role"): page for page in (alice, bob)}
    first, second = pages["agent_1"], pages["agent_2"]
    width = viewport["width"]

    # --- each partner's reading set: the same entities; configuration B's two kinds of lead
    for page, kind in ((first, "shortened"), (second, "summarized")):
        expect(page.get_by_test_id("topic")).to_have_text("Jazz")
        expect(page.get_by_test_id("entity")).to_have_text(ENTITIES)
        expect(page.locator(f".reading-wiki-{kind}")).to_have_count(3)
        expect(page.get_by_test_id("fun-fact")).to_have_count(6)
        expect(page.get_by_test_id("article-headline")).to_have_text("Jazz")
        expect(page.get_by_test_id("article-section")).to_have_count(4)
    chat, pane = first.locator(".chat-pane").bounding_box(), first.get_by_test_id("reading-set").bounding_box()
    assert chat and pane
    if viewport is PHONE:
        assert pane["y"] >= chat["y"] + chat["height"]  # below the chat
        expect(first.get_by_test_id("pane-where-narrow")).to_be_visible()
    else:
        assert pane["x"] >= chat["x"] + chat["width"]  # beside it
    expect(first.get_by_test_id("turn-marks")).to_be_visible()  # under the message box, on every screen
    shoot(first, tmp_path, f"topical-chat-reading-set-{width}.png")

    # --- message 1: refused until marked, then sent with its marks
    first.get_by_test_id("message-input").fill("Do you like jazz? Louis Armstrong was one of its first stars.")
    first.get_by_test_id("send-button").click()
    expect(first.get_by_test_id("error")).to_contain_text("Mark what your message draws on")
    mark(first, ["FS2", "Personal Knowledge"], "Curious to dive deeper")
    expect(first.get_by_test_id("sources-chosen")).to_have_text("FS2 (Louis Armstrong), Personal knowledge")
    send(first, second, "Do you like jazz? Louis Armstrong was one of its first stars.", 1)
    expect(bubble(first, 1).locator(".message-meta")).to_have_text("Draws on FS2 (Louis Armstrong), Personal knowledge · Curious to dive deeper")
    expect(first.get_by_test_id("sources-chosen")).to_have_text("nothing marked yet")  # cleared for the next one
    expect(bubble(second, 1).locator(".message-meta")).to_have_text("")  # the partner does not see the marks

    # --- message 2: refused until message 1 is rated
    mark(second, ["AS1"], "Happy")
    second.get_by_test_id("message-input").fill("I do! It was born in New Orleans.")
    second.get_by_test_id("send-button").click()
    expect(second.get_by_test_id("error")).to_have_text("Rate your partner's last message first.")
    rate(second, 1, "Good")
    shoot(second, tmp_path, f"topical-chat-rating-a-message-{width}.png")
    send(second, first, "I do! It was born in New Orleans.", 2)
    expect(bubble(second, 1).locator(".message-meta")).to_have_text("You rated it: Good")
    expect(bubble(second, 1).get_by_test_id("turn-rating")).to_have_count(0)

    rate(first, 2, "Excellent")
    mark(first, ["FS1"], "Surprised")
    send(first, second, "New Orleans throws a huge Mardi Gras parade every year.", 3)
    rate(second, 3, "Passable")
    mark(second, ["FS3"], "Neutral")
    send(second, first, "Duke Ellington played the Cotton Club.", 4)
    shoot(first, tmp_path, f"topical-chat-chat-{width}.png")

    # --- the end: agent_1 received the last message and rates it with the conversation
    expect(first.get_by_test_id("end-button")).to_be_visible()
    first.get_by_test_id("end-button").click()
    first.get_by_test_id("confirm-yes").click()
    for page in (first, second):
        expect(page.get_by_test_id("rating-form")).to_be_visible()
    expect(first.get_by_test_id("last-turn-rating")).to_be_visible()
    expect(first.get_by_test_id("last-turn-text")).to_have_text("Duke Ellington played the Cotton Club.")
    expect(second.get_by_test_id("last-turn-rating")).to_be_hidden()
    first.get_by_test_id("rating-submit").click()
    expect(first.get_by_test_id("rating-error")).to_have_text("Rate your partner's last message too.")
    first.locator('[data-testid="last-turn-rating"] [data-value="Not Good"]').click()
    first.locator('[data-testid="conversation-rating"] [data-value="Good"]').click()
    shoot(first, tmp_path, f"topical-chat-end-{width}.png")
    first.get_by_test_id("rating-submit").click()
    second.locator('[data-testid="conversation-rating"] [data-value="Excellent"]').click()
    second.get_by_test_id("rating-submit").click()
    for page in (first, second):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/done/$"))
        expect(page.get_by_test_id("completion-code")).to_have_text("GW-TOPICAL-OK")
        assert page.script_errors == []  # type: ignore[attr-defined]

    # --- what was stored
    room = Room.objects.get(campaign=topical_campaign)
    assert room.status == RoomStatus.COMPLETE
    conversation = TopicalConversation.objects.get(room=room)
    assert (conversation.config, conversation.rating_agent_1, conversation.rating_agent_2) == ("B", "Good", "Excellent")
    turns = list(TopicalTurn.objects.filter(room=room).order_by("seq").values_list("knowledge_source", "sentiment", "turn_rating"))
    assert turns == [
        (["FS2", "Personal Knowledge"], "Curious to dive deeper", "Good"),
        (["AS1"], "Happy", "Excellent"),
        (["FS1"], "Surprised", "Passable"),
        (["FS3"], "Neutral", "Not Good"),
    ]


@pytest.fixture
def chinese_campaign(transactional_db, settings, tmp_path: Path) -> Campaign:
    settings.INDEX_DIR = tmp_path / "indexes"
    source = jazz_source_make(tmp_path, slug="browser-jazz-zh")
    return Campaign.objects.create(
        slug="topical-browser-zh", name="Topical-Chat (中文)", protocol="topical_chat", knowledge_source=source,
        min_turns=1, max_turns=1, language="zh-hans", protocol_config={"topics": ["Jazz"], "configs": ["D"], "fun_facts": 2},
    )


@pytest.mark.usefixtures("compiled_catalogs")
def test_the_room_speaks_the_campaigns_language(chinese_campaign: Campaign, browser: Browser, daphne_server: str) -> None:  # noqa: F811
    from tests.browser.test_narrow_screens import open_seat
    from tests.topical_chat.conftest import make_room

    paired = make_room(chinese_campaign)
    page = open_seat(browser, daphne_server, paired.room, paired.first, DESKTOP)
    expect(page.locator("#room")).to_have_attribute("data-status", "chatting")
    expect(page.get_by_test_id("role-badge")).to_have_text("你是搭档 1")
    expect(page.locator("#reading-set-heading")).to_have_text("你的阅读材料")
    expect(page.get_by_test_id("use-button").first).to_have_text("已用")
    expect(page.get_by_test_id("sentiment").locator("option")).to_have_text(
        ["请选择…", "愤怒", "好奇，想深入了解", "厌恶", "害怕", "开心", "中性", "难过", "惊讶"])
    page.get_by_test_id("message-input").fill("你好")
    page.get_by_test_id("send-button").click()
    expect(page.get_by_test_id("error")).to_have_text("请标出你的消息依据了什么：在阅读材料上点“已用”，或点“个人知识”。")
    mark(page, ["Personal Knowledge"], "Happy")
    page.get_by_test_id("send-button").click()
    expect(bubble(page, 1).locator(".message-meta")).to_have_text("依据 个人知识 · 开心")
    assert page.script_errors == []  # type: ignore[attr-defined]
