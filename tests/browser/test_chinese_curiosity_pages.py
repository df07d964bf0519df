"""A Curiosity campaign in Simplified Chinese, in two real browsers: the user's prior-knowledge
screen, the aspects and likes, the assistant's fact bank, both ratings and the finish page, with no
English word left on either screen but the topic's own data (entities, aspects, facts, summary)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from collect.models import Campaign, Room
from collect.tasktypes.curiosity.models import CuriosityDialog
from tests.browser.conftest import browser, daphne_server, wow_campaign, wow_knowledge  # noqa: F401 (fixtures)
from tests.browser.test_chinese_worker_pages import DATA, assert_chinese
from tests.catalogs import compiled_catalogs  # noqa: F401  (fixture)
from tests.curiosity.test_curiosity_browser import curiosity_campaign, like, pair_curiosity, send, use_facts  # noqa: F401

pytestmark = [pytest.mark.backends, pytest.mark.browser, pytest.mark.usefixtures("compiled_catalogs")]

TOPIC_DATA = (
    f"{DATA}, [data-testid=prepare-topic], [data-testid=prepare-summary], [data-testid=summary-topic], "
    "[data-testid=summary], .entity-option, .aspect-name, .fact-text, .fact-source, .fact-context, #known-entities"
)


def test_a_chinese_curiosity_campaign_shows_every_worker_screen_in_chinese(
    curiosity_campaign: Campaign, browser: Browser, daphne_server: str  # noqa: F811
) -> None:
    Campaign.objects.filter(pk=curiosity_campaign.pk).update(language="zh-hans", name="好奇心对话（中文）")
    user, assistant = pair_curiosity(browser, daphne_server, curiosity_campaign)
    dialog = CuriosityDialog.objects.get(room=Room.objects.get(campaign=curiosity_campaign))
    expect(user.get_by_test_id("entity-option")).to_have_count(len(dialog.related_entities))
    assert_chinese(user, assistant, selectors=TOPIC_DATA)
    for entity in ("Germany", "South Africa"):
        user.locator(f'[data-testid="entity-option"][data-entity="{entity}"]').click()
    expect(user.get_by_test_id("known-count")).to_have_text("已勾选 2 个")
    user.get_by_test_id("known-submit").click()

    for page in (user, assistant):
        expect(page.locator("#room")).to_have_attribute("data-status", "chatting")
    expect(user.get_by_test_id("role-badge")).to_have_text("你是用户")
    expect(assistant.get_by_test_id("role-badge")).to_have_text("你是助手")
    send(user, assistant, "你好！能讲讲它的历史吗？", 1)
    use_facts(assistant, 1, [0, 3])
    send(assistant, user, "它曾是德国的殖民地，后来由南非管辖。", 2)
    expect(assistant.locator('[data-testid="message"][data-seq="2"] .message-meta')).to_have_text("使用了 2 条事实")
    like(user, assistant, 2, True)
    expect(assistant.locator('[data-testid="message"][data-seq="2"] [data-testid="liked-badge"]')).to_have_text("♥ 用户赞了这条")
    second = dialog.aspects[1]
    expect(user.get_by_test_id("switch-aspect")).to_have_text(f"我要转到“{second}”了")
    assert_chinese(user, assistant, data=(second,), selectors=TOPIC_DATA)
    user.get_by_test_id("switch-aspect").click()
    send(user, assistant, "再讲讲另一个方面吧。", 3)
    use_facts(assistant, 3, [1])
    send(assistant, user, "好的，还有一点。", 4)
    assert_chinese(user, assistant, selectors=TOPIC_DATA)

    user.get_by_test_id("end-button").click()
    user.get_by_test_id("confirm-yes").click()
    for page in (user, assistant):
        expect(page.get_by_test_id("rating-form")).to_be_visible()
        page.get_by_test_id("rating-submit").click()
        expect(page.get_by_test_id("rating-error")).to_have_text("请用 1 到 5 的数字回答这两个问题。")
        assert_chinese(page, selectors=TOPIC_DATA)
        page.locator('[data-testid="dialog-rating"] [data-value="4"]').click()
        page.locator('[data-testid="partner-rating"] [data-value="5"]').click()
        page.get_by_test_id("rating-submit").click()
    for page in (user, assistant):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/done/$"))
        assert_chinese(page, selectors=TOPIC_DATA)
        assert page.script_errors == []  # type: ignore[attr-defined]
