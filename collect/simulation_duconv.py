"""Scripted DuConv dialogues through the real ASGI stack: the agent brings up topic A with its
triples, crosses to topic B along the goal's relation and talks about B,
marking the triples each message uses; the user answers; the agent ends; the user rates."""

from __future__ import annotations

from typing import Any

from collect.models import Campaign
from collect.simulation import Bot, run_dialogues, send, until

REPLIES = ["Oh, I didn't know that.", "Interesting, tell me more!", "真的吗？我很想了解一下。", "I have heard of it.", "好的，谢谢你。"]


class DuConvBot(Bot):
    knowledge_frame = ("goal-unused", "entities")  # the goal frame is read once, below


def _plan(goal: dict[str, Any]) -> list[tuple[str, list[int]]]:
    """The agent's utterances: topic A with two of its triples, the relation over to B with two of
    B's, then the remaining triples two by two."""
    _, a, b = goal["path"]
    groups = {g["entity"]: g["triples"] for g in goal["entities"]}
    relation = goal["relations"][0] if goal["relations"] else [a, "is linked to", b]

    def said(entity: str, triples: list[dict[str, Any]]) -> str:
        return f"{entity}: " + "; ".join(f"{t['property']} {t['value']}" for t in triples) + "."

    a_triples, b_triples = groups.get(a, []), groups.get(b, [])
    plan = [
        (f"Do you know {a}? " + said(a, a_triples[:2]), [t["id"] for t in a_triples[:2]]),
        (f"And {' '.join(relation)}. " + said(b, b_triples[:2]), [t["id"] for t in b_triples[:2]]),
    ]
    rest = [(a, t) for t in a_triples[2:]] + [(b, t) for t in b_triples[2:]]
    for (entity, first), second in zip(rest[0::2], [*rest[1::2], None]):
        used = [first] + ([second[1]] if second and second[0] == entity else [])
        plan.append((said(entity, used), [t["id"] for t in used]))
    return plan


async def _converse(bots: dict[str, Bot], timeout: float) -> None:
    agent, user = bots["agent"], bots["user"]
    goal = await until(agent, lambda f: f["type"] == "goal", timeout)
    plan = _plan(goal)
    turn = 0
    while agent.state["status"] == "chatting" and not agent.state.get("can_end"):
        text, used = plan[min(turn // 2, len(plan) - 1)]
        turn += 1
        await send(agent, {"type": "message", "client_id": f"{agent.name}-{turn}", "text": text, "knowledge_used": used})
        await until(user, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
        turn += 1
        await send(user, {"type": "message", "client_id": f"{user.name}-{turn}", "text": user.rng.choice(REPLIES)})
        await until(agent, lambda f: f["type"] == "state" and f["last_seq"] >= turn, timeout)
    if agent.state["status"] == "chatting":
        await send(agent, {"type": "end"})
    await until(user, lambda f: f["type"] == "state" and f["status"] == "rating", timeout)
    await send(user, {"type": "rate", "rating": user.rng.randint(1, 5)})
    await until(user, lambda f: f["type"] == "state" and f["status"] == "complete", timeout)


async def simulate(*, campaign: Campaign, dialogues: int, concurrency: int = 4, seed: int = 0, timeout: float = 10) -> list[str]:
    """Run `dialogues` complete DuConv dialogues, `concurrency` at a time. Returns the room ids."""
    from channels.db import database_sync_to_async

    from collect.duconv.config import campaign_problems

    problems = await database_sync_to_async(campaign_problems)(campaign)
    if problems:
        raise ValueError(f"campaign {campaign.slug!r} cannot open rooms: {'; '.join(problems)}")
    return await run_dialogues(
        campaign=campaign, dialogues=dialogues, concurrency=concurrency, seed=seed, timeout=timeout,
        bot_class=DuConvBot, converse=_converse,
    )
