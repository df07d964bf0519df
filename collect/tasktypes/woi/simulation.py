"""Scripted Wizard of Internet dialogues through the real ASGI stack (`manage.py simulate woi`):
the apprentice fills in the persona form; on each turn the wizard searches (their partner's
interest, then a word of the partner's last message), waits for the documents, selects one or two
sentences, from two documents where it can (sometimes none), and replies; the apprentice asks;
either ends, and the apprentice rates."""

from __future__ import annotations

import re
from typing import Any

from collect.models import Campaign
from collect.simulation import Bot, run_dialogues, send, until, until_status

# Favourites the template persona can name, by topic: titles of the demo knowledge, so the
# wizard's searches find them there.
FAVOURITES = {
    "book": ["The Lord of the Rings", "Don Quixote", "Hamlet"], "author": ["William Shakespeare", "Jane Austen", "Leo Tolstoy"],
    "artist": ["Vincent van Gogh", "Pablo Picasso"], "music band": ["The Beatles", "Queen"], "song": ["Yesterday"],
    "singer": ["Elvis Presley", "Michael Jackson"], "tv show": ["The Simpsons"], "movie": ["Star Wars", "Titanic"],
    "actor": ["Charlie Chaplin"], "director": ["Alfred Hitchcock", "Steven Spielberg"], "sports team": ["Real Madrid"],
    "athlete": ["Usain Bolt", "Serena Williams"], "hobby": ["Chess", "Photography"], "game": ["Chess", "Go"],
    "fashion brand": ["Chanel"], "fashion designer": ["Coco Chanel"], "clothing type": ["Jeans"],
    "item to buy": ["Bicycle", "Telescope"], "item recently bought": ["Guitar", "Coffee"],
}
QUESTIONS = [
    "What can you tell me about {interest}?",
    "Really? I did not know that. What else?",
    "Why do people like it so much?",
    "How did it all start?",
    "Is that still true today?",
]
STOP = {"what", "can", "you", "tell", "about", "really", "did", "not", "know", "that", "else", "why", "people", "like", "much",
        "how", "all", "start", "still", "true", "today", "the", "and", "it", "so", "do", "is", "me"}


class WoiBot(Bot):
    knowledge_frame = ("search_results", "shown")


def _persona_frame(bot: Bot) -> tuple[dict[str, Any], str]:
    form = bot.state["persona_form"]
    detail = "I think about it every single day of the week."
    if form["mode"] == "template":
        topic = bot.rng.choice(form["topics"])
        item = bot.rng.choice(FAVOURITES.get(topic, ["Chess"]))
        return {"type": "write_persona", "choice": topic, "item": item, "detail": detail}, item
    choice = bot.rng.choice(form["choices"])["text"]
    return {"type": "write_persona", "choice": choice, "detail": detail}, choice


def _query(interest: str, last: str, rng: Any) -> str:
    words = [w for w in re.findall(r"[A-Za-z]{4,}", last) if w.lower() not in STOP]
    return f"{interest} {rng.choice(words)}" if words and rng.random() < 0.5 else interest


async def _search(wizard: Bot, query: str, turn: int, timeout: float) -> None:
    await send(wizard, {"type": "search", "client_id": f"{wizard.name}-search-{turn}", "query": query})
    await until(wizard, lambda f: f["type"] == "search_results" and f["latest"] and f["latest"]["query"] == query
                and f["latest"]["status"] != "pending", timeout)


def _reply(wizard: Bot) -> tuple[str, dict[str, Any]]:
    shown = wizard.knowledge or {}
    documents = shown.get("documents") or []
    pairs = [(d, s) for d, document in enumerate(documents) for s in range(len(document["content"]))]
    if not pairs or wizard.rng.random() < 0.1:
        return "I am not sure, but tell me more about what you like.", {"search": shown.get("search"), "sentences": []}
    picked = [wizard.rng.choice(pairs)]
    others = [p for p in pairs if p[0] != picked[0][0]]
    if others:  # a second sentence from another document, as WoI's wizards may select
        picked.append(wizard.rng.choice(others))
    text = " ".join(documents[d]["content"][s] for d, s in picked)
    return f"Did you know? {text}", {"search": shown["search"], "sentences": [list(p) for p in picked]}


async def _converse(by_role: dict[str, Bot], timeout: float) -> None:
    wizard, apprentice = by_role["wizard"], by_role["apprentice"]
    if apprentice.state.get("status") == "preparing":
        frame, interest = _persona_frame(apprentice)
        await send(apprentice, {**frame, "client_id": f"{apprentice.name}-persona"})
    else:
        interest = apprentice.state.get("topic", "")
    for bot in (wizard, apprentice):
        await until(bot, lambda f: f["type"] == "state" and f["status"] == "chatting", timeout)
    bots = [wizard, apprentice]
    speaker = by_role[wizard.state["first_speaker"]]
    turn, last = 0, ""
    while speaker.state["status"] == "chatting" and not speaker.state.get("can_end"):
        turn += 1
        client_id = f"{speaker.name}-{turn}"
        if speaker is wizard:
            await _search(wizard, _query(interest, last, wizard.rng), turn, timeout)
            last, selected = _reply(wizard)
            frame = {"type": "message", "client_id": client_id, "text": last, "selected": selected}
        else:
            last = apprentice.rng.choice(QUESTIONS).format(interest=interest)
            frame = {"type": "message", "client_id": client_id, "text": last}
        await send(speaker, frame)
        await until(speaker, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        speaker = next(bot for bot in bots if bot is not speaker)
        await until(speaker, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
    if speaker.state["status"] == "chatting":
        await send(speaker, {"type": "end"})
    await until_status(apprentice, "rating", timeout)
    await send(apprentice, {"type": "rate", "rating": apprentice.rng.randint(1, 5)})
    await until(apprentice, lambda f: f["type"] == "state" and f["status"] == "complete", timeout)


async def simulate(*, campaign: Campaign, dialogues: int, concurrency: int = 4, seed: int = 0, timeout: float = 20) -> list[str]:
    """Run `dialogues` complete WoI dialogues, `concurrency` at a time. Returns the room ids."""
    return await run_dialogues(
        campaign=campaign, dialogues=dialogues, concurrency=concurrency, seed=seed, timeout=timeout, bot_class=WoiBot, converse=_converse
    )
