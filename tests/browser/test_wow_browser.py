"""Wizard of Wikipedia end to end, in two real browsers: join, pair, choose a topic, chat with the
wizard checking knowledge, end, rate, completion page; then the database and the exported dataset."""

from __future__ import annotations

from datetime import datetime, timezone

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from collect.models import Campaign, Message, Room, RoomStatus

pytestmark = [pytest.mark.backends, pytest.mark.browser]

NO_PASSAGES = {"no_passages_used": "no_passages_used"}
# Set GROUNDWORK_SCREENSHOT_DIR to keep a picture of the wizard's screen (gw-wizard.png).
SCREENSHOT_DIR = os.environ.get("GROUNDWORK_SCREENSHOT_DIR", "")


# --- helpers ------------------------------------------------------------------------------------

def open_worker(browser: Browser, base_url: str, campaign: Campaign, worker: str, *, room_proxy=None) -> Page:
    """A fresh browser profile (own session cookie) following the worker's study link.
    `room_proxy` sits between the page and the server on the room socket."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.worker = worker  # type: ignore[attr-defined]
    if room_proxy is not None:
        page.route_web_socket(re.compile(r"/ws/room/"), room_proxy.handler(worker))
    page.script_errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.script_errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(f"{base_url}/join/{campaign.slug}/?worker={worker}")
    return page


def pair(browser: Browser, base_url: str, campaign: Campaign, *, room_proxy=None) -> tuple[Page, Page, Room]:
    """alice waits, bob arrives, both land in the same room. Returns (wizard, apprentice, room)."""
    alice = open_worker(browser, base_url, campaign, "alice", room_proxy=room_proxy)
    expect(alice).to_have_url(re.compile(r"/a/\d+/wait/$"))
    # Only once the server has registered alice as waiting can bob be paired with her.
    expect(alice.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    expect(alice.get_by_test_id("elapsed")).to_have_text(re.compile(r"^\d+:\d\d$"))

    bob = open_worker(browser, base_url, campaign, "bob", room_proxy=room_proxy)
    for page in (alice, bob):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/$"))
        expect(page.locator("#room")).to_have_attribute("data-status", "choosing_topic")
    pages = {page.locator("#room").get_attribute("data-role"): page for page in (alice, bob)}
    assert set(pages) == {"wizard", "apprentice"}
    room = Room.objects.get(campaign=campaign)
    return pages["wizard"], pages["apprentice"], room


def choose_topic(wizard: Page, apprentice: Page, room: Room, topic: str) -> None:
    first, other = (wizard, apprentice) if room.first_speaker == "wizard" else (apprentice, wizard)
    expect(first.get_by_test_id("persona")).to_have_text("I play the guitar in a band at weekends.")
    expect(first.get_by_test_id("topic-option")).to_have_text(["Blues", "Jazz"])
    expect(other.get_by_test_id("topic-waiting")).to_be_visible()
    expect(other.get_by_test_id("topic-option")).to_have_count(0)
    # Both know their role before the chat's header shows it (in the page's language: an earlier
    # test may have left the browser asking for another one).
    for page, role in ((wizard, "wizard"), (apprentice, "apprentice")):
        expect(page.get_by_test_id("topic-role")).to_be_visible()
        expect(page.get_by_test_id("topic-role")).to_have_class(re.compile(rf"\brole-badge-{role}\b"))
        expect(page.get_by_test_id("topic-role")).to_have_text(page.get_by_test_id("role-badge").text_content().strip())
    first.get_by_test_id("topic-option").filter(has_text=topic).click()
    for page in (wizard, apprentice):
        expect(page.get_by_test_id("topic")).to_have_text(topic)
        expect(page.get_by_test_id("message-input")).to_be_visible()


def wait_for_knowledge(wizard: Page, after_seq: int) -> None:
    """The wizard's panel shows the knowledge retrieved for everything up to `after_seq`."""
    expect(wizard.get_by_test_id("knowledge-panel")).to_have_attribute("data-after-seq", str(after_seq))
    # ... in its final, reranked order (the test server reranks in-process): a click before the
    # reorder could land on another sentence.
    expect(wizard.get_by_test_id("knowledge-panel")).to_have_attribute("data-ranked", "true")
    expect(wizard.get_by_test_id("knowledge-updating")).to_be_hidden()
    expect(wizard.get_by_test_id("knowledge-sentence").first).to_be_visible()
    expect(wizard.get_by_test_id("knowledge-sentence").first.locator("input")).to_be_enabled()


