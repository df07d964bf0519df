"""Several models per turn in a real browser, on a desktop and on a 390×844 phone: the built-in
bots' three replies are shown side by side without names, the evaluator rates two and picks one,
the picked reply becomes the partner's message and the chat goes on to the next turn's replies."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

pytestmark = [pytest.mark.backends, pytest.mark.browser]

PRISM = ["kb-retrieval", "tfidf-reply", "no-knowledge"]
VIEWPORTS = {"desktop": {"width": 1200, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def prism_campaign(wow_knowledge, settings):
    from collect.models import Campaign, Persona
    from collect.tasktypes.modelchat.bots import builtin_models_ensure

    settings.CELERY_TASK_ALWAYS_EAGER = True  # the model turns run in the server process
    builtin_models_ensure()
    campaign = Campaign.objects.create(
        slug="mc-prism", name="Model chat, several models per turn", protocol="model_chat", knowledge_source=wow_knowledge,
        min_turns=2, max_turns=2, turn_limit=4,
        protocol_config={"models": {"kb-retrieval": 5}, "prism": {"models": PRISM}, "problems": [], "onboarding_attempts": 0},
    )
    Persona.objects.create(campaign=campaign, text="I play the guitar in a band at weekends.", topics=["Blues", "Jazz"])
    return campaign


@pytest.mark.parametrize("viewport", VIEWPORTS.values(), ids=VIEWPORTS.keys())
def test_a_turn_with_several_replies_one_picked(prism_campaign, browser: Browser, daphne_server: str, viewport) -> None:
    from collect.tasktypes.modelchat.models import ModelCandidate

    page = browser.new_context(viewport=viewport).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    worker = f"pia-{viewport['width']}"
    page.goto(f"{daphne_server}/join/mc-prism/?worker={worker}")
    expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
    page.get_by_test_id("topic-option").filter(has_text="Blues").click()
    expect(page.get_by_test_id("topic")).to_have_text("Blues")

    page.get_by_test_id("message-input").fill("Where did the blues start?")
    page.get_by_test_id("send-button").click()
    cards = page.get_by_test_id("candidate")
    expect(cards).to_have_count(3, timeout=30_000)
    expect(page.get_by_test_id("candidates")).to_contain_text("Which reply should the chat go on with?")
    for name in PRISM:
        expect(page.get_by_test_id("candidates")).not_to_contain_text(name)  # blind: no model names
    expect(page.get_by_test_id("send-button")).to_be_disabled()  # the chat waits for the pick
    texts = [cards.nth(i).locator(".candidate-text").inner_text() for i in range(3)]
    assert all(t.strip() for t in texts)
    for index in range(3):  # every card, and its pick button, is reachable on this screen
        cards.nth(index).scroll_into_view_if_needed()
        expect(page.get_by_test_id(f"pick-{index}")).to_be_visible()
        box = cards.nth(index).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 1

    page.get_by_test_id("rate-0-2").check()
    page.get_by_test_id("rate-1-5").check()
    page.get_by_test_id("pick-1").click()
    partner = page.locator('[data-testid="message"][data-role="wizard"]')
    expect(partner).to_have_count(1, timeout=30_000)
    expect(partner.first.locator(".message-text")).to_have_text(texts[1])
    expect(page.get_by_test_id("candidates")).to_be_hidden()

    page.get_by_test_id("message-input").fill("Who was the king of the blues?")
    expect(page.get_by_test_id("send-button")).to_be_enabled()
    page.get_by_test_id("send-button").click()
    expect(cards).to_have_count(3, timeout=30_000)
    page.get_by_test_id("pick-0").click()
    expect(partner).to_have_count(2, timeout=30_000)
    assert errors == []

    picked = list(ModelCandidate.objects.filter(room__members__worker__external_id=worker, after_seq=1).order_by("position"))
    assert [(c.rating, c.picked) for c in picked] == [(2, False), (5, True), (None, False)]
