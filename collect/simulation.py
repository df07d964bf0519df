"""Scripted workers who run complete dialogues through the real ASGI stack: join, wait, pair,
choose a topic, chat, check sentences, end and rate. For trying a campaign before paying anyone,
for tests and for benchmarks."""

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
from collect.services import matchmaking

QUESTIONS = [
    "What do you know about {topic}?",
    "That's interesting, tell me more.",
    "Why is that?",
    "I never knew that! What else?",
    "How did that come about?",
    "Is that still true today?",
]


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


async def send(bot: Bot, frame: dict[str, Any]) -> None:
    await bot.socket.send_to(text_data=json.dumps(frame))


async def until(bot: Bot, predicate: Any, timeout: float) -> dict[str, Any]:
    """Read frames, tracking state and knowledge, until one satisfies `predicate`."""
    kind, field_name = bot.knowledge_frame
    while True:
        found = None
        for frame in unbundled(await bot.socket.receive_json_from(timeout=timeout)):
            if frame["type"] == "state":
                bot.state = frame
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


def _wizard_reply(bot: Bot) -> tuple[str, dict[str, Any]]:
    sentences = [(p, i, s) for p in bot.knowledge for i, s in enumerate(p["sentences"])]
    if not sentences or bot.rng.random() < 0.1:
        return "I'm not sure, but I'd love to hear what you think.", {"no_passages_used": True}
    passage, index, sentence = bot.rng.choice(sentences[:20])
    checked = {"source": passage["source"], "passage": passage["passage"], "sentence": index}
    if passage["source"] != "chosen":
        checked["knowledge_seq"] = bot.knowledge_seq
    return f"Did you know? {sentence}", checked


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
        waiting = [await _open(application, f"/ws/wait/{bot.assignment_id}/", bot.cookie) for bot in bots]
        frames = [await _receive_type(socket, "paired", timeout) for socket in waiting]
    for socket in waiting:
        await socket.disconnect()
    room_url = frames[0]["room_url"]
    for bot in bots:
        bot.socket = await _open(application, f"/ws{room_url}", bot.cookie)
        await until(bot, lambda f: f["type"] == "state", timeout)
        await send(bot, {"type": "sync", "after": 0})
    try:
        await converse({bot.state["role"]: bot for bot in bots}, timeout)
    finally:
        for bot in bots:
            await bot.socket.disconnect()
    return room_url.strip("/").split("/")[-1]


async def _receive_type(socket: WebsocketCommunicator, kind: str, timeout: float) -> dict[str, Any]:
    while True:
        frame = await socket.receive_json_from(timeout=timeout)
        if frame["type"] == kind:
            return frame
        if frame["type"] in ("timeout", "error"):
            raise RuntimeError(f"waiting room said {frame}")


async def _converse(by_role: dict[str, Bot], timeout: float) -> None:
    bots = list(by_role.values())
    first = by_role[bots[0].state["first_speaker"]]
    topic = first.rng.choice(first.state["persona"]["topics"])
    await send(first, {"type": "choose_topic", "topic": topic})
    for bot in bots:
        await until(bot, lambda f: f["type"] == "state" and f["status"] == "chatting", timeout)
    speaker = first
    turn = 0
    # Until either may end, or the turn limit ends the chat by itself (when the turns drawn for this
    # room reach the campaign's limit, no one may end it before).
    while speaker.state["status"] == "chatting" and not speaker.state.get("can_end"):
        turn += 1
        client_id = f"{speaker.name}-{turn}"
        if speaker.state["role"] == "wizard":
            # Like a person, wait for the knowledge retrieved for the partner's last turn.
            seen = speaker.state["last_seq"]
            if speaker.knowledge_seq < seen:
                await until(speaker, lambda f: f["type"] == "knowledge" and f["after_seq"] >= seen, timeout)
            text, checked = _wizard_reply(speaker)
            frame = {"type": "message", "client_id": client_id, "text": text, "checked": checked}
        else:
            text = speaker.rng.choice(QUESTIONS).format(topic=topic)
            frame = {"type": "message", "client_id": client_id, "text": text}
        await send(speaker, frame)
        await until(speaker, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        speaker = next(bot for bot in bots if bot is not speaker)
        await until(speaker, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
    if speaker.state["status"] == "chatting":
        await send(speaker, {"type": "end"})
    apprentice = by_role["apprentice"]
    await until_status(apprentice, "rating", timeout)
    await send(apprentice, {"type": "rate", "rating": apprentice.rng.randint(1, 5)})
    await until(apprentice, lambda f: f["type"] == "state" and f["status"] == "complete", timeout)


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


async def simulate(*, campaign: Campaign, dialogues: int, concurrency: int = 4, seed: int = 0, timeout: float = 10) -> list[str]:
    """Run `dialogues` complete WoW dialogues, `concurrency` at a time. Returns the room ids."""
    return await run_dialogues(
        campaign=campaign, dialogues=dialogues, concurrency=concurrency, seed=seed, timeout=timeout, bot_class=Bot, converse=_converse
    )
