"""A model-chat evaluation in Simplified Chinese, in a real browser: the practice conversation, the
chat with problem labels on the model's messages, the final question and the finish page, with no
English word left on the screen but the model's messages and the topics (data)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from collect.models import Campaign
from tests.browser.test_chinese_worker_pages import assert_chinese
from tests.browser.test_modelchat_browser import label_sample, mc_browser_campaign, new_page  # noqa: F401 (fixture)
from tests.catalogs import compiled_catalogs  # noqa: F401  (fixture)

pytestmark = [pytest.mark.backends, pytest.mark.browser, pytest.mark.usefixtures("compiled_catalogs")]


def test_a_chinese_model_chat_shows_every_screen_in_chinese(mc_browser_campaign, browser: Browser, daphne_server: str) -> None:
    Campaign.objects.filter(pk=mc_browser_campaign.pk).update(language="zh-hans", name="模型对话评测")
    mc_browser_campaign.personas.update(text="我周末在乐队里弹吉他。")
    page, errors = new_page(browser)
    page.goto(f"{daphne_server}/join/mc-browser/?worker=zoe")
    expect(page.get_by_test_id("onboarding")).to_be_visible()
    expect(page.get_by_test_id("sample-turn").nth(3)).to_contain_text("我最喜欢的足球队周日赢了")
    assert_chinese(page)
    label_sample(page, {1: "none", 3: "none", 5: "repetitive", 7: "none"})  # turn 3 is off topic
    expect(page.get_by_test_id("onboarding-error")).to_contain_text("剩余机会：1 次")
    assert_chinese(page)
    label_sample(page, {1: "none", 3: "off_topic", 5: "repetitive", 7: "none"})

    expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
    assert_chinese(page)
    page.get_by_test_id("topic-option").filter(has_text="Blues").click()
    page.get_by_test_id("message-input").fill("布鲁斯是从哪里开始的？")
    page.get_by_test_id("send-button").click()
    partner = page.locator('[data-testid="message"][data-role="wizard"]')
    expect(partner).to_have_count(1, timeout=15_000)
    expect(page.get_by_test_id("turn-hint")).to_contain_text("请先标注你搭档的最后一条消息")
    expect(partner.first.get_by_text("重复自己说过的话")).to_be_visible()
    expect(partner.first.get_by_text("离题或无视我说的话")).to_be_visible()
    assert_chinese(page)
    partner.first.get_by_test_id("label-none").check()
    page.get_by_test_id("message-input").fill("再多讲讲！")
    page.get_by_test_id("send-button").click()
    expect(partner).to_have_count(2, timeout=15_000)
    page.get_by_test_id("end-button").click()  # before the last message is labelled: the chat stays
    page.get_by_test_id("confirm-yes").click()
    expect(page.get_by_test_id("chat-ended")).to_have_text("聊天已结束。请标注你搭档的最后一条消息，然后回答最后的问题。")
    assert_chinese(page)
    partner.nth(1).get_by_test_id("label-repetitive").check()
    expect(page.get_by_test_id("continue-button")).to_have_text("进入最后的问题")
    page.get_by_test_id("continue-button").click()
    expect(page.get_by_text("你有多喜欢和你的搭档聊天？")).to_be_visible()
    expect(page.get_by_test_id("rating-anchor")).to_have_text(["完全不", "有一点", "一般", "比较多", "非常"])
    page.get_by_test_id("answers-submit").click()
    expect(page.get_by_test_id("rating-error")).to_contain_text("请回答：你有多喜欢和你的搭档聊天？")
    assert_chinese(page)
    page.get_by_test_id("answer-engagingness-4").click()
    page.get_by_test_id("answers-submit").click()
    expect(page).to_have_url(re.compile(r"/done/$"))
    assert_chinese(page)
    assert errors == []
