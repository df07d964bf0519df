"""The authenticity signals against scripted workers in real Chromium (tests/browser/scripted_workers.py):
one dialogue per kind, records made by the chat page's own script and sent over the room socket,
signals computed when each room ends. No honest typist (key by key, input method, phone) is flagged;
every cheat is flagged by the signal meant for it. bench/authenticity_chromium.py runs the same on
210 dialogues and prints precision and recall (docs/benchmarks.md)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from collect.models import Campaign, Message
from tests.browser.scripted_workers import KINDS, run_dialogues, score

pytestmark = [pytest.mark.backends, pytest.mark.browser]

# Typing speeds the records must show (characters a second over the active typing time), by kind:
# what the scripts key, as the page measured it under the fake clock.
SPEEDS = {"typist": (2, 12), "ime": (0.5, 12), "phone": (1, 12), "two_ids": (2, 12), "fast_typer": (35, 45)}


def test_no_honest_typist_is_flagged_and_every_scripted_cheat_is_by_its_own_signal(
    browser: Browser, daphne_server: str, wow_campaign: Campaign
) -> None:
    # One message each: the chat ends by itself after the apprentice's, and the apprentice rates it.
    Campaign.objects.filter(pk=wow_campaign.pk).update(min_turns=1, max_turns=1, turn_limit=1)
    wow_campaign.refresh_from_db()
    kinds = [*KINDS, "two_ids"]  # the same person's second worker id, in the same browser
    run = run_dialogues(browser, daphne_server, wow_campaign, kinds)

    messages = list(Message.objects.filter(room_id__in=run.rooms))
    assert len(messages) == 2 * len(kinds)
    for message in messages:
        record = message.authenticity
        assert record["client_status"] == "ok", (message.text, record)
        kind, client = run.truth[message.sender_id], record["client"]
        if kind in SPEEDS:
            low, high = SPEEDS[kind]
            assert low < client["typed_chars"] / (client["typing_ms"] / 1000) < high, (kind, message.text, client)
        # Where the page found pasted text; input methods, autocorrect and voice are no pastes.
        pasted = {"outside_paster": {"outside"}, "knowledge_paster": {"knowledge"}}.get(kind, set())
        assert set(client["paste"]) == pasted, (kind, client)
        if kind == "ime":
            assert client["compositions"] > 0, client
        if kind == "phone":  # voice input in each one's first message
            assert client["inserted_chars"] > 0, client

    result = score(run.truth)
    assert result.honest_flagged() == {}, result.table()
    # A person's first id too: its room's signals were computed when it ended, before the second
    # id entered from the same browser, and the second's room flags the first's seat.
    assert result.missed() == {}, result.table()
