"""Which of the project's files a Wizard of Wikipedia `message` frame passes through before the
task type's rule for it runs (the protocol's `message_fields`, which checks the wizard's checked
sentence): the files of every project function called from the moment the socket receives the
frame, on the event loop and in the database thread. A measure of how far the core and the task
type are apart on the hot path, not of time.

    .venv/bin/python bench/message_path.py

A throwaway SQLite database and a two-article knowledge source; a first message warms the process
(imports, caches), the second is traced. Prints the files, then their count."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("groundwork", "retrieval", "collect", "annotate", "research")


def setup() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ.setdefault("GROUNDWORK_VAR_DIR", tempfile.mkdtemp(prefix="gw-bench-"))
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
        os.environ.pop(name, None)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    path = Path(os.environ["GROUNDWORK_VAR_DIR"]) / "wiki.jsonl"
    path.write_text("\n".join(json.dumps(a) for a in [
        {"title": "Guitar", "text": "The guitar is a fretted instrument. It usually has six strings."},
        {"title": "Blues", "text": "Blues is a music genre. It began in the Deep South."},
    ]), encoding="utf-8")
    call_command("import_knowledge", "jsonl", str(path), source="path-wiki", verbosity=0)
    call_command("build_index", source="path-wiki", verbosity=0)


class Tracer:
    """Project files of the functions called while on, on every thread."""

    def __init__(self) -> None:
        self.on = False
        self.files: list[str] = []

    def __call__(self, frame, event, arg):  # noqa: ANN001 - sys.setprofile's signature
        if self.on and event == "call":
            name = frame.f_code.co_filename
            if name.startswith(str(ROOT)) and "site-packages" not in name:
                relative = Path(name).relative_to(ROOT).as_posix()
                if relative.startswith(PACKAGES) and relative not in self.files:
                    self.files.append(relative)
            if frame.f_code.co_name == "message_fields" and "protocol" in name:
                self.on = False


async def trace_one_message(tracer: Tracer, *, traced: bool) -> None:
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator
    from django.contrib.sessions.backends.db import SessionStore

    from collect.models import Assignment, AssignmentStatus, Campaign, Persona, Room, RoomStatus, Worker
    from groundwork.asgi import application
    from retrieval.models import KnowledgeSource

    def seats() -> tuple[str, bytes]:
        source = KnowledgeSource.objects.get(slug="path-wiki")
        campaign, _ = Campaign.objects.get_or_create(slug="path", name="Path", knowledge_source=source)
        persona = Persona.objects.create(campaign=campaign, text="i play the guitar.", topics=["Guitar"])
        room = Room.objects.create(campaign=campaign, first_speaker="wizard", turns_required=2, persona=persona,
                                   status=RoomStatus.CHATTING, topic="Guitar",
                                   topic_passage=["The guitar is a fretted instrument.", "It usually has six strings."])
        cookie = b""
        for role in ("wizard", "apprentice"):
            worker = Worker.objects.create(platform="inhouse", external_id=f"path-{role}-{Room.objects.count()}")
            Assignment.objects.create(campaign=campaign, worker=worker, status=AssignmentStatus.PAIRED, room=room, role=role)
            if role == "wizard":
                session = SessionStore()
                session["worker_id"] = worker.pk
                session.create()
                cookie = f"sessionid={session.session_key}".encode()
        return str(room.pk), cookie

    room_id, cookie = await database_sync_to_async(seats)()
    socket = WebsocketCommunicator(application, f"/ws/room/{room_id}/", headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", cookie)])
    connected, _ = await socket.connect()
    assert connected
    await socket.send_to(text_data=json.dumps({"type": "sync", "after": 0}))
    while (await socket.receive_json_from(timeout=10)).get("type") != "state":
        pass
    frame = {"type": "message", "client_id": "m1", "text": "Guitars have six strings.",
             "checked": {"source": "chosen", "passage": 0, "sentence": 1}}
    tracer.on = traced
    await socket.send_to(text_data=json.dumps(frame))
    while True:
        reply = await socket.receive_json_from(timeout=10)
        if reply.get("type") in ("message", "ack", "error") or "seq" in reply:
            break
    tracer.on = False
    await socket.disconnect()


def main() -> None:
    setup()
    tracer = Tracer()
    sys.setprofile(tracer)
    threading.setprofile(tracer)
    # A first room warms the process (imports, caches, connections); the second is traced.
    asyncio.run(trace_one_message(tracer, traced=False))
    asyncio.run(trace_one_message(tracer, traced=True))
    sys.setprofile(None)
    threading.setprofile(None)
    for name in tracer.files:
        print(name)
    print(f"{len(tracer.files)} project files from the frame's arrival to the protocol's message_fields")


if __name__ == "__main__":
    main()
