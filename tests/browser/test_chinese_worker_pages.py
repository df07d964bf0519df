"""A Wizard of Wikipedia campaign in Simplified Chinese, in two real browsers: join → onboarding and
quiz → waiting → topic choice → chat → rating → finish, and at every step no English word is left
on either worker's screen (visible text, placeholders, titles, labels), data excepted: the topics,
the Wikipedia knowledge, the messages and the completion code are shown as they are."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from collect.models import Campaign, Room, RoomStatus
from tests.browser.test_wow_browser import wait_for_knowledge
from tests.catalogs import compiled_catalogs  # noqa: F401  (fixture)

pytestmark = [pytest.mark.backends, pytest.mark.browser, pytest.mark.usefixtures("compiled_catalogs")]

# What a worker sees as data, not as the screen's own words.
DATA = (
    ".message-text, .sentence-text, .article-title, [data-testid=topic], [data-testid=topic-option], "
    "[data-testid=completion-code], .brand"
)
ALLOWED_WORDS = {"Groundwork"}  # the product's name, in the header and the title
VISIBLE_TEXT = """(data) => {
  const out = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest(data) || !el.checkVisibility({ visibilityProperty: true })) continue;
    if (node.textContent.trim()) out.push(node.textContent.trim());
  }
  for (const el of document.querySelectorAll("[placeholder], [title], [aria-label]")) {
    if (el.closest(data) || !el.checkVisibility()) continue;
    for (const name of ["placeholder", "title", "aria-label"]) if (el.getAttribute(name)) out.push(el.getAttribute(name));
  }
  return out;
}"""


def english_left(page: Page, *, data: tuple[str, ...] = (), selectors: str = DATA) -> list[str]:
    """The pieces of the page's visible text that still hold English words, data removed (the
    strings in `data`, and the elements `selectors` match)."""
    texts = page.evaluate(VISIBLE_TEXT, selectors)
    sentences = page.locator(".sentence-text").all_inner_texts()
    found = []
    for text in texts:
        for known in (*data, *sentences):
            text = text.replace(known, "")
        if [word for word in re.findall(r"[A-Za-z]{2,}", text) if word not in ALLOWED_WORDS]:
            found.append(text)
    return found


def assert_chinese(*pages: Page, data: tuple[str, ...] = (), selectors: str = DATA) -> None:
    for page in pages:
        expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
        assert english_left(page, data=data, selectors=selectors) == [], page.url


@pytest.fixture
def zh_campaign(wow_campaign: Campaign) -> Campaign:
    wow_campaign.language = "zh-hans"
    wow_campaign.name = "维基百科向导（中文）"
    wow_campaign.instructions = "请就选定的话题聊几轮。"
    wow_campaign.onboarding = {
        "roles": {
            "wizard": {"instructions": "你手边有维基百科，请用它作出有见地的回答。", "good": ["布鲁斯起源于美国南方。"], "bad": ["不知道。"]},
            "apprentice": {"instructions": "保持好奇，多提问。", "good": ["它是怎么起源的？"], "bad": ["嗯。"]},
        },
        "quiz": [{"question": "向导每次发言前要做什么？", "choices": ["勾选用到的句子", "什么都不做"], "answer": 0}],
        "pass_mark": 1.0,
        "max_attempts": 2,
    }
    wow_campaign.save()
    wow_campaign.personas.update(text="我周末在乐队里弹吉他。")
    return wow_campaign


def enter(browser: Browser, base_url: str, campaign: Campaign, worker: str) -> Page:
    """A worker's own browser: the join link, the onboarding page (checked), the quiz passed."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="zh-CN")
    page = context.new_page()
    page.script_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.script_errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(f"{base_url}/join/{campaign.slug}/?worker={worker}")
    expect(page.get_by_test_id("onboarding")).to_be_visible()
    expect(page.get_by_role("heading", name="开始之前")).to_be_visible()
    assert_chinese(page)
    page.get_by_label("勾选用到的句子").check()
    page.get_by_role("button", name="检查我的答案").click()
    expect(page).to_have_url(re.compile(r"/a/\d+/wait/$"))
    return page


