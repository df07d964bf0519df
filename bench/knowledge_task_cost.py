"""CPU of the wizard's knowledge work per chat message, as a Celery worker does it: the body of
`collect.tasks.messages_knowledge` for one message (retrieve for it, save it, build the wizard's panel after
an apprentice turn and, for a ranker that runs no encoder, rerank and save it there; publish it to
the room's group) and of `knowledge_rerank` for the panels it queues for an encoding ranker (rerank
the panel, save it, publish it), run in this process for stored WoW messages.

    .venv/bin/python bench/knowledge_task_cost.py [--messages 400]

The embedded SQLite database and in-memory channel layer by default; DATABASE_URL=postgres://...
and REDIS_URL=redis://... for the production services. Celery's own cost per task (receiving,
acknowledging) comes on top."""

from __future__ import annotations

import argparse
import time
import uuid

from _setup import django_with_demo, wow_room


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=400, help="messages to retrieve for (default 400)")
    args = parser.parse_args()
    django_with_demo()
    from django.db import connection

    from collect.models import Campaign, Message, RoomStatus
    from collect.tasktypes.wow import protocol as wow
    from collect.tasks import knowledge_rerank, knowledge_reranks, messages_knowledge

    campaign = Campaign.objects.get(slug="wow-demo")
    topic = campaign.personas.first().topics[0]
    texts = ["I love playing the guitar and the blues", "Who invented the electric guitar?",
             "Jazz musicians in New Orleans", "Tell me about the history of rock music"]
    ids: list[int] = []
    while len(ids) < args.messages:
        room, seats = wow_room(campaign, status=RoomStatus.CHATTING, topic=topic)
        for seq, text in enumerate(texts, 1):
            role = wow.WIZARD if seq % 2 else wow.APPRENTICE
            ids.append(Message.objects.create(room=room, seq=seq, sender=seats[role], role=role, client_id=uuid.uuid4().hex,
                                              text=text).pk)
    reranks: list[tuple] = []
    original = knowledge_reranks.apply_async
    knowledge_reranks.apply_async = lambda args, **_: reranks.extend(args[0])  # kept to run below, not queued
    try:
        warm = 20
        for message_id in ids[:warm]:
            messages_knowledge.run([message_id])
        reranks.clear()
        cpu, wall = time.process_time(), time.perf_counter()
        for message_id in ids[warm:]:
            messages_knowledge.run([message_id])
        retrieve_cpu, retrieve_wall = time.process_time() - cpu, time.perf_counter() - wall
        cpu, wall = time.process_time(), time.perf_counter()
        for rerank_args in reranks:
            knowledge_rerank.run(*rerank_args)
        rerank_cpu, rerank_wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        knowledge_reranks.apply_async = original
    n = len(ids) - warm
    print(f"knowledge work for {n} WoW messages on {connection.vendor} ({len(reranks)} panels reranked):")
    print(f"  messages_knowledge CPU {1000 * retrieve_cpu / n:.2f} ms, wall {1000 * retrieve_wall / n:.2f} ms per message")
    if reranks:
        print(f"  knowledge_rerank   CPU {1000 * rerank_cpu / len(reranks):.2f} ms, wall {1000 * rerank_wall / len(reranks):.2f} ms per panel")
        print(f"  together           CPU {1000 * (retrieve_cpu + rerank_cpu) / n:.2f} ms per chat message")


if __name__ == "__main__":
    main()