def send(page: Page, partner: Page, text: str, seq: int) -> None:
    expect(page.get_by_test_id("send-button")).to_be_enabled()
    page.get_by_test_id("message-input").fill(text)
    page.get_by_test_id("send-button").click()
    mine = page.locator(f'[data-testid="message"][data-seq="{seq}"]')
    expect(mine).to_have_attribute("data-state", "sent")
    expect(mine.locator(".message-text")).to_have_text(text)
    expect(page.get_by_test_id("message-input")).to_have_value("")
    theirs = partner.locator(f'[data-testid="message"][data-seq="{seq}"]')
    expect(theirs.locator(".message-text")).to_have_text(text)
    expect(theirs).to_have_class(re.compile(r"\bmessage-partner\b"))


def to_the_apprentices_turn(wizard: Page, apprentice: Page, room: Room) -> int:
    """The topic is chosen and, when the wizard opens, the wizard has spoken: the apprentice speaks
    next. Returns the seq of the last message (0: none yet)."""
    choose_topic(wizard, apprentice, room, "Blues")
    if room.first_speaker != "wizard":
        return 0
    wait_for_knowledge(wizard, after_seq=0)
    wizard.get_by_test_id("no-sentence").click()
    send(wizard, apprentice, "Hello! Shall we talk about the blues?", 1)
    return 1


def reload_under_paused_clock(page: Page, ready: Callable[[], None]) -> None:
    """The page is loaded again under Playwright's fake clock (so that its timers are the clock's)
    and, once `ready` returns, the clock is paused, to be moved on by hand. From then on the page
    notes (the clock's time, type) of every frame it sends in window.sentAt."""
    page.clock.install()
    page.reload()
    ready()
    page.evaluate("""() => {
      window.sentAt = [];
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (data) {
        window.sentAt.push([performance.now(), JSON.parse(data).type]);
        return send.call(this, data);
      };
    }""")
    # A datetime: Playwright's Python clock reads a bare number as seconds, Date.now() gives ms.
    page.clock.pause_at(datetime.fromtimestamp(page.evaluate("Date.now()") / 1000 + 1, tz=timezone.utc))


# --- tests --------------------------------------------------------------------------------------

