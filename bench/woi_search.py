"""Wizard of Internet search latency: from the wizard's `search` frame arriving to the
`search_results` frame with its documents going out to the wizard's socket, through the real
consumer stack (in-process, the channel layer and database the environment names), with the
default search backend (the campaign's knowledge source through its first-stage index, five
documents). Run on the demo knowledge (10,033 Wikipedia lead paragraphs) and on synthetic
collections of short articles stored in the database and indexed by `build_index`'s own code
(bench/index_scale.py's Zipf corpus: 1-3 title words, 20-80 body words).

    .venv/bin/python bench/woi_search.py [--sizes demo 1000000] [--searches 300] [--corpus-dir /tmp]

Queries are search-engine-sized (WoI's are a few words): on the demo, an article's title, alone
or with 1-2 words of its lead; on a synthetic collection, 2-6 words drawn by the same Zipf law.
Each room takes 20 searches on one wizard turn (a turn allows 30). Besides the end-to-end time it
prints the backend's share (`finished_at - created` of each stored search: the search itself,
claimed, run and stored). The search runs on the chat process's threads (GROUNDWORK_KNOWLEDGE_MODE
process) unless --knowledge-mode celery (then start a worker on `default` first)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
SEARCHES_PER_ROOM = 20
INSERT_BATCH = 5000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=["demo", "1000000"], help="'demo' and/or numbers of synthetic articles")
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--corpus-dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--knowledge-mode", choices=("process", "celery"), default="process")
    args = parser.parse_args()
    os.environ["GROUNDWORK_KNOWLEDGE_MODE"] = args.knowledge_mode
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ.setdefault("GROUNDWORK_VAR_DIR", tempfile.mkdtemp(prefix="gw-bench-woi-"))
    import django
    from django.conf import settings
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    rows = []
    for size in args.sizes:
        started = time.perf_counter()
        source, queries = demo_source(args.searches) if size == "demo" else synthetic_source(int(size), args.searches, args.corpus_dir)
        print(f"{size}: knowledge ready in {time.perf_counter() - started:.0f} s ({source.articles.count():,} articles)", flush=True)
        latencies, backend, found = asyncio.run(measure(source, queries))
        rows.append({"size": size, "articles": source.articles.count(), **summary(latencies), "backend_p50_ms": pct(backend, 50),
                     "backend_p95_ms": pct(backend, 95), "documents_mean": round(statistics.mean(found), 2)})
        print(json.dumps(rows[-1]), flush=True)
    print(f"\nWizard of Internet search, query in → documents out to the wizard's socket, in-process consumer stack, "
          f"{database}, {layer}, knowledge mode {args.knowledge_mode}, {os.cpu_count()} cores, {args.searches} searches a size, "
          "5 documents asked")
    print(f"{'collection':>12}{'articles':>11}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}{'backend p50':>13}{'backend p95':>13}{'docs':>6}")
    for row in rows:
        print(f"{row['size']:>12}{row['articles']:>11,}{row['p50_ms']:>9}{row['p95_ms']:>9}{row['p99_ms']:>9}{row['max_ms']:>9}"
              f"{row['backend_p50_ms']:>13}{row['backend_p95_ms']:>13}{row['documents_mean']:>6}")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))], 1)


def summary(latencies: list[float]) -> dict[str, float]:
    return {"p50_ms": pct(latencies, 50), "p95_ms": pct(latencies, 95), "p99_ms": pct(latencies, 99), "max_ms": round(max(latencies), 1)}


def demo_source(searches: int):
    from django.conf import settings
    from django.core.management import call_command

    from retrieval.models import Article, KnowledgeSource

    slug = "wiki-demo"
    if not KnowledgeSource.objects.filter(slug=slug).exists():
        call_command("import_knowledge", "demo", source=slug, name="Wikipedia vital articles (demo)", verbosity=0)
    if not (settings.INDEX_DIR / slug / "meta.json").exists():
        call_command("build_index", source=slug, verbosity=0)
    source = KnowledgeSource.objects.get(slug=slug)
    rng = random.Random(0)
    articles = list(Article.objects.filter(source=source).values_list("title", "lead"))
    queries = []
    for title, lead in rng.sample(articles, searches):
        extra = [w for w in lead.split()[5:25] if w.isalpha() and len(w) > 3]
        queries.append(title if not extra or rng.random() < 0.5 else f"{title} {' '.join(rng.sample(extra, min(len(extra), rng.randint(1, 2))))}")
    return source, queries


def synthetic_source(size: int, searches: int, corpus_dir: Path):
    """`size` synthetic articles in the database (index_scale.py's corpus, its lines as articles
    and each body as a lead of two sentences), indexed by build_index's code; kept for a rerun."""
    import numpy as np
    from django.conf import settings
    from django.db import transaction
    from index_scale import words, write_corpus, zipf_vocabulary

    from retrieval.index.build import index_build
    from retrieval.models import LEAD_SECTION, Article, KnowledgeSource, Sentence

    vocab, p = zipf_vocabulary()
    slug = f"synthetic-{size}"
    source, _ = KnowledgeSource.objects.get_or_create(slug=slug, defaults={"name": f"{size:,} synthetic articles"})
    if source.articles.count() < size:
        corpus = corpus_dir / f"groundwork-bench-corpus-{size}.txt"
        if not corpus.exists():
            write_corpus(corpus, size, vocab, p)
        source.articles.all().delete()
        started = time.perf_counter()
        with corpus.open() as lines:
            batch: list[tuple[str, str]] = []
            for number, line in enumerate(lines):
                title, _, body = line.rstrip("\n").partition("\t")
                batch.append((f"{title} {number}", body))  # titles are unique in a source
                if len(batch) == INSERT_BATCH:
                    _insert(source, batch, Article, Sentence, LEAD_SECTION, transaction)
                    batch = []
            if batch:
                _insert(source, batch, Article, Sentence, LEAD_SECTION, transaction)
        print(f"{size:,} articles stored in {time.perf_counter() - started:.0f} s", flush=True)
    if not (settings.INDEX_DIR / slug / "meta.json").exists():
        started = time.perf_counter()
        index_build(source_id=source.pk)
        print(f"{size:,} articles indexed in {time.perf_counter() - started:.0f} s", flush=True)
    rng = np.random.default_rng(11)
    return source, words(rng, vocab, p, rng.integers(2, 7, searches))


