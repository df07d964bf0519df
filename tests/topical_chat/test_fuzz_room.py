"""Property-based fuzzing of the Topical-Chat room socket (hypothesis), as tests/security fuzzes
WoW's: valid messages, frames close to Topical-Chat's (marks, ratings and their fields hostile or
of any shape) and arbitrary ones. The socket always answers and stays open (never `server_error`), every
stored message was acknowledged, and every stored message has its marks within the sender's
reading set."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from hypothesis import given, strategies as st

from collect.models import Message
from collect.tasktypes.topical_chat.models import TopicalConversation, TopicalTurn
from collect.tasktypes.topical_chat.reading_sets import sources_of
from collect.tasktypes.topical_chat.release import RATINGS, SENTIMENTS
from tests.collect.ws import connect
from tests.security.test_fuzz_sockets import FUZZ, HOSTILE_STRINGS, JSON, exchange, open_limits, raw_frames
from tests.topical_chat.conftest import TopicalRoom, make_room

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]

SOURCE = st.one_of(st.sampled_from(["FS1", "FS2", "FS3", "AS1", "AS4", "Personal Knowledge", "FS9"]), HOSTILE_STRINGS)
MARKS = st.fixed_dictionaries({}, optional={
    "knowledge_source": st.one_of(st.lists(SOURCE, max_size=4), JSON),
    "sentiment": st.one_of(st.sampled_from(SENTIMENTS), HOSTILE_STRINGS, JSON),
    "turn_rating": st.one_of(st.sampled_from(RATINGS), HOSTILE_STRINGS, JSON),
})
NEARLY_VALID = st.one_of(
    st.builds(lambda c, t, m: {"type": "message", "client_id": c, "text": t, **m},
              st.sampled_from(["m1", "m2", "m3", "m4", "m5"]), st.sampled_from(["Do you like jazz?", "Yes!"]), MARKS),
    st.builds(lambda r, t: {"type": "rate", "conversation_rating": r, **t},
              st.one_of(st.sampled_from(RATINGS), HOSTILE_STRINGS, JSON),
              st.fixed_dictionaries({}, optional={"turn_rating": st.one_of(st.sampled_from(RATINGS), JSON)})),
    st.builds(lambda n: {"type": "sync", "after": n}, st.integers(0, 5)),
    st.just({"type": "end"}),
)
# Valid marks (both partners of configuration B may use these), so that messages are stored and the
# checks on what was stored mean something; the turn rating is left out now and then.
VALID = st.builds(
    lambda c, k, s, r: {"type": "message", "client_id": c, "text": "Jazz!", "knowledge_source": k, "sentiment": s, **r},
    st.sampled_from(["v1", "v2", "v3", "v4", "v5", "v6"]),
    st.lists(st.sampled_from(["FS1", "FS3", "AS2", "Personal Knowledge"]), min_size=1, max_size=3, unique=True),
    st.sampled_from(SENTIMENTS),
    st.one_of(st.builds(lambda r: {"turn_rating": r}, st.sampled_from(RATINGS)), st.just({})),
)
FRAME = st.one_of(*(f.map(lambda v: {"text_data": json.dumps(v)}) for f in (VALID, VALID, NEARLY_VALID, NEARLY_VALID)), raw_frames())


@pytest.fixture
def fuzz_room(campaign, settings) -> TopicalRoom:
    open_limits(settings)
    return make_room(campaign)


@database_sync_to_async
def stored(room_id: Any) -> tuple[set[str], list[str]]:
    """The stored client ids, and what is wrong with any stored turn."""
    conversation = TopicalConversation.objects.get(room_id=room_id)
    wrong = []
    roles = dict(Message.objects.filter(room_id=room_id).values_list("seq", "role"))
    for turn in TopicalTurn.objects.filter(room_id=room_id):
        allowed = sources_of(conversation.reading_sets[roles[turn.seq]], conversation.article)
        if not turn.knowledge_source or not set(turn.knowledge_source) <= set(allowed) or turn.sentiment not in SENTIMENTS:
            wrong.append(f"turn {turn.seq}: {turn.knowledge_source} {turn.sentiment!r}")
        if turn.turn_rating not in ("", *RATINGS):
            wrong.append(f"turn {turn.seq}: rating {turn.turn_rating!r}")
    if sorted(roles) != sorted(TopicalTurn.objects.filter(room_id=room_id).values_list("seq", flat=True)):
        wrong.append("messages and turns differ")
    return set(Message.objects.filter(room_id=room_id).values_list("client_id", flat=True)), wrong


@FUZZ
@given(frames=st.lists(st.tuples(st.sampled_from(["agent_1", "agent_2"]), FRAME), min_size=20, max_size=60))
async def test_the_topical_chat_socket_survives_any_frames(fuzz_room: TopicalRoom, frames: list[tuple[str, dict[str, Any]]]) -> None:
    room = fuzz_room
    sockets = {
        "agent_1": await connect(f"/ws/room/{room.room.id}/", room.first.cookie),
        "agent_2": await connect(f"/ws/room/{room.room.id}/", room.second.cookie),
    }
    acked: set[str] = set()
    for role, frame in frames:
        for reply in await exchange(sockets[role], frame):
            if reply["type"] == "ack" or (reply["type"] == "message" and reply["role"] == role):
                acked.add(reply["client_id"])
    for communicator in sockets.values():
        await communicator.disconnect()
    fuzz_room.acked = getattr(fuzz_room, "acked", set()) | acked  # type: ignore[attr-defined]
    client_ids, wrong = await stored(room.room.id)
    assert client_ids <= fuzz_room.acked and wrong == []  # type: ignore[attr-defined]
