"""A search server that is down, slow or answers garbage, through the real socket path: the
wizard's panel says what happened, the wizard can search again and reply, the turn is not held up,
and the failed searches are kept (with their query and why) but left out of the dataset."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command

from collect.models import Campaign
from collect.tasktypes.woi.models import SearchStatus, WoiSearch
from collect.tasktypes.woi.searching import searches_settled
from tests.collect.ws import receive_until, send
from tests.woi.conftest import make_campaign, make_room
from tests.woi.search_server import closed_port_url, search_server
from tests.woi.ws import chatting, panel, say

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


def http_campaign(knowledge, url: str, timeout_s: float = 0.5) -> Campaign:
    return make_campaign(knowledge, slug="woi-http", search={"backend": "http", "url": url, "timeout_s": timeout_s})


@pytest.mark.parametrize(("mode", "code", "says"), [
    ("error", "search_error", "HTTP 500"), ("garbage", "search_garbage", "not JSON"), ("slow", "search_slow", "within 0.5 s"),
])
async def test_a_failed_search_says_why_and_the_wizard_searches_again(knowledge, mode: str, code: str, says: str) -> None:
    with search_server() as server:
        campaign = await database_sync_to_async(http_campaign)(knowledge, server.url)
        paired = await database_sync_to_async(make_room)(campaign)
        wizard, apprentice = await chatting(paired)
        server.mode = mode
        await send(wizard, {"type": "search", "client_id": "s1", "query": "mount fuji"})
        failed = await panel(wizard, status="failed")
        assert failed["latest"]["error"]["code"] == code and says in failed["latest"]["error"]["message"]
        assert failed["shown"] is None
        server.mode = "ok"
        await send(wizard, {"type": "search", "client_id": "s2", "query": "mount fuji"})
        done = await panel(wizard, status="done")
        assert [d["title"] for d in done["shown"]["documents"]] == ["Mount Fuji", "Hiking", "Onsen"]
        # A later failure keeps the documents on screen, selectable.
        server.mode = mode
        await send(wizard, {"type": "search", "client_id": "s3", "query": "onsen"})
        again = await panel(wizard, status="failed")
        assert again["shown"] == done["shown"]
        reply = await say(wizard, "Fuji is Japan's highest mountain.", "w1", selected={"search": done["shown"]["search"], "sentences": [[0, 0], [2, 0]]})
        assert reply["seq"] == 1
        await wizard.disconnect()
        await apprentice.disconnect()
        await searches_settled()
    stored = await database_sync_to_async(lambda: list(WoiSearch.objects.order_by("pk").values_list("status", "error_code")))()
    assert stored == [(SearchStatus.FAILED, code), (SearchStatus.DONE, ""), (SearchStatus.FAILED, code)]


async def test_a_server_that_is_down_fails_the_search_and_the_wizard_can_still_reply(knowledge) -> None:
    campaign = await database_sync_to_async(http_campaign)(knowledge, closed_port_url())
    paired = await database_sync_to_async(make_room)(campaign)
    wizard, apprentice = await chatting(paired)
    await send(wizard, {"type": "search", "client_id": "s1", "query": "mount fuji"})
    failed = await panel(wizard, status="failed")
    assert failed["latest"]["error"]["code"] == "search_down"
    assert (await say(wizard, "Tell me about your trip!", "w1", selected={"search": None, "sentences": []}))["seq"] == 1
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_a_slow_search_does_not_hold_up_the_reply_and_is_not_exported(knowledge, tmp_path: Path) -> None:
    with search_server() as server:
        campaign = await database_sync_to_async(http_campaign)(knowledge, server.url, timeout_s=5.0)
        paired = await database_sync_to_async(make_room)(campaign)
        wizard, apprentice = await chatting(paired)
        server.mode, server.delay = "slow", 3.0
        await send(wizard, {"type": "search", "client_id": "s1", "query": "mount fuji"})
        await panel(wizard, status="pending")
        started = time.monotonic()
        reply = await say(wizard, "What do you like about Japan?", "w1", selected={"search": None, "sentences": []})
        assert reply["seq"] == 1 and time.monotonic() - started < 2.0  # not after the search
        relayed = await receive_until(apprentice, "message")
        assert relayed["text"] == "What do you like about Japan?"
        await wizard.disconnect()
        await apprentice.disconnect()
        await searches_settled()
    search = await database_sync_to_async(WoiSearch.objects.get)(room=paired.room)
    assert search.status == SearchStatus.FAILED and search.error_code == "abandoned"  # its documents came too late to be shown
    await database_sync_to_async(_end_and_export)(paired, tmp_path)
    assert "1 search(es) left out" in (tmp_path / "notes.txt").read_text()


def _end_and_export(paired, tmp_path: Path) -> None:
    from collect.models import Room, RoomStatus

    Room.objects.filter(pk=paired.room.pk).update(status=RoomStatus.COMPLETE)
    out = io.StringIO()
    call_command("export_dataset", "woi", "--out", str(tmp_path / "out"), stdout=out)
    (tmp_path / "notes.txt").write_text(out.getvalue())
    assert '"Wizard => SearchAgent"' not in (tmp_path / "out" / "train.jsonl").read_text() + (tmp_path / "out" / "valid.jsonl").read_text() + (tmp_path / "out" / "test.jsonl").read_text()
