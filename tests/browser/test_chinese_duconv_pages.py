"""A DuConv campaign in Simplified Chinese, in two real browsers: the agent's goal and knowledge
panel, the user's chat, ending, rating and finish, with no English word left on either screen but
the knowledge graph's own entities and relations (data)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from collect.models import Campaign, Room, RoomStatus
from tests.browser.conftest import browser, daphne_server, wow_campaign, wow_knowledge  # noqa: F401 (fixtures)
from tests.browser.test_chinese_worker_pages import DATA, assert_chinese
from tests.catalogs import compiled_catalogs  # noqa: F401  (fixture)
from tests.duconv.test_duconv_browser import duconv_campaign, open_pair, send, use  # noqa: F401 (fixture)

pytestmark = [pytest.mark.backends, pytest.mark.browser, pytest.mark.usefixtures("compiled_catalogs")]

# The graph's entities, relations and values as the agent's panel shows them.
GRAPH = f"{DATA}, [data-testid=topic-a], [data-testid=topic-b], #goal-relations, .entity-group h3, .fact-text"


def test_a_chinese_duconv_campaign_shows_every_worker_screen_in_chinese(
    duconv_campaign: Campaign, browser: Browser, daphne_server: str  # noqa: F811
) -> None:
    Campaign.objects.filter(pk=duconv_campaign.pk).update(language="zh-hans", name="知识驱动对话（中文）")
    agent, user = open_pair(browser, daphne_server, duconv_campaign)
    expect(agent.get_by_test_id("role-badge")).to_have_text("你是引导者")
    expect(user.get_by_test_id("role-badge")).to_have_text("你是用户")
    expect(user.get_by_test_id("topic")).to_have_text("自由聊天")  # the server's "Free chat", in the page's language
    expect(agent.get_by_test_id("entity-group")).to_have_count(2)
    assert_chinese(agent, user, selectors=GRAPH)

    use(agent, "Inception", "release year")
    use(agent, "Inception", "genre")
    expect(agent.get_by_test_id("use-button").filter(has_text="已使用 ✓")).to_have_count(2)
    send(agent, user, "你看过《Inception》吗？2010年的科幻片。", 1)
    expect(agent.locator('[data-testid="message"][data-seq="1"] .message-meta')).to_have_text("使用了 2 条事实")
    send(user, agent, "看过！很好看。", 2)
    use(agent, "Inception", "directed by")
    send(agent, user, "导演是 Christopher Nolan，他还拍了 Interstellar。", 3)
    send(user, agent, "我很喜欢他的电影。", 4)
    expect(agent.get_by_test_id("end-button")).to_be_visible()
    assert_chinese(agent, user, selectors=GRAPH)

    agent.get_by_test_id("end-button").click()
    agent.get_by_test_id("confirm-yes").click()
    expect(user.get_by_test_id("rating-form")).to_be_visible()
    expect(user.get_by_text("对方作为聊天搭档表现如何？")).to_be_visible()
    assert_chinese(agent, user, selectors=GRAPH)
    user.locator('[data-testid="rating-option"][data-value="4"]').click()
    user.get_by_test_id("rating-submit").click()
    for page in (agent, user):
        expect(page).to_have_url(re.compile(r"/done/$"))
        assert_chinese(page, selectors=GRAPH)
        assert page.script_errors == []  # type: ignore[attr-defined]
    assert Room.objects.get(campaign=duconv_campaign).status == RoomStatus.COMPLETE
