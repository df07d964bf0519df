"""Scripted workers who run complete dialogues through the real ASGI stack: join, wait, pair, then
whatever each task type's script does in the room (its simulation module). For trying a campaign
before paying anyone, for the demo's sample dialogues, for tests and for benchmarks. What they say
comes from the knowledge (collect/simulation_talk.py): they ask about a name in the partner's last
message or the knowledge shown, and answer with what they checked."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore

from collect.frames import unbundled
from collect.models import Campaign
from collect.services import knowledge, matchmaking


@dataclass
class Bot:
    name: str
    assignment_id: int
    cookie: bytes
    rng: random.Random
    socket: WebsocketCommunicator | None = None
    state: dict[str, Any] = field(default_factory=dict)
    knowledge: list[dict[str, Any]] = field(default_factory=list)
    knowledge_seq: int = 0
    room_id: str = ""  # once in a room: `send` waits there for the knowledge of earlier messages
    heard: str = ""  # the partner's last message
    focus: str | None = None  # the name the partner's last question asked about
    said: set[str] = field(default_factory=set)  # lines said and sentences used, never repeated
    asked: set[str] = field(default_factory=set)  # names asked about
    # The frame type that carries this protocol's knowledge, and its list field.
    knowledge_frame = ("knowledge", "passages")


@database_sync_to_async
def _enter(campaign: Campaign, name: str) -> tuple[int, bytes]:
    worker = matchmaking.worker_get_or_create(platform="simulated", external_id=name)
    assignment = matchmaking.assignment_start(campaign=campaign, worker=worker)
    session = SessionStore()
    session["worker_id"] = worker.pk
    session.create()
    return assignment.pk, f"sessionid={session.session_key}".encode()


async def _open(application: Any, path: str, cookie: bytes) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, path, headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)])
    connected, _ = await socket.connect()
    if not connected:
        raise RuntimeError(f"could not connect to {path}")
    return socket


async def send(bot: Bot, frame: dict[str, Any], timeout: float = 10) -> None:
    if frame["type"] == "message" and bot.room_id:
        await knowledge_settled(bot.room_id, timeout)
    await bot.socket.send_to(text_data=json.dumps(frame))


async def knowledge_settled(room_id: str, timeout: float) -> None:
    """Until every message of the room has its retrieval stored. A person reads the message they
    answer, by when its retrieval is long done; a script answers at once, and the wizard's next
    panel (its own last message's passages among them) would then hang on which of two retrievals
    finished first, and one seed give different dialogues."""
    deadline = asyncio.get_running_loop().time() + timeout
    while await database_sync_to_async(knowledge.messages_missing_knowledge)(room_id=room_id, limit=1):
        if asyncio.get_running_loop().time() > deadline:
            raise RuntimeError(f"room {room_id}: a message's knowledge was not stored within {timeout} s")
        await asyncio.sleep(0.01)


async def until(bot: Bot, predicate: Any, timeout: float) -> dict[str, Any]:
    """Read frames, tracking state and knowledge, until one satisfies `predicate`."""
    kind, field_name = bot.knowledge_frame
    while True:
        found = None
        for frame in unbundled(await bot.socket.receive_json_from(timeout=timeout)):
            if frame["type"] == "state":
                bot.state = frame
            elif frame["type"] == "message" and frame.get("role") != bot.state.get("role"):
                bot.heard = frame.get("text", "")
            elif frame["type"] == kind:
                bot.knowledge = frame[field_name]
                bot.knowledge_seq = frame["after_seq"]
            elif frame["type"] == "error":
                raise RuntimeError(f"{bot.name} was refused: {frame['code']}: {frame['message']}")
            if found is None and predicate(frame):
                found = frame
        if found is not None:
            return found


async def until_status(bot: Bot, status: str, timeout: float) -> None:
    """Until the room reaches `status`; at once when the bot's last state frame says so already.
    The turn limit moves a chat to rating with the message that reaches it, whose state the bots
    have read, and no later frame repeats it."""
    if bot.state.get("status") != status:
        await until(bot, lambda f: f["type"] == "state" and f["status"] == status, timeout)


async def _dialogue(
    application: Any, campaign: Campaign, seed: int, timeout: float, pairing: asyncio.Lock, bot_class: type[Bot], converse: Any
) -> str:
    rng = random.Random(seed)
    bots = []
    for _ in range(2):
        name = f"sim-{uuid.uuid4().hex[:12]}"
        assignment_id, cookie = await _enter(campaign, name)
        bots.append(bot_class(name, assignment_id, cookie, rng))
    # One pair in the waiting room at a time, so that each script's two bots meet each other.
    async with pairing:
        frames = await wait_together(application, bots, timeout)
    room_url = frames[0]["room_url"]
    for bot in bots:
        bot.room_id = room_url.strip("/").split("/")[-1]
        bot.socket = await _open(application, f"/ws{room_url}", bot.cookie)
        await until(bot, lambda f: f["type"] == "state", timeout)
        await send(bot, {"type": "sync", "after": 0})
    try:
        await converse({bot.state["role"]: bot for bot in bots}, timeout)
    finally:
        for bot in bots:
            await bot.socket.disconnect()
    return bots[0].room_id


async def wait_together(application: Any, bots: list[Bot], timeout: float) -> list[dict[str, Any]]:
    """The bots' `paired` frames, each bot entering the waiting room once the one before has
    finished joining (its `pong` comes after its join): the last to arrive always makes the pair,
    so the roles drawn for it go to the same bots on every run with the same seed."""
    sockets: list[WebsocketCommunicator] = []
    for bot in bots:
        if sockets:
            await sockets[-1].send_to(text_data=json.dumps({"type": "ping"}))
            await _receive_type(sockets[-1], "pong", timeout)
        sockets.append(await _open(application, f"/ws/wait/{bot.assignment_id}/", bot.cookie))
    frames = [await _receive_type(socket, "paired", timeout) for socket in sockets]
    for socket in sockets:
        await socket.disconnect()
    return frames


async def _receive_type(socket: WebsocketCommunicator, kind: str, timeout: float) -> dict[str, Any]:
    while True:
        frame = await socket.receive_json_from(timeout=timeout)
        if frame["type"] == kind:
            return frame
        if frame["type"] in ("timeout", "error"):
            raise RuntimeError(f"waiting room said {frame}")


async def run_dialogues(
    *, campaign: Campaign, dialogues: int, concurrency: int, seed: int, timeout: float, bot_class: type[Bot], converse: Any
) -> list[str]:
    """Run `dialogues` complete dialogues, `concurrency` at a time, each scripted by `converse`
    (called with the two bots by role once both are in the room). Returns the room ids."""
    from groundwork.asgi import application

    limit = asyncio.Semaphore(concurrency)
    pairing = asyncio.Lock()

    async def one(index: int) -> str:
        async with limit:
            return await _dialogue(application, campaign, seed + index, timeout, pairing, bot_class, converse)

    return list(await asyncio.gather(*(one(i) for i in range(dialogues))))
