"""A DuConv dialogue in two real browsers: pairing, the agent's goal path and knowledge panel with
triple marking, the user's plain chat in Chinese, ending once both topics came up, the user's rating;
then what was stored."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page, expect

from collect.models import Campaign, Message, Room, RoomStatus
from collect.tasktypes.duconv.models import DuConvSession
from retrieval.models import KnowledgeSource
from tests.browser.conftest import browser, daphne_server, wow_campaign, wow_knowledge  # noqa: F401 (fixtures)
from tests.duconv.conftest import DEMO_TSV, GOAL

pytestmark = [pytest.mark.backends, pytest.mark.browser]


@pytest.fixture
def duconv_campaign(transactional_db) -> Campaign:
    call_command("import_knowledge", "triples", str(DEMO_TSV), source="browser-films", verbosity=0)
    return Campaign.objects.create(
        slug="duconv-browser",
        name="DuConv (browser test)",
        protocol="duconv",
        knowledge_source=KnowledgeSource.objects.get(slug="browser-films"),
        min_turns=2,
        max_turns=4,
        turn_limit=4,
        wait_timeout_seconds=120,
        disconnect_grace_seconds=120,
        protocol_config={"goals": [{"goal": GOAL}]},
    )


def open_worker(browser: Browser, base_url: str, campaign: Campaign, worker: str) -> Page:  # noqa: F811 (a parameter, not the fixture)
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.script_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.script_errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(f"{base_url}/join/{campaign.slug}/?worker={worker}")
    return page


def open_pair(browser: Browser, base_url: str, campaign: Campaign,  # noqa: F811 (a parameter, not the fixture)
              waiting: Callable[[Page], None] | None = None) -> tuple[Page, Page]:
    """Two workers joined and paired in a chatting room: (the agent's page, the user's page).
    `waiting` is given the first worker's page while it waits for a partner."""
    alice = open_worker(browser, base_url, campaign, "alice")
    if waiting is not None:
        waiting(alice)
    bob = open_worker(browser, base_url, campaign, "bob")
    for page in (alice, bob):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
        expect(page.locator("#room")).to_have_attribute("data-status", "chatting")
    pages = {page.locator("#room").get_attribute("data-role"): page for page in (alice, bob)}
    return pages["agent"], pages["user"]


def send(page: Page, partner: Page, text: str, seq: int) -> None:
    expect(page.get_by_test_id("send-button")).to_be_enabled()
    page.get_by_test_id("message-input").fill(text)
    page.get_by_test_id("send-button").click()
    expect(page.locator(f'[data-testid="message"][data-seq="{seq}"]')).to_have_attribute("data-state", "sent")
    expect(partner.locator(f'[data-testid="message"][data-seq="{seq}"] .message-text')).to_have_text(text)


def use(agent: Page, entity: str, prop: str) -> int:
    triple = agent.locator(f'[data-testid="entity-group"][data-entity="{entity}"] [data-testid="triple"]', has_text=prop).first
    triple.get_by_test_id("use-button").click()
    expect(triple.get_by_test_id("use-button")).to_have_attribute("aria-pressed", "true")
    return int(triple.get_attribute("data-id"))


def test_it_runs_a_duconv_dialogue_to_completion(
    duconv_campaign: Campaign, browser: Browser, daphne_server: str, tmp_path: Path  # noqa: F811
) -> None:
    agent, user = open_pair(browser, daphne_server, duconv_campaign)

    # The agent sees the goal path and the triples by entity; the user sees neither.
    expect(agent.get_by_test_id("topic-a")).to_have_text("A: Inception")
    expect(agent.get_by_test_id("topic-b")).to_have_text("B: Christopher Nolan")
    expect(agent.get_by_test_id("entity-group")).to_have_count(2)
    expect(user.get_by_test_id("goal-panel")).to_have_count(0)
    expect(user.get_by_test_id("user-instruction")).to_be_visible()
    expect(user.get_by_test_id("send-button")).to_be_disabled()  # the agent speaks first

    year = use(agent, "Inception", "release year")
    genre = use(agent, "Inception", "genre")
    expect(agent.get_by_test_id("used-count")).to_have_text("2")
    send(agent, user, "你看过《Inception》吗？2010年的科幻片。", 1)
    expect(agent.locator('[data-testid="message"][data-seq="1"] .message-meta')).to_have_text("2 facts used")
    expect(agent.get_by_test_id("used-count")).to_have_text("0")
    send(user, agent, "看过！很好看。", 2)
    director = use(agent, "Inception", "directed by")
    send(agent, user, "导演是 Christopher Nolan，他还拍了 Interstellar。", 3)
    expect(agent.get_by_test_id("topic-b")).to_have_class(re.compile("goal-reached"))
    expect(agent.get_by_test_id("end-button")).to_be_hidden()
    send(user, agent, "我很喜欢他的电影。", 4)

    expect(agent.get_by_test_id("end-button")).to_be_visible()
    expect(user.get_by_test_id("end-button")).to_be_hidden()
    agent.get_by_test_id("end-button").click()
    agent.get_by_test_id("confirm-yes").click()  # "End chat" asks once more
    expect(agent.get_by_test_id("rating-wait")).to_be_visible()
    expect(user.get_by_test_id("rating-form")).to_be_visible()
    user.get_by_test_id("rating-submit").click()
    expect(user.get_by_test_id("rating-error")).to_be_visible()
    user.locator('[data-testid="rating-option"][data-value="5"]').click()
    user.get_by_test_id("rating-submit").click()
    expect(user).to_have_url(re.compile(r"/done/$"))

    room = Room.objects.get(campaign=duconv_campaign)
    assert room.status == RoomStatus.COMPLETE
    assert DuConvSession.objects.get(room=room).user_rating == 5
    stored = list(Message.objects.filter(room=room).order_by("seq"))
    assert [m.text for m in stored][0] == "你看过《Inception》吗？2010年的科幻片。"
    assert [m.knowledge_used for m in stored] == [sorted([year, genre]), None, [director], None]
    assert agent.script_errors == [] and user.script_errors == []  # type: ignore[attr-defined]
