"""Scripted Curiosity dialogues through the real ASGI stack: the user marks some entities as known,
asks about their aspects and switches once, likes some assistant messages (and takes one like
back); the assistant waits for each turn's fact bank and uses zero to two facts; both rate."""

from __future__ import annotations

from collect.models import Campaign
from collect.simulation import Bot, run_dialogues, send, until, until_status

QUESTIONS = [
    "What can you tell me about the {aspect} of {topic}?",
    "Interesting! Tell me more about that.",
    "How did that come about?",
    "Is that still true today?",
    "What else is worth knowing about the {aspect}?",
]


class CuriosityBot(Bot):
    knowledge_frame = ("facts", "facts")


async def _converse(bots: dict[str, Bot], timeout: float) -> None:
    user, assistant = bots["user"], bots["assistant"]
    related = user.state["related_entities"]
    known = [e for e in related if user.rng.random() < 0.3]
    await send(user, {"type": "mark_known", "entities": known})
    for bot in (user, assistant):
        await until(bot, lambda f: f["type"] == "state" and f["status"] == "chatting", timeout)
    topic = user.state["topic"]
    speaker, turn, switched, likes = user, 0, False, []
    # Until either may end, or the turn limit ends the chat by itself (when the turns drawn for this
    # room reach the campaign's limit, no one may end it before).
    while speaker.state["status"] == "chatting" and not speaker.state.get("can_end"):
        turn += 1
        if speaker is user:
            if not switched and turn >= 3 and user.state.get("can_switch"):
                # Announce the second aspect halfway through, as the task asks.
                other = next(a for a in user.state["aspects"] if a != user.state["current_aspect"])
                await send(user, {"type": "switch_aspect", "aspect": other})
                await until(user, lambda f: f["type"] == "state" and f["current_aspect"] == other, timeout)
                switched = True
            aspect = user.state["current_aspect"] or topic
            frame = {"type": "message", "client_id": f"{user.name}-{turn}", "text": user.rng.choice(QUESTIONS).format(topic=topic, aspect=aspect)}
        else:
            seen = assistant.state["last_seq"]
            if assistant.knowledge_seq < seen:
                await until(assistant, lambda f: f["type"] == "facts" and f["after_seq"] >= seen, timeout)
            used = assistant.rng.sample(assistant.knowledge, k=min(len(assistant.knowledge), assistant.rng.choice([0, 1, 1, 2])))
            text = " ".join(f["text"] for f in used) or "I'm not sure, what else would you like to know?"
            frame = {"type": "message", "client_id": f"{assistant.name}-{turn}", "text": text[:900], "used_facts": [f["fid"] for f in used]}
        await send(speaker, frame)
        await until(speaker, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        partner = assistant if speaker is user else user
        await until(partner, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        if speaker is assistant and user.rng.random() < 0.5:
            likes.append(turn)
            await send(user, {"type": "like", "seq": turn, "liked": True})
            await until(user, lambda f: f["type"] == "liked" and f["seq"] == turn, timeout)
        speaker = partner
    if len(likes) > 1:  # a like taken back
        await send(user, {"type": "like", "seq": likes[0], "liked": False})
        await until(user, lambda f: f["type"] == "liked" and f["seq"] == likes[0], timeout)
    if speaker.state["status"] == "chatting":
        await send(speaker, {"type": "end"})
    for bot in (user, assistant):
        await until_status(bot, "rating", timeout)
        await send(bot, {"type": "rate", "dialog_rating": bot.rng.randint(1, 5), "partner_rating": bot.rng.randint(1, 5)})
    for bot in (user, assistant):
        await until(bot, lambda f: f["type"] == "state" and f["status"] == "complete", timeout)


async def simulate(*, campaign: Campaign, dialogues: int, concurrency: int = 4, seed: int = 0, timeout: float = 10) -> list[str]:
    """Run `dialogues` complete Curiosity dialogues, `concurrency` at a time. Returns the room ids."""
    from channels.db import database_sync_to_async

    from collect.protocols.curiosity import campaign_prepare

    problems = await database_sync_to_async(campaign_prepare)(campaign)
    if problems:
        raise ValueError(f"campaign {campaign.slug!r} cannot open rooms: {'; '.join(problems)}")
    return await run_dialogues(
        campaign=campaign, dialogues=dialogues, concurrency=concurrency, seed=seed, timeout=timeout,
        bot_class=CuriosityBot, converse=_converse,
    )
