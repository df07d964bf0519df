"""CPU of the database step of one chat message, without the sockets around it: what the chat
process spends in `_post` (collect/consumers/room.py) to lock the room, check the turn, store the
message and build the state that is relayed with it. Runs WoW dialogues (the wizard checks a
sentence of the topic passage) in one thread and prints CPU and wall time per message.

    .venv/bin/python bench/message_post_cost.py [--messages 2000] [--authenticity off|record|copy|compare]

--authenticity (docs/authenticity.md): `off` posts as a program would (no record); `record` as a
page does, each frame carrying an authenticity record that is parsed (collect.frames.parse_frame,
timed in every mode) and checked and stored; `copy` also with the campaign's "copy": "refuse" rule
for the wizard, whose messages are then checked against the knowledge they were shown; `compare`
runs the three in turn, message by message, in one process (a busy machine and the database's
growth weigh on all three alike) and prints each one's figures and its difference from `off`.

The embedded SQLite database by default; DATABASE_URL=postgres://... for PostgreSQL. The Celery
publish of the message's retrieval is left out (its own cost: bench/chat_load.py profiles)."""

from __future__ import annotations

import argparse
import statistics
import time
import uuid

from _setup import django_with_demo, wow_room


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000, help="messages to post (default 2000)")
    parser.add_argument("--turns", type=int, default=20, help="messages per dialogue (default 20)")
    parser.add_argument("--authenticity", choices=("off", "record", "copy", "compare"), default="off",
                        help="post without a record, with one, or with one and the copy rule (default off)")
    args = parser.parse_args()
    django_with_demo()
    from collect import selectors
    from collect.models import Assignment, Campaign, Room, RoomStatus
    from collect.tasktypes.wow import protocol as wow
    from collect.services import rooms

    import json

    from collect.frames import parse_frame

    campaign = Campaign.objects.get(slug="wow-demo")
    modes = ("off", "record", "copy") if args.authenticity == "compare" else (args.authenticity,)
    record = {"v": 1, "compose_ms": 14000, "typing_ms": 9000, "typed_chars": 22, "inserted_chars": 0,
              "paste": {"knowledge": {"count": 1, "chars": 12}}, "hidden_ms": 1200, "panel_ms": 14000,
              "passages": ["Guitar", "Blues"], "compositions": 0}
    topic = campaign.personas.first().topics[0]

    def dialogue() -> tuple[Room, dict[str, Assignment]]:
        room, seats = wow_room(campaign, status=RoomStatus.CHOOSING_TOPIC)
        rooms.room_act(room_id=room.pk, assignment=seats[wow.WIZARD], name="choose_topic",
                       frame={"type": "choose_topic", "topic": topic})
        return room, seats

    cpu: dict[str, list[float]] = {mode: [] for mode in modes}
    wall: dict[str, list[float]] = {mode: [] for mode in modes}
    n = 0
    policy = None
    while len(cpu[modes[-1]]) < args.messages:
        room, seats = dialogue()
        for seq in range(1, args.turns + 1):
            # The modes take turns message by message (3 and 2 roles: each mode meets both roles),
            # so that the database's growth and the caches weigh on each alike.
            mode = modes[n % len(modes)]
            n += 1
            wanted = {"wizard": {"copy": "refuse"}} if mode == "copy" else {}
            if wanted != policy:  # outside the timed part
                Campaign.objects.filter(pk=campaign.pk).update(authenticity_policy=wanted)
                policy = wanted
            page = mode != "off"
            role = wow.WIZARD if seq % 2 else wow.APPRENTICE
            frame = {"type": "message", "text": f"turn {seq} about the topic"}
            if role == wow.WIZARD:
                frame["checked"] = {"source": "chosen", "passage": 0, "sentence": 0}
            if page:
                frame["authenticity"] = record
            text = json.dumps(frame)
            c0, w0 = time.process_time(), time.perf_counter()
            frame = parse_frame(text)
            posted = rooms.message_post(room_id=room.pk, assignment=seats[role], client_id=uuid.uuid4().hex,
                                        text=frame["text"], frame=frame, page=page, address="127.0.0.1" if page else None)
            snapshot = selectors.room_snapshot(room.pk, room=posted.message.room, message_count=posted.message.seq)
            selectors.message_extras(posted.message, snapshot["protocol"])
            cpu[mode].append((time.process_time() - c0) * 1000)
            wall[mode].append((time.perf_counter() - w0) * 1000)
    from django.db import connection

    base = None
    for mode in modes:
        # The first dialogues warm caches up.
        c, w = cpu[mode][len(cpu[mode]) // 10:], wall[mode][len(wall[mode]) // 10:]
        print(f"parse_frame + message_post + state, authenticity {mode}, {len(c)} messages on {connection.vendor}:")
        print(f"  CPU  mean {statistics.fmean(c):.3f} ms, p50 {statistics.median(c):.3f} ms"
              + (f" ({(statistics.median(c) / base - 1) * 100:+.1f}% p50 vs off)" if base else ""))
        print(f"  wall mean {statistics.fmean(w):.3f} ms, p50 {statistics.median(w):.3f} ms")
        base = base or statistics.median(c)


if __name__ == "__main__":
    main()
