"""Two workers hold a Chinese DuConv dialogue on the `duconv-zh-demo` campaign through the real ASGI
stack (bob the agent, alice the user); its export, plain and word-segmented, reads back with
`import_dataset duconv` and exports again byte for byte."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command

from collect.tasktypes.duconv.demo import ZH_DEMO_SLUG, duconv_zh_demo_ensure
from collect.models import Campaign, Message, RoomStatus
from collect.tasktypes.duconv.models import DuConvSession
from collect.selectors import dialogue_context
from tests.collect.ws import receive_until, send
from tests.collect.conftest import DuConvRoom, make_room
from tests.duconv.test_room_consumer import join, say

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]


# Topic B's name has a middle dot, which the agent types as another one.
GOAL = [["START", "盗梦空间", "克里斯托弗·诺兰"], ["盗梦空间", "导演", "克里斯托弗·诺兰"]]


@pytest.fixture
def zh_room() -> DuConvRoom:
    campaign = duconv_zh_demo_ensure()
    campaign.protocol_config = {"goals": [{"goal": GOAL}]}
    campaign.save(update_fields=["protocol_config"])
    return make_room(campaign)


def written_as_typed(name: str) -> str:
    """A name as a worker types it: another middle dot, full-width colon as a plain one."""
    return name.replace("·", "・").replace("：", ":")


def dialogue(goal: list[list[str]], knowledge: list[list[str]]) -> list[tuple[str, list[int] | None]]:
    a, b = goal[0][1], goal[0][2]
    link = next(i for i, t in enumerate(knowledge) if t in goal[1:])
    of_a = next(i for i, t in enumerate(knowledge) if t[0] == a and i != link)
    of_b = next((i for i, t in enumerate(knowledge) if t[0] == b and i != link), link)
    fact = lambda i: f"{knowledge[i][1]}是{written_as_typed(knowledge[i][2])}"  # noqa: E731
    return [
        ("你好呀！周末一般做什么？", []),
        ("在家看电影😀，你呢？", None),
        (f"我最近在看《{written_as_typed(a)}》，{fact(of_a)}，很不错。", [of_a]),
        ("听起来挺有意思的，讲讲吧！", None),
        (f"说到这个，{written_as_typed(knowledge[link][0])}的{fact(link)}。", [link]),
        ("哇，这个我倒不知道……", None),
        (f"{written_as_typed(b)}的{fact(of_b)}，你了解吗？", [of_b]),
        ("了解一点，谢谢你的介绍！👍", None),
    ]


@database_sync_to_async
def stored(room: DuConvRoom) -> tuple[DuConvSession, list[Message]]:
    session = DuConvSession.objects.select_related("room__campaign").get(room=room.room)
    return session, list(Message.objects.filter(room=room.room).order_by("seq"))


async def finish(zh_room: DuConvRoom, agent: Any, user: Any) -> None:
    await send(agent, {"type": "end"})
    while (await receive_until(user, "state"))["status"] != RoomStatus.RATING:
        pass
    await send(user, {"type": "rate", "rating": 5})
    while (await receive_until(user, "state"))["status"] != RoomStatus.COMPLETE:
        pass


async def test_two_workers_complete_a_chinese_dialogue_on_the_demo(zh_room: DuConvRoom) -> None:
    session, _ = await stored(zh_room)
    assert session.room.campaign.slug == ZH_DEMO_SLUG
    agent, agent_state = await join(zh_room, zh_room.agent)
    user, _ = await join(zh_room, zh_room.user)
    assert agent_state["goal_path"] == GOAL[0] and agent_state["mentioned"] == {"a": False, "b": False}
    lines = dialogue(session.goal, session.knowledge)
    assert not any(GOAL[0][2] in text for text, _ in lines)
    for n, (text, used) in enumerate(lines, start=1):
        speaker = agent if n % 2 else user
        fields = {"knowledge_used": used} if used is not None else {}
        frame = await say(speaker, text, f"m{n}", **fields)
        assert frame["type"] == "message" and frame["seq"] == n and frame["text"] == text
    state = await receive_until(agent, "state")
    while min(state["turns"].values()) < 4:  # the states queued before the user's last message
        state = await receive_until(agent, "state")
    # Topic B, typed with another middle dot, counts as mentioned.
    assert state["mentioned"] == {"a": True, "b": True} and state["can_end"]
    await finish(zh_room, agent, user)
    await agent.disconnect()
    await user.disconnect()

    session, messages = await stored(zh_room)
    assert session.room.status == RoomStatus.COMPLETE and session.user_rating == 5
    assert [m.text for m in messages] == [text for text, _ in lines]
    assert [m.knowledge_used for m in messages] == [sorted(u) if u is not None else None for _, u in lines]


def export(tmp_path: Path, name: str, *args: str) -> Path:
    out = tmp_path / name
    call_command("export_dataset", "duconv", "--out", str(out), "--test", "0", "--valid", "0", *args, stdout=io.StringIO())
    return out


def complete_room(campaign: Campaign, lines: list[tuple[str, list[int] | None]] | None = None) -> DuConvRoom:
    room = make_room(campaign)
    session = DuConvSession.objects.get(room=room.room)
    for seq, (text, used) in enumerate(lines or dialogue(session.goal, session.knowledge), start=1):
        seat = room.agent if seq % 2 else room.user
        Message.objects.create(room=room.room, seq=seq, sender=seat.assignment, role=seat.assignment.role,
                               client_id=f"m{seq}", text=text, knowledge_used=used)
    room.room.status = RoomStatus.COMPLETE
    room.room.save(update_fields=["status"])
    return room


@pytest.mark.django_db
def test_the_export_plain_and_segmented_reads_back_identically(tmp_path: Path) -> None:
    campaign = duconv_zh_demo_ensure()
    room = complete_room(campaign)
    texts = list(Message.objects.filter(room=room.room).order_by("seq").values_list("text", flat=True))
    # What a knowledge panel of this room would be reranked in: its graph's language.
    assert dialogue_context(room_id=room.room.pk, after_seq=len(texts))["language"] == "zh"
    plain = export(tmp_path, "plain", "--campaign", campaign.slug)
    segmented = export(tmp_path, "segmented", "--campaign", campaign.slug, "--segment")

    (line,) = (plain / "train.txt").read_text(encoding="utf-8").splitlines()
    record = json.loads(line)
    assert list(record) == ["goal", "knowledge", "conversation"] and record["conversation"] == texts
    assert record["goal"][0][0] == "START" and "《" in line and "\\u" not in line  # Chinese written as is
    (seg_line,) = (segmented / "train.txt").read_text(encoding="utf-8").splitlines()
    seg = json.loads(seg_line)
    # The goal and the knowledge are segmented too, as in the original release ("出生 日期").
    for field in ("goal", "knowledge"):
        for words, typed in zip(seg[field], record[field], strict=True):
            assert [w.replace(" ", "") for w in words] == [t.replace(" ", "") for t in typed]
    assert seg["goal"][0][0] == "START" and any(" " in x for triple in seg["knowledge"] for x in triple)
    for typed, words in zip(texts, seg["conversation"], strict=True):
        assert words.replace(" ", "") == typed.replace(" ", "") and "  " not in words
    assert "周末 一般 做 什么" in seg["conversation"][0]  # jieba's words, as the original release has them

    for name, folder in (("plain", plain), ("segmented", segmented)):
        copy = tmp_path / f"{name}-train.txt"
        copy.write_bytes((folder / "train.txt").read_bytes())
        call_command("import_dataset", "duconv", str(copy), "--job", f"zh-{name}", verbosity=0)
        again = export(tmp_path, f"{name}-again", "--campaign", f"zh-{name}")
        assert (again / "train.txt").read_bytes() == (folder / "train.txt").read_bytes()
        # An imported session is exported as it was read, never segmented twice.
        again_segmented = export(tmp_path, f"{name}-again-seg", "--campaign", f"zh-{name}", "--segment")
        assert (again_segmented / "train.txt").read_bytes() == (folder / "train.txt").read_bytes()
    imported = Campaign.objects.get(slug="zh-plain")
    assert imported.knowledge_source.language == "zh"


def test_the_demo_campaign_names_the_roles_as_the_room_does() -> None:
    from django.utils import translation

    campaign = duconv_zh_demo_ensure()
    with translation.override("zh-hans"):
        agent, user = translation.gettext("You are the Agent"), translation.gettext("You are the User")
    # The room's badges are 你是引导者 / 你是用户: the home page's instructions use the same names.
    assert agent.endswith("引导者") and user.endswith("用户")
    assert "引导者" in campaign.instructions and "用户" in campaign.instructions
    assert "领航者" not in campaign.instructions and "跟随者" not in campaign.instructions
