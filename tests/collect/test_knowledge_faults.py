"""The wizard's panels under faults, with retrieval on a real Celery worker as in production: two
daphne processes (GROUNDWORK_KNOWLEDGE_MODE=celery: each message's retrieval queued on `default`
by the knowledge dispatch, and done by the chat process itself when no worker has started it by
the deadline) and a `default` worker, on PostgreSQL and Redis. Dialogues run round after round
while every server process's database connections are cut again and again for BURST_S (a
flapping failover), or while Redis is restarted under them.

Each test prints and checks the tally of tests/collect/test_node_faults.py, the worker's output
counted with the chat processes': every wizard turn's panel within KNOWLEDGE_STUCK_S (the page
asking again with its `sync`s), no sentence checked in the panel for the current turn refused as
`stale_knowledge`, every message with its knowledge (without the beat sweep, which does not run
here), nothing lost, 0 tracebacks. Second CI pass only."""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db import connection

from collect.models import Message
from tests.collect.netclient import Worker
from tests.collect.nodes import Node, RedisServer, node_env
from tests.collect.test_node_faults import (  # noqa: F401 - fault_campaign and own_redis are fixtures
    TURN_LIMIT, Tally, check, fault_campaign, own_redis, still_connected, terminate_backends, trial,
)
from tests.services import celery_worker, needs_broker

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    needs_broker,
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL"),
]
BURST_S = 20.0  # at least; the cuts go on until ROUNDS rounds are done
CUT_EVERY_S = (0.2, 0.8)  # seconds between two cuts of the burst, drawn at random
ROOMS = 6  # dialogues at once in each round
ROUNDS = 3  # rounds at least under each fault
REDIS_RESTARTS = 2
# Until every message of the rounds has its retrieval saved, once the fault is over.
RETRIEVED_WITHIN_S = 30.0


@dataclass
class Site:
    """The test's chat processes and `default` worker, and every log the tally reads."""

    nodes: list[Node]
    worker_log: Path

    @property
    def logs(self) -> list[Path]:
        return [node.log for node in self.nodes] + [self.worker_log]


def site_running(env: dict[str, str], tmp_path: Path) -> Iterator[Site]:
    env = {**env, "GROUNDWORK_KNOWLEDGE_MODE": "celery", "GROUNDWORK_RERANK_MODE": "celery"}
    worker_log = tmp_path / "worker.log"
    # As supervisord runs the `default` worker (groundwork/topology.py), reading `rerank` as well:
    # the chat processes' own retrievals queue their reranks there.
    options = ("--loglevel", "INFO", "--without-gossip", "--without-mingle", "-Q", "default,rerank",
               "-n", "default@%h", "--concurrency", "1")
    with worker_log.open("wb") as out, celery_worker(*options, env=env, log=out) as process:
        deadline = time.monotonic() + 120
        while " ready." not in worker_log.read_text(errors="replace"):
            assert process.poll() is None, worker_log.read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, "the worker did not start"
            time.sleep(0.2)
        nodes = [Node(env, tmp_path / f"node{i}.log") for i in range(2)]
        try:
            for node in nodes:
                node.start()
            for node in nodes:
                node.wait_ready()
            yield Site(nodes, worker_log)
        finally:
            for node in nodes:
                node.stop()


@pytest.fixture
def site(fault_campaign, index_dir: Path, tmp_path: Path) -> Iterator[Site]:
    broker = os.environ["CELERY_BROKER_URL"]
    yield from site_running(node_env(index_dir, CELERY_BROKER_URL=broker), tmp_path)


@pytest.fixture
def site_on_own_redis(fault_campaign, own_redis: RedisServer, index_dir: Path, tmp_path: Path) -> Iterator[Site]:
    """Channel layer, claims, broker and results on the test's own Redis, as one Redis serves a
    small production site: its restart takes all of them away at once."""
    redis = f"redis://127.0.0.1:{own_redis.port}"
    env = node_env(index_dir, REDIS_URL=f"{redis}/0", CELERY_BROKER_URL=f"{redis}/1", CELERY_RESULT_BACKEND=f"{redis}/2")
    yield from site_running(env, tmp_path)


