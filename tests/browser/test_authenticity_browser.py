"""Authenticity records gathered in real Chromium: an honest apprentice typing key by key and a
wizard pasting a sentence of the knowledge panel from the clipboard; the records differ as they
should, the review page lists the paster's flag, and the campaign's copy and paste rules speak to
the worker before anything is sent (docs/authenticity.md)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from playwright.sync_api import Browser, Page, expect

from collect.authenticity.signals import room_signals_compute
from collect.lifecycle.outcomes import room_outcomes_set
from collect.models import Campaign, Message, Room, RoomStatus
from tests.browser.test_wow_browser import choose_topic, pair, wait_for_knowledge

pytestmark = [pytest.mark.backends, pytest.mark.browser]

QUESTION = "Where did the blues come from?"


def type_honestly(page: Page, text: str) -> None:
    """Key by key at a person's pace, with a typo corrected on the way."""
    box = page.get_by_test_id("message-input")
    box.click()
    page.keyboard.type(text[:5] + "x", delay=110)
    page.keyboard.press("Backspace")
    page.keyboard.type(text[5:], delay=110)


def paste(page: Page, text: str) -> None:
    """Through the clipboard, as Ctrl+V does it."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.evaluate("(text) => navigator.clipboard.writeText(text)", text)
    page.get_by_test_id("message-input").click()
    page.keyboard.press("ControlOrMeta+V")
    expect(page.get_by_test_id("message-input")).to_have_value(text)


def panel_sentence(wizard: Page) -> str:
    item = wizard.get_by_test_id("knowledge-sentence").filter(visible=True).first
    return item.locator(".sentence-text").inner_text()


def sent(page: Page, seq: int) -> None:
    page.get_by_test_id("send-button").click()
    expect(page.locator(f'[data-testid="message"][data-seq="{seq}"]')).to_have_attribute("data-state", "sent")


def to_wizards_turn(wizard: Page, apprentice: Page, room: Room) -> int:
    """Topic chosen; the apprentice has asked (typed honestly) when the apprentice opens.
    Returns the seq of the wizard's coming message."""
    choose_topic(wizard, apprentice, room, "Blues")
    if room.first_speaker == "wizard":
        return 1
    expect(apprentice.get_by_test_id("send-button")).to_be_enabled()
    type_honestly(apprentice, QUESTION)
    sent(apprentice, 1)
    return 2


def to_apprentices_turn(wizard: Page, apprentice: Page, room: Room) -> int:
    """After the topic: the wizard greets (typed honestly) when the wizard opens. Returns the seq
    of the apprentice's coming message, once the apprentice may send."""
    seq = 1
    if room.first_speaker == "wizard":
        wait_for_knowledge(wizard, after_seq=0)
        wizard.get_by_test_id("no-sentence").click()
        type_honestly(wizard, "Hello, shall we talk about it?")
        sent(wizard, 1)
        seq = 2
    expect(apprentice.get_by_test_id("send-button")).to_be_enabled()
    return seq