@pytest.mark.stack
def test_it_runs_a_wizard_of_wikipedia_chat_to_completion(
    browser: Browser, daphne_server: str, wow_campaign: Campaign, tmp_path: Path
) -> None:
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    expect(wizard.get_by_test_id("knowledge-panel")).to_be_attached()
    expect(apprentice.get_by_test_id("knowledge-panel")).to_have_count(0)
    choose_topic(wizard, apprentice, room, "Blues")
    expect(wizard.get_by_test_id("role-badge")).to_have_text("You are the Wizard")
    expect(apprentice.get_by_test_id("role-badge")).to_have_text("You are the Apprentice")

    order = ["wizard", "apprentice"] if room.first_speaker == "wizard" else ["apprentice", "wizard"]
    pages = {"wizard": wizard, "apprentice": apprentice}
    apprentice_lines = iter([
        "I love the <i>blues</i> & guitar music, where did the blues come from?",
        "Which instruments do Delta blues players use?",
    ])
    wizard_lines = iter([
        "It comes from the Deep South of the United States, around the 1860s.",
        "Mostly the guitar and the harmonica, I think!",
    ])
    checked: list[tuple[str, str]] = []  # (source, sentence text) of the wizard's checked sentences
    texts: list[str] = []

    for seq in range(1, 5):
        role = order[(seq - 1) % 2]
        page, partner = pages[role], pages[order[seq % 2]]
        expect(partner.get_by_test_id("send-button")).to_be_disabled()
        expect(page.get_by_test_id("end-button")).to_be_hidden()
        if role == "wizard":
            wait_for_knowledge(wizard, after_seq=seq - 1)
            if not checked:
                # First wizard turn: check a sentence (retrieved for the partner when there is one).
                # (Visible ones: an article of the panel may be collapsed.)
                partner_items = wizard.locator('[data-testid="knowledge-sentence"][data-source="partner"]').filter(visible=True)
                any_item = wizard.get_by_test_id("knowledge-sentence").filter(visible=True)
                item = partner_items.first if partner_items.count() else any_item.first
                item.click()
                expect(item.locator("input")).to_be_checked()
                checked.append((item.get_attribute("data-source"), item.locator(".sentence-text").inner_text()))
            else:
                # Second wizard turn: the panel shows topic, partner and own-turn knowledge (one
                # article may come from several; a sentence repeated under one title is listed once).
                articles = wizard.get_by_test_id("knowledge-article")
                for tag in ("source-chosen", "source-partner", "source-self"):
                    expect(articles.locator(f".{tag}").first).to_be_visible()
                expect(articles.first).to_have_attribute("data-title", "Blues")
                expect(articles.first).to_have_attribute("open", "")
                wizard.get_by_test_id("no-sentence").click()
                checked.append(("none", ""))
                wizard.screenshot(path=str(tmp_path / "gw-wizard.png"))
                if SCREENSHOT_DIR:
                    wizard.screenshot(path=str(Path(SCREENSHOT_DIR) / "gw-wizard.png"))
            text = next(wizard_lines)
        else:
            text = next(apprentice_lines)
        send(page, partner, text, seq)
        texts.append(text)
        if role == "wizard":
            # The selection is cleared after each send.
            expect(wizard.locator('input[name="checked-sentence"]:checked')).to_have_count(0)
        mine = (seq + 1) // 2 if role == order[0] else seq // 2
        if mine < 2:
            counter = f"Your turns: {mine} of 2"
        else:  # past the minimum: either may end once both have spoken twice
            counter = "Your turns: 2 of 2 " + ("(you may end the chat)" if seq == 4 else "(waiting for your partner's turns)")
        expect(page.get_by_test_id("turn-counter")).to_have_text(counter)
        expect(page.get_by_test_id("turn-limit-warning")).to_be_hidden()  # the limit (12) is far

    # The raw markup in the apprentice's first line is shown as text, not parsed.
    expect(wizard.locator(".message-text i")).to_have_count(0)
    wizard_notes = wizard.locator('[data-testid="message"][data-role="wizard"] .message-meta')
    expect(wizard_notes).to_have_text([f"Knowledge used: “{checked[0][1]}”", "No sentence used"])

    # Both have spoken twice: either may end; the wizard does.
    for page in (wizard, apprentice):
        expect(page.get_by_test_id("end-button")).to_be_visible()
    wizard.get_by_test_id("end-button").click()
    wizard.get_by_test_id("confirm-yes").click()  # "End chat" asks once more

    expect(wizard.get_by_test_id("rating-wait")).to_be_visible()
    expect(apprentice.get_by_test_id("rating-form")).to_be_visible()
    expect(apprentice.get_by_text("How knowledgeable and engaging was your partner?")).to_be_visible()
    apprentice.get_by_test_id("rating-submit").click()
    expect(apprentice.get_by_test_id("rating-error")).to_be_visible()  # nothing picked yet
    apprentice.locator('[data-testid="rating-option"][data-value="4"]').click()
    apprentice.get_by_test_id("rating-submit").click()

    for page in (wizard, apprentice):
        expect(page).to_have_url(re.compile(r"/room/[0-9a-f-]{36}/done/$"))
        expect(page.get_by_test_id("completion-code")).to_have_text("GW-BROWSER-OK")
        expect(page.get_by_test_id("incomplete")).to_have_count(0)
        assert page.script_errors == []  # type: ignore[attr-defined]

    # --- what was stored
    room.refresh_from_db()
    assert room.status == RoomStatus.COMPLETE
    assert room.rating == 4
    assert room.topic == "Blues"
    messages = list(Message.objects.filter(room=room).order_by("seq"))
    assert [m.text for m in messages] == texts
    assert [m.role for m in messages] == [order[i % 2] for i in range(4)]
    wizard_messages = [m for m in messages if m.role == "wizard"]
    (key, sentence), = wizard_messages[0].checked_sentence.items()
    assert key.startswith(f"{checked[0][0]}_")
    assert sentence == checked[0][1]
    assert wizard_messages[0].checked_passage and wizard_messages[0].knowledge_shown
    assert wizard_messages[1].checked_sentence == NO_PASSAGES
    assert wizard_messages[1].checked_passage == NO_PASSAGES
    first_apprentice = next(m for m in messages if m.role == "apprentice")
    assert first_apprentice.checked_sentence is None
    assert first_apprentice.retrieved_passages

    # --- and exported in the Wizard of Wikipedia format
    out = tmp_path / "export"
    call_command("export_dataset", "wow", out=out, verbosity=0)
    # data.json repeats every dialogue of the five split files.
    dialogues = [d for f in sorted(out.glob("*.json")) if f.name != "data.json" for d in json.loads(f.read_text(encoding="utf-8"))]
    ours = [d for d in dialogues if [turn["text"] for turn in d["dialog"]] == texts]
    assert len(ours) == 1, [f.name for f in out.glob("*.json")]
    dialogue = ours[0]
    assert dialogue["chosen_topic"] == "Blues"
    wizard_turns = [turn for turn in dialogue["dialog"] if "wizard" in turn["speaker"].lower()]
    assert [turn["checked_sentence"] for turn in wizard_turns] == [wizard_messages[0].checked_sentence, NO_PASSAGES]


