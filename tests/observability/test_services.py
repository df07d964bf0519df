"""/metrics with the services (second CI pass): the depth of each Celery queue read from the Redis
broker at scrape, and a Celery worker's panels and retrievals counted in the scrape of a live chat
process sharing its PROMETHEUS_MULTIPROC_DIR. Each test uses a queue of its own, so that no other
test's worker takes its tasks."""

from __future__ import annotations

import socket
import time
import uuid
from pathlib import Path

import pytest
import redis
from django.test import Client

from collect.models import Message
from collect.tasktypes.wow import protocol as wow
from collect.services import rooms
from collect.tasks import messages_knowledge
from groundwork.celery import app
from groundwork.metrics_scrape import KOMBU_PRIORITY_SEPARATOR, KOMBU_PRIORITY_STEPS
from tests.collect.conftest import make_room
from tests.collect.nodes import node_env
from tests.observability.live import child_env, served
from tests.observability.scraping import parse, value
from tests.services import celery_worker, needs_broker

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True), needs_broker]


@pytest.fixture
def queue(settings) -> str:
    """A queue of this test's own, among the ones the scrape reads."""
    name = f"metrics-test-{uuid.uuid4().hex[:8]}"
    settings.CELERY_TASK_ROUTES = {**settings.CELERY_TASK_ROUTES, "tests.metrics.nothing": {"queue": name}}
    url = settings.CELERY_BROKER_URL  # a test may point the setting at another broker
    yield name
    broker = redis.Redis.from_url(url)
    broker.delete(name, *(f"{name}{KOMBU_PRIORITY_SEPARATOR}{step}" for step in KOMBU_PRIORITY_STEPS))


def test_queue_depths_are_read_from_the_broker(queue: str, client: Client) -> None:
    before = parse(client.get("/metrics").content.decode())
    assert value(before, "groundwork_celery_queue_length", queue=queue) == 0
    assert value(before, "groundwork_scrape_source_up", source="broker") == 1
    for _ in range(3):
        app.send_task("collect.tasks.sweep", queue=queue)
    app.send_task("collect.tasks.sweep", queue=queue, priority=9)  # kept in the queue's priority list
    after = parse(client.get("/metrics").content.decode())
    assert value(after, "groundwork_celery_queue_length", queue=queue) == 4
    assert {"default", "rerank", "index", "models"} <= {s.labels["queue"] for s in after if s.name == "groundwork_celery_queue_length"}


def test_an_unreachable_broker_leaves_the_rest_of_the_scrape(settings, client: Client) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/metrics")
    assert response.status_code == 200
    samples = parse(response.content.decode())
    assert value(samples, "groundwork_scrape_source_up", source="broker") == 0
    assert value(samples, "groundwork_scrape_source_up", source="database") == 1


def test_a_workers_panels_are_in_a_chat_processs_scrape(campaign, index_dir: Path, tmp_path: Path, queue: str) -> None:
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    chatting = make_room(campaign, first_speaker=wow.WIZARD, topic="Guitar")
    posted = []
    for seat, client_id, text in ((chatting.wizard, "w1", "Do you play?"), (chatting.apprentice, "a1", "I prefer the blues")):
        frame = {"type": "message", "client_id": client_id, "text": text, "checked": {"no_passages_used": True}}
        posted.append(rooms.message_post(room_id=chatting.room.id, assignment=seat.assignment, client_id=client_id, text=text, frame=frame).message)
    worker_env = {**node_env(index_dir), "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir), "GROUNDWORK_KNOWLEDGE_MODE": "celery"}
    # A prefork pool, as in `make run-prod`: the task runs in a forked child, which records in a file of its own.
    options = ("-Q", queue, "--pool", "prefork", "--concurrency", "1", "--without-gossip", "--without-mingle", "--loglevel", "WARNING")
    with (tmp_path / "worker.log").open("wb") as log, celery_worker(*options, env=worker_env, log=log):
        messages_knowledge.apply_async(args=([m.pk for m in posted],), queue=queue)
        deadline = time.monotonic() + 90
        while Message.objects.filter(pk__in=[m.pk for m in posted], retrieved_passages__isnull=True).exists():
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(0.2)
        with served(child_env(index_dir, PROMETHEUS_MULTIPROC_DIR=str(metrics_dir)), tmp_path) as server:
            deadline = time.monotonic() + 30
            while True:  # the worker records the panel just after publishing it
                status, text = server.get("/metrics")
                assert status == 200, text
                samples = parse(text)
                if value(samples, "groundwork_knowledge_panel_seconds_count", protocol="wow") or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
    # One panel (after the apprentice's turn), two retrievals: recorded by the worker, scraped from daphne.
    assert value(samples, "groundwork_knowledge_panel_seconds_count", protocol="wow") == 1
    assert value(samples, "groundwork_retrieval_seconds_count") == 2
    assert value(samples, "groundwork_knowledge_panel_seconds_sum") > 0


RABBITMQ = "amqp://guest:guest@127.0.0.1:5672//"


def _rabbitmq_listens() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 5672), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _rabbitmq_listens(), reason="needs RabbitMQ on 127.0.0.1:5672")
def test_queue_depths_are_read_from_a_rabbitmq_broker(settings, client: Client, queue: str) -> None:
    from kombu import Connection, Exchange, Producer
    from kombu import Queue as KombuQueue

    settings.CELERY_BROKER_URL = RABBITMQ
    with Connection(RABBITMQ, connect_timeout=5) as connection:
        declared = KombuQueue(queue, Exchange(queue, type="direct"), routing_key=queue, durable=False)
        producer = Producer(connection.channel(), exchange=declared.exchange, routing_key=queue)
        declared(connection.default_channel).declare()
        try:
            for _ in range(3):
                producer.publish({"task": "nothing"}, declare=[declared])
            deadline = time.monotonic() + 60
            while True:  # the broker counts a publish once it has routed it
                samples = parse(client.get("/metrics").content.decode())
                if value(samples, "groundwork_celery_queue_length", queue=queue) == 3 or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
        finally:
            declared(connection.default_channel).delete()
    assert value(samples, "groundwork_celery_queue_length", queue=queue) == 3
    assert value(samples, "groundwork_scrape_source_up", source="broker") == 1
    # The topology's queues are listed even where the broker has not seen them yet.
    assert {"default", "rerank", "index", "models"} <= {s.labels["queue"] for s in samples if s.name == "groundwork_celery_queue_length"}
