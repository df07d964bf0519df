"""Helpers for driving a Wizard of Internet room through the real ASGI stack (tests/collect/ws.py
underneath)."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from collect.models import Message, Room, RoomStatus
from collect.tasktypes.woi.models import WoiSearch, WoiTurn
from tests.collect.ws import connect, receive_until, send
from tests.woi.conftest import WoiRoom

PERSONA = {"type": "write_persona", "client_id": "p1", "choice": "book", "item": "Dune", "detail": "I reread it every summer on the beach."}


async def join(paired: WoiRoom, seat: Any) -> tuple[Any, dict]:
    communicator = await connect(f"/ws/room/{paired.room.id}/", seat.cookie)
    state = await receive_until(communicator, "state", timeout=15)
    return communicator, state


async def panel(communicator: Any, *, status: str, timeout: float = 10) -> dict:
    """The next search panel whose latest search has `status`."""
    while True:
        frame = await receive_until(communicator, "search_results", timeout=timeout)
        if frame["latest"] and frame["latest"]["status"] == status:
            return frame


async def say(communicator: Any, text: str, client_id: str, **fields: Any) -> dict:
    await send(communicator, {"type": "message", "client_id": client_id, "text": text, **fields})
    while True:
        frame = await communicator.receive_json_from(timeout=5)
        if frame["type"] == "error" or (frame["type"] in ("message", "ack") and frame.get("client_id") == client_id):
            return frame


async def refused(communicator: Any, frame: dict) -> dict:
    await send(communicator, frame)
    return await receive_until(communicator, "error")


@database_sync_to_async
def searches(paired: WoiRoom) -> list[WoiSearch]:
    return list(WoiSearch.objects.filter(room=paired.room).order_by("pk"))


@database_sync_to_async
def turns(paired: WoiRoom) -> list[WoiTurn]:
    return list(WoiTurn.objects.filter(room=paired.room).order_by("seq"))


@database_sync_to_async
def room(paired: WoiRoom) -> Room:
    return Room.objects.get(pk=paired.room.pk)


@database_sync_to_async
def messages(paired: WoiRoom) -> list[Message]:
    return list(Message.objects.filter(room=paired.room).order_by("seq"))


async def chatting(paired: WoiRoom) -> tuple[Any, Any]:
    wizard, _ = await join(paired, paired.wizard)
    apprentice, state = await join(paired, paired.apprentice)
    assert state["status"] == RoomStatus.PREPARING and state["persona_form"]["topics"] == ["book", "author"]
    await send(apprentice, PERSONA)
    await receive_until(apprentice, "ack")
    for communicator in (wizard, apprentice):
        while (await receive_until(communicator, "state"))["status"] != RoomStatus.CHATTING:
            pass
    return wizard, apprentice