def _insert(source, batch, Article, Sentence, lead, transaction) -> None:
    with transaction.atomic():
        articles = Article.objects.bulk_create([Article(source=source, title=t, lead=b) for t, b in batch])
        sentences = []
        for article, (_, body) in zip(articles, batch):
            body_words = body.split()
            half = max(1, len(body_words) // 2)
            for position, part in enumerate((body_words[:half], body_words[half:])):
                if part:
                    sentences.append(Sentence(article=article, section=lead, position=position, text=" ".join(part).capitalize() + "."))
        Sentence.objects.bulk_create(sentences)


async def measure(source, queries: list[str]) -> tuple[list[float], list[float], list[int]]:
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator
    from django.contrib.sessions.backends.db import SessionStore

    from collect.models import Assignment, AssignmentStatus, Campaign, Room, RoomStatus, Worker
    from collect.tasktypes.woi.models import WoiDialogue, WoiSearch
    from collect.tasktypes.woi.searching import searches_settled
    from groundwork.asgi import application

    @database_sync_to_async
    def new_room() -> tuple[str, bytes]:
        campaign, _ = Campaign.objects.get_or_create(
            slug=f"bench-woi-{source.slug}",
            defaults={"name": "bench", "protocol": "woi", "knowledge_source": source, "min_turns": 4, "max_turns": 4},
        )
        room = Room.objects.create(campaign=campaign, first_speaker="wizard", turns_required=4, status=RoomStatus.CHATTING,
                                   topic="My favorite hobby is reading.")
        WoiDialogue.objects.create(room=room, persona="My favorite hobby is reading.\nI read every night before I sleep.")
        worker = Worker.objects.create(platform="bench", external_id=f"wizard-{room.pk}")
        Assignment.objects.create(campaign=campaign, worker=worker, status=AssignmentStatus.PAIRED, room=room, role="wizard")
        partner = Worker.objects.create(platform="bench", external_id=f"apprentice-{room.pk}")
        Assignment.objects.create(campaign=campaign, worker=partner, status=AssignmentStatus.PAIRED, room=room, role="apprentice")
        session = SessionStore()
        session["worker_id"] = worker.pk
        session.create()
        return str(room.pk), f"sessionid={session.session_key}".encode()

    async def documents_for(socket: WebsocketCommunicator, client_id: str) -> dict:
        while True:
            frame = json.loads(await socket.receive_from(timeout=60))
            if frame["type"] == "search_results" and frame["latest"] and frame["latest"]["status"] != "pending":
                return frame

    latencies, found, rooms = [], [], []
    # Warm-up: the index is loaded once per process, not part of any search's time.
    queries = [queries[0], *queries]
    for start in range(0, len(queries), SEARCHES_PER_ROOM):
        room_id, cookie = await new_room()
        rooms.append(room_id)
        socket = WebsocketCommunicator(application, f"/ws/room/{room_id}/", headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)])
        connected, _ = await socket.connect(timeout=30)
        assert connected
        for n, query in enumerate(queries[start : start + SEARCHES_PER_ROOM]):
            sent = time.perf_counter()
            await socket.send_to(text_data=json.dumps({"type": "search", "client_id": f"s{start + n}", "query": query}))
            frame = await documents_for(socket, f"s{start + n}")
            latencies.append((time.perf_counter() - sent) * 1000)
            assert frame["latest"]["status"] == "done", frame["latest"]
            found.append(len(frame["shown"]["documents"]))
        await socket.disconnect()
    await searches_settled()
    backend = await database_sync_to_async(lambda: [
        (s.finished_at - s.created).total_seconds() * 1000
        for s in WoiSearch.objects.filter(room_id__in=rooms).order_by("pk")
    ])()
    return latencies[1:], backend[1:], found[1:]


if __name__ == "__main__":
    main()
