"""Text that is easy to damage — mixed scripts, emoji sequences, combining characters, full-width
punctuation — goes through the socket and the exporter exactly as typed (no normalisation), and the
length limit counts characters as Python does (code points), as the page counts them."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command

from collect.models import Message, Room, RoomStatus
from tests.collect.ws import receive_until
from tests.collect.conftest import DuConvRoom
from tests.duconv.test_room_consumer import join

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]

TEXTS = [
    "Inception（盗梦空间）は最高! Привет, مرحبا, שלום",  # mixed scripts, right-to-left among them
    "👩🏽‍💻 👨‍👩‍👧‍👦 🇨🇳 ❤️ 😀",  # ZWJ sequences, a skin tone, a flag, a variation selector
    "cafe\u0301 vs caf\u00e9, a\u0300\u0301\u0302\u0303",  # decomposed and precomposed kept apart
    "你好，世界！「引号」（括号）：；？……——ＡＢＣ１２３　全角空格在中间",  # full-width forms, U+3000 inside
    "𠀀𪚥 are outside the BMP",  # CJK extension B
]


async def say_raw(communicator: Any, text: str, client_id: str) -> dict:
    # As a browser sends it: JSON with the characters themselves, not \\u escapes.
    await communicator.send_to(text_data=json.dumps({"type": "message", "client_id": client_id, "text": text}, ensure_ascii=False))
    while True:
        frame = await communicator.receive_json_from(timeout=5)
        if frame["type"] == "error" or (frame["type"] in ("message", "ack") and frame.get("client_id") == client_id):
            return frame


@database_sync_to_async
def stored(paired: DuConvRoom) -> list[str]:
    return list(Message.objects.filter(room=paired.room).order_by("seq").values_list("text", flat=True))


@database_sync_to_async
def complete(paired: DuConvRoom) -> None:
    Room.objects.filter(pk=paired.room.pk).update(status=RoomStatus.COMPLETE)


async def test_hard_text_is_stored_relayed_and_exported_exactly(paired: DuConvRoom, tmp_path: Path) -> None:
    agent, _ = await join(paired, paired.agent)
    user, _ = await join(paired, paired.user)
    for n, text in enumerate(TEXTS, start=1):
        frame = await say_raw(agent if n % 2 else user, text, f"c{n}")
        assert frame["type"] == "message" and frame["text"] == text
        relayed = await receive_until(user if n % 2 else agent, "message")
        assert relayed["text"] == text
    await agent.disconnect()
    await user.disconnect()
    assert await stored(paired) == TEXTS

    await complete(paired)
    out = tmp_path / "out"
    await database_sync_to_async(call_command)(
        "export_dataset", "duconv", "--out", str(out), "--test", "0", "--valid", "0", stdout=io.StringIO()
    )
    raw = (out / "train.txt").read_bytes()
    assert json.loads(raw)["conversation"] == TEXTS
    for text in TEXTS:
        assert text.encode("utf-8") in raw  # written as the characters themselves, byte for byte


async def test_the_length_limit_counts_code_points(paired: DuConvRoom, settings) -> None:
    settings.MESSAGE_MAX_CHARS = 10
    agent, _ = await join(paired, paired.agent)
    # Ten emoji are 20 UTF-16 units (a page's String.length) but ten characters here.
    too_long = await say_raw(agent, "😀" * 6 + "汉字𠀀e\u0301", "long")  # 11 code points
    assert too_long["type"] == "error" and too_long["code"] == "bad_frame" and "longer than 10 characters" in too_long["message"]
    assert await stored(paired) == []
    fits = await say_raw(agent, "😀" * 7 + "汉𠀀字", "fits")
    assert fits["type"] == "message" and fits["text"] == "😀" * 7 + "汉𠀀字"
    await agent.disconnect()