def missing_retrieval(rounds: list[list[Worker]], seconds: float = RETRIEVED_WITHIN_S) -> int:
    """Messages of the rounds' rooms still without their retrieval once `seconds` have passed
    (waited for: the worker may still be on the last ones)."""
    rooms = {worker.room_path.strip("/").split("/")[-1] for workers in rounds for worker in workers}
    deadline = time.monotonic() + seconds
    while True:
        count = Message.objects.filter(room_id__in=rooms, retrieved_passages__isnull=True).count()
        if count == 0 or time.monotonic() > deadline:
            return count
        time.sleep(0.5)


def rounds_under(site: Site, rng: random.Random, fault: Callable[[asyncio.Event], Awaitable[None]], *, name: str) -> Tally:
    """Rounds of ROOMS dialogues, one after another, while `fault` runs: at least ROUNDS, and
    until `fault` has ended (it is told when ROUNDS are done); then the tally of them all,
    printed and checked."""

    async def nothing() -> None:
        pass

    async def run() -> list[list[Worker]]:
        enough = asyncio.Event()
        striking = asyncio.create_task(fault(enough))
        rounds: list[list[Worker]] = []
        try:
            while len(rounds) < ROUNDS or not striking.done():
                started = time.monotonic()
                rounds.append(await trial(len(rounds), site.nodes, rng, nothing, rooms=ROOMS))  # type: ignore[arg-type]
                print(f"round {len(rounds) - 1}: {time.monotonic() - started:.1f} s")
                if len(rounds) >= ROUNDS:
                    enough.set()
        finally:
            if not striking.done():
                striking.cancel()
            await asyncio.gather(striking, return_exceptions=True)
        return rounds

    rounds = asyncio.run(run())
    tally = Tally()
    for workers in rounds:
        tally.add(workers)
    tally.read_logs(site.logs)
    missing = missing_retrieval(rounds)
    # The figures first, so that a failing run says all of them.
    print(f"{name}: {len(rounds)} rounds; panels late {tally.knowledge_late} of {tally.wizard_turns} wizard turns; "
          f"refused as stale_knowledge {tally.errors['stale_knowledge']}; messages without retrieval {missing}; "
          f"tracebacks {tally.tracebacks}")
    assert missing == 0, f"{missing} messages without their retrieval {RETRIEVED_WITHIN_S:.0f} s after the fault"
    for workers in rounds:
        tally.lost += check(workers)
        tally.present += still_connected(workers)
    tally.check(name)
    return tally


def test_every_panel_comes_in_time_while_the_database_connections_are_cut(site: Site) -> None:
    rng = random.Random(int(os.environ.get("GROUNDWORK_FAULT_SEED", "47")))
    database = connection.settings_dict["NAME"]
    cut: list[int] = []

    async def burst(enough: asyncio.Event) -> None:
        end = time.monotonic() + BURST_S
        while time.monotonic() < end or not enough.is_set():
            cut.append(await asyncio.to_thread(terminate_backends, database))
            await asyncio.sleep(rng.uniform(*CUT_EVERY_S))

    tally = rounds_under(site, rng, burst, name="cut database connections")
    print(f"{len(cut)} cuts, {sum(cut)} connections cut")
    assert sum(cut) >= len(cut)  # the cuts did find connections of the servers' to cut
    assert tally.wizard_turns >= ROUNDS * ROOMS * TURN_LIMIT


def test_every_panel_comes_in_time_through_redis_restarts(site_on_own_redis: Site, own_redis: RedisServer) -> None:
    rng = random.Random(int(os.environ.get("GROUNDWORK_FAULT_SEED", "5")))

    async def restarts(_: asyncio.Event) -> None:
        for _ in range(REDIS_RESTARTS):
            await asyncio.sleep(rng.uniform(2.0, 5.0))
            own_redis.kill()
            await asyncio.sleep(0.5)
            await asyncio.to_thread(own_redis.start)  # the same port

    tally = rounds_under(site_on_own_redis, rng, restarts, name="restart Redis")
    assert tally.closes[4500] >= 1  # the pages were told to come back
