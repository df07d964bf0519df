"""Scripted Wizard of Wikipedia dialogues through the real ASGI stack: the first speaker chooses a
topic, the apprentice asks, the wizard waits for the knowledge retrieved for the apprentice's turn,
checks a sentence and replies; either ends, and the apprentice rates."""

from __future__ import annotations

from typing import Any

from collect.models import Campaign
from collect import simulation_talk as talk
from collect.simulation import Bot, run_dialogues, send, until, until_status
from retrieval.curiosity.context import points_back

def _wizard_reply(bot: Bot) -> tuple[str, dict[str, Any]]:
    """The wizard checks a sentence not used yet that names what the apprentice asked about (else
    the first of the passages retrieved for their message, else of the topic's) and says it in a
    conversational frame; now and then nothing fits and they say so."""
    topic = bot.state.get("topic", "")
    # Sentences that read on their own ("It was…" leans on one the apprentice has not seen).
    sentences = [
        (p, i, s) for p in bot.knowledge for i, s in enumerate(p["sentences"]) if s not in bot.said and not points_back(s)
    ]
    if not sentences or (bot.state.get("last_seq") and bot.rng.random() < 0.1):
        return talk.nothing(bot.rng, topic=topic, asked=bot.focus, said=bot.said), {"no_passages_used": True}
    about = [x for x in sentences if bot.focus and bot.focus.lower() in x[2].lower()]
    # Else an article retrieved for the apprentice's message that shares a word with what they
    # asked about, else the topic's passage, else anything shown.
    words = {w for w in (bot.focus or topic).lower().split() if len(w) > 3}
    near = [x for x in sentences if x[0]["source"] == "partner" and words & set(x[0]["title"].lower().split())]
    chosen = [x for x in sentences if x[0]["source"] == "chosen"]
    passage, index, sentence = (about or near or chosen or sentences)[0 if bot.rng.random() < 0.7 else -1]
    bot.said.add(sentence)
    checked = {"source": passage["source"], "passage": passage["passage"], "sentence": index}
    if passage["source"] != "chosen":
        checked["knowledge_seq"] = bot.knowledge_seq
    first = not bot.state.get("last_seq")
    return talk.answer(bot.rng, sentence, topic=topic, said=bot.said, asked=bot.focus, first=first), checked


async def _converse(by_role: dict[str, Bot], timeout: float) -> None:
    bots = list(by_role.values())
    first = by_role[bots[0].state["first_speaker"]]
    topic = first.rng.choice(first.state["persona"]["topics"])
    await send(first, {"type": "choose_topic", "topic": topic})
    for bot in bots:
        await until(bot, lambda f: f["type"] == "state" and f["status"] == "chatting", timeout)
    wizard, apprentice = by_role["wizard"], by_role["apprentice"]
    if not wizard.knowledge:  # the topic's passage, which the apprentice's first question draws on
        await until(wizard, lambda f: f["type"] == "knowledge", timeout)
    passage = " ".join(s for p in wizard.knowledge if p["source"] == "chosen" for s in p["sentences"])
    subject = talk.as_topic(topic, passage)
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
            wizard.focus = apprentice.focus
            text, checked = _wizard_reply(speaker)
            frame = {"type": "message", "client_id": client_id, "text": text, "checked": checked}
        else:
            text, apprentice.focus = talk.question(
                speaker.rng, topic=topic, heard=speaker.heard, passage=passage, asked=speaker.asked, said=speaker.said,
                opening=not speaker.heard, subject=subject,
            )
            frame = {"type": "message", "client_id": client_id, "text": text}
        await send(speaker, frame)
        await until(speaker, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        speaker = next(bot for bot in bots if bot is not speaker)
        await until(speaker, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
    if speaker.state["status"] == "chatting":
        await send(speaker, {"type": "end"})
    await until_status(apprentice, "rating", timeout)
    await send(apprentice, {"type": "rate", "rating": apprentice.rng.randint(1, 5)})
    await until(apprentice, lambda f: f["type"] == "state" and f["status"] == "complete", timeout)


async def simulate(*, campaign: Campaign, dialogues: int, concurrency: int = 4, seed: int = 0, timeout: float = 10) -> list[str]:
    """Run `dialogues` complete WoW dialogues, `concurrency` at a time. Returns the room ids."""
    return await run_dialogues(
        campaign=campaign, dialogues=dialogues, concurrency=concurrency, seed=seed, timeout=timeout, bot_class=Bot, converse=_converse
    )
