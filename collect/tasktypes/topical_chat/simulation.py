"""Scripted Topical-Chat partners through the real ASGI stack: each turn the speaker rates the
message it answers (mostly Good or Excellent, as in the release), then either tells something from
its reading set (a fun fact, a sentence of its entity's lead or an article section, marked with that
entry's key, now and then with "Personal Knowledge" too) or asks about a name in what it heard
(marked "Personal Knowledge"), with a sentiment that fits; once either may end, one ends and both
rate the conversation, the last message's receiver rating that message too."""

from __future__ import annotations

import random
from typing import Any

from collect import simulation_talk as talk
from collect.models import Campaign
from collect.simulation import Bot, run_dialogues, send, until, until_status
from collect.tasktypes.topical_chat.release import PERSONAL_KNOWLEDGE, RATINGS

# The release's shares of each turn rating and sentiment (valid and test files), for the draws.
TURN_RATING_WEIGHTS = (0.3, 0.8, 5.9, 43.2, 48.7)
TOLD_SENTIMENTS = (("Neutral", 30), ("Happy", 25), ("Surprised", 25), ("Sad", 3), ("Disgusted", 2), ("Angry", 2), ("Fearful", 1))
ASKED = "Curious to dive deeper"


def _snippets(frame: dict[str, Any]) -> list[tuple[str, str]]:
    """(knowledge_source key, sentence) for everything the reading set shows, fun facts first."""
    found = [(f["key"], fact) for f in frame["facts"] for fact in f["fun_facts"]]
    found += [(f["key"], line) for f in frame["facts"] for line in f["wiki"].split("\n") if line]
    found += [(s["key"], s["text"]) for s in (frame["article"] or {}).get("sections", [])]
    return found


def _turn(bot: Bot, reading: dict[str, Any], *, topic: str, first: bool, told: set[str]) -> dict[str, Any]:
    """The speaker's next message frame; `told`: the sentences either partner has told (partners
    with the same reading set do not tell each other the same fact)."""
    rng: random.Random = bot.rng
    fresh = [(key, text) for key, text in _snippets(reading) if text not in told]
    if fresh and (first or rng.random() < 0.7):
        key, sentence = fresh[0] if rng.random() < 0.5 else rng.choice(fresh)
        told.add(sentence)
        text = talk.answer(rng, sentence, topic=topic, said=bot.said, first=first)
        sources = [key, PERSONAL_KNOWLEDGE] if rng.random() < 0.15 else [key]
        sentiment = rng.choices([s for s, _ in TOLD_SENTIMENTS], [w for _, w in TOLD_SENTIMENTS])[0]
        if rng.random() < 0.3:
            sentiment = ASKED
            text += " " + talk.question(rng, topic=topic, heard=sentence, asked=bot.asked, said=bot.said)[0]
    else:
        text = talk.question(rng, topic=topic, heard=bot.heard, asked=bot.asked, said=bot.said, opening=first)[0]
        sources, sentiment = [PERSONAL_KNOWLEDGE], ASKED
    frame = {"type": "message", "text": text[:900], "knowledge_source": sources, "sentiment": sentiment}
    if not first:
        frame["turn_rating"] = _rating(rng)
    return frame


def _rating(rng: random.Random) -> str:
    return rng.choices(RATINGS, TURN_RATING_WEIGHTS)[0]


async def _converse(bots: dict[str, Bot], timeout: float) -> None:
    first_agent, second_agent = bots["agent_1"], bots["agent_2"]
    reading = {}
    for bot in (first_agent, second_agent):
        reading[bot.name] = await until(bot, lambda f: f["type"] == "reading_set", timeout)
    topic = first_agent.state["topic"]
    speaker, turn, told = first_agent, 0, set()
    # Until either may end, or the turn limit ends the chat by itself.
    while speaker.state["status"] == "chatting" and not speaker.state.get("can_end"):
        turn += 1
        frame = _turn(speaker, reading[speaker.name], topic=topic, first=turn == 1, told=told)
        frame["client_id"] = f"{speaker.name}-{turn}"
        await send(speaker, frame)
        partner = second_agent if speaker is first_agent else first_agent
        for bot in (speaker, partner):
            await until(bot, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        speaker = partner
    if speaker.state["status"] == "chatting":
        await send(speaker, {"type": "end"})
    for bot in (first_agent, second_agent):
        await until_status(bot, "rating", timeout)
    for bot in (first_agent, second_agent):
        rating = {"type": "rate", "conversation_rating": _rating(bot.rng)}
        if bot.state.get("turn_to_rate"):
            rating["turn_rating"] = _rating(bot.rng)
        await send(bot, rating)
    for bot in (first_agent, second_agent):
        await until(bot, lambda f: f["type"] == "state" and f["status"] == "complete", timeout)


async def simulate(*, campaign: Campaign, dialogues: int, concurrency: int = 4, seed: int = 0, timeout: float = 10) -> list[str]:
    """Run `dialogues` complete Topical-Chat conversations, `concurrency` at a time. Returns the room ids."""
    from channels.db import database_sync_to_async

    from collect.tasktypes.topical_chat.protocol import campaign_prepare

    problems = await database_sync_to_async(campaign_prepare)(campaign)
    if problems:
        raise ValueError(f"campaign {campaign.slug!r} cannot open rooms: {'; '.join(problems)}")
    return await run_dialogues(
        campaign=campaign, dialogues=dialogues, concurrency=concurrency, seed=seed, timeout=timeout,
        bot_class=Bot, converse=_converse,
    )
