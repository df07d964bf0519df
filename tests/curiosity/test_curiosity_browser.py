"""A Curiosity dialogue end to end in two real browsers: pairing, the user's prior-knowledge screen,
chat with fact use (and no pasting) on the assistant's side, likes and an aspect switch on the
user's, both ratings, the completion page; then the database and the export."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page, expect

from collect.tasktypes.curiosity.exporter import FILES
from collect.models import Campaign, Message, Room, RoomStatus
from collect.tasktypes.curiosity.models import CuriosityDialog
from retrieval.curiosity.factdb import factdb_import
from tests.browser.conftest import browser, daphne_server, wow_campaign, wow_knowledge  # noqa: F401 (fixtures)
from tests.curiosity.factdb import write_factdb

pytestmark = [pytest.mark.backends, pytest.mark.browser]
# Set GROUNDWORK_SCREENSHOT_DIR to keep pictures of both Curiosity screens.
SCREENSHOT_DIR = os.environ.get("GROUNDWORK_SCREENSHOT_DIR", "")


@pytest.fixture
def curiosity_campaign(transactional_db, settings, live_dir: Path, tmp_path: Path) -> Campaign:
    settings.CURIOSITY_FACTDB_DIR = live_dir / "curiosity"  # the live server's, kept by the file's md5
    write_factdb(tmp_path / "facts.db")
    source = factdb_import(path=tmp_path / "facts.db", slug="browser-facts").source
    return Campaign.objects.create(
        slug="curiosity-browser",
        name="Curiosity (browser test)",
        protocol="curiosity",
        knowledge_source=source,
        min_turns=2,
        max_turns=2,
        wait_timeout_seconds=120,
        disconnect_grace_seconds=120,
        completion_code="GW-CURIOSITY-OK",
        protocol_config={"topics": [{"title": "Namibia", "aspects": ["History", "Economy"]}]},
    )


def open_worker(browser: Browser, base_url: str, campaign: Campaign, worker: str) -> Page:
    page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    page.script_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.script_errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(f"{base_url}/join/{campaign.slug}/?worker={worker}")
    return page


def pair_curiosity(browser: Browser, base_url: str, campaign: Campaign) -> tuple[Page, Page]:
    """alice waits, then bob joins: the two pages in their room's preparing screen, as (user, assistant)."""
    alice = open_worker(browser, base_url, campaign, "alice")
    expect(alice.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    bob = open_worker(browser, base_url, campaign, "bob")
    for page in (alice, bob):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
        expect(page.locator("#room")).to_have_attribute("data-status", "preparing")
    pages = {page.locator("#room").get_attribute("data-role"): page for page in (alice, bob)}
    return pages["user"], pages["assistant"]


def shoot(page: Page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / name))
    if SCREENSHOT_DIR:
        page.screenshot(path=str(Path(SCREENSHOT_DIR) / name))


def send(page: Page, partner: Page, text: str, seq: int) -> None:
    expect(page.get_by_test_id("send-button")).to_be_enabled()
    page.get_by_test_id("message-input").fill(text)
    page.get_by_test_id("send-button").click()
    mine = page.locator(f'[data-testid="message"][data-seq="{seq}"]')
    expect(mine).to_have_attribute("data-state", "sent")
    expect(partner.locator(f'[data-testid="message"][data-seq="{seq}"] .message-text')).to_have_text(text)


def use_facts(assistant: Page, after_seq: int, indexes: list[int]) -> list[int]:
    """Wait for this turn's bank, press "Use" on these facts; returns their ids."""
    expect(assistant.get_by_test_id("fact-bank")).to_have_attribute("data-after-seq", str(after_seq))
    facts = assistant.get_by_test_id("fact")
    expect(facts).to_have_count(9)
    fids = []
    for index in indexes:
        facts.nth(index).get_by_test_id("use-button").click()
        expect(facts.nth(index).get_by_test_id("use-button")).to_have_attribute("aria-pressed", "true")
        fids.append(int(facts.nth(index).get_attribute("data-fid")))
    expect(assistant.get_by_test_id("used-count")).to_have_text(str(len(indexes)))
    return fids


def like(user: Page, assistant: Page, seq: int, liked: bool) -> None:
    button = user.locator(f'[data-testid="message"][data-seq="{seq}"] [data-testid="like-button"]')
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true" if liked else "false")
    badge = assistant.locator(f'[data-testid="message"][data-seq="{seq}"] [data-testid="liked-badge"]')
    expect(badge).to_be_visible() if liked else expect(badge).to_be_hidden()


