"""The lifecycle sweep: its cost per 10,000 open assignments, and how long a stalled room takes to
end once its turn timeout has passed (p50 / p95 / max).

    .venv/bin/python bench/sweep_cost.py [--open 10000] [--stalled 40] [--interval 5]

Database: a temporary SQLite file, or DATABASE_URL when set (the bench adds its own campaigns there
and deletes them afterwards). Cost: open assignments are 1/5 waiting and 4/5 seated in live rooms,
all within their timeouts (the steady state: nothing to end), then the same with 1% of the rooms
stalled; each sweep is timed and its SQL queries counted. Latency: `--stalled` rooms whose turn
deadlines fall evenly over two sweep intervals, swept by the embedded background loop
(collect.lifecycle.background) every `--interval` seconds; latency = room.ended − deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setup(interval: float) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ["GROUNDWORK_SWEEP_SECONDS"] = str(interval)
    os.environ.pop("CELERY_BROKER_URL", None)  # the embedded loop is what is measured
    os.environ.pop("REDIS_URL", None)
    if not os.environ.get("DATABASE_URL"):
        os.environ["GROUNDWORK_VAR_DIR"] = tempfile.mkdtemp(prefix="gw-sweep-bench-")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    # A sweep process imports the protocols once; keep that one-off import out of the timings.
    import collect.tasktypes.curiosity.protocol  # noqa: F401
    import collect.tasktypes.wow.protocol  # noqa: F401


def campaign(**fields):
    from collect.models import Campaign
    from retrieval.models import KnowledgeSource

    tag = uuid.uuid4().hex[:8]
    source = KnowledgeSource.objects.create(slug=f"bench-sweep-{tag}", name="bench")
    return Campaign.objects.create(slug=f"bench-sweep-{tag}", name="bench", knowledge_source=source, **fields)


def fill(camp, *, waiting: int, rooms: int, stalled_rooms: int = 0) -> None:
    from django.utils import timezone

    from collect.models import Assignment, AssignmentStatus, Room, RoomStatus, Worker

    now = timezone.now()
    tag = camp.slug
    workers = Worker.objects.bulk_create(
        Worker(external_id=f"{tag}-{n}", pseudonym=f"{tag}-{n}"[-32:]) for n in range(waiting + 2 * rooms)
    )
    Assignment.objects.bulk_create(
        Assignment(campaign=camp, worker=w, status=AssignmentStatus.WAITING, connected=True, last_seen=now) for w in workers[:waiting]
    )
    stale = now - timedelta(seconds=camp.turn_timeout_seconds + 1)
    made = Room.objects.bulk_create(
        Room(campaign=camp, status=RoomStatus.CHATTING, first_speaker="wizard", turns_required=4, activity_at=stale if n < stalled_rooms else now)
        for n in range(rooms)
    )
    seats = []
    for n, room in enumerate(made):
        for k, role in enumerate(("wizard", "apprentice")):
            seats.append(Assignment(campaign=camp, worker=workers[waiting + 2 * n + k], status=AssignmentStatus.PAIRED, room=room, role=role, connected=True, last_seen=now))
    Assignment.objects.bulk_create(seats, batch_size=2000)


def drop(camp) -> None:
    from collect.models import Worker

    source = camp.knowledge_source
    Worker.objects.filter(external_id__startswith=camp.slug).delete()
    camp.delete()
    source.delete()


def timed_sweep() -> tuple[float, int, int]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from collect.lifecycle.sweep import sweep_run

    with CaptureQueriesContext(connection) as queries:
        start = time.perf_counter()
        result = sweep_run()
        elapsed = time.perf_counter() - start
    return elapsed, len(queries), len(result.rooms_ended)


def cost(open_assignments: int) -> None:
    waiting, rooms = open_assignments // 5, (open_assignments - open_assignments // 5) // 2
    for label, stalled in (("steady (nothing due)", 0), ("1% of rooms stalled", rooms // 100)):
        camp = campaign()
        try:
            fill(camp, waiting=waiting, rooms=rooms, stalled_rooms=stalled)
            runs = [timed_sweep() for _ in range(5)]
            first = runs[0]
            steady = sorted(r[0] for r in runs[1:])
            print(f"{label:22} {waiting + 2 * rooms} open: first sweep {first[0] * 1000:7.1f} ms, {first[1]} queries, "
                  f"{first[2]} rooms ended; later sweeps median {statistics.median(steady) * 1000:7.1f} ms")
        finally:
            drop(camp)


async def latency(stalled: int, interval: float) -> None:
    from channels.db import database_sync_to_async
    from django.utils import timezone

    from collect.lifecycle.background import sweeper_ensure
    from collect.models import Room

    camp = await database_sync_to_async(campaign)(turn_timeout_seconds=60)
    try:
        await database_sync_to_async(fill)(camp, waiting=0, rooms=stalled)
        # Deadlines spread evenly over the next two sweep intervals.
        now = timezone.now()
        ids = await database_sync_to_async(lambda: list(Room.objects.filter(campaign=camp).values_list("pk", flat=True)))()
        deadlines = {}
        for n, pk in enumerate(ids):
            deadline = now + timedelta(seconds=2 * interval * n / len(ids))
            deadlines[pk] = deadline
            await database_sync_to_async(Room.objects.filter(pk=pk).update)(activity_at=deadline - timedelta(seconds=60))
        sweeper_ensure()
        await asyncio.sleep(4 * interval + 2)
        ended = await database_sync_to_async(lambda: dict(Room.objects.filter(campaign=camp).values_list("pk", "ended")))()
        waits = sorted((ended[pk] - deadlines[pk]).total_seconds() for pk in ids if ended[pk])
        missing = sum(1 for pk in ids if not ended[pk])
        p95 = waits[min(len(waits) - 1, int(0.95 * len(waits)))]
        print(f"stalled rooms ended: {len(waits)}/{len(ids)} (not ended: {missing}); after the turn timeout: "
              f"p50 {statistics.median(waits):.2f} s, p95 {p95:.2f} s, max {waits[-1]:.2f} s (sweep every {interval:g} s)")
    finally:
        await database_sync_to_async(drop)(camp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--open", type=int, default=10_000)
    parser.add_argument("--stalled", type=int, default=40)
    parser.add_argument("--interval", type=float, default=5.0)
    args = parser.parse_args()
    setup(args.interval)
    from django.db import connection

    print(f"database: {connection.vendor}")
    cost(args.open)
    asyncio.run(latency(args.stalled, args.interval))


if __name__ == "__main__":
    main()
