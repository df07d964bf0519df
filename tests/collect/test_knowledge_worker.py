"""With a broker, the wizard's retrieval and reranking run on a real Celery worker (the `default`
and `rerank` queues; a lexical ranker's reranks in the retrieval task itself), and the worker
publishes the panels to the room; the beat sweep's task
retrieves for a message a dead process left without knowledge. Second CI pass only."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from django.db import connection

from collect.models import Message
from collect.tasktypes.wow import protocol as wow
from collect.services import rooms
from collect.tasks import knowledge_sweep, messages_knowledge
from tests.collect.conftest import PairedRoom, make_room
from tests.collect.nodes import NODE_APPLICATION, node_env
from tests.collect.ws import connect, receive_until, send
from tests.services import celery_worker, connection_killed_on, needs_broker, tracebacks

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    needs_broker,
]


@pytest.fixture
def worker(campaign, index_dir: Path, tmp_path: Path, settings):
    settings.KNOWLEDGE_MODE = "celery"
    env = {**node_env(index_dir), "GROUNDWORK_KNOWLEDGE_MODE": "celery", "GROUNDWORK_RERANK_MODE": "celery"}
    # INFO: the log names every task the worker received.
    options = ("-Q", "default,rerank", "--pool", "solo", "--loglevel", "INFO", "--without-gossip", "--without-mingle")
    with (tmp_path / "worker.log").open("wb") as log, celery_worker(*options, env=env, log=log) as process:
        # Consuming before the test starts: a loaded machine takes a while to start a worker, and
        # the tests' deadlines are for the work, not for that.
        deadline = time.monotonic() + 180
        while " ready." not in (tmp_path / "worker.log").read_text(errors="replace"):
            assert process.poll() is None and time.monotonic() < deadline, "the worker did not start"
            time.sleep(0.2)
        yield process


def retrieved_by_worker(message_id: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while Message.objects.get(pk=message_id).retrieved_passages is None:
        assert time.monotonic() < deadline, "the worker never retrieved"
        time.sleep(0.2)


@pytest.fixture
def chatting(campaign) -> PairedRoom:
    return make_room(campaign, first_speaker=wow.WIZARD, topic="Guitar")


async def test_the_worker_retrieves_and_publishes_the_wizards_panels(chatting: PairedRoom, worker, tmp_path: Path) -> None:
    path = f"/ws/room/{chatting.room.id}/"
    wizard, apprentice = await connect(path, chatting.wizard.cookie), await connect(path, chatting.apprentice.cookie)
    await send(wizard, {"type": "message", "client_id": "w1", "text": "Do you play?", "checked": {"no_passages_used": True}})
    await receive_until(apprentice, "message", timeout=10)
    await send(apprentice, {"type": "message", "client_id": "a1", "text": "I prefer blues music from the Deep South"})
    panel = await receive_until(wizard, "knowledge", timeout=60)
    while not any(p["source"] == "partner" for p in panel["passages"]):
        panel = await receive_until(wizard, "knowledge", timeout=60)
    assert panel["after_seq"] == 2 and panel["passages"][1]["title"] == "Blues"
    reranked = await receive_until(wizard, "knowledge.reranked", timeout=60)
    assert reranked["after_seq"] == 2 and all("scores" in p for p in reranked["passages"])
    # The tests' ranker is lexical: the retrieval task ranked the panel itself, queueing no rerank.
    assert "Task collect.tasks.knowledge_reranks[" not in (tmp_path / "worker.log").read_text()
    stored = await database_sync_to_async(lambda: list(Message.objects.filter(room=chatting.room).order_by("seq")))()
    assert all(m.retrieved_passages is not None for m in stored)
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_the_topic_panel_is_reranked_and_published_by_the_worker(campaign, worker, tmp_path: Path) -> None:
    choosing = await database_sync_to_async(make_room)(campaign, first_speaker=wow.WIZARD)
    path = f"/ws/room/{choosing.room.id}/"
    wizard = await connect(path, choosing.wizard.cookie)
    await send(wizard, {"type": "choose_topic", "topic": "Guitar"})
    panel = await receive_until(wizard, "knowledge", timeout=60)
    reranked = await receive_until(wizard, "knowledge.reranked", timeout=60)
    assert reranked["after_seq"] == panel["after_seq"] == 0
    assert reranked["ranked_by"].startswith("shipped-")  # the worker's model: none promoted in its var/ranker
    assert sorted(p["title"] for p in reranked["passages"]) == sorted(p["title"] for p in panel["passages"])
    assert all("scores" in p for p in reranked["passages"])
    # Queued as the task that publishes its own result, not as a rerank the chat process polls for.
    log = (tmp_path / "worker.log").read_text()
    assert "Task collect.tasks.knowledge_rerank[" in log and "Task retrieval.tasks.rerank[" not in log
    await wizard.disconnect()


def test_the_sweep_queues_retrieval_that_a_dead_process_left_undone(chatting: PairedRoom, worker) -> None:
    frame = {"type": "message", "client_id": "w1", "text": "Blues and jazz", "checked": {"no_passages_used": True}}
    posted = rooms.message_post(room_id=chatting.room.id, assignment=chatting.wizard.assignment, client_id="w1",
                                text="Blues and jazz", frame=frame)
    assert knowledge_sweep.delay(0).get(timeout=60) == 1
    retrieved_by_worker(posted.message.pk)
    assert list(Message.objects.get(pk=posted.message.pk).retrieved_passages[0]) in (["Blues"], ["Jazz"])


def test_a_retrieval_whose_connection_dies_twice_is_retried_by_its_task(chatting: PairedRoom, worker, tmp_path: Path) -> None:
    """The database cuts the worker's connection as the retrieval is saved, on the task's first try
    and on its second on a new connection: the task lets its claim go and is retried a second
    later, and that saves it. Nothing waits for the claim to expire (CLAIM_TTL_S, 60 s) or for
    the sweep (messages 20 s old, every 30 s)."""
    frame = {"type": "message", "client_id": "w1", "text": "Blues and jazz", "checked": {"no_passages_used": True}}
    posted = rooms.message_post(room_id=chatting.room.id, assignment=chatting.wizard.assignment, client_id="w1",
                                text="Blues and jazz", frame=frame)
    with connection_killed_on("collect_message", "UPDATE OF retrieved_passages", times=2):
        messages_knowledge.delay([posted.message.pk])
        retrieved_by_worker(posted.message.pk, seconds=15)
    log = (tmp_path / "worker.log").read_text(errors="replace")
    assert f"message {posted.message.pk}: retrieval lost its database: django.db.utils.OperationalError" in log
    assert tracebacks(tmp_path / "worker.log") == 0, log[-3000:]


def test_the_worker_keeps_its_database_connection_from_task_to_task(chatting: PairedRoom, worker, tmp_path: Path) -> None:
    """A new PostgreSQL connection for each task would start a server process for every chat message."""
    def worker_connections() -> list[tuple]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid, backend_start FROM pg_stat_activity WHERE application_name = %s AND datname = current_database()",
                [NODE_APPLICATION],
            )
            return cursor.fetchall()

    seen = []
    turns = ((chatting.wizard, "w1", "Blues and jazz"), (chatting.apprentice, "a1", "Who played the blues?"),
             (chatting.wizard, "w2", "Robert Johnson, for one"))
    for seat, client_id, text in turns:
        if len(seen) == 2:  # the database drops the kept connection: the next task connects again
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(%s)", [seen[1][0][0]])
        frame = {"type": "message", "client_id": client_id, "text": text, "checked": {"no_passages_used": True}}
        posted = rooms.message_post(room_id=chatting.room.id, assignment=seat.assignment, client_id=client_id, text=text, frame=frame)
        messages_knowledge.delay([posted.message.pk])
        retrieved_by_worker(posted.message.pk)
        seen.append(worker_connections())
    assert len(seen[0]) == 1 and seen[1] == seen[0]
    assert len(seen[2]) == 1 and seen[2] != seen[1]
    assert tracebacks(tmp_path / "worker.log") == 0  # a lost connection is one line at most
