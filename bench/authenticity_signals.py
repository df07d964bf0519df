"""Precision and recall of the authenticity signals (docs/authenticity.md) on scripted workers:
records built the way static/js/authenticity.js counts (not typed in a browser: the browser test
tests/browser/test_authenticity_browser.py checks the page's counting), stored through the
server's record check, and the signals computed as the Celery task does.

    .venv/bin/python bench/authenticity_signals.py [--dialogues 240] [--seed 0]

Workers, in turn, as the wizard of each dialogue (the apprentice is always an honest typist):
a typist with corrections, a typist using an input method (compositions), a phone typist with
autocorrect and voice input, a paster of LLM-written replies from outside the page, a paster of the
knowledge sentence, a "fast typer" inserting text key by key at 40 characters a second, a bot
sending no record, and one person with two worker ids in one browser. A throwaway SQLite database.
Prints, per signal, the seats it flagged and its precision and recall against the cheat it is
meant to catch, then the same for "any flag" against every cheat."""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HONEST = ("typist", "ime", "phone")
CHEATS = {"paste_outside": "outside_paster", "knowledge_copy": "knowledge_paster", "typing_speed": "fast_typer",
          "record_missing": "bot", "shared_browser": "two_ids"}
KINDS = (*HONEST, "outside_paster", "knowledge_paster", "fast_typer", "bot", "two_ids")
WORDS = ("river music guitar song band night city story learn play teach listen old new friend famous early "
         "love think sound style record album player history start south north people really maybe little").split()
LLM_REPLIES = [
    "Absolutely! The blues is a fascinating genre that emerged from African-American communities in the Deep South.",
    "Great question! Jazz developed in New Orleans and is characterized by improvisation and complex harmonies.",
    "Certainly! The guitar has played a pivotal role in shaping modern popular music across many genres.",
]


def setup() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ["GROUNDWORK_VAR_DIR"] = tempfile.mkdtemp(prefix="gw-bench-")
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
        os.environ.pop(name, None)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def own_words(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 16))).capitalize() + "."