def test_a_chinese_campaign_shows_every_worker_screen_in_chinese(browser: Browser, daphne_server: str, zh_campaign: Campaign) -> None:
    alice = enter(browser, daphne_server, zh_campaign, "alice")
    expect(alice.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    expect(alice.get_by_test_id("status")).to_have_text("正在寻找搭档…")
    assert_chinese(alice)

    bob = enter(browser, daphne_server, zh_campaign, "bob")
    for page in (alice, bob):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
        expect(page.locator("#room")).to_have_attribute("data-status", "choosing_topic")
    pages = {page.locator("#room").get_attribute("data-role"): page for page in (alice, bob)}
    wizard, apprentice = pages["wizard"], pages["apprentice"]
    room = Room.objects.get(campaign=zh_campaign)
    first, other = (wizard, apprentice) if room.first_speaker == "wizard" else (apprentice, wizard)
    expect(first.get_by_test_id("persona")).to_have_text("我周末在乐队里弹吉他。")
    expect(other.get_by_test_id("topic-waiting")).to_be_visible()
    assert_chinese(wizard, apprentice)

    first.get_by_test_id("topic-option").filter(has_text="Blues").click()
    for page in (wizard, apprentice):
        expect(page.get_by_test_id("message-input")).to_be_visible()
        expect(page.get_by_test_id("message-input")).to_have_attribute("placeholder", "输入你的消息…")
    expect(wizard.get_by_test_id("role-badge")).to_have_text("你是向导")
    expect(apprentice.get_by_test_id("role-badge")).to_have_text("你是学徒")

    order = ["wizard", "apprentice"] if room.first_speaker == "wizard" else ["apprentice", "wizard"]
    lines = {"wizard": iter(["布鲁斯起源于美国南方，大约在 1860 年代。", "主要是吉他和口琴。"]),
             "apprentice": iter(["我很喜欢布鲁斯，它是从哪里来的？", "三角洲布鲁斯用什么乐器？"])}
    for seq in range(1, 5):
        role = order[(seq - 1) % 2]
        page, partner = pages[role], pages[order[seq % 2]]
        expect(page.get_by_test_id("send-button")).to_be_enabled()
        if role == "wizard":
            wait_for_knowledge(wizard, after_seq=seq - 1)
            assert_chinese(wizard, apprentice)  # the knowledge panel, the turn hints, the counters
            if seq <= 2:
                item = wizard.get_by_test_id("knowledge-sentence").filter(visible=True).first
                item.click()
            else:
                wizard.get_by_test_id("no-sentence").click()
        text = next(lines[role])
        page.get_by_test_id("message-input").fill(text)
        page.get_by_test_id("send-button").click()
        expect(partner.locator(f'[data-testid="message"][data-seq="{seq}"] .message-text')).to_have_text(text)
        expect(page.locator(f'[data-testid="message"][data-seq="{seq}"]')).to_have_attribute("data-state", "sent")
    for page in (wizard, apprentice):
        expect(page.get_by_test_id("turn-counter")).to_have_text("你的轮次：2 / 2（你可以结束聊天了）")
        expect(page.get_by_test_id("end-button")).to_have_text("结束聊天")
    expect(wizard.locator('[data-testid="message"][data-role="wizard"] .message-meta').last).to_have_text("未使用句子")
    assert_chinese(wizard, apprentice)

    wizard.get_by_test_id("end-button").click()
    expect(wizard.get_by_test_id("confirm-yes")).to_have_text("是的，结束聊天")
    assert_chinese(wizard)
    wizard.get_by_test_id("confirm-yes").click()
    expect(wizard.get_by_test_id("rating-wait")).to_be_visible()
    expect(apprentice.get_by_test_id("rating-form")).to_be_visible()
    apprentice.get_by_test_id("rating-submit").click()
    expect(apprentice.get_by_test_id("rating-error")).to_have_text("请从 1 到 5 中选一个数字。")
    assert_chinese(wizard, apprentice)
    apprentice.locator('[data-testid="rating-option"][data-value="5"]').click()
    apprentice.get_by_test_id("rating-submit").click()

    for page in (wizard, apprentice):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/done/$"))
        expect(page.get_by_test_id("completion-code")).to_have_text("GW-BROWSER-OK")
        expect(page.get_by_test_id("outcome-text")).to_have_text("对话已完成。感谢你的参与。")
        assert_chinese(page)
        assert page.script_errors == []  # type: ignore[attr-defined]
    room.refresh_from_db()
    assert (room.status, room.rating) == (RoomStatus.COMPLETE, 5)


def test_the_check_sees_english_left_on_a_page(browser: Browser, daphne_server: str, zh_campaign: Campaign) -> None:
    """The same check on the English campaign finds the English: it cannot pass by seeing nothing."""
    Campaign.objects.filter(pk=zh_campaign.pk).update(language="en")
    page = browser.new_context().new_page()
    page.goto(f"{daphne_server}/join/{zh_campaign.slug}/?worker=erin")
    expect(page.get_by_test_id("onboarding")).to_be_visible()
    left = english_left(page)
    assert "Before you start" in left and "Check my answers" in left


def test_a_frame_the_server_refuses_is_explained_in_the_pages_language(
    browser: Browser, daphne_server: str, zh_campaign: Campaign
) -> None:
    """An error frame's message is the server's English; the page shows its catalog's text for the
    code (static/js/errors.js). The frame is put into the real socket's stream on its way."""
    page = enter(browser, daphne_server, zh_campaign, "alice")

    def refuse(socket: WebSocketRoute) -> None:
        socket.connect_to_server()
        socket.send(json.dumps({"type": "error", "code": "not_your_turn", "message": "It is not your turn yet."}))

    page.route_web_socket(re.compile(r"/ws/wait/"), refuse)
    page.reload()
    expect(page.get_by_test_id("error")).to_have_text("请等你的搭档回复后再发送。")
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    assert_chinese(page)
    assert page.script_errors == []  # type: ignore[attr-defined]
