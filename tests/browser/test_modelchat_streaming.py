"""Streamed replies in a real browser, from a local server speaking OpenAI's server-sent events
(the test holds the rest of the reply back until the page has shown its start): "Your partner is
typing…", then the first tokens in the partner's bubble while the reply is not complete, then the
stored message in its place. A page reloaded mid-stream shows the typing notice, then the message.
A second evaluator of the same model (one call at a time) is told the model is busy. SmolLM2 behind
`transformers serve` streams into the page too (where it is installed)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_modelchat_browser import new_page
from tests.modelchat.openai_server import OpenAIServer, openai_server, streamed

pytestmark = [pytest.mark.backends, pytest.mark.browser]

PARTNER = '[data-testid="message"][data-role="wizard"]'
# True at a moment when the streaming bubble shows text and the stored reply is not there yet.
SHOWN_BEFORE_COMPLETE = """() => {
  const bubble = document.querySelector('[data-testid="message-streaming"]');
  return Boolean(bubble && bubble.textContent.trim().length > 'Your partner'.length
    && !document.querySelector('[data-testid="message"][data-role="wizard"]'));
}"""


@pytest.fixture
def sse_server() -> Iterator[OpenAIServer]:
    with openai_server() as server:
        yield server


def streaming_campaign(wow_knowledge, settings, base_url: str, *, name: str = "streamer", **options):
    from collect.models import Campaign, Persona
    from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind

    settings.CELERY_TASK_ALWAYS_EAGER = True  # the model turn runs in the server process
    EvalModel.objects.create(
        name=name, kind=EvalModelKind.OPENAI, endpoint_url=base_url, options={"model": "test-model", **options},
        timeout_seconds=120, token_timeout_seconds=60, retries=0, max_concurrency=1,
    )
    campaign = Campaign.objects.create(
        slug="mc-stream", name="Model chat, streamed", protocol="model_chat", knowledge_source=wow_knowledge,
        min_turns=2, max_turns=2, turn_limit=4, protocol_config={"models": {name: 5}, "onboarding_attempts": 0, "problems": []},
    )
    Persona.objects.create(campaign=campaign, text="I play the guitar in a band at weekends.", topics=["Blues", "Jazz"])
    return campaign


@pytest.fixture
def streamed_campaign(wow_knowledge, settings, sse_server: OpenAIServer):
    return streaming_campaign(wow_knowledge, settings, sse_server.base_url)


def chat_page(browser: Browser, server: str, worker: str) -> tuple[Page, list[str]]:
    page, errors = new_page(browser)
    page.goto(f"{server}/join/mc-stream/?worker={worker}")
    expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
    page.get_by_test_id("topic-option").filter(has_text="Blues").click()
    expect(page.get_by_test_id("topic")).to_have_text("Blues")
    return page, errors


def say(page: Page, text: str) -> None:
    page.get_by_test_id("message-input").fill(text)
    page.get_by_test_id("send-button").click()


def test_the_first_tokens_show_before_the_reply_is_complete(streamed_campaign, sse_server: OpenAIServer, browser: Browser, daphne_server: str) -> None:
    rest = threading.Event()
    sse_server.reply[0] = lambda request: streamed(["The blues", " began in", " the Deep South."], gap=rest)
    page, errors = chat_page(browser, daphne_server, "sia")
    say(page, "Where did the blues start?")
    bubble = page.get_by_test_id("message-streaming")
    expect(bubble).to_contain_text("The blues", timeout=30_000)
    expect(page.get_by_test_id("partner-typing")).to_be_hidden()  # text replaced the typing notice
    assert page.locator(PARTNER).count() == 0  # the server holds the rest back: the reply is not complete

    page.reload()  # mid-stream: the state says the model is at work
    expect(page.get_by_test_id("partner-typing")).to_be_visible(timeout=15_000)
    expect(page.get_by_test_id("partner-typing")).to_have_text("Your partner is typing…")
    rest.set()
    expect(page.locator(PARTNER)).to_have_count(1, timeout=30_000)
    expect(page.locator(PARTNER).first).to_contain_text("The blues began in the Deep South.")
    expect(bubble).to_have_count(0)
    expect(page.get_by_test_id("partner-typing")).to_be_hidden()
    assert errors == []


def test_a_second_room_is_told_the_model_is_busy(streamed_campaign, sse_server: OpenAIServer, browser: Browser, daphne_server: str) -> None:
    rest = threading.Event()
    sse_server.reply[0] = lambda request: streamed(["Hold on", ", the blues", " came from the Delta."], gap=rest)
    first, first_errors = chat_page(browser, daphne_server, "tom")
    second, second_errors = chat_page(browser, daphne_server, "una")
    say(first, "Where did the blues start?")
    expect(first.get_by_test_id("message-streaming")).to_contain_text("Hold on", timeout=30_000)
    say(second, "And jazz?")
    busy = second.get_by_test_id("model-busy")
    expect(busy).to_be_visible(timeout=30_000)
    expect(busy).to_have_text("The model is busy; your reply is queued")
    rest.set()
    for page in (first, second):
        expect(page.locator(PARTNER)).to_have_count(1, timeout=30_000)
        expect(page.locator(PARTNER).first).to_contain_text("came from the Delta.")
    expect(busy).to_be_hidden()
    assert first_errors == second_errors == []


@pytest.fixture
def smollm2_campaign(smollm2_server, wow_knowledge, settings):
    return streaming_campaign(
        wow_knowledge, settings, smollm2_server.base_url, name="smollm2", model=smollm2_server.model, max_tokens=40, temperature=0
    )


def test_smollm2_streams_into_the_page(smollm2_campaign, browser: Browser, daphne_server: str) -> None:
    """The real endpoint: `transformers serve` streams SmolLM2's tokens; the page shows them before
    the reply is stored (a moment with text in the bubble and no stored reply yet, seen in the page)."""
    page, errors = chat_page(browser, daphne_server, "vic")
    say(page, "Hi! Do you like the blues?")
    page.wait_for_function(SHOWN_BEFORE_COMPLETE, timeout=240_000, polling=20)
    expect(page.locator(PARTNER)).to_have_count(1, timeout=240_000)
    expect(page.get_by_test_id("message-streaming")).to_have_count(0)
    assert page.locator(PARTNER).first.inner_text().strip() and errors == []
