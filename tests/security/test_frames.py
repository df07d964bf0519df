"""Hostile frames on both sockets: each gets an `error` frame, the socket stays open, nothing is stored."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from collect.models import Assignment, Message
from collect.tasktypes.wow import protocol as wow
from collect.services import matchmaking
from groundwork.asgi import application
from tests.collect.conftest import PairedRoom, make_room, session_cookie
from tests.collect.ws import ORIGIN, connect, receive_until, send

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]

DEEP = 3000
MESSAGE = '{"type": "message", "client_id": "c1", "text": %s}'
HOSTILE = [
    pytest.param("[" * DEEP + "]" * DEEP, "bad_json", id="array-nested-3000"),
    pytest.param('{"type": "ping", "x": ' + '{"":' * 1500 + "1" + "}" * 1500 + "}", "bad_json", id="object-nested-1500"),
    pytest.param('{"type": "ping", "x": ' + "[" * 40 + "]" * 40 + "}", "bad_frame", id="nested-40"),
    pytest.param(MESSAGE % '"hello\\u0000"', "bad_frame", id="nul-in-text"),
    pytest.param('{"type": "message", "client_id": "c\\u0000", "text": "hi"}', "bad_frame", id="nul-in-client-id"),
    pytest.param('{"type": "ping\\u0000"}', "bad_frame", id="nul-in-type"),
    pytest.param('{"type": "message", "client_id": "\\ud800", "text": "hi"}', "bad_frame", id="surrogate-client-id"),
    pytest.param('{"type": "dance", "client_id": "\\udfff"}', "bad_frame", id="surrogate-client-id-unknown-type"),
    pytest.param(MESSAGE % '"hi \\ud83d"', "bad_frame", id="surrogate-in-text"),
    pytest.param('{"\\ud800": 1, "type": "ping"}', "bad_frame", id="surrogate-in-key"),
    pytest.param(MESSAGE % '"\\u200b\\u200c\\u200d\\u2060"', "bad_frame", id="zero-width-only"),
    pytest.param(MESSAGE % '"\\ufeff"', "bad_frame", id="bom-only"),
    pytest.param(MESSAGE % '"\\u001b[31m\\u001b[0m"', "bad_frame", id="ansi-escapes"),
    pytest.param(MESSAGE % '"red \\u001b[31mtext"', "bad_frame", id="ansi-inside-text"),
    pytest.param(MESSAGE % '"\\u0007\\u0008"', "bad_frame", id="control-only"),
    pytest.param(MESSAGE % '"\\u3164\\u2800"', "bad_frame", id="blank-letters"),
    pytest.param('{"type": "sync", "after": NaN}', "bad_json", id="nan"),
    pytest.param('{"type": "sync", "after": Infinity}', "bad_json", id="infinity"),
    pytest.param('{"type": "sync", "after": ' + "9" * 5000 + "}", "bad_json", id="huge-integer"),
    pytest.param('{"type": "sync", "after": 1e999}', "bad_frame", id="float-overflow"),
    pytest.param('{"type": "sync", "after": 18446744073709551616}', "bad_frame", id="sync-after-two-to-the-64"),
    pytest.param('{"type": ["ping"]}', "bad_frame", id="type-not-a-string"),
    pytest.param('"just a string"', "bad_frame", id="not-an-object"),
    pytest.param("{" * 5, "bad_json", id="truncated"),
    pytest.param('{"type": "message", "text": "' + "a" * 200_000 + '"}', "too_large", id="200-kb"),
]


@database_sync_to_async
def stored() -> int:
    return Message.objects.count()


@database_sync_to_async
def presence(pk: int) -> tuple[bool, int]:
    member = Assignment.objects.get(pk=pk)
    return member.connected, getattr(member, "open_sockets", 0)


async def assert_still_open(communicator: WebsocketCommunicator) -> None:
    await send(communicator, {"type": "ping"})
    assert (await receive_until(communicator, "pong"))["type"] == "pong"


@pytest.fixture
def room(campaign) -> PairedRoom:
    return make_room(campaign, topic="Guitar")


@pytest.mark.parametrize(("raw", "code"), HOSTILE)
async def test_the_room_socket_refuses_it_and_stays_open(room: PairedRoom, raw: str, code: str) -> None:
    apprentice = await connect(f"/ws/room/{room.room.id}/", room.apprentice.cookie)
    await receive_until(apprentice, "state")
    await apprentice.send_to(text_data=raw)
    error = await receive_until(apprentice, "error")
    assert error["code"] == code, error
    assert error["message"]
    assert "client_id" not in error or "\ud800" not in error["client_id"]
    await assert_still_open(apprentice)
    assert await stored() == 0
    await apprentice.disconnect()
    assert await presence(room.apprentice.assignment.pk) == (False, 0)


@pytest.mark.parametrize(("raw", "code"), HOSTILE)
async def test_the_waiting_socket_refuses_it_and_stays_open(campaign, raw: str, code: str) -> None:
    worker = await database_sync_to_async(matchmaking.worker_get_or_create)(platform="inhouse", external_id="dana")
    assignment = await database_sync_to_async(matchmaking.assignment_start)(campaign=campaign, worker=worker)
    waiting = await connect(f"/ws/wait/{assignment.pk}/", await database_sync_to_async(session_cookie)(worker))
    await receive_until(waiting, "waiting")
    await waiting.send_to(text_data=raw)
    # The waiting socket accepts only pings, so a well-formed frame of another type is bad_frame too.
    assert (await receive_until(waiting, "error"))["code"] in (code, "bad_frame")
    await assert_still_open(waiting)
    await waiting.disconnect()
    assert (await presence(assignment.pk))[0] is False


async def test_a_binary_frame_is_refused_on_both_sockets(room: PairedRoom) -> None:
    apprentice = await connect(f"/ws/room/{room.room.id}/", room.apprentice.cookie)
    await receive_until(apprentice, "state")
    await apprentice.send_to(bytes_data=b'{"type": "ping"}')
    error = await receive_until(apprentice, "error")
    assert error["code"] == "bad_frame" and "Binary" in error["message"]
    await assert_still_open(apprentice)
    await apprentice.disconnect()


async def test_an_unknown_frame_with_a_surrogate_client_id_is_answered(room: PairedRoom) -> None:
    """The raw text itself holds a lone surrogate (not a JSON escape): still an error frame, no crash."""
    apprentice = await connect(f"/ws/room/{room.room.id}/", room.apprentice.cookie)
    await receive_until(apprentice, "state")
    await apprentice.send_to(text_data='{"type": "dance", "client_id": "\ud800"}')
    assert (await receive_until(apprentice, "error"))["code"] == "bad_frame"
    await assert_still_open(apprentice)
    await apprentice.disconnect()


async def test_a_message_with_emoji_and_joiners_is_still_accepted(campaign) -> None:
    """Zero-width joiners inside visible text are part of the text (emoji sequences need them)."""
    room = await database_sync_to_async(make_room)(campaign, first_speaker=wow.APPRENTICE, topic="Guitar")
    apprentice = await connect(f"/ws/room/{room.room.id}/", room.apprentice.cookie)
    await receive_until(apprentice, "state")
    text = "I love the guitar \U0001f468\u200d\U0001f469\u200d\U0001f467 and the blues\ttoo"
    await apprentice.send_to(text_data=json.dumps({"type": "message", "client_id": "ok1", "text": text}))
    frame = await receive_until(apprentice, "message")
    assert frame["text"] == text
    assert await stored() == 1
    await apprentice.disconnect()


async def test_an_unknown_socket_path_is_refused_with_a_reason() -> None:
    communicator = WebsocketCommunicator(application, "/ws/nothing/here/", headers=[ORIGIN])
    connected, _ = await communicator.connect(timeout=10)  # a loaded machine may take seconds
    assert connected
    error = await communicator.receive_json_from()
    assert error == {"type": "error", "code": "not_found", "message": "There is no websocket at '/ws/nothing/here/'."}
    assert (await communicator.receive_output())["code"] == 4404
