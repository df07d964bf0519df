"""Next-item assignment and answer submission under concurrent annotators, on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python bench/annotation_load.py
        [--annotators 20] [--items 200] [--overlap 10] [--answers 50] [--think-ms 0]

DATABASE_URL only says which server to use: the bench creates its own database there (a unique
name, through the server's `postgres` maintenance database), runs, and drops it; it never touches
the database the URL names.

Each annotator is a separate process. Released together, each calls the API exactly as the screens
do (POST .../next/, then POST .../answers/, through Django's test client: the whole Django + DRF
stack, no network), pausing before each answer for a random 0.5-1.5 x --think-ms (0: flat out).
A watcher process samples every item's answers + live reservations meanwhile. Printed: wall and CPU
p50/p95/p99/max per operation, and the over-assignment check. Target: p95 under 50 ms each, no item
ever above its overlap.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent


def _server_url(url: str, database: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{database}"))


def _admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(_server_url(url, "postgres"), autocommit=True) as conn:
        conn.execute(sql)


def _django(database_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _setup(args: argparse.Namespace) -> tuple[str, list[str]]:
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    from annotate.identity import worker_token
    from annotate.services.jobs import ItemSpec, items_add, job_create
    from collect.models import Worker

    job = job_create(slug="bench", name="bench", kind="relevance", overlap=args.overlap)
    sentences = [{"article": f"Article {a}", "sentence": f"Sentence {s} of article {a}."} for a in range(5) for s in range(6)]
    payload = {"topic": "Bench", "turns": ["Hello there.", "Hi! What do you know?", "Tell me more."], "candidates": sentences}
    items_add(job=job, specs=[ItemSpec(key=f"item-{n}", payload={**payload, "id": f"item-{n}"}) for n in range(args.items)])
    workers = [Worker.objects.create(platform="bench", external_id=f"annotator-{n}") for n in range(args.annotators)]
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # planner statistics, as autovacuum keeps them on a live server
    return job.slug, [worker_token(w) for w in workers]


def _annotator(database_url: str, slug: str, token: str, answers: int, think_ms: float, start: Any, out: Any) -> None:
    _django(database_url)
    from django.db import connections
    from django.test import Client

    connections.close_all()
    client, auth = Client(), {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    times: dict[str, list[float]] = {"next": [], "submit": [], "next cpu": [], "submit cpu": []}
    statuses: dict[str, int] = {}
    client.get("/api/annotate/jobs/", **auth)  # a long-running server has loaded its URLs and views already
    rng = random.Random(token)
    start.wait()
    # Annotators work independently: they start apart and pause for varying times (uniform around
    # --think-ms), instead of all asking at the same instant every round.
    time.sleep(rng.uniform(0, think_ms / 1000))
    for n in range(answers):
        t0, c0 = time.perf_counter(), time.process_time()
        response = client.post(f"/api/annotate/jobs/{slug}/next/", **auth)
        times["next"].append((time.perf_counter() - t0) * 1000)
        times["next cpu"].append((time.process_time() - c0) * 1000)
        data = response.json()
        statuses[data["status"]] = statuses.get(data["status"], 0) + 1
        if data["item"] is None:
            break
        if think_ms:
            time.sleep(rng.uniform(0.5, 1.5) * think_ms / 1000)
        body = json.dumps({"selected": [n % 30, (n + 7) % 30], "time_spent_ms": 1000})
        t0, c0 = time.perf_counter(), time.process_time()
        response = client.post(f"/api/annotate/items/{data['item']['id']}/answers/", body, content_type="application/json", **auth)
        times["submit"].append((time.perf_counter() - t0) * 1000)
        times["submit cpu"].append((time.process_time() - c0) * 1000)
        if response.status_code != 201:
            statuses[f"submit {response.status_code}"] = statuses.get(f"submit {response.status_code}", 0) + 1
    connections.close_all()
    out.put({"times": times, "statuses": statuses})


def _load_now() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM annotate_assignment WHERE status = 'submitted'"
            " OR (status = 'assigned' AND expires_at > now()) GROUP BY item_id) loads"
        )
        return cursor.fetchone()[0]


def _watcher(database_url: str, stop: Any, out: Any) -> None:
    _django(database_url)
    from django.db import connections

    connections.close_all()
    peak, samples = 0, 0
    while not stop.is_set():
        peak, samples = max(peak, _load_now()), samples + 1
        time.sleep(0.05)
    connections.close_all()
    out.put({"peak": peak, "samples": samples})


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--overlap", type=int, default=10)
    parser.add_argument("--answers", type=int, default=50, help="answers per annotator")
    parser.add_argument("--think-ms", type=float, default=0.0, help="pause between getting an item and answering it")
    args = parser.parse_args()
    base_url = os.environ.get("DATABASE_URL", "")
    if not base_url.startswith(("postgres://", "postgresql://")):
        sys.exit("set DATABASE_URL to a PostgreSQL server, e.g. postgres://postgres@127.0.0.1:5432/test")
    database = f"gw_annotation_bench_{uuid.uuid4().hex[:10]}"
    _admin(base_url, f'CREATE DATABASE "{database}"')
    database_url = _server_url(base_url, database)
    try:
        _django(database_url)
        slug, tokens = _setup(args)
        from django.db import connections

        connections.close_all()
        ctx = mp.get_context("fork")
        start, stop, results, watched = ctx.Event(), ctx.Event(), ctx.Queue(), ctx.Queue()
        watcher = ctx.Process(target=_watcher, args=(database_url, stop, watched))
        procs = [ctx.Process(target=_annotator, args=(database_url, slug, t, args.answers, args.think_ms, start, results)) for t in tokens]
        watcher.start()
        for proc in procs:
            proc.start()
        time.sleep(1.0)  # every process has set Django up and waits at the start line
        began = time.perf_counter()
        start.set()
        runs = [results.get(timeout=600) for _ in procs]
        wall = time.perf_counter() - began
        for proc in procs:
            proc.join()
        stop.set()
        watch = watched.get(timeout=60)
        watcher.join()
        _report(args, runs, watch, wall)
    finally:
        from django.db import connections

        connections.close_all()
        _admin(base_url, f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def _report(args: argparse.Namespace, runs: list[dict[str, Any]], watch: dict[str, int], wall: float) -> None:
    from django.db.models import Count, Max

    from annotate.models import Assignment, AssignmentStatus, Item

    print(f"{args.annotators} concurrent annotators, {args.items} items, overlap {args.overlap}, "
          f"think time {args.think_ms:g} ms, {os.cpu_count()} CPUs, PostgreSQL, load average {os.getloadavg()[0]:.1f}")
    print(f"{'operation':<12} {'calls':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for op in ("next", "submit", "next cpu", "submit cpu"):
        values = [v for run in runs for v in run["times"][op]]
        print(f"{op:<12} {len(values):>6} {statistics.median(values):>8.1f} {_percentile(values, 0.95):>8.1f} "
              f"{_percentile(values, 0.99):>8.1f} {max(values):>8.1f}")
    print("(cpu: the Django process's own CPU time per call, without the database server's)")
    statuses: dict[str, int] = {}
    for run in runs:
        for key, n in run["statuses"].items():
            statuses[key] = statuses.get(key, 0) + n
    submitted = Assignment.objects.filter(status=AssignmentStatus.SUBMITTED)
    per_item = submitted.values("item").annotate(n=Count("pk")).aggregate(most=Max("n"))["most"] or 0
    over = submitted.values("item").annotate(n=Count("pk")).filter(n__gt=args.overlap).count()
    counters = Item.objects.filter(answers_count__gt=args.overlap).count()
    print(f"answers {submitted.count()} in {wall:.1f} s ({submitted.count() / wall:.0f}/s); next-item statuses {statuses}")
    print(f"over-assignment: most answers on one item {per_item} (overlap {args.overlap}); items over the overlap: "
          f"{over} (counter: {counters}); peak answers+live reservations on an item while running: "
          f"{watch['peak']} over {watch['samples']} samples -> {'OK' if over == 0 and counters == 0 and watch['peak'] <= args.overlap else 'OVER-ASSIGNED'}")


if __name__ == "__main__":
    main()