def typed_record(rng: random.Random, text: str, *, cps: float, typed_share: float = 1.0, ime: bool = False) -> dict:
    """A record of `text` typed key by key at about `cps` characters a second (corrections typed
    too); the rest (1 - typed_share) inserted several characters at once (autocorrect, voice)."""
    typed = round(len(text) * typed_share)
    corrections = rng.randint(0, 3) * 2
    typing_ms = round((typed + corrections) / cps * 1000)
    return {"v": 1, "compose_ms": typing_ms + rng.randint(2_000, 20_000), "typing_ms": typing_ms,
            "typed_chars": typed + corrections, "inserted_chars": len(text) - typed, "paste": {},
            "hidden_ms": rng.choice((0, 0, 0, rng.randint(500, 8_000))), "panel_ms": rng.randint(2_000, 30_000),
            "passages": [], "compositions": typed // 2 if ime else 0}


def turn(rng: random.Random, kind: str, knowledge: list[str]) -> tuple[str, dict | None]:
    """(text, page record) of one wizard turn of a worker of `kind`."""
    if kind == "outside_paster":
        text = rng.choice(LLM_REPLIES)
        return text, {"v": 1, "compose_ms": rng.randint(3_000, 9_000), "typing_ms": 0, "typed_chars": 0,
                      "paste": {"outside": {"count": 1, "chars": len(text)}}, "hidden_ms": rng.randint(2_000, 15_000)}
    if kind == "knowledge_paster":
        sentence = rng.choice(knowledge)
        text = f"Oh nice. {sentence}"
        record = typed_record(rng, "Oh nice. ", cps=6)
        record["paste"] = {"knowledge": {"count": 1, "chars": len(sentence)}}
        return text, record
    text = own_words(rng)
    if kind == "fast_typer":
        return text, typed_record(rng, text, cps=40)
    if kind == "bot":
        return text, None
    if kind == "ime":
        return text, typed_record(rng, text, cps=rng.uniform(1.5, 4), ime=True)
    if kind == "phone":
        return text, typed_record(rng, text, cps=rng.uniform(2, 5), typed_share=rng.uniform(0.5, 0.9))
    return text, typed_record(rng, text, cps=rng.uniform(3, 11))  # typist, two_ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialogues", type=int, default=240)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    setup()
    from collect.authenticity.record import record_build
    from collect.authenticity.signals import room_signals_compute
    from collect.models import Assignment, AssignmentStatus, Campaign, Message, Room, RoomStatus, Worker
    from collect.models_authenticity import AuthenticityFlag
    from retrieval.models import KnowledgeSource

    rng = random.Random(args.seed)
    source = KnowledgeSource.objects.create(slug="bench", name="bench")
    campaign = Campaign.objects.create(slug="bench", name="bench", knowledge_source=source, protocol="wow")
    knowledge = ["The blues originated in the Deep South of the United States around the 1860s.",
                 "Jazz is characterized by swing and blue notes, complex chords and improvisation.",
                 "The guitar is a fretted musical instrument that typically has six strings."]
    truth: dict[int, str] = {}  # seat id → kind
    shared_browser = "f" * 64
    for n in range(args.dialogues):
        kind = KINDS[n % len(KINDS)]
        room = Room.objects.create(campaign=campaign, status=RoomStatus.COMPLETE, first_speaker="wizard", turns_required=3,
                                   topic="Blues", topic_passage=knowledge[:1])
        seats = {}
        for role, who in (("wizard", kind), ("apprentice", "typist")):
            browser = shared_browser if who == "two_ids" else f"{n:032x}{role:>32}"[:64]
            worker = Worker.objects.create(external_id=f"w{n}-{role}", browser=browser)
            seats[role] = Assignment.objects.create(campaign=campaign, worker=worker, room=room, role=role,
                                                    status=AssignmentStatus.FINISHED, outcome="completed")
            truth[seats[role].pk] = who
        address = {"wizard": f"198.51.{n // 250}.{n % 250}", "apprentice": f"203.0.{n // 250}.{n % 250}"}
        for seq in range(1, 7):
            role = "wizard" if seq % 2 else "apprentice"
            text, value = turn(rng, seats[role] and truth[seats[role].pk], knowledge)
            Message.objects.create(
                room=room, seq=seq, sender=seats[role], role=role, client_id=f"{n}-{seq}", text=text,
                knowledge_shown=[{"title": "Blues", "passage": knowledge}] if role == "wizard" else None,
                authenticity=record_build(value=value, text=text, address=address[role]),
            )
        room_signals_compute(room_id=room.pk)

    flagged: dict[str, set[int]] = defaultdict(set)
    for seat_id, kind in AuthenticityFlag.objects.values_list("assignment_id", "kind"):
        flagged[kind].add(seat_id)
    population = Counter(truth.values())
    print(f"{args.dialogues} dialogues, {len(truth)} seats: " + ", ".join(f"{k} {population[k]}" for k in (*KINDS[:5], *KINDS[5:])) + " (apprentices: typists)")
    print(f"{'signal':<16} {'flagged':>7} {'precision':>9} {'recall':>7}  target")
    for signal, target in CHEATS.items():
        hits = flagged[signal]
        right = sum(1 for s in hits if truth[s] == target)
        total = population[target]
        precision = right / len(hits) if hits else float("nan")
        print(f"{signal:<16} {len(hits):>7} {precision:>9.3f} {right / total:>7.3f}  {target}")
    any_flag = set().union(*flagged.values()) if flagged else set()
    cheats = {s for s, k in truth.items() if k not in HONEST and k != "typist"}
    right = len(any_flag & cheats)
    print(f"{'any flag':<16} {len(any_flag):>7} {right / len(any_flag):>9.3f} {right / len(cheats):>7.3f}  every cheat")
    honest_flagged = [s for s in any_flag if truth[s] in HONEST]
    print(f"false flags on honest typists (typist, IME, phone): {len(honest_flagged)} of {sum(population[k] for k in HONEST)}")
    missed = Counter(truth[s] for s in cheats - any_flag)
    print("cheats never flagged: " + (", ".join(f"{k} {n}" for k, n in missed.items()) or "none"))


if __name__ == "__main__":
    main()
