"""The model-chat screen in a real browser: onboarding with the sample conversation (one wrong try
first), then a chat with the built-in knowledgeable bot, labels on each model message ("None" must be
ticked explicitly), the final question and the completion page; then the stored record. And the
DuConv variant: the model opens, the evaluator has no topic to pick and sees no goal."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page, expect

from collect.tasktypes.modelchat.selectors import modelchat_conversations
from tests.duconv.conftest import DEMO_TSV, GOAL

pytestmark = [pytest.mark.backends, pytest.mark.browser]


@pytest.fixture
def mc_browser_campaign(wow_knowledge, settings):
    from collect.tasktypes.modelchat.bots import builtin_models_ensure
    from collect.models import Campaign, Persona

    settings.CELERY_TASK_ALWAYS_EAGER = True  # the model runs in the server process (no models worker here)
    builtin_models_ensure()
    campaign = Campaign.objects.create(
        slug="mc-browser", name="Model chat (browser test)", protocol="model_chat", knowledge_source=wow_knowledge,
        min_turns=2, max_turns=2, turn_limit=4, completion_code="GW-MC-OK",
        protocol_config={"models": {"kb-retrieval": 1}, "problems": ["repetitive", "off_topic"], "onboarding_attempts": 2},
    )
    Persona.objects.create(campaign=campaign, text="I play the guitar in a band at weekends.", topics=["Blues", "Jazz"])
    return campaign


def new_page(browser: Browser) -> tuple[Page, list[str]]:
    """A page, and the script errors it raises."""
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def label_sample(page, labels: dict[int, str]) -> None:
    for index, key in labels.items():
        page.locator(f'[data-testid="sample-turn"][data-index="{index}"]').get_by_test_id(f"label-{key}").check()
    page.get_by_test_id("onboarding-submit").click()


def test_a_model_chat_in_the_browser(mc_browser_campaign, browser: Browser, daphne_server: str) -> None:
    page, errors = new_page(browser)
    page.goto(f"{daphne_server}/join/mc-browser/?worker=zoe")
    expect(page.get_by_test_id("onboarding")).to_be_visible()
    # The campaign offers only "repetitive" and "off_topic": the contradiction turn expects "none".
    label_sample(page, {1: "none", 3: "none", 5: "repetitive", 7: "none"})  # turn 3 is off topic
    expect(page.get_by_test_id("onboarding-error")).to_contain_text("Attempts left: 1")
    label_sample(page, {1: "none", 3: "off_topic", 5: "repetitive", 7: "none"})

    expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
    expect(page.get_by_test_id("persona")).to_have_text("I play the guitar in a band at weekends.")
    page.get_by_test_id("topic-option").filter(has_text="Blues").click()
    expect(page.get_by_test_id("topic")).to_have_text("Blues")

    page.get_by_test_id("message-input").fill("Where did the blues start?")
    page.get_by_test_id("send-button").click()
    partner = page.locator('[data-testid="message"][data-role="wizard"]')
    expect(partner).to_have_count(1, timeout=15_000)
    expect(partner.first).to_contain_text(re.compile("blues", re.I))  # a knowledge sentence the ranker picked
    # No sending on before the partner's message is labelled ("None" is a label, never implied).
    page.get_by_test_id("message-input").fill("Tell me more!")
    expect(page.get_by_test_id("turn-hint")).to_contain_text("Mark your partner's last message")
    expect(page.get_by_test_id("send-button")).to_be_disabled()
    partner.first.get_by_test_id("label-none").check()
    expect(partner.first).to_have_class(re.compile("message-labelled"))
    expect(page.get_by_test_id("send-button")).to_be_enabled()
    page.get_by_test_id("send-button").click()
    expect(partner).to_have_count(2, timeout=15_000)
    # Ending before labelling the last message keeps the chat on screen until it is labelled.
    page.get_by_test_id("end-button").click()
    page.get_by_test_id("confirm-yes").click()  # "End chat" asks once more
    expect(page.get_by_test_id("chat-ended")).to_contain_text("Label your partner's last message")
    partner.nth(1).get_by_test_id("label-repetitive").check()
    partner.nth(1).get_by_test_id("label-off_topic").check()
    expect(partner.nth(1)).to_have_class(re.compile("message-labelled"))
    page.get_by_test_id("continue-button").click()
    # The 1–5 scale has its anchor words under the numbers.
    expect(page.get_by_test_id("answer-engagingness-1")).to_contain_text("Not at all")
    expect(page.get_by_test_id("answer-engagingness-5")).to_contain_text("Very much")
    expect(page.get_by_test_id("rating-anchor")).to_have_text(["Not at all", "A little", "Somewhat", "Quite a lot", "Very much"])
    page.get_by_test_id("answers-submit").click()
    expect(page.get_by_test_id("rating-error")).to_contain_text("Please answer")
    page.get_by_test_id("answer-engagingness-4").click()
    page.get_by_test_id("answers-submit").click()
    expect(page).to_have_url(re.compile(r"/done/$"))
    expect(page.locator("body")).to_contain_text("GW-MC-OK")
    assert errors == []

    (record,) = modelchat_conversations(campaigns=["mc-browser"])
    assert record.answers == {"engagingness": 4} and record.topic == "Blues" and record.seen is True
    assert record.turn_problems == [("none",), ("repetitive", "off_topic")]


def test_the_onboardings_none_and_the_problems_exclude_each_other(mc_browser_campaign, browser: Browser, daphne_server: str) -> None:
    page, errors = new_page(browser)
    page.goto(f"{daphne_server}/join/mc-browser/?worker=ulla")
    turn = page.locator('[data-testid="sample-turn"][data-index="3"]')
    turn.get_by_test_id("label-off_topic").check()
    turn.get_by_test_id("label-repetitive").check()
    turn.get_by_test_id("label-none").check()
    for key in ("off_topic", "repetitive"):
        expect(turn.get_by_test_id(f"label-{key}")).not_to_be_checked()
    turn.get_by_test_id("label-off_topic").check()
    expect(turn.get_by_test_id("label-none")).not_to_be_checked()
    expect(turn.get_by_test_id("label-off_topic")).to_be_checked()
    # The other messages' boxes are their own.
    page.locator('[data-testid="sample-turn"][data-index="1"]').get_by_test_id("label-none").check()
    expect(turn.get_by_test_id("label-off_topic")).to_be_checked()
    assert errors == []


@pytest.fixture
def mc_duconv_campaign(mc_browser_campaign):
    """The browser campaign as the DuConv variant on the demo film graph, ended by the turn limit."""
    from collect.models import Campaign
    from retrieval.models import KnowledgeSource

    call_command("import_knowledge", "triples", str(DEMO_TSV), source="films", verbosity=0)
    config = {"models": {"duconv-agent": 1}, "duconv": {"goals": [{"goal": GOAL}]}, "problems": ["repetitive"], "onboarding_attempts": 0}
    Campaign.objects.filter(pk=mc_browser_campaign.pk).update(
        knowledge_source=KnowledgeSource.objects.get(slug="films"), protocol_config=config, turn_limit=2
    )
    return mc_browser_campaign


def test_a_duconv_model_chat_in_the_browser(mc_duconv_campaign, browser: Browser, daphne_server: str) -> None:
    page, errors = new_page(browser)
    page.goto(f"{daphne_server}/join/mc-browser/?worker=yul")
    expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
    expect(page.get_by_test_id("topic")).to_have_text("Free chat")
    expect(page.get_by_test_id("role-badge")).to_have_text("Your partner starts the chat")
    partner = page.locator('[data-testid="message"][data-role="wizard"]')
    expect(partner).to_have_count(1, timeout=15_000)  # the model, DuConv's agent, opens
    expect(partner.first).to_contain_text("Inception")
    for turn, text in enumerate(["Oh, I have not seen it.", "Who made it?"]):
        page.get_by_test_id("message-input").fill(text)
        expect(page.get_by_test_id("send-button")).to_be_disabled()  # the partner's message is unlabelled
        partner.nth(turn).get_by_test_id("label-none").check()
        expect(partner.nth(turn)).to_have_class(re.compile("message-labelled"))
        page.get_by_test_id("send-button").click()
        if turn == 0:
            expect(partner).to_have_count(2, timeout=15_000)
    # Two turns each: the turn limit ends the chat on the evaluator's message.
    page.get_by_test_id("answer-engagingness-3").click()
    page.get_by_test_id("answers-submit").click()
    expect(page).to_have_url(re.compile(r"/done/$"))
    assert errors == []

    (record,) = modelchat_conversations(campaigns=["mc-browser"])
    assert record.goal == GOAL and record.answers == {"engagingness": 3}
    assert [t.speaker for t in record.turns] == ["model", "human", "model", "human"]
    assert record.turn_problems == [("none",), ("none",)] and record.goal_completion == 2
