"""A model-chat turn with the built-in knowledgeable bot on the demo corpus: time from the human's
message frame to the model's reply frame on the human's socket, through the real consumer stack
(in-process, embedded channel layer; the model runs on a thread, as in `make run`). No artificial
typing delay. Target: p95 under 150 ms.

    .venv/bin/python bench/modelchat_turn.py [--turns 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time

from _setup import django_with_demo

TURNS_PER_ROOM = 5


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


async def run(turns: int) -> tuple[list[float], list[int]]:
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator
    from django.contrib.sessions.backends.db import SessionStore

    from collect.demo import PERSONAS
    from collect.modelchat.models import ModelTurn
    from collect.modelchat.services import modelchat_seat
    from collect.models import Campaign, Persona
    from collect.services.matchmaking import assignment_start, worker_get_or_create
    from groundwork.asgi import application
    from retrieval.models import KnowledgeSource, Sentence

    @database_sync_to_async
    def queries_for(count: int) -> list[str]:
        rng = random.Random(0)
        ids = list(Sentence.objects.values_list("pk", flat=True))
        return list(Sentence.objects.filter(pk__in=rng.sample(ids, count)).values_list("text", flat=True))

    @database_sync_to_async
    def new_room(index: int) -> tuple[str, bytes]:
        campaign, created = Campaign.objects.get_or_create(
            slug="bench-modelchat",
            defaults={
                "name": "bench", "protocol": "model_chat", "knowledge_source": KnowledgeSource.objects.get(slug="wiki-demo"),
                "min_turns": TURNS_PER_ROOM, "max_turns": TURNS_PER_ROOM, "turn_limit": 12,
                "protocol_config": {"models": {"kb-retrieval": 100_000}, "problems": []},
            },
        )
        if created:
            Persona.objects.bulk_create(Persona(campaign=campaign, text=t, topics=topics) for t, topics in PERSONAS)
        worker = worker_get_or_create(platform="bench", external_id=f"evaluator-{index}")
        room = modelchat_seat(assignment=assignment_start(campaign=campaign, worker=worker))
        session = SessionStore()
        session["worker_id"] = worker.pk
        session.create()
        return str(room.pk), f"sessionid={session.session_key}".encode()

    @database_sync_to_async
    def model_latencies() -> list[int]:
        return list(ModelTurn.objects.filter(message__room__campaign__slug="bench-modelchat").values_list("latency_ms", flat=True))

    queries = await queries_for(turns)
    latencies = []
    for first in range(0, turns, TURNS_PER_ROOM):
        room_id, cookie = await new_room(first)
        socket = WebsocketCommunicator(application, f"/ws/room/{room_id}/", headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)])
        await socket.connect()
        state = await receive(socket, lambda f: f["type"] == "state")
        await socket.send_to(text_data=json.dumps({"type": "choose_topic", "topic": state["persona"]["topics"][0]}))
        await receive(socket, lambda f: f["type"] == "state" and f["status"] == "chatting")
        for turn, query in enumerate(queries[first : first + TURNS_PER_ROOM]):
            seq = 2 * turn + 1
            started = time.perf_counter()
            await socket.send_to(text_data=json.dumps({"type": "message", "client_id": f"h{turn}", "text": query[:1000]}))
            await receive(socket, lambda f: f["type"] == "message" and f["seq"] == seq + 1)
            latencies.append((time.perf_counter() - started) * 1000)
        await socket.disconnect()
    return latencies, await model_latencies()


async def receive(socket, predicate) -> dict:
    from collect.frames import unbundled

    while True:
        for frame in unbundled(await socket.receive_json_from(timeout=10)):
            if frame["type"] == "error":
                raise RuntimeError(frame)
            if predicate(frame):
                return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault("GROUNDWORK_WS_RATE_PER_10S", "100000")
    django_with_demo()
    from django.db import connection

    latencies, model_ms = asyncio.run(run(args.turns))
    print(f"model-chat turn, built-in knowledgeable bot (kb-retrieval), demo corpus, {len(latencies)} turns, {connection.vendor}")
    print("| | p50 ms | p95 ms | p99 ms | max ms | mean ms |")
    print("|---|---|---|---|---|---|")
    for name, values in (("human message → model reply frame", latencies), ("model call alone (ModelTurn.latency_ms)", [float(v) for v in model_ms])):
        p = lambda q: f"{percentile(values, q):.1f}"  # noqa: E731
        print(f"| {name} | {p(50)} | {p(95)} | {p(99)} | {max(values):.1f} | {statistics.mean(values):.1f} |")


if __name__ == "__main__":
    main()
