"""Scripted model chats through the real ASGI stack. A scripted evaluator joins (passing onboarding
with the right labels), is seated by the campaign's arm balancing, picks a topic, asks questions,
labels every partner message, ends and answers the final questions. In the human control arm a
second scripted worker joins and the two are paired in the waiting room; whoever becomes the wizard
answers with knowledge sentences, as in the WoW simulation. In the DuConv variant the model opens
and the evaluator, DuConv's user, has no topic to pick: it labels the opening, then chats."""

from __future__ import annotations

import asyncio
import random
import uuid
from typing import Any

from channels.db import database_sync_to_async
from django.contrib.sessions.backends.db import SessionStore

from collect import simulation_talk as talk
from collect.tasktypes.modelchat.config import config_for
from collect.tasktypes.modelchat.onboarding import expected_labels
from collect.tasktypes.modelchat.services import modelchat_seat, onboarding_required, onboarding_submit
from collect.models import Campaign
from collect.services.matchmaking import assignment_start, worker_get_or_create
from collect.simulation import Bot, _open, send, until, wait_together
from collect.tasktypes.wow.simulation import _wizard_reply


@database_sync_to_async
def _enter(campaign: Campaign, name: str, *, seat: bool = True) -> tuple[int, bytes, str | None]:
    worker = worker_get_or_create(platform="simulated", external_id=name)
    assignment = assignment_start(campaign=campaign, worker=worker)
    if onboarding_required(campaign=campaign, worker=worker):
        answers = {i: list(labels) for i, labels in expected_labels(config_for(campaign).problems).items()}
        onboarding_submit(campaign=campaign, worker=worker, answers=answers)
    room = modelchat_seat(assignment=assignment) if seat else None
    session = SessionStore()
    session["worker_id"] = worker.pk
    session.create()
    return assignment.pk, f"sessionid={session.session_key}".encode(), str(room.pk) if room else None


async def _pair(application: Any, campaign: Campaign, first: Bot, timeout: float) -> tuple[str, Bot]:
    """The control arm: the next scripted worker joins it too (a worker waiting alone gets the
    next one), and the two meet in the waiting room."""
    name = f"sim-{uuid.uuid4().hex[:12]}"
    assignment_id, cookie, room_id = await _enter(campaign, name, seat=True)
    if room_id is not None:
        raise RuntimeError("the control arm's second worker was seated with a model")
    second = Bot(name, assignment_id, cookie, first.rng)
    frames = await wait_together(application, [first, second], timeout)
    return frames[0]["room_url"].strip("/").split("/")[-1], second


async def _dialogue(application: Any, campaign: Campaign, seed: int, timeout: float, pairing: asyncio.Lock) -> str:
    rng = random.Random(seed)
    name = f"sim-{uuid.uuid4().hex[:12]}"
    # One worker at a time is seated (and a control pair formed), so scripts do not take each other's partners.
    async with pairing:
        assignment_id, cookie, room_id = await _enter(campaign, name, seat=True)
        bots = [Bot(name, assignment_id, cookie, rng)]
        if room_id is None:
            room_id, partner = await _pair(application, campaign, bots[0], timeout)
            bots.append(partner)
    for bot in bots:
        bot.room_id = room_id
        bot.socket = await _open(application, f"/ws/room/{room_id}/", bot.cookie)
        await until(bot, lambda f: f["type"] == "state", timeout)
        await send(bot, {"type": "sync", "after": 0})
    try:
        await _converse({bot.state["role"]: bot for bot in bots}, timeout)
    finally:
        for bot in bots:
            await bot.socket.disconnect()
    return room_id


async def _converse(by_role: dict[str, Bot], timeout: float) -> None:
    evaluator, wizard = by_role["apprentice"], by_role.get("wizard")
    rng = evaluator.rng
    seq = 0
    if evaluator.state["status"] == "choosing_topic":
        topic = rng.choice(evaluator.state["persona"]["topics"])
        await send(evaluator, {"type": "choose_topic", "topic": topic})
        await until(evaluator, lambda f: f["type"] == "state" and f["status"] == "chatting", timeout)
    else:  # the DuConv variant: the model opens
        topic = "that"
        seq = 1
        await _label(evaluator, seq, timeout)
    while True:
        seq += 1
        # About a name in the partner's last reply, else about the topic (the DuConv variant's
        # topic is what the model opened with).
        text, asked = talk.question(rng, topic=topic, heard=evaluator.heard, asked=evaluator.asked, said=evaluator.said)
        await send(evaluator, {"type": "message", "client_id": f"{evaluator.name}-{seq}", "text": text})
        if wizard is not None:  # the control arm's human partner answers
            await until(wizard, lambda f: f["type"] == "knowledge" and f["after_seq"] >= seq, timeout)
            wizard.focus = asked
            reply, checked = _wizard_reply(wizard)
            await send(wizard, {"type": "message", "client_id": f"{wizard.name}-{seq}", "text": reply, "checked": checked})
        state = await until(evaluator, lambda f: f["type"] == "state" and f["last_seq"] >= seq, timeout)
        if state["status"] == "rating":
            break  # the turn limit ended the chat on the evaluator's message (DuConv: the model opened)
        seq += 1
        await _label(evaluator, seq, timeout)
        if evaluator.state["status"] == "rating":
            break  # the turn limit ended the chat
        if evaluator.state["can_end"]:
            await send(evaluator, {"type": "end"})
            break
    if evaluator.state["status"] != "rating":
        await until(evaluator, lambda f: f["type"] == "state" and f["status"] == "rating", timeout)
    answers = {q["key"]: rng.randint(q["min"], q["max"]) for q in evaluator.state["questions"]}
    await send(evaluator, {"type": "rate", "answers": answers})
    await until(evaluator, lambda f: f["type"] == "state" and f["status"] == "complete", timeout)


async def _label(evaluator: Bot, seq: int, timeout: float) -> None:
    """Wait for the partner's message `seq` and label it ("none" 70 % of the time). With several
    models per turn, first pick one of their replies at random (rating it 1–5)."""
    state = await until(evaluator, lambda f: f["type"] == "state" and (f["last_seq"] >= seq or f.get("candidates")), timeout)
    if state["last_seq"] < seq:
        rng, offer = evaluator.rng, state["candidates"]
        index = rng.choice(offer["replies"])["index"]
        await send(evaluator, {"type": "pick", "client_id": f"{evaluator.name}-pick-{seq}", "after_seq": offer["after_seq"],
                               "candidate": index, "ratings": {str(index): rng.randint(1, 5)}})
        state = await until(evaluator, lambda f: f["type"] == "state" and f["last_seq"] >= seq, timeout)
    if state["problems"]:
        rng = evaluator.rng
        problems = ["none"] if rng.random() < 0.7 else [rng.choice(state["problems"])["key"]]
        await send(evaluator, {"type": "label", "seq": seq, "problems": problems})
        await until(evaluator, lambda f: f["type"] == "state" and str(seq) in (f.get("labels") or {}), timeout)


async def simulate(*, campaign: Campaign, dialogues: int, concurrency: int = 4, seed: int = 0, timeout: float = 20) -> list[str]:
    """Run `dialogues` complete model chats, `concurrency` at a time. Returns the room ids."""
    from groundwork.asgi import application

    limit = asyncio.Semaphore(concurrency)
    pairing = asyncio.Lock()

    async def one(index: int) -> str:
        async with limit:
            return await _dialogue(application, campaign, seed + index, timeout, pairing)

    return list(await asyncio.gather(*(one(i) for i in range(dialogues))))
