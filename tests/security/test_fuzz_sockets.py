"""Property-based fuzzing of both sockets (hypothesis). Whatever arrives — JSON of any shape and
depth, hostile strings, binary, raw text — the socket answers and stays open (never a 1011 close,
never `server_error`), nothing is stored that was not acknowledged, and closing the sockets leaves
no presence behind. Bounded for the suite: a few thousand frames (GROUNDWORK_FUZZ_EXAMPLES raises it)."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from hypothesis import HealthCheck, Phase, given, settings as hsettings, strategies as st

from collect.models import Assignment, AssignmentStatus, Message
from collect.services import matchmaking
from tests.collect.conftest import PairedRoom, make_room, session_cookie
from tests.collect.ws import connect, send

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]

EXAMPLES = int(os.environ.get("GROUNDWORK_FUZZ_EXAMPLES", "50"))
FUZZ = hsettings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,  # the same frames on every run: a failure in CI is a failure on a laptop
    database=None,
    # No shrinking: it can take minutes; the failing example is printed whole.
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

HOSTILE_STRINGS = st.sampled_from(
    ["", " ", "\x00", "a\x00b", "\ud800", "x\udfffy", "\u200b", "\u200b\u200d\u2060", "\ufeff", "\x1b[31m", "\x07",
     "\u3164", "\u202e", "NaN", "Guitar", "Blues", "hi there", "é" * 300, "🎸" * 10, "a" * 1001]
)
TEXT = st.one_of(HOSTILE_STRINGS, st.text(alphabet=st.characters(codec=None, categories=None), max_size=40), st.text(max_size=80))
LEAF = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.floats(), TEXT)
JSON = st.recursive(LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)), max_leaves=12)
TYPES = st.one_of(
    st.sampled_from(["sync", "message", "choose_topic", "end", "rate", "ping", "mark_known", "switch_aspect", "like"]),
    TEXT, JSON,
)
FIELDS = {
    "client_id": st.one_of(TEXT, JSON), "text": st.one_of(TEXT, JSON), "topic": st.one_of(TEXT, JSON),
    "after": st.one_of(st.integers(-5, 10**20), JSON), "rating": st.one_of(st.integers(-2, 7), JSON),
    "checked": st.one_of(st.just({"no_passages_used": True}), JSON,
                         st.fixed_dictionaries({"source": TEXT, "passage": LEAF, "sentence": LEAF})),
    "entities": JSON, "aspect": TEXT, "seq": LEAF, "liked": LEAF, "used_facts": JSON,
}
OBJECT = st.builds(
    lambda kind, extra: {"type": kind, **extra},
    TYPES,
    st.fixed_dictionaries({}, optional=FIELDS),
)


# Frames close to valid ones, so that rooms open, messages are stored and acked, and the checks
# on what was stored mean something.
CLIENT_ID = st.one_of(st.sampled_from(["m1", "m2", "m3", "m4"]), HOSTILE_STRINGS)
NEARLY_VALID = st.one_of(
    st.builds(lambda t: {"type": "choose_topic", "topic": t}, st.one_of(st.sampled_from(["Guitar", "Blues"]), HOSTILE_STRINGS)),
    st.builds(lambda c, t, k: {"type": "message", "client_id": c, "text": t, **k}, CLIENT_ID,
              st.one_of(st.sampled_from(["I like the guitar.", "Tell me about the blues!"]), HOSTILE_STRINGS),
              st.one_of(st.just({}), st.just({"checked": {"no_passages_used": True}}), st.builds(lambda v: {"checked": v}, JSON))),
    st.builds(lambda n: {"type": "sync", "after": n}, st.one_of(st.integers(0, 5), LEAF)),
    st.builds(lambda r: {"type": "rate", "rating": r}, st.one_of(st.integers(0, 6), LEAF)),
    st.just({"type": "end"}),
)


@st.composite
def raw_frames(draw: Any) -> dict[str, Any]:
    """One websocket frame as the communicator sends it: {"text_data": str} or {"bytes_data": bytes}."""
    kind = draw(st.sampled_from(["near", "near", "object", "object", "json", "deep", "text", "bytes"]))
    if kind == "bytes":
        return {"bytes_data": draw(st.binary(max_size=64))}
    if kind == "text":
        return {"text_data": draw(TEXT)}
    if kind == "deep":
        depth = draw(st.integers(1, 4000))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        return {"text_data": '{"type": "ping", "x": ' + opener * depth + "0" + closer * depth + "}"}
    value = draw({"near": NEARLY_VALID, "object": OBJECT, "json": JSON}[kind])
    try:
        text = json.dumps(value, ensure_ascii=draw(st.booleans()), allow_nan=True)
    except (ValueError, RecursionError):
        text = repr(value)
    return {"text_data": text}


async def exchange(communicator: WebsocketCommunicator, frame: dict[str, Any]) -> list[dict[str, Any]]:
    """Send one frame, then a ping; every frame received up to the pong. A close fails the test."""
    # send_input, not send_to: empty text and empty binary frames are frames too.
    key, value = next(iter(frame.items()))
    await communicator.send_input({"type": "websocket.receive", key.removesuffix("_data"): value})
    await send(communicator, {"type": "ping"})
    replies = []
    while True:
        output = await communicator.receive_output(timeout=10)
        assert output["type"] == "websocket.send", f"the socket closed ({output}) after {frame!r:.300}"
        reply = json.loads(output["text"])
        if reply["type"] == "pong":
            return replies
        assert not (reply["type"] == "error" and reply["code"] == "server_error"), f"{frame!r:.300} -> {reply}"
        replies.append(reply)


def open_limits(settings) -> None:
    settings.WS_RATE_PER_10S = 10**6
    settings.RATE_LIMITS = {"frames": {}, "sockets": {}, "joins": {}, "api": {}}


@database_sync_to_async
def stored_client_ids(room_id: Any) -> set[str]:
    return set(Message.objects.filter(room_id=room_id).values_list("client_id", flat=True))


@database_sync_to_async
def presence(pk: int) -> tuple[bool, int]:
    member = Assignment.objects.get(pk=pk)
    return member.connected, getattr(member, "open_sockets", 0)


@pytest.fixture
def fuzz_room(campaign, settings) -> PairedRoom:
    open_limits(settings)
    return make_room(campaign)  # choosing_topic: the fuzz may also pick one and chat


@FUZZ
@given(frames=st.lists(st.tuples(st.sampled_from(["wizard", "apprentice"]), raw_frames()), min_size=20, max_size=60))
async def test_the_room_socket_survives_any_frames(fuzz_room: PairedRoom, frames: list[tuple[str, dict[str, Any]]]) -> None:
    room = fuzz_room
    sockets = {
        "wizard": await connect(f"/ws/room/{room.room.id}/", room.wizard.cookie),
        "apprentice": await connect(f"/ws/room/{room.room.id}/", room.apprentice.cookie),
    }
    acked: set[str] = set()
    for role, frame in frames:
        for reply in await exchange(sockets[role], frame):
            # A new message is acknowledged by its own frame coming back, a resend by an ack.
            if reply["type"] == "ack" or (reply["type"] == "message" and reply["role"] == role):
                acked.add(reply["client_id"])
    for communicator in sockets.values():
        await communicator.disconnect()
    # Acks of earlier examples count too: the room lives through all of them.
    fuzz_room.acked = getattr(fuzz_room, "acked", set()) | acked
    assert await stored_client_ids(room.room.id) <= fuzz_room.acked
    for seat in (room.wizard, room.apprentice):
        assert await presence(seat.assignment.pk) == (False, 0)


@pytest.fixture
def waiting_seat(campaign, settings) -> tuple[int, bytes]:
    open_limits(settings)
    campaign.wait_timeout_seconds = 3600
    campaign.save()
    worker = matchmaking.worker_get_or_create(platform="inhouse", external_id="fuzzy")
    assignment = matchmaking.assignment_start(campaign=campaign, worker=worker)
    return assignment.pk, session_cookie(worker)


@FUZZ
@given(frames=st.lists(raw_frames(), min_size=10, max_size=30))
async def test_the_waiting_socket_survives_any_frames(waiting_seat: tuple[int, bytes], frames: list[dict[str, Any]]) -> None:
    assignment_id, cookie = waiting_seat
    waiting = await connect(f"/ws/wait/{assignment_id}/", cookie)
    for frame in frames:
        await exchange(waiting, frame)
    await waiting.disconnect()
    member = await database_sync_to_async(Assignment.objects.get)(pk=assignment_id)
    assert member.status == AssignmentStatus.WAITING and member.connected is False
    assert await database_sync_to_async(Message.objects.count)() == 0
