"""Scripted Curiosity dialogues through the real ASGI stack: the user marks some entities as known,
asks about their aspects, about names in the assistant's answers and about what they know, switches
aspect once, likes some assistant messages (and takes one like back); the assistant waits for each
turn's fact bank, uses the facts that fit the question (zero to two) and says them in a
conversational frame (collect/simulation_talk.py); both rate."""

from __future__ import annotations

import re

from collect import simulation_talk as talk
from collect.models import Campaign
from collect.tasktypes.curiosity.protocol import campaign_prepare
from collect.simulation import Bot, run_dialogues, send, until, until_status

OPENING = [
    "Hi! I'd like to learn about {topic}, starting with its {aspect}. What can you tell me?",
    "Hello! I don't know much about {topic}. Could we start with its {aspect}?",
    "Hi there. What's interesting about the {aspect} of {topic}?",
]
SWITCH = [
    "Thanks, that was great. Now I'm curious about {aspect}: what should I know?",
    "Let's move on to {aspect}. What can you tell me about it?",
]
ASPECT_MORE = [
    "What else can you tell me about the {aspect} of {topic}?",
    "Anything more on {topic}'s {aspect}?",
    "Interesting! Is there more about its {aspect}?",
]
ABOUT_KNOWN = [
    "I know a little about {name}. Does it have anything to do with {topic}?",
    "Is {name} connected to {topic} in some way?",
]
_WORD = re.compile(r"[a-z]{4,}")


class CuriosityBot(Bot):
    knowledge_frame = ("facts", "facts")


def _user_message(user: Bot, *, topic: str, turn: int, switched_now: bool, known: list[str]) -> str:
    aspect = user.state["current_aspect"] or topic
    if turn == 1:
        return talk._fresh(user.rng, OPENING, user.said).format(topic=topic, aspect=aspect.lower())
    if switched_now:
        return talk._fresh(user.rng, SWITCH, user.said).format(aspect=aspect.lower())
    unasked = [k for k in known if k.lower() not in user.asked]
    if unasked and user.rng.random() < 0.25:
        user.asked.add(unasked[0].lower())
        user.focus = unasked[0]
        return talk._fresh(user.rng, ABOUT_KNOWN, user.said).format(name=unasked[0], topic=topic)
    text, user.focus = talk.question(user.rng, topic=topic, heard=user.heard, asked=user.asked, said=user.said)
    if user.focus is None:  # nothing new named: more of the aspect
        return talk._fresh(user.rng, ASPECT_MORE, user.said).format(topic=topic, aspect=aspect.lower())
    return text


def _assistant_message(assistant: Bot, *, topic: str, question: str, focus: str | None) -> tuple[str, list[int]]:
    """The facts of the bank that best fit the question (the name asked about, else shared words),
    said in the assistant's words; none fits now and then, and the assistant says so."""
    words = set(_WORD.findall(question.lower()))
    fresh = [(n, f) for n, f in enumerate(assistant.knowledge) if f["text"] not in assistant.said]

    def fit(fact: dict) -> int:
        named = bool(focus) and focus.lower() in fact["text"].lower()
        of_aspect = bool(fact.get("section")) and fact["section"].lower() in question.lower()
        return 10 * named + 5 * of_aspect + len(words & set(_WORD.findall(fact["text"].lower())))

    scored = sorted((-fit(f), n) for n, f in fresh)
    named = [n for _, n in scored if focus and focus.lower() in assistant.knowledge[n]["text"].lower()]
    if not fresh or (focus and not named and assistant.rng.random() < 0.5):
        # Asked about a name no fresh fact mentions: said so (else the closest facts, as people do).
        told = bool(focus) and focus.lower() in " ".join(assistant.said).lower()
        return talk.nothing(assistant.rng, topic=topic, asked=focus, said=assistant.said, told=told), []
    first = assistant.knowledge[scored[0][1]]
    context = first.get("context", "") if first.get("context") != topic else ""
    used = [first] + [
        assistant.knowledge[n] for _, n in scored[1:2]
        if assistant.rng.random() < 0.3 and assistant.knowledge[n]["text"] not in context
    ]
    assistant.said.update(f["text"] for f in used)
    assistant.said.add(context)
    parts = [talk.answer(assistant.rng, first["text"], topic=topic, said=assistant.said, asked=focus, context=context)]
    parts += [talk.more(assistant.rng, fact["text"], topic=topic, said=assistant.said) for fact in used[1:]]
    return " ".join(parts)[:900], [f["fid"] for f in used]


async def _converse(bots: dict[str, Bot], timeout: float) -> None:
    user, assistant = bots["user"], bots["assistant"]
    related = user.state["related_entities"]
    known = [e for e in related if user.rng.random() < 0.3]
    await send(user, {"type": "mark_known", "entities": known})
    for bot in (user, assistant):
        await until(bot, lambda f: f["type"] == "state" and f["status"] == "chatting", timeout)
    topic = user.state["topic"]
    speaker, turn, switched, switched_at, likes = user, 0, False, 0, []
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
                switched, switched_at = True, turn
            text = _user_message(user, topic=topic, turn=turn, switched_now=switched and turn == switched_at, known=known)
            frame = {"type": "message", "client_id": f"{user.name}-{turn}", "text": text}
        else:
            seen = assistant.state["last_seq"]
            if assistant.knowledge_seq < seen:
                await until(assistant, lambda f: f["type"] == "facts" and f["after_seq"] >= seen, timeout)
            text, fids = _assistant_message(assistant, topic=topic, question=assistant.heard, focus=user.focus)
            frame = {"type": "message", "client_id": f"{assistant.name}-{turn}", "text": text, "used_facts": fids}
        await send(speaker, frame)
        await until(speaker, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        partner = assistant if speaker is user else user
        await until(partner, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        # The user likes answers that told them something: the first one, then about half.
        if speaker is assistant and frame["used_facts"] and (not likes or user.rng.random() < 0.5):
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


    problems = await database_sync_to_async(campaign_prepare)(campaign)
    if problems:
        raise ValueError(f"campaign {campaign.slug!r} cannot open rooms: {'; '.join(problems)}")
    return await run_dialogues(
        campaign=campaign, dialogues=dialogues, concurrency=concurrency, seed=seed, timeout=timeout,
        bot_class=CuriosityBot, converse=_converse,
    )
