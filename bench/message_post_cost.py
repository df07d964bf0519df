"""CPU of the database step of one chat message, without the sockets around it: what the chat
process spends in `_post` (collect/consumers/room.py) to lock the room, check the turn, store the
message and build the state that is relayed with it. Runs WoW dialogues (the wizard checks a
sentence of the topic passage) in one thread and prints CPU and wall time per message.

    .venv/bin/python bench/message_post_cost.py [--messages 2000]

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
    args = parser.parse_args()
    django_with_demo()
    from collect import selectors
    from collect.models import Assignment, Campaign, Room, RoomStatus
    from collect.protocols import wow
    from collect.services import rooms

    campaign = Campaign.objects.get(slug="wow-demo")
    topic = campaign.personas.first().topics[0]

    def dialogue() -> tuple[Room, dict[str, Assignment]]:
        room, seats = wow_room(campaign, status=RoomStatus.CHOOSING_TOPIC)
        rooms.room_act(room_id=room.pk, assignment=seats[wow.WIZARD], name="choose_topic",
                       frame={"type": "choose_topic", "topic": topic})
        return room, seats

    cpu: list[float] = []
    wall: list[float] = []
    while len(cpu) < args.messages:
        room, seats = dialogue()
        for seq in range(1, args.turns + 1):
            role = wow.WIZARD if seq % 2 else wow.APPRENTICE
            frame = {"type": "message", "text": f"turn {seq} about the topic"}
            if role == wow.WIZARD:
                frame["checked"] = {"source": "chosen", "passage": 0, "sentence": 0}
            c0, w0 = time.process_time(), time.perf_counter()
            posted = rooms.message_post(room_id=room.pk, assignment=seats[role], client_id=uuid.uuid4().hex,
                                        text=frame["text"], frame=frame)
            snapshot = selectors.room_snapshot(room.pk, room=posted.message.room, message_count=posted.message.seq)
            selectors.message_extras(posted.message, snapshot["protocol"])
            cpu.append((time.process_time() - c0) * 1000)
            wall.append((time.perf_counter() - w0) * 1000)
    cpu, wall = cpu[len(cpu) // 10:], wall[len(wall) // 10:]  # the first dialogues warm caches up
    from django.db import connection

    print(f"message_post + state, {len(cpu)} messages on {connection.vendor}:")
    print(f"  CPU  mean {statistics.fmean(cpu):.3f} ms, p50 {statistics.median(cpu):.3f} ms")
    print(f"  wall mean {statistics.fmean(wall):.3f} ms, p50 {statistics.median(wall):.3f} ms")


if __name__ == "__main__":
    main()