def test_it_runs_a_curiosity_dialogue_to_completion(
    curiosity_campaign: Campaign, browser: Browser, daphne_server: str, tmp_path: Path  # noqa: F811
) -> None:
    # The campaign is written before daphne forks, so the server starts with everything in place.
    user, assistant = pair_curiosity(browser, daphne_server, curiosity_campaign)
    room = Room.objects.get(campaign=curiosity_campaign)
    dialog = CuriosityDialog.objects.get(room=room)

    # --- before chatting: the user marks what they know; the assistant reads the summary
    options = user.get_by_test_id("entity-option")
    expect(options).to_have_count(len(dialog.related_entities))
    expect(user.get_by_test_id("prepare-topic")).to_have_text("Namibia")
    expect(assistant.get_by_test_id("prepare-waiting")).to_be_visible()
    expect(assistant.get_by_test_id("prepare-summary")).to_contain_text("Namibia is a country")
    known = ["Germany", "South Africa"]
    for entity in known:
        user.locator(f'[data-testid="entity-option"][data-entity="{entity}"]').click()
    expect(user.get_by_test_id("known-count")).to_have_text("2 ticked")
    shoot(user, tmp_path, "curiosity-user-prepare.png")
    user.get_by_test_id("known-submit").click()

    for page in (user, assistant):
        expect(page.locator("#room")).to_have_attribute("data-status", "chatting")
        expect(page.get_by_test_id("topic")).to_have_text("Namibia")
    first, second = dialog.aspects
    aspects = user.get_by_test_id("aspect")
    expect(aspects).to_have_count(2)
    expect(aspects.nth(0)).to_have_attribute("data-current", "true")
    expect(user.get_by_test_id("fact-bank")).to_have_count(0)
    expect(assistant.get_by_test_id("aspects-panel")).to_have_count(0)
    expect(assistant.get_by_test_id("summary")).to_contain_text("Namibia is a country")

    # Pasting into the assistant's message box is refused.
    pasted = assistant.get_by_test_id("message-input").evaluate(
        """(input) => { const data = new DataTransfer(); data.setData('text/plain', 'copied fact');
        const event = new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true});
        input.dispatchEvent(event); return event.defaultPrevented; }"""
    )
    assert pasted is True
    expect(assistant.get_by_test_id("error")).to_contain_text("Pasting is turned off")

    # --- turn 1: the user asks; the assistant uses two facts
    send(user, assistant, "Hi! What can you tell me about its history?", 1)
    used_1 = use_facts(assistant, 1, [0, 3])
    # Each fact under its article (and section, the lead having none).
    sources = assistant.locator("[data-testid=fact] [data-testid=fact-source]").all_inner_texts()
    assert len(sources) == 9 and all(source.startswith("Namibia") for source in sources), sources
    send(assistant, user, "It was a German colony, and South Africa ran it later.", 2)
    expect(assistant.locator('[data-testid="message"][data-seq="2"] .message-meta')).to_have_text("2 facts used")
    expect(assistant.get_by_test_id("used-count")).to_have_text("0")
    like(user, assistant, 2, True)

    # --- the user moves on to the second aspect; the bank is re-ranked for it
    user.get_by_test_id("switch-aspect").click()
    expect(aspects.nth(1)).to_have_attribute("data-current", "true")
    expect(user.get_by_test_id("switch-aspect")).to_be_hidden()

    send(user, assistant, f"Now tell me about the {second.lower()}, please.", 3)
    used_2 = use_facts(assistant, 3, [1])
    shoot(assistant, tmp_path, "curiosity-assistant-chat.png")
    send(assistant, user, "Here is something about that.", 4)
    like(user, assistant, 4, True)
    like(user, assistant, 2, False)  # a like taken back
    shoot(user, tmp_path, "curiosity-user-chat.png")

    # --- end and both ratings
    expect(user.get_by_test_id("end-button")).to_be_visible()
    user.get_by_test_id("end-button").click()
    user.get_by_test_id("confirm-yes").click()  # "End chat" asks once more
    for page, (dialog_rating, partner_rating) in ((user, (4, 5)), (assistant, (3, 4))):
        expect(page.get_by_test_id("rating-form")).to_be_visible()
        page.get_by_test_id("rating-submit").click()
        expect(page.get_by_test_id("rating-error")).to_be_visible()
        page.locator(f'[data-testid="dialog-rating"] [data-value="{dialog_rating}"]').click()
        page.locator(f'[data-testid="partner-rating"] [data-value="{partner_rating}"]').click()
        page.get_by_test_id("rating-submit").click()
    for page in (user, assistant):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/done/$"))
        expect(page.get_by_test_id("completion-code")).to_have_text("GW-CURIOSITY-OK")
        assert page.script_errors == []  # type: ignore[attr-defined]

    # --- what was stored
    room.refresh_from_db()
    dialog.refresh_from_db()
    assert room.status == RoomStatus.COMPLETE
    assert dialog.known_entities == [e for e in dialog.related_entities if e in known]
    assert (dialog.first_aspect, dialog.second_aspect, dialog.switched_after_seq) == (first, second, 2)
    assert (dialog.user_dialog_rating, dialog.user_other_agent_rating) == (4, 5)
    assert (dialog.assistant_dialog_rating, dialog.assistant_other_agent_rating) == (3, 4)
    messages = list(Message.objects.filter(room=room).order_by("seq"))
    assert [m.role for m in messages] == ["user", "assistant"] * 2
    assert [m.liked for m in messages] == [False, False, False, True]
    assert [f["fid"] for f in messages[1].facts if f["used"]] == sorted(used_1, key=[f["fid"] for f in messages[1].facts].index)
    assert [f["fid"] for f in messages[3].facts if f["used"]] == used_2
    assert all(len(m.facts) == 9 for m in messages[1::2])

    # --- and exported in the Curiosity format
    out = tmp_path / "export"
    call_command("export_dataset", "curiosity", out=out, campaigns=["curiosity-browser"], holdout_topics=0.0, verbosity=0)
    exported = [d for name in FILES.values() for d in json.loads((out / name).read_text(encoding="utf-8"))["dialogs"]]
    assert len(exported) == 1
    assert [m["liked"] for m in exported[0]["messages"]] == [False, False, False, True]
    assert exported[0]["known_entities"] == dialog.known_entities
    assert exported[0]["second_aspect"] == second