def test_the_wizard_sees_the_articles_that_answer_what_the_apprentice_asks(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    """Two questions of bench/data/panel_questions.json in a Blues room: each brings the article
    that answers it onto the wizard's screen; the wizard checks its sentence, stored under the key
    that names the passage in the question's retrieval."""
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    seq = to_the_apprentices_turn(wizard, apprentice, room)
    questions = [
        ("Why is the harmonica called a blues harp?", "Harmonica", "often called a blues harp"),
        ("Who was called the Father of Rock and Roll?", "Chuck Berry", "Nicknamed the Father of Rock and Roll"),
    ]
    for question, title, answer in questions:
        send(apprentice, wizard, question, seq + 1)
        wait_for_knowledge(wizard, after_seq=seq + 1)
        article = wizard.locator(f'[data-testid="knowledge-article"][data-title="{title}"]')
        expect(article).to_have_count(1)
        expect(article.locator(".source-partner")).to_be_visible()
        if article.get_attribute("open") is None:
            article.locator("summary").click()
        sentence = article.get_by_test_id("knowledge-sentence").filter(has_text=answer)
        sentence.click()
        send(wizard, apprentice, f"Here is what I found about {title}.", seq + 2)
        stored = Message.objects.get(room=room, seq=seq + 2)
        (key, text), = stored.checked_sentence.items()
        assert key.startswith(f"partner_{title.replace(' ', '_')}_") and answer in text
        (passage_key, passage_title), = stored.checked_passage.items()
        assert passage_title == title
        index = int(passage_key.split("_")[1])
        asked = Message.objects.get(room=room, seq=seq + 1)
        assert next(iter(asked.retrieved_passages[index])) == title  # the export's key names it
        seq += 2
    assert wizard.script_errors == []  # type: ignore[attr-defined]


def test_it_blocks_a_wizard_message_without_a_checked_sentence(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    choose_topic(wizard, apprentice, room, "Jazz")
    seq = 0
    if room.first_speaker == "apprentice":
        send(apprentice, wizard, "Tell me about jazz, please.", 1)
        seq = 1
    wait_for_knowledge(wizard, after_seq=seq)

    wizard.get_by_test_id("message-input").fill("Jazz started in New Orleans.")
    wizard.get_by_test_id("send-button").click()
    error = wizard.get_by_test_id("error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("No sentence used")
    expect(wizard.get_by_test_id("knowledge-panel")).to_have_class(re.compile(r"\bknowledge-missing\b"))
    expect(wizard.get_by_test_id("message-input")).to_have_value("Jazz started in New Orleans.")
    expect(wizard.locator('[data-testid="message"][data-role="wizard"]')).to_have_count(0)
    # The page sent nothing: a (wrongly) sent frame would be stored before the one sent below on
    # the same socket, which must be the room's only wizard message (Message.objects.get).
    assert not Message.objects.filter(room=room, role="wizard").exists()
    expect(apprentice.get_by_test_id("message")).to_have_count(seq)

    # Checking a topic sentence unblocks it.
    item = wizard.locator('[data-testid="knowledge-sentence"][data-source="chosen"]').first
    item.click()
    expect(error).to_be_hidden()
    send(wizard, apprentice, "Jazz started in New Orleans.", seq + 1)
    stored = Message.objects.get(room=room, role="wizard")
    (key, sentence), = stored.checked_sentence.items()
    assert key.startswith("chosen_Jazz_")
    assert sentence == item.locator(".sentence-text").inner_text()
    assert wizard.script_errors == []  # type: ignore[attr-defined]

    # Someone without a seat in the room gets a plain refusal page.
    outsider = browser.new_context().new_page()
    response = outsider.goto(wizard.url)
    assert response is not None and response.status == 403
    expect(outsider.get_by_test_id("error-title")).to_have_text("Not your chat")


def test_it_tells_a_lone_worker_when_no_partner_was_found(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    Campaign.objects.filter(pk=wow_campaign.pk).update(wait_timeout_seconds=2)
    alice = open_worker(browser, daphne_server, wow_campaign, "alice")
    expect(alice.get_by_test_id("status")).to_have_attribute("data-state", "waiting")
    # The waiting page opens the finish page by itself, with the code for waiting in vain.
    expect(alice).to_have_url(re.compile(r"/a/\d+/done/$"))
    expect(alice.get_by_test_id("done")).to_have_attribute("data-outcome", "no_partner")
    expect(alice.get_by_test_id("outcome-text")).to_contain_text("Nobody else joined in time")
    expect(alice.get_by_test_id("completion-code")).to_have_text(wow_campaign.outcome_codes["no_partner"])
    assert alice.script_errors == []  # type: ignore[attr-defined]


class FlakyNetwork:
    """A proxy on the room sockets that can lose one frame and then drop the connection, the way a
    train tunnel does. `lose(page, "message")` loses the page's next message frame;
    `lose(page, "message", to_page=True)` the server's next message frame to that page (its own
    message coming back is its acknowledgement). Frames from the pages are logged."""

    def __init__(self) -> None:
        self.connections: list[tuple[str, WebSocketRoute, WebSocketRoute]] = []  # (worker, page end, server end)
        self.sent: list[tuple[int, dict]] = []  # (connection number, frame) sent by the pages
        self.received: list[tuple[int, dict]] = []  # (connection number, frame) sent to the pages
        self.losing: tuple[str, str, bool] | None = None  # (worker, frame type, to the page)

    def handler(self, worker: str):
        def route(page_side: WebSocketRoute) -> None:
            server_side = page_side.connect_to_server()
            number = len(self.connections)
            self.connections.append((worker, page_side, server_side))

            def from_page(raw: str | bytes) -> None:
                frame = json.loads(raw)
                self.sent.append((number, frame))
                if not self._lost(number, frame, to_page=False):
                    server_side.send(raw)

            def from_server(raw: str | bytes) -> None:
                frame = json.loads(raw)
                self.received.append((number, frame))
                if not self._lost(number, frame, to_page=True):
                    page_side.send(raw)

            page_side.on_message(from_page)
            server_side.on_message(from_server)

        return route

    def lose(self, page: Page, frame_type: str, *, to_page: bool = False) -> None:
        self.losing = (page.worker, frame_type, to_page)  # type: ignore[attr-defined]

    def count(self, page: Page) -> int:
        return sum(1 for worker, _, _ in self.connections if worker == page.worker)  # type: ignore[attr-defined]

    def _lost(self, number: int, frame: dict, *, to_page: bool) -> bool:
        worker, page_side, server_side = self.connections[number]
        latest = max(i for i, c in enumerate(self.connections) if c[0] == worker)
        if self.losing != (worker, frame.get("type"), to_page) or number != latest:
            return False
        self.losing = None
        # 1012 "service restart" is not a refusal, so the page reconnects.
        server_side.close(code=1000)  # JS may close a real socket only with 1000 or 3000-4999
        page_side.close(code=1012, reason="network lost")
        return True


@pytest.mark.stack
def test_it_resends_unacked_messages_after_a_reconnect_and_stores_them_once(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    network = FlakyNetwork()
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign, room_proxy=network)
    seq = to_the_apprentices_turn(wizard, apprentice, room)

    # 1. The message is stored but its acknowledgement (the message coming back to its page) is
    #    lost with the connection: the page reconnects, syncs, resends the same client_id and gets
    #    the same seq back; nothing is stored twice.
    connections_before = len(network.connections)
    network.lose(apprentice, "message", to_page=True)
    send(apprentice, wizard, "Where does the blues come from?", seq + 1)
    seq += 1
    # The message was stored before its acknowledgement was lost, so it can show on the wizard's
    # page before the apprentice's reconnects.
    # The page reconnects, syncs and resends (the resend follows the sync).
    for _ in range(300):
        if any(n == connections_before and f["type"] == "message" for n, f in network.sent):
            break
        apprentice.wait_for_timeout(50)
    assert len(network.connections) == connections_before + 1
    assert network.connections[-1][0] == apprentice.worker  # type: ignore[attr-defined]
    frames = [f for n, f in network.sent if n == connections_before]
    # The page syncs from the last seq it saw, which its lost message was not, and resends it.
    assert frames[0]["type"] == "sync" and frames[0]["after"] == seq - 1
    resent = [f for f in frames if f["type"] == "message"]
    assert [f["text"] for f in resent] == ["Where does the blues come from?"]
    for frame in resent:
        first_try = next(f for n, f in network.sent if n < connections_before and f["type"] == "message" and f["text"] == frame["text"])
        assert frame["client_id"] == first_try["client_id"]
    # The wizard may have seen "left" then "back", or nothing at all when the new socket opened
    # before the old one's close was processed; never a partner left for good.
    expect(wizard.get_by_test_id("partner-status")).to_have_attribute("data-connected", "true")

    wait_for_knowledge(wizard, after_seq=seq)
    wizard.get_by_test_id("no-sentence").click()
    send(wizard, apprentice, "From the Deep South of the United States.", seq + 1)
    seq += 1

    # 2. The message frame itself is lost: it shows as sending until the page is back, then goes.
    apprentice_connections = network.count(apprentice)
    network.lose(apprentice, "message")
    apprentice.get_by_test_id("message-input").fill("When did it start?")
    apprentice.get_by_test_id("send-button").click()
    mine = apprentice.locator(f'[data-testid="message"][data-seq="{seq + 1}"]')
    expect(mine).to_have_attribute("data-state", "sent")
    expect(wizard.locator(f'[data-testid="message"][data-seq="{seq + 1}"] .message-text')).to_have_text("When did it start?")
    assert network.count(apprentice) == apprentice_connections + 1

    stored = list(Message.objects.filter(room=room).order_by("seq").values_list("role", "text"))
    assert [text for _, text in stored].count("Where does the blues come from?") == 1
    assert [text for _, text in stored].count("When did it start?") == 1
    assert len(stored) == seq + 1
    for page in (wizard, apprentice):
        expect(page.get_by_test_id("message")).to_have_count(seq + 1)
        assert page.script_errors == []  # type: ignore[attr-defined]
