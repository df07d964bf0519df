"""Scripted DuConv dialogues through the real ASGI stack: the agent brings up topic A with its
triples, crosses to topic B along the goal's relation and talks about B, marking the triples each
message uses, each triple said as a sentence (collect/tasktypes/duconv/phrasing.py); the user answers what
was just said, in the goal's language; the agent ends; the user rates."""

from __future__ import annotations

import re
from typing import Any

from collect import simulation_talk as talk
from collect.tasktypes.duconv.phrasing import triple_sentence
from collect.models import Campaign
from collect.tasktypes.duconv.config import campaign_problems
from collect.simulation import Bot, run_dialogues, send, until
from retrieval.words import CJK

_HAN = re.compile(f"[{CJK}]")
OPENING = {False: "Do you know {a}? ", True: "你知道{a}吗？"}
CROSSING = {False: "Speaking of which, ", True: "说起来，"}
# The user's answers, about a thing the agent just named.
REPLIES = {
    False: [
        "Oh, {value}? I didn't know that!", "Really? I've heard of {value} but never looked into it.",
        "I love {subject}! Tell me more.", "{value}, huh. What else should I know about {subject}?",
        "Interesting. I should look up {subject} sometime.", "Wait, {value}? That's cool.",
    ],
    True: [
        "{value}？我还真不知道。", "真的吗？{value}我听说过，但没仔细了解过。", "我很喜欢{subject}！再多讲讲吧。",
        "原来是{value}啊。{subject}还有什么有意思的？", "有意思，我回头去看看{subject}。", "{value}？好厉害。",
    ],
}


CLOSING = {
    False: ["It was fun talking about {a} and {b}!", "Anything else you'd like to know about {b}?", "Thanks for chatting!"],
    True: ["和你聊{a}和{b}很开心！", "关于{b}你还想知道什么吗？", "谢谢你陪我聊天！"],
}


class DuConvBot(Bot):
    knowledge_frame = ("goal-unused", "entities")  # the goal frame is read once, below


def _plan(goal: dict[str, Any], *, zh: bool) -> list[tuple[str, list[dict[str, Any]]]]:
    """The agent's utterances with the triples each says: topic A with two of its triples, the
    relation over to B with two of B's, then the remaining triples two by two."""
    _, a, b = goal["path"]
    groups = {g["entity"]: [{**t, "subject": g["entity"]} for t in g["triples"]] for g in goal["entities"]}
    relations = goal["relations"]

    def said(triples: list[dict[str, Any]]) -> str:
        return "".join(f"{triple_sentence([t['subject'], t['property'], t['value']], zh=zh)}{'' if zh else ' '}" for t in triples).strip()

    said_already = {tuple(r) for r in relations}
    a_triples, b_triples = ([t for t in groups.get(e, []) if (t["subject"], t["property"], t["value"]) not in said_already] for e in (a, b))
    # The goal's relation: one triple (A directed by B), or two with a value in common (both directors).
    links = [triple_sentence(r, zh=zh) for r in relations[:2]]
    if len(links) == 2 and not zh:
        links[1] = links[1][:-1] + " too."
    link = ("" if zh else " ").join(links) or ("" if zh else f"{a} and {b} go together.")
    plan = [
        (OPENING[zh].format(a=a) + said(a_triples[:2]), a_triples[:2]),
        (CROSSING[zh] + link + ("" if zh else " ") + said(b_triples[:2]), b_triples[:2]),
    ]
    rest = [(a, t) for t in a_triples[2:]] + [(b, t) for t in b_triples[2:]]
    for (entity, first), second in zip(rest[0::2], [*rest[1::2], None]):
        used = [first] + ([second[1]] if second and second[0] == entity else [])
        plan.append((said(used), used))
    return plan


def _reply(user: Bot, triples: list[dict[str, Any]], *, zh: bool) -> str:
    """The user's answer to a message that said `triples`: about one of them."""
    if not triples:
        return talk._fresh(user.rng, ["Nice!", "I see."] if not zh else ["不错！", "原来如此。"], user.said)
    triple = user.rng.choice(triples)
    text = talk._fresh(user.rng, REPLIES[zh], user.said).format(value=triple["value"], subject=triple["subject"])
    return text[0].upper() + text[1:]


async def _converse(bots: dict[str, Bot], timeout: float) -> None:
    agent, user = bots["agent"], bots["user"]
    goal = await until(agent, lambda f: f["type"] == "goal", timeout)
    zh = bool(_HAN.search("".join(goal["path"][1:])))
    plan = _plan(goal, zh=zh)
    turn = 0
    while agent.state["status"] == "chatting" and not agent.state.get("can_end"):
        step = turn // 2
        text, triples = plan[min(step, len(plan) - 1)]
        if step >= len(plan):  # the plan said everything: a closing line, nothing marked
            text, triples = talk._fresh(agent.rng, CLOSING[zh], agent.said).format(a=goal["path"][1], b=goal["path"][2]), []
        turn += 1
        used = [t["id"] for t in triples]
        await send(agent, {"type": "message", "client_id": f"{agent.name}-{turn}", "text": text, "knowledge_used": used})
        await until(user, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        turn += 1
        await send(user, {"type": "message", "client_id": f"{user.name}-{turn}", "text": _reply(user, triples, zh=zh)})
        await until(agent, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
    if agent.state["status"] == "chatting":
        await send(agent, {"type": "end"})
    await until(user, lambda f: f["type"] == "state" and f["status"] == "rating", timeout)
    await send(user, {"type": "rate", "rating": user.rng.randint(1, 5)})
    await until(user, lambda f: f["type"] == "state" and f["status"] == "complete", timeout)


async def simulate(*, campaign: Campaign, dialogues: int, concurrency: int = 4, seed: int = 0, timeout: float = 10) -> list[str]:
    """Run `dialogues` complete DuConv dialogues, `concurrency` at a time. Returns the room ids."""
    from channels.db import database_sync_to_async


    problems = await database_sync_to_async(campaign_problems)(campaign)
    if problems:
        raise ValueError(f"campaign {campaign.slug!r} cannot open rooms: {'; '.join(problems)}")
    return await run_dialogues(
        campaign=campaign, dialogues=dialogues, concurrency=concurrency, seed=seed, timeout=timeout,
        bot_class=DuConvBot, converse=_converse,
    )
