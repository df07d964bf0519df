"""A busy `default` worker, started as supervisord starts it, keeps running through restarts of its
Redis broker (second CI pass only).

With Celery 5.7.0 the worker exited at the first restart, in each of two runs here:
`CRITICAL celery.worker: Unrecoverable error: AttributeError("'NoneType' object has no attribute
'hostname'")`, raised in kombu's QoS.restore_unacked when the worker closed its lost connection a
second time, after collect() had cleared the transport's client (the pin in requirements.txt)."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from subprocess import Popen

import pytest
from celery import Celery

from groundwork.topology import worker_command
from tests.collect.nodes import RedisServer
from tests.services import celery_worker, needs_broker, tracebacks

pytestmark = [pytest.mark.services, needs_broker]
RESTARTS = 5
TASKS = "tests.celery_restart_tasks"
CONNECTED = "Connected to redis://"
LOST = "Connection to broker lost"
# Celery logs each acknowledgement that fails while Redis is down at CRITICAL: that task is not
# acknowledged and the worker goes on. Any other CRITICAL line fails the test.
ACK_LOST = "CRITICAL celery.worker.request: Couldn't ack"


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of the test's own, without persistence, that the test can kill and restart."""
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.kill()


class Feed:
    """Short acks_late tasks sent from a thread every 0.2 s: when Redis goes away the worker has
    tasks in hand, unacknowledged, as a `default` worker in production has."""

    def __init__(self, client: Celery, broker: str) -> None:
        self.client, self.broker = client, broker
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.rng = random.Random(47)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                sent(self.client, self.broker, "nap", self.rng.uniform(0.1, 0.4))
            except Exception:  # Redis is down: this task is not sent; the next one may be
                pass
            self.stop.wait(0.2)

    def __enter__(self) -> Feed:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(timeout=10)


def sent(client: Celery, broker: str, task: str, *args: object) -> str:
    """The id of a task of TASKS sent to the `default` queue on `broker`. Passed explicitly: in this
    process CELERY_BROKER_URL and CELERY_RESULT_BACKEND (the shared Redis) win over the app's own
    settings. The worker's log tells what it did with the task, so no result is awaited here."""
    with client.connection_for_write(broker) as connection:
        return client.send_task(f"{TASKS}.{task}", args=args, queue="default", connection=connection, ignore_result=True).id


def logged(log: Path, text: str) -> int:
    return log.read_text(errors="replace").count(text)


def wait_logged(worker: Popen[bytes], log: Path, text: str, *, more_than: int, seconds: float) -> None:
    """Until the worker's log has `text` more than `more_than` times; fails if the worker exits."""
    deadline = time.monotonic() + seconds
    while logged(log, text) <= more_than:
        assert worker.poll() is None, f"the worker exited ({worker.returncode}):\n{log.read_text(errors='replace')[-6000:]}"
        assert time.monotonic() < deadline, f"no {text!r} in {seconds} s:\n{log.read_text(errors='replace')[-6000:]}"
        time.sleep(0.05)


def test_a_busy_worker_survives_redis_restarts(own_redis: RedisServer, tmp_path: Path) -> None:
    broker, backend = f"redis://127.0.0.1:{own_redis.port}/1", f"redis://127.0.0.1:{own_redis.port}/0"
    env = {**os.environ, "CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": backend, "REDIS_URL": backend,
           "GROUNDWORK_LOG_FORMAT": "text", "LOG_LEVEL": "INFO"}
    command = worker_command("default", 2)
    options = [*command[command.index("worker") + 1:], "-I", TASKS]
    log = tmp_path / "worker.log"
    client = Celery("redis-restart-test")
    client.conf.task_default_queue = "default"  # its exchange too, which the worker's queue is bound to
    try:
        with log.open("wb") as out, celery_worker(*options, env=env, log=out) as worker:
            wait_logged(worker, log, "ready.", more_than=0, seconds=60)
            with Feed(client, broker):
                for _restart in range(RESTARTS):
                    # Busy: a few tasks done on this connection, more in flight.
                    wait_logged(worker, log, "succeeded in", more_than=logged(log, "succeeded in") + 2, seconds=30)
                    lost, connected = logged(log, LOST), logged(log, CONNECTED)
                    own_redis.kill()
                    wait_logged(worker, log, LOST, more_than=lost, seconds=20)
                    own_redis.start()  # the same port
                    wait_logged(worker, log, CONNECTED, more_than=connected, seconds=30)
            echo = sent(client, broker, "echo", RESTARTS)
            wait_logged(worker, log, f"echo[{echo}] succeeded in", more_than=0, seconds=30)
            assert worker.poll() is None
    finally:
        client.close()
    text = log.read_text(errors="replace")
    assert "Unrecoverable error" not in text, text[-6000:]
    critical = [line for line in text.splitlines() if line.startswith("CRITICAL") and not line.startswith(ACK_LOST)]
    assert not critical, text[-6000:]
    assert logged(log, CONNECTED) == RESTARTS + 1
    assert tracebacks(log) == 0, text[-6000:]  # a lost broker is one line