def test_an_honest_typist_and_a_paster_leave_different_records_and_the_review_lists_the_flag(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    seq = to_wizards_turn(wizard, apprentice, room)
    wait_for_knowledge(wizard, after_seq=seq - 1)
    sentence = panel_sentence(wizard)
    wizard.get_by_test_id("knowledge-sentence").filter(visible=True).first.click()
    paste(wizard, sentence)
    sent(wizard, seq)
    if seq == 1:  # the apprentice answers, typing
        expect(apprentice.get_by_test_id("send-button")).to_be_enabled()
        type_honestly(apprentice, QUESTION)
        sent(apprentice, 2)

    records = {m.role: m.authenticity for m in Message.objects.filter(room=room)}
    pasted, typed = records["wizard"], records["apprentice"]
    assert pasted["client_status"] == typed["client_status"] == "ok", (pasted, typed)
    assert pasted["client"]["paste"] == {"knowledge": {"count": 1, "chars": len(sentence)}}
    assert pasted["client"]["typed_chars"] == 0
    assert typed["client"]["paste"] == {}
    assert typed["client"]["typed_chars"] == len(QUESTION) + 1  # and the typo, deleted
    speed = typed["client"]["typed_chars"] / (typed["client"]["typing_ms"] / 1000)
    assert 2 < speed < 20, typed
    assert typed["client"]["compose_ms"] >= typed["client"]["typing_ms"] > 2000

    Room.objects.filter(pk=room.pk).update(status=RoomStatus.COMPLETE)
    room_outcomes_set(room=Room.objects.get(pk=room.pk), outcomes={})
    room_signals_compute(room_id=room.pk)
    staff = Client()
    staff.force_login(User.objects.create_user("rita", password="x", is_staff=True, is_superuser=True))
    page = staff.get(f"/research/{wow_campaign.slug}/review/?sort=flags").content.decode()
    wizard_seat = room.members.get(role="wizard")
    assert f'data-testid="flags-{wizard_seat.pk}" data-flags="1"' in page
    assert 'data-kind="knowledge_copy"' in page and f"turn {seq}" in page
    assert wizard.script_errors == apprentice.script_errors == []  # type: ignore[attr-defined]


def test_the_page_refuses_a_copied_sentence_and_an_outside_paste_and_says_why(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    Campaign.objects.filter(pk=wow_campaign.pk).update(authenticity_policy={"wizard": {"paste": "knowledge", "copy": "refuse"}})
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    seq = to_wizards_turn(wizard, apprentice, room)
    wait_for_knowledge(wizard, after_seq=seq - 1)
    wizard.get_by_test_id("no-sentence").click()
    # Outside text does not go in: the worker is told why.
    wizard.context.grant_permissions(["clipboard-read", "clipboard-write"])
    wizard.evaluate("() => navigator.clipboard.writeText('Text written somewhere else entirely.')")
    wizard.get_by_test_id("message-input").click()
    wizard.keyboard.press("ControlOrMeta+V")
    expect(wizard.get_by_test_id("error")).to_contain_text("you can paste only from the knowledge panel")
    expect(wizard.get_by_test_id("message-input")).to_have_value("")
    # The panel's sentence goes in, but sending it whole is refused before anything is sent.
    sentence = panel_sentence(wizard)
    paste(wizard, sentence)
    wizard.get_by_test_id("send-button").click()
    expect(wizard.get_by_test_id("error")).to_contain_text("in your own words")
    expect(wizard.get_by_test_id("message-input")).to_have_value(sentence)
    assert not Message.objects.filter(room=room, role="wizard").exists()
    # Rewritten, it goes.
    wizard.get_by_test_id("message-input").fill("")
    type_honestly(wizard, "It started in the American south, I read.")
    sent(wizard, seq)
    [message] = Message.objects.filter(room=room, role="wizard")
    assert message.authenticity["client"]["paste"] == {"knowledge": {"count": 1, "chars": len(sentence)}}


def test_an_input_method_is_typing_and_voice_or_autocorrect_is_no_paste(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    """The apprentice composes with an input method (Chrome's IME events, through the DevTools
    protocol), then a phone's voice input inserts a phrase at once: no paste, nothing flagged."""
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    choose_topic(wizard, apprentice, room, "Blues")
    seq = to_apprentices_turn(wizard, apprentice, room)
    apprentice.get_by_test_id("message-input").click()
    cdp = apprentice.context.new_cdp_session(apprentice)
    for partial in ("n", "ni", "nih", "niha", "nihao"):
        cdp.send("Input.imeSetComposition", {"text": partial, "selectionStart": len(partial), "selectionEnd": len(partial)})
    cdp.send("Input.insertText", {"text": "你好"})  # the candidate picked: the composition ends
    apprentice.keyboard.insert_text(" where did the blues start")  # voice input: one insertion
    expect(apprentice.get_by_test_id("message-input")).to_have_value("你好 where did the blues start")
    sent(apprentice, seq)
    record = Message.objects.get(room=room, seq=seq).authenticity
    assert record["client_status"] == "ok", record
    client = record["client"]
    assert client["paste"] == {} and client["compositions"] >= 1 and client["typed_chars"] >= 2, client
    assert client["inserted_chars"] == len(" where did the blues start"), client
    room_signals_compute(room_id=room.pk)
    assert not room.authenticity_flags.filter(seq=seq).exists()


def test_a_timeline_campaign_says_so_and_keeps_each_edit_of_the_roles_it_names(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    """The apprentice's turns keep their insertion timelines (docs/authenticity.md#insertion-timeline):
    keys with a typo mended, an input method, voice input and a paste, each an edit of its kind,
    replaying to the message stored; the wizard's page neither says so nor sends one."""
    Campaign.objects.filter(pk=wow_campaign.pk).update(authenticity_policy={"apprentice": {"timeline": "on"}})
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    choose_topic(wizard, apprentice, room, "Blues")
    expect(apprentice.get_by_test_id("timeline-notice")).to_be_visible()
    expect(wizard.get_by_test_id("timeline-notice")).to_have_count(0)
    seq = to_apprentices_turn(wizard, apprentice, room)
    type_honestly(apprentice, "So the blues")
    cdp = apprentice.context.new_cdp_session(apprentice)
    for partial in (" n", " ni", " nih"):
        cdp.send("Input.imeSetComposition", {"text": partial, "selectionStart": len(partial), "selectionEnd": len(partial)})
    cdp.send("Input.insertText", {"text": " 你好"})
    apprentice.keyboard.insert_text(" came from the south")  # voice input
    apprentice.context.grant_permissions(["clipboard-read", "clipboard-write"])
    apprentice.evaluate("() => navigator.clipboard.writeText(', they say.')")
    apprentice.keyboard.press("ControlOrMeta+V")
    text = "So the blues 你好 came from the south, they say."
    expect(apprentice.get_by_test_id("message-input")).to_have_value(text)
    sent(apprentice, seq)

    client = Message.objects.get(room=room, seq=seq).authenticity["client"]
    timeline = client["timeline"]
    assert {"key", "delete", "ime", "insert", "paste"} <= {edit[1] for edit in timeline}, timeline
    assert client["timeline_replays"] is True and client["timeline_cut"] == 0, timeline
    assert [edit[0] for edit in timeline] == sorted(edit[0] for edit in timeline)
    # The typed keys are one run each side of the typo, with a gap per key after the first.
    first = timeline[0]
    assert first[1] == "key" and first[4] == "So th" + "x" and len(first[5]) == 5, first
    if seq == 2:
        assert "timeline" not in Message.objects.get(room=room, seq=1).authenticity["client"]
    assert wizard.script_errors == apprentice.script_errors == []  # type: ignore[attr-defined]


def test_a_timeline_too_long_for_a_frame_keeps_its_oldest_edits_and_says_how_many_were_cut(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    wizard, apprentice, room = pair(browser, daphne_server, wow_campaign)
    fitted = apprentice.evaluate(
        """async () => {
          const src = document.querySelector('script[type="module"]').src;
          const { fitTimeline } = await import(new URL("../js/authenticity.js", src).href);
          const timeline = Array.from({ length: 3000 }, (_, i) => [i * 150, "key", i, 0, "a", []]);
          const frame = fitTimeline({ type: "message", text: "x", authenticity: { v: 1, timeline, timeline_cut: 0 } }, 8192);
          const bytes = new TextEncoder().encode(JSON.stringify(frame)).length;
          const kept = frame.authenticity.timeline;
          const oneMore = { ...frame, authenticity: { v: 1, timeline: timeline.slice(0, kept.length + 1), timeline_cut: 0 } };
          const oneMoreBytes = new TextEncoder().encode(JSON.stringify(oneMore)).length;
          return { bytes, oneMoreBytes, kept: kept.length, cut: frame.authenticity.timeline_cut, last: kept[kept.length - 1][0] };
        }"""
    )
    assert fitted["bytes"] <= 8192 and fitted["kept"] + fitted["cut"] == 3000 and fitted["cut"] > 0, fitted
    assert fitted["last"] == (fitted["kept"] - 1) * 150, fitted  # the oldest kept, in order
    assert fitted["oneMoreBytes"] > 8192, fitted  # the cut is as small as it can be
