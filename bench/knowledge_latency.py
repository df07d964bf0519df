"""Knowledge for a wizard turn on the demo corpus: time from the apprentice's message frame
arriving to the wizard's `knowledge` frame, through the real consumer stack (in-process, embedded
channel layer). Target: p95 under 50 ms.

    .venv/bin/python bench/knowledge_latency.py [--turns 200]
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


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


async def run(turns: int) -> list[float]:
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator
    from django.contrib.sessions.backends.db import SessionStore

    from collect.models import Assignment, AssignmentStatus, Campaign, Room, Worker
    from groundwork.asgi import application
    from retrieval.models import KnowledgeSource, Sentence

    @database_sync_to_async
    def setup() -> tuple[str, dict[str, bytes], list[str]]:
        source = KnowledgeSource.objects.get(slug="wiki-demo")
        campaign, _ = Campaign.objects.get_or_create(
            slug="bench-latency",
            defaults={"name": "bench", "knowledge_source": source, "min_turns": 250, "max_turns": 250, "turn_limit": 32000},
        )
        room = Room.objects.create(campaign=campaign, first_speaker="apprentice", turns_required=250, topic="Guitar", status="chatting")
        cookies = {}
        for role in ("wizard", "apprentice"):
            worker = Worker.objects.create(platform="bench", external_id=f"{role}-{room.pk}")
            Assignment.objects.create(campaign=campaign, worker=worker, status=AssignmentStatus.PAIRED, room=room, role=role)
            session = SessionStore()
            session["worker_id"] = worker.pk
            session.create()
            cookies[role] = f"sessionid={session.session_key}".encode()
        rng = random.Random(0)
        ids = list(Sentence.objects.values_list("pk", flat=True))
        queries = list(Sentence.objects.filter(pk__in=rng.sample(ids, turns)).values_list("text", flat=True))
        return str(room.pk), cookies, queries

    room_id, cookies, queries = await setup()
    sockets = {}
    for role, cookie in cookies.items():
        socket = WebsocketCommunicator(application, f"/ws/room/{room_id}/", headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)])
        await socket.connect()
        sockets[role] = socket
    latencies = []
    for turn, query in enumerate(queries):
        seq = 2 * turn + 1
        started = time.perf_counter()
        await sockets["apprentice"].send_to(text_data=json.dumps({"type": "message", "client_id": f"a{turn}", "text": query[:1000]}))
        while True:
            frame = await sockets["wizard"].receive_json_from(timeout=5)
            if frame["type"] == "error":
                raise RuntimeError(frame)
            if frame["type"] == "knowledge" and frame["after_seq"] == seq:
                latencies.append((time.perf_counter() - started) * 1000)
                break
        reply = {"type": "message", "client_id": f"w{turn}", "text": "I see.", "checked": {"no_passages_used": True}}
        await sockets["wizard"].send_to(text_data=json.dumps(reply))
        while (await sockets["wizard"].receive_json_from(timeout=5))["type"] != "ack":
            pass
    for socket in sockets.values():
        await socket.disconnect()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    # Far faster than people type: lift the per-connection frame limit for the benchmark.
    os.environ.setdefault("GROUNDWORK_WS_RATE_PER_10S", "100000")
    django_with_demo()
    from django.db import connection

    latencies = asyncio.run(run(args.turns))
    print(f"knowledge for a wizard turn, demo corpus (10,033 articles), {len(latencies)} turns, {connection.vendor}")
    print("| p50 ms | p95 ms | p99 ms | max ms | mean ms |")
    print("|---|---|---|---|---|")
    p = lambda q: f"{percentile(latencies, q):.1f}"  # noqa: E731
    print(f"| {p(50)} | {p(95)} | {p(99)} | {max(latencies):.1f} | {statistics.mean(latencies):.1f} |")


if __name__ == "__main__":
    main()
