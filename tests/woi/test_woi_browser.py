"""Wizard of Internet end to end in two real browsers (Debian's chromium), on a desktop and at a
phone's size (390×844): join, pair, the apprentice's persona (a template on the desktop, a curated
persona with its location on the phone), searches, sentences selected across two documents,
"No sentence used", ending, rating, the completion page; then what was stored and exported. And a
search server that is down: the wizard is told, and replies all the same."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page, expect

from collect.models import Campaign, Message, Room, RoomStatus
from collect.tasktypes.woi.models import SearchStatus, WoiDialogue, WoiSearch, WoiTurn
from tests.browser.conftest import browser, daphne_server, wow_campaign, wow_knowledge  # noqa: F401 (fixtures)
from tests.woi.released import schema_problems
from tests.woi.search_server import closed_port_url

pytestmark = [pytest.mark.backends, pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 900}
SCREENSHOT_DIR = os.environ.get("GROUNDWORK_SCREENSHOT_DIR", "")
TEMPLATE = {"template_share": 1, "topics": [["singer", "song"], ["music band"]]}
CURATED = {"template_share": 0, "curated": ["*I go to blues clubs every weekend.", "*I play the harmonica in a street band.",
                                            "*I collect old vinyl records."], "locations": ["Memphis, Tennessee"]}


def woi_campaign(knowledge, slug: str, **config) -> Campaign:
    return Campaign.objects.create(
        slug=slug, name="Wizard of Internet (browser test)", protocol="woi", knowledge_source=knowledge,
        min_turns=2, max_turns=2, wait_timeout_seconds=120, disconnect_grace_seconds=120,
        completion_code="GW-WOI-OK", instructions="Talk about your partner's interests.", protocol_config=config,
    )


def open_worker(browser: Browser, base_url: str, campaign: Campaign, worker: str, viewport: dict) -> Page:
    page = browser.new_context(viewport=viewport).new_page()
    page.script_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.script_errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(f"{base_url}/join/{campaign.slug}/?worker={worker}")
    return page


def pair(browser: Browser, base_url: str, campaign: Campaign, viewport: dict) -> tuple[Page, Page, Room]:
    """alice waits, bob arrives; the wizard is made the first speaker. (wizard, apprentice, room)."""
    alice = open_worker(browser, base_url, campaign, "alice", viewport)
    expect(alice.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    bob = open_worker(browser, base_url, campaign, "bob", viewport)
    for page in (alice, bob):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
        expect(page.locator("#room")).to_have_attribute("data-status", "preparing")
    pages = {page.locator("#room").get_attribute("data-role"): page for page in (alice, bob)}
    room = Room.objects.get(campaign=campaign)
    Room.objects.filter(pk=room.pk).update(first_speaker="wizard")  # before the chat opens: the state after the persona says so
    return pages["wizard"], pages["apprentice"], room


def write_persona(wizard: Page, apprentice: Page, curated: bool, tmp_path: Path) -> str:
    expect(wizard.get_by_test_id("persona-waiting")).to_be_visible()
    expect(wizard.get_by_test_id("persona-form")).to_have_count(0)
    form = apprentice.get_by_test_id("persona-form")
    expect(form).to_be_visible()
    apprentice.get_by_test_id("persona-detail").fill("Too short.")
    if curated:
        choices = apprentice.get_by_test_id("persona-choice")
        expect(choices).to_have_count(3)
        expect(choices.filter(has_text="I play the harmonica in a street band.")).to_contain_text("(you live in Memphis, Tennessee)")
        choices.filter(has_text="I play the harmonica in a street band.").click()
    else:
        expect(apprentice.get_by_test_id("persona-topic").locator("option")).to_have_count(3)
        apprentice.get_by_test_id("persona-topic").select_option("singer")
        apprentice.get_by_test_id("persona-item").fill("B.B. King")
    apprentice.get_by_test_id("persona-submit").click()
    expect(apprentice.get_by_test_id("persona-error")).to_have_text("Add a sentence of at least 20 characters to refine your persona.")
    shoot(apprentice, tmp_path, f"gw-woi-persona-{'curated' if curated else 'template'}.png")
    apprentice.get_by_test_id("persona-detail").fill("I learned the blues from my grandfather's records.")
    apprentice.get_by_test_id("persona-submit").click()
    headline = "I play the harmonica in a street band." if curated else "My favorite singer is B.B. King."
    for page in (wizard, apprentice):
        expect(page.locator("#room")).to_have_attribute("data-status", "chatting")
        expect(page.get_by_test_id("topic")).to_have_text(headline)
    persona = (["I live in Memphis, Tennessee."] if curated else []) + [headline, "I learned the blues from my grandfather's records."]
    expect(wizard.get_by_test_id("partner-persona")).to_have_text("\n".join(persona))
    expect(apprentice.get_by_test_id("own-persona")).to_have_text(f"Your persona: {' '.join(persona)}")
    return "\n".join(persona)


def search(wizard: Page, query: str) -> None:
    wizard.get_by_test_id("search-input").fill(query)
    wizard.get_by_test_id("search-button").click()
    expect(wizard.get_by_test_id("search-panel")).to_have_attribute("data-search-status", re.compile("done|failed"))


def send(page: Page, partner: Page, text: str, seq: int) -> None:
    expect(page.get_by_test_id("send-button")).to_be_enabled()
    page.get_by_test_id("message-input").fill(text)
    page.get_by_test_id("send-button").click()
    expect(page.locator(f'[data-testid="message"][data-seq="{seq}"]')).to_have_attribute("data-state", "sent")
    expect(partner.locator(f'[data-testid="message"][data-seq="{seq}"] .message-text')).to_have_text(text)


def shoot(page: Page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / name), full_page=True)
    if SCREENSHOT_DIR:
        page.screenshot(path=str(Path(SCREENSHOT_DIR) / name), full_page=True)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "390px"])
def test_it_runs_a_wizard_of_internet_chat_to_completion(
    browser: Browser, wow_knowledge, daphne_server: str, viewport: dict, tmp_path: Path
) -> None:
    curated = viewport is PHONE
    campaign = woi_campaign(wow_knowledge, "woi-browser", persona=CURATED if curated else TEMPLATE)
    wizard, apprentice, room = pair(browser, daphne_server, campaign, viewport)
    expect(apprentice.get_by_test_id("search-panel")).to_have_count(0)
    persona = write_persona(wizard, apprentice, curated, tmp_path)

    # Turn 1, the wizard: nothing ticked is refused; a search; two sentences from two documents.
    expect(wizard.get_by_test_id("search-documents")).to_contain_text("Search to see documents here.")
    wizard.get_by_test_id("message-input").fill("Let me tell you about the blues.")
    wizard.get_by_test_id("send-button").click()
    expect(wizard.get_by_test_id("error")).to_contain_text("select the sentences your message uses")
    search(wizard, "blues guitar harmonica")
    documents = wizard.get_by_test_id("search-document")
    expect(documents.first).to_have_attribute("open", "")
    assert 2 <= documents.count() <= 5
    titles = [documents.nth(i).locator(".article-title").inner_text() for i in range(documents.count())]
    first = documents.nth(0).get_by_test_id("search-sentence").first
    first.click()
    documents.nth(1).locator("summary").click()  # the second document is folded at first
    second = documents.nth(1).get_by_test_id("search-sentence").first
    second.click()
    for item in (first, second):
        expect(item.locator("input")).to_be_checked()
    picked = [first.locator(".sentence-text").inner_text(), second.locator(".sentence-text").inner_text()]
    if viewport is PHONE:
        chat, pane = wizard.locator(".chat-pane").bounding_box(), wizard.get_by_test_id("search-panel").bounding_box()
        assert pane["y"] >= chat["y"] + chat["height"]  # the panel below the chat, as the hint says
        expect(wizard.get_by_test_id("pane-where-narrow")).to_be_visible()
    shoot(wizard, tmp_path, f"gw-woi-wizard-{viewport['width']}.png")
    send(wizard, apprentice, "The blues came from the Deep South, and the guitar carries it.", 1)
    expect(wizard.locator('[data-testid="message"][data-seq="1"] .message-meta')).to_have_text("2 sentences used")

    # Turn 2, the apprentice; turn 3, the wizard starts with an empty panel and uses no sentence.
    send(apprentice, wizard, "Who was the King of the Blues?", 2)
    expect(wizard.get_by_test_id("search-documents")).to_contain_text("Search to see documents here.")
    search(wizard, "King of the Blues")
    expect(wizard.get_by_test_id("search-document").first).to_contain_text("B.B. King")
    wizard.get_by_test_id("search-sentence").first.click()
    wizard.get_by_test_id("no-sentence").click()  # unticks the sentence
    expect(wizard.get_by_test_id("search-sentence").first.locator("input")).not_to_be_checked()
    send(wizard, apprentice, "I would say it is a matter of taste!", 3)
    send(apprentice, wizard, "Fair enough, thanks!", 4)

    # The apprentice ends; the wizard waits while the apprentice rates.
    apprentice.get_by_test_id("end-button").click()
    apprentice.get_by_test_id("confirm-yes").click()
    expect(wizard.get_by_test_id("rating-wait")).to_be_visible()
    apprentice.locator('[data-testid="rating-option"][data-value="5"]').click()
    apprentice.get_by_test_id("rating-submit").click()
    for page in (wizard, apprentice):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/done/$"))
        expect(page.get_by_test_id("completion-code")).to_have_text("GW-WOI-OK")
        assert page.script_errors == []  # type: ignore[attr-defined]

    # --- what was stored
    room.refresh_from_db()
    assert room.status == RoomStatus.COMPLETE and room.rating == 5
    assert WoiDialogue.objects.get(room=room).persona == persona
    searches = list(WoiSearch.objects.filter(room=room).order_by("pk"))
    assert [(s.query, s.status, s.after_seq) for s in searches] == [
        ("blues guitar harmonica", SearchStatus.DONE, 0), ("King of the Blues", SearchStatus.DONE, 2)]
    assert [d["title"] for d in searches[0].documents] == titles
    first_reply, second_reply = WoiTurn.objects.filter(room=room).order_by("seq")
    assert first_reply.search == searches[0] and first_reply.selected[0] == [False]
    used = [searches[0].documents[d]["content"][s] for d, row in enumerate(first_reply.selected[1:]) for s, on in enumerate(row) if on]
    assert used == picked
    assert second_reply.search == searches[1] and second_reply.selected[0] == [True] and not any(map(any, second_reply.selected[1:]))

    # --- and exported in the released format
    out = tmp_path / "export"
    call_command("export_dataset", "woi", "--out", str(out), "--valid", "0", "--test", "0", stdout=io.StringIO())
    assert schema_problems(out / "train.jsonl") == []
    [line] = [json.loads(raw) for raw in (out / "train.jsonl").read_text().splitlines()]
    history = line[str(room.pk)]["dialog_history"]
    assert [e["action"] for e in history] == [
        "Wizard => SearchAgent", "SearchAgent => Wizard", "Wizard => Apprentice", "Apprentice => Wizard",
        "Wizard => SearchAgent", "SearchAgent => Wizard", "Wizard => Apprentice", "Apprentice => Wizard"]
    assert [m.text for m in Message.objects.filter(room=room).order_by("seq")] == [e["text"] for e in history if "Apprentice" in e["action"]]


def test_a_search_server_that_is_down_is_named_and_the_wizard_replies_anyway(
    browser: Browser, wow_knowledge, daphne_server: str, tmp_path: Path
) -> None:
    campaign = woi_campaign(wow_knowledge, "woi-down", persona=TEMPLATE, search={"backend": "http", "url": closed_port_url(), "timeout_s": 2})
    wizard, apprentice, room = pair(browser, daphne_server, campaign, DESKTOP)
    write_persona(wizard, apprentice, curated=False, tmp_path=tmp_path)
    search(wizard, "B.B. King")
    expect(wizard.get_by_test_id("search-error")).to_have_text(
        "The search service cannot be reached right now. You can search again, or reply with what is on screen.")
    expect(wizard.get_by_test_id("search-button")).to_be_enabled()
    wizard.get_by_test_id("no-sentence").click()
    send(wizard, apprentice, "Tell me what you like about his music!", 1)
    assert WoiSearch.objects.get(room=room).error_code == "search_down"
    shoot(wizard, tmp_path, "gw-woi-down.png")
    assert wizard.script_errors == []  # type: ignore[attr-defined]
