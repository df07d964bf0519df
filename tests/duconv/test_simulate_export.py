"""`manage.py simulate duconv` runs whole dialogues through the real websocket stack over generated
goals; their export (sessions, samples, segmented text) has DuConv's exact shape."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from collect.tasktypes.duconv.completion import goal_completion
from collect.models import Campaign, Message, Room, RoomStatus
from collect.tasktypes.duconv.models import DuConvSession
from tests.authenticity.exported import assert_carried
from retrieval.words import CJK

HAN = re.compile(f"[{CJK}]")

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


def test_it_simulates_and_exports_complete_dialogues(campaign: Campaign, tmp_path: Path) -> None:
    out = io.StringIO()
    call_command("simulate", "duconv", dialogues=3, concurrency=2, stdout=out)
    assert "simulated 3 complete dialogues" in out.getvalue()
    rooms = list(Room.objects.filter(campaign=campaign))
    assert len(rooms) == 3 and all(room.status == RoomStatus.COMPLETE for room in rooms)
    for session in DuConvSession.objects.filter(room__in=rooms):
        messages = list(Message.objects.filter(room=session.room).order_by("seq"))
        assert messages[0].role == "agent" and session.user_rating is not None
        assert 11 <= len(session.knowledge) <= 21
        assert any(m.knowledge_used for m in messages if m.role == "agent")
        assert all(m.knowledge_used is None for m in messages if m.role == "user")
        texts = [m.text for m in messages]
        assert goal_completion(session.goal, session.knowledge, texts, [m.knowledge_used for m in messages]) == 2
        # An English graph's dialogue is English, and no one says the same thing twice.
        assert not any(HAN.search(text) for text in texts) and len(set(texts)) == len(texts)
        # The user answers what the agent just said: a value or subject of the triples it marked.
        for said, answer in zip(messages[0::2], messages[1::2]):
            named = {part for i in said.knowledge_used or [] for part in (session.knowledge[i][0], session.knowledge[i][2])}
            assert not named or any(part in answer.text for part in named), (said.text, answer.text)

    call_command("export_dataset", "duconv", "--out", str(tmp_path / "out"), "--test", "0.5", "--valid", "0.25", stdout=io.StringIO())
    lines = [json.loads(line) for name in ("train", "dev", "test") for line in (tmp_path / "out" / f"{name}.txt").read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 3
    assert all(list(line) == ["goal", "knowledge", "conversation"] for line in lines)
    again = tmp_path / "again"
    call_command("export_dataset", "duconv", "--out", str(again), "--test", "0.5", "--valid", "0.25", stdout=io.StringIO())
    for name in ("train", "dev", "test"):  # the hash split is stable
        assert (again / f"{name}.txt").read_bytes() == (tmp_path / "out" / f"{name}.txt").read_bytes()
    assert_carried("duconv", rooms, tmp_path / "with-authenticity")


def test_it_segments_collected_chinese_text(campaign: Campaign, tmp_path: Path) -> None:
    from tests.collect.conftest import make_room

    paired = make_room(campaign)
    room = paired.room
    Message.objects.create(room=room, seq=1, sender=paired.agent.assignment, role="agent", client_id="a", text="我喜欢看电影", knowledge_used=[])
    Message.objects.create(room=room, seq=2, sender=paired.user.assignment, role="user", client_id="u", text="我也是")
    Room.objects.filter(pk=room.pk).update(status=RoomStatus.COMPLETE)
    call_command("export_dataset", "duconv", "--out", str(tmp_path / "raw"), "--test", "0", "--valid", "0", stdout=io.StringIO())
    call_command("export_dataset", "duconv", "--segment", "--out", str(tmp_path / "seg"), "--test", "0", "--valid", "0", stdout=io.StringIO())
    raw = json.loads((tmp_path / "raw" / "train.txt").read_text(encoding="utf-8"))
    seg = json.loads((tmp_path / "seg" / "train.txt").read_text(encoding="utf-8"))
    assert raw["conversation"] == ["我喜欢看电影", "我也是"]  # stored as typed
    assert seg["conversation"][0].replace(" ", "") == "我喜欢看电影" and " " in seg["conversation"][0]
    assert "我 喜欢" in seg["conversation"][0]
