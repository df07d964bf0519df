"""Speed and memory of the Wizard of Wikipedia export, for 250, 500 and 1,000 simulated dialogues.

    .venv/bin/python bench/export_speed.py [--sizes 250 500 1000] [--chunk-size N]

Each size gets its own database (a temporary SQLite file, or DATABASE_URL when set: the bench then
adds one campaign there and deletes it afterwards) and runs in fresh processes: one fills it, one
times the export and reads the peak resident memory (ru_maxrss) before and after, one measures the
export's peak Python allocation with tracemalloc (which slows it down, hence a separate run).
Dialogues are shaped like the original: 10 turns, every turn with 7 retrieved passages of 5
sentences, the wizard's knowledge shown and a checked sentence. Target: 1,000 dialogues under 10 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TURNS = 10
PASSAGES = 7
SENTENCES = 5


# --- Child processes (Django) -------------------------------------------------------------------


def _setup() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    import django

    django.setup()


def _sentence(rng: random.Random, words: list[str]) -> str:
    text = " ".join(rng.choice(words) for _ in range(rng.randint(14, 30)))
    return text[0].upper() + text[1:] + "."


def populate(dialogues: int, slug: str) -> None:
    _setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0, interactive=False)

    from collect.models import Assignment, AssignmentStatus, Campaign, Message, Persona, Room, RoomStatus, Worker
    from retrieval.models import KnowledgeSource

    rng = random.Random(dialogues)
    syllables = ["ka", "to", "ri", "men", "sa", "lo", "vin", "de", "ar", "qu", "el", "nor", "pi", "tha", "us"]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(3000)]
    titles = [" ".join(w.capitalize() for w in rng.sample(words, rng.randint(1, 3))) for _ in range(2000)]
    topics = titles[:300]

    def passage(title: str) -> dict[str, list[str]]:
        return {title: [_sentence(rng, words) for _ in range(SENTENCES)]}

    source = KnowledgeSource.objects.create(slug=slug, name=f"bench {slug}")
    campaign = Campaign.objects.create(slug=slug, name=f"bench {slug}", knowledge_source=source)
    personas = Persona.objects.bulk_create(
        Persona(campaign=campaign, text=f"I like {rng.choice(topics).lower()}.", topics=rng.sample(topics, 2))
        for _ in range(50)
    )
    workers = Worker.objects.bulk_create(Worker(platform="bench", external_id=f"{slug}-{n}") for n in range(200))

    rooms, seats, messages = [], [], []
    for _ in range(dialogues):
        topic = rng.choice(topics)
        first = rng.choice(("wizard", "apprentice"))
        room = Room(
            id=uuid.uuid4(),
            campaign=campaign,
            status=RoomStatus.COMPLETE,
            first_speaker=first,
            turns_required=5,
            persona=rng.choice(personas),
            topic=topic,
            topic_passage=[_sentence(rng, words) for _ in range(10)],
            rating=rng.choice([None, 1, 2, 3, 4, 5]),
        )
        rooms.append(room)
        pair = rng.sample(workers, 2)
        by_role = {}
        for role, worker in zip(("wizard", "apprentice"), pair):
            by_role[role] = Assignment(
                campaign=campaign, worker=worker, room=room, role=role, status=AssignmentStatus.PAIRED
            )
            seats.append(by_role[role])
        other = "apprentice" if first == "wizard" else "wizard"
        retrieved: list[list[dict[str, list[str]]]] = []
        for seq in range(1, TURNS + 1):
            role = first if seq % 2 else other
            passages = [passage(title) for title in rng.sample(titles, PASSAGES)]
            fields: dict[str, Any] = {}
            if role == "wizard":
                shown = [{"source": "chosen", "passage": 0, "title": topic, "sentences": room.topic_passage}]
                for source, back in (("partner", 1), ("self", 2)):
                    if len(retrieved) >= back:
                        for i, p in enumerate(retrieved[-back]):
                            (title, sentences), = p.items()
                            shown.append({"source": source, "passage": i, "title": title, "sentences": sentences})
                pick = rng.choice(shown)
                if rng.random() < 0.1:
                    checked = {"no_passages_used": "no_passages_used"}
                    fields = {"checked_sentence": checked, "checked_passage": dict(checked)}
                else:
                    j = rng.randrange(len(pick["sentences"]))
                    name = pick["title"].replace(" ", "_")
                    src = "chosen_topic" if pick["source"] == "chosen" else pick["source"]
                    fields = {
                        "checked_sentence": {f"{pick['source']}_{name}_{j}": pick["sentences"][j]},
                        "checked_passage": {f"{src}_{pick['passage']}_{name}": pick["title"]},
                    }
                fields["knowledge_shown"] = shown
            messages.append(
                Message(
                    room=room,
                    seq=seq,
                    sender=by_role[role],
                    role=role,
                    client_id=f"c{seq}",
                    text=_sentence(rng, words),
                    retrieved_passages=passages,
                    **fields,
                )
            )
            retrieved.append(passages)

    Room.objects.bulk_create(rooms, batch_size=500)
    Assignment.objects.bulk_create(seats, batch_size=500)
    Message.objects.bulk_create(messages, batch_size=200)
    if connection.vendor == "sqlite":
        # Fold the write-ahead log back in, so the export's memory is not measured on top of its index.
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def measure(slug: str, out: str, chunk_size: int, use_tracemalloc: bool) -> None:
    _setup()
    import gc
    import io
    import resource
    import time
    import tracemalloc

    from django.core.management import call_command
    from django.db import connection

    # One-time costs (imports, the connection) are paid before measuring.
    import collect.tasktypes.wow.exporter  # noqa: F401
    import collect.management.commands.export_dataset  # noqa: F401

    connection.ensure_connection()
    gc.collect()
    if use_tracemalloc:
        tracemalloc.start()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    args = ["export_dataset", "wow", "--out", out, "--campaign", slug, "--chunk-size", str(chunk_size)]
    printed = io.StringIO()
    call_command(*args, stdout=printed)
    wall = time.perf_counter() - start
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    peak = tracemalloc.get_traced_memory()[1] if use_tracemalloc else None
    total = next(int(line.split()[1]) for line in printed.getvalue().splitlines() if line.startswith("total"))
    rss = {"rss_before_kib": rss_before, "rss_after_kib": rss_after}
    print(json.dumps({"dialogues": total, "wall_s": wall, "peak": peak, **rss}))


def cleanup(slug: str) -> None:
    _setup()
    from collect.models import Campaign, Worker
    from retrieval.models import KnowledgeSource

    Campaign.objects.filter(slug=slug).delete()
    KnowledgeSource.objects.filter(slug=slug).delete()
    Worker.objects.filter(platform="bench", external_id__startswith=f"{slug}-").delete()


# --- Parent process -----------------------------------------------------------------------------


def _child(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, __file__, *args], env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"bench step {args[0]} failed:\n{done.stderr}")
    return done.stdout


def run_size(dialogues: int, chunk_size: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gw-export-bench-") as tmp:
        env = dict(os.environ, DJANGO_SETTINGS_MODULE="groundwork.settings", DEBUG="0")
        if not os.environ.get("DATABASE_URL"):
            env["GROUNDWORK_VAR_DIR"] = str(Path(tmp) / "var")  # settings put db.sqlite3 there
            (Path(tmp) / "var").mkdir()
        slug = f"bench-export-{uuid.uuid4().hex[:8]}"
        out = str(Path(tmp) / "out")
        try:
            _child(env, "populate", str(dialogues), slug)
            timed = json.loads(_child(env, "measure", slug, out, str(chunk_size), "time"))
            traced = json.loads(_child(env, "measure", slug, out, str(chunk_size), "tracemalloc"))
        finally:
            if os.environ.get("DATABASE_URL"):
                _child(env, "cleanup", slug)
        # The counts come from the child: loading the files here would grow this process, and a
        # child inherits its parent's peak resident size (ru_maxrss survives fork and exec).
        return {
            "dialogues": timed["dialogues"],
            "output_mib": sum(p.stat().st_size for p in Path(out).glob("*.json")) / 2**20,
            "wall_s": timed["wall_s"],
            "traced_wall_s": traced["wall_s"],
            "peak_mib": traced["peak"] / 2**20,
            "rss_delta_mib": (timed["rss_after_kib"] - timed["rss_before_kib"]) / 1024,
            "rss_before_mib": timed["rss_before_kib"] / 1024,
            "rss_mib": timed["rss_after_kib"] / 1024,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000])
    parser.add_argument("--chunk-size", type=int, default=500)
    args = parser.parse_args()
    database = "DATABASE_URL" if os.environ.get("DATABASE_URL") else "temporary SQLite file"
    shape = f"{TURNS} turns x {PASSAGES} passages x {SENTENCES} sentences"
    print(f"WoW export, {shape}, chunk {args.chunk_size}, {database}", flush=True)
    header = ("dialogues", "export s", "dlg/s", "tracemalloc peak MiB", "maxrss before -> after MiB", "delta MiB")
    header += ("output MiB",)
    print(" | ".join(header), flush=True)
    for size in args.sizes:
        r = run_size(size, args.chunk_size)
        row = (
            f"{r['dialogues']:>9}",
            f"{r['wall_s']:>8.2f}",
            f"{r['dialogues'] / r['wall_s']:>5.0f}",
            f"{r['peak_mib']:>20.1f}",
            f"{r['rss_before_mib']:>12.1f} -> {r['rss_mib']:>9.1f}",
            f"{r['rss_delta_mib']:>9.1f}",
            f"{r['output_mib']:>10.1f}",
        )
        print(" | ".join(row), flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("populate", "measure", "cleanup"):
        step, rest = sys.argv[1], sys.argv[2:]
        if step == "populate":
            populate(int(rest[0]), rest[1])
        elif step == "measure":
            measure(rest[0], rest[1], int(rest[2]), use_tracemalloc=rest[3] == "tracemalloc")
        else:
            cleanup(rest[0])
    else:
        main()
