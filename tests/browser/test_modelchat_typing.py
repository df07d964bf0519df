"""The model-chat screen in a real browser while a model is slow to answer: "Your partner is
typing…" shows from the evaluator's message until the model's reply, then goes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_modelchat_browser import new_page

pytestmark = [pytest.mark.backends, pytest.mark.browser]


@pytest.fixture
def slow_campaign(wow_knowledge, settings):
    from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind
    from collect.models import Campaign, Persona

    settings.CELERY_TASK_ALWAYS_EAGER = True  # the model runs in the server process
    EvalModel.objects.create(name="slow-bot", kind=EvalModelKind.PYTHON, dotted_path="tests.modelchat.sample_models.Slow",
                             options={"seconds": 3.0}, timeout_seconds=30)
    campaign = Campaign.objects.create(
        slug="mc-slow", name="Model chat, slow model", protocol="model_chat", knowledge_source=wow_knowledge,
        min_turns=2, max_turns=2, turn_limit=4, protocol_config={"models": {"slow-bot": 1}, "onboarding_attempts": 0},
    )
    Persona.objects.create(campaign=campaign, text="I play the guitar in a band at weekends.", topics=["Blues", "Jazz"])
    return campaign


def test_partner_is_typing_while_the_model_writes(slow_campaign, browser: Browser, daphne_server: str) -> None:
    page, errors = new_page(browser)
    page.goto(f"{daphne_server}/join/mc-slow/?worker=tia")
    expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
    page.get_by_test_id("topic-option").filter(has_text="Blues").click()
    expect(page.get_by_test_id("topic")).to_have_text("Blues")
    typing = page.get_by_test_id("partner-typing")
    page.get_by_test_id("message-input").fill("Where did the blues start?")
    page.get_by_test_id("send-button").click()
    expect(typing).to_be_visible(timeout=10_000)
    expect(typing).to_have_text("Your partner is typing…")
    partner = page.locator('[data-testid="message"][data-role="wizard"]')
    expect(partner).to_have_count(0)  # the model sleeps 3 s before it answers
    expect(partner).to_have_count(1, timeout=30_000)
    expect(partner.first).to_contain_text("Sorry for the wait.")
    expect(typing).to_be_hidden()
    assert errors == []
