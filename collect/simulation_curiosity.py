"""Scripted Curiosity dialogues through the real ASGI stack: the user marks some entities as known,
asks about their aspects and switches once, likes some assistant messages (and takes one like
back); the assistant waits for each turn's fact bank and uses zero to two facts; both rate."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

from channels.testing import WebsocketCommunicator

from collect.models import Campaign
from collect.simulation import _enter, _open, _receive_type

QUESTIONS = [
    "What can you tell me about the {aspect} of {topic}?",
    "Interesting! Tell me more about that.",
    "How did that come about?",
    "Is that still true today?",
    "What else is worth knowing about the {aspect}?",
]


@dataclass
class Bot:
    name: str
    assignment_id: int
    cookie: bytes
    rng: random.Random
    socket: WebsocketCommunicator | None = None
    state: dict[str, Any] = field(default_factory=dict)
    facts: list[dict[str, Any]] = field(default_factory=list)
    facts_seq: int = -1


async def _until(bot: Bot, predicate: Any, timeout: float) -> dict[str, Any]:
    while True:
        frame = await bot.socket.receive_json_from(timeout=timeout)
        if frame["type"] == "state":
            bot.state = frame
        elif frame["type"] == "facts":
            bot.facts, bot.facts_seq = frame["facts"], frame["after_seq"]
        elif frame["type"] == "error":
            raise RuntimeError(f"{bot.name} was refused: {frame['code']}: {frame['message']}")
        if predicate(frame):
            return frame


async def _send(bot: Bot, frame: dict[str, Any]) -> None:
    await bot.socket.send_to(text_data=json.dumps(frame))


async def _dialogue(application: Any, campaign: Campaign, seed: int, timeout: float, pairing: asyncio.Lock) -> str:
    rng = random.Random(seed)
    bots = []
    for _ in range(2):
        name = f"sim-{uuid.uuid4().hex[:12]}"
        assignment_id, cookie = await _enter(campaign, name)
        bots.append(Bot(name, assignment_id, cookie, rng))
    async with pairing:
        waiting = [await _open(application, f"/ws/wait/{bot.assignment_id}/", bot.cookie) for bot in bots]
        frames = [await _receive_type(socket, "paired", timeout) for socket in waiting]
    for socket in waiting:
        await socket.disconnect()
    room_url = frames[0]["room_url"]
    for bot in bots:
        bot.socket = await _open(application, f"/ws{room_url}", bot.cookie)
        await _until(bot, lambda f: f["type"] == "state", timeout)
        await _send(bot, {"type": "sync", "after": 0})
    try:
        await _converse({bot.state["role"]: bot for bot in bots}, timeout)
    finally:
        for bot in bots:
            await bot.socket.disconnect()
    return room_url.strip("/").split("/")[-1]


async def _converse(bots: dict[str, Bot], timeout: float) -> None:
    user, assistant = bots["user"], bots["assistant"]
    related = user.state["related_entities"]
    known = [e for e in related if user.rng.random() < 0.3]
    await _send(user, {"type": "mark_known", "entities": known})
    for bot in (user, assistant):
        await _until(bot, lambda f: f["type"] == "state" and f["status"] == "chatting", timeout)
    topic = user.state["topic"]
    speaker, turn, switched, likes = user, 0, False, []
    while not speaker.state.get("can_end"):
        turn += 1
        if speaker is user:
            if not switched and turn >= 3 and user.state.get("can_switch"):
                # Announce the second aspect halfway through, as the task asks.
                other = next(a for a in user.state["aspects"] if a != user.state["current_aspect"])
                await _send(user, {"type": "switch_aspect", "aspect": other})
                await _until(user, lambda f: f["type"] == "state" and f["current_aspect"] == other, timeout)
                switched = True
            aspect = user.state["current_aspect"] or topic
            frame = {"type": "message", "client_id": f"{user.name}-{turn}", "text": user.rng.choice(QUESTIONS).format(topic=topic, aspect=aspect)}
        else:
            seen = assistant.state["last_seq"]
            if assistant.facts_seq < seen:
                await _until(assistant, lambda f: f["type"] == "facts" and f["after_seq"] >= seen, timeout)
            used = assistant.rng.sample(assistant.facts, k=min(len(assistant.facts), assistant.rng.choice([0, 1, 1, 2])))
            text = " ".join(f["text"] for f in used) or "I'm not sure, what else would you like to know?"
            frame = {"type": "message", "client_id": f"{assistant.name}-{turn}", "text": text[:900], "used_facts": [f["fid"] for f in used]}
        await _send(speaker, frame)
        await _until(speaker, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        partner = assistant if speaker is user else user
        await _until(partner, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        if speaker is assistant and user.rng.random() < 0.5:
            likes.append(turn)
            await _send(user, {"type": "like", "seq": turn, "liked": True})
            await _until(user, lambda f: f["type"] == "liked" and f["seq"] == turn, timeout)
        speaker = partner
    if len(likes) > 1:  # a like taken back
        await _send(user, {"type": "like", "seq": likes[0], "liked": False})
        await _until(user, lambda f: f["type"] == "liked" and f["seq"] == likes[0], timeout)
    await _send(speaker, {"type": "end"})
    for bot in (user, assistant):
        await _until(bot, lambda f: f["type"] == "state" and f["status"] == "rating", timeout)
        await _send(bot, {"type": "rate", "dialog_rating": bot.rng.randint(1, 5), "partner_rating": bot.rng.randint(1, 5)})
    for bot in (user, assistant):
        await _until(bot, lambda f: f["type"] == "state" and f["status"] == "complete", timeout)


async def simulate(*, campaign: Campaign, dialogues: int, concurrency: int = 4, seed: int = 0, timeout: float = 10) -> list[str]:
    """Run `dialogues` complete Curiosity dialogues, `concurrency` at a time. Returns the room ids."""
    from channels.db import database_sync_to_async

    from collect.protocols.curiosity import campaign_prepare
    from groundwork.asgi import application

    problems = await database_sync_to_async(campaign_prepare)(campaign)
    if problems:
        raise ValueError(f"campaign {campaign.slug!r} cannot open rooms: {'; '.join(problems)}")
    limit = asyncio.Semaphore(concurrency)
    pairing = asyncio.Lock()

    async def one(index: int) -> str:
        async with limit:
            return await _dialogue(application, campaign, seed + index, timeout, pairing)

    return list(await asyncio.gather(*(one(i) for i in range(dialogues))))
