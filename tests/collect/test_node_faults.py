"""Two daphne processes on PostgreSQL + Redis, partners on different processes, scripted pages that
reconnect and resend as the real ones do; one process is killed with SIGKILL at a random point of
each trial and started again (or Redis restarted, or the database connections cut). Nothing
acknowledged may be lost or stored twice, every page must end up with every message once, every
message keeps its knowledge, every dialogue completes; and each test prints and checks its tally:
0 lost, 0 stuck pages, 0 late knowledge panels, 0 sentences of the current panel refused as
`stale_knowledge`, 0 members left marked connected, 0 tracebacks in the servers' output (the chat
processes' here; with the Celery worker's in tests/collect/test_knowledge_faults.py), 0 sockets
closed with 1011 (a known condition closes with its application code, docs/websocket-protocol.md)."""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import psycopg
from django.db import connection

from collect.models import Assignment, Campaign, Message, Persona, Room, RoomStatus
from tests.collect.netclient import Worker
from tests.collect.nodes import NODE_APPLICATION, Node, RedisServer, node_env
from tests.services import child_database_url, tracebacks

pytestmark = [
    pytest.mark.services,
    pytest.mark.timeout(600),  # nodes start, then dialogues run for up to their own 180 s
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="needs REDIS_URL and a PostgreSQL DATABASE_URL",
    ),
]
TRIALS = 10
ROOMS_PER_TRIAL = 2
TURN_LIMIT = 4  # messages per dialogue: 2 × TURN_LIMIT
# A wizard whose panel for the turn has not come after this long is stuck (the page asks again
# after 2.5 s; the brief allows a few seconds).
KNOWLEDGE_STUCK_S = 8.0


@pytest.fixture
def fault_campaign(knowledge) -> Campaign:
    campaign = Campaign.objects.create(
        slug="faults", name="Fault tests", knowledge_source=knowledge, min_turns=1, max_turns=1, turn_limit=TURN_LIMIT
    )
    Persona.objects.create(campaign=campaign, text="I play the guitar.", topics=["Guitar"])
    return campaign


def started(env: dict[str, str], tmp_path: Path) -> list[Node]:
    pair = [Node(env, tmp_path / f"node{i}.log") for i in range(2)]
    for node in pair:
        node.start()
    for node in pair:
        node.wait_ready()
    return pair


@pytest.fixture
def nodes(fault_campaign, index_dir: Path, tmp_path: Path):
    pair = started(node_env(index_dir), tmp_path)
    yield pair
    for node in pair:
        node.stop()


@pytest.fixture
def own_redis(tmp_path: Path):
    """A redis-server of the test's own (never the shared one), without persistence: a restart
    loses every group membership and queued message, as a failed-over Redis would."""
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.kill()


@pytest.fixture
def nodes_on_own_redis(fault_campaign, own_redis: RedisServer, index_dir: Path, tmp_path: Path):
    pair = started(node_env(index_dir, REDIS_URL=f"redis://127.0.0.1:{own_redis.port}/0"), tmp_path)
    yield pair
    for node in pair:
        node.stop()


async def pair_up(name: str, nodes: list[Node], rng: random.Random) -> list[Worker]:
    """Two workers who join on different processes and are paired with each other."""
    addresses = [node.address for node in nodes]
    first, second = (Worker(f"{name}-{i}", "faults", addresses, home=i, think_s=0.15, rng=rng) for i in range(2))
    joining = asyncio.create_task(first.join())
    await asyncio.wait_for(first.waiting.wait(), 60)  # first is on the waiting page when second arrives
    await asyncio.gather(joining, second.join())
    assert first.room_path == second.room_path
    return [first, second]


async def trial(
    number: int, nodes: list[Node], rng: random.Random, fault: Callable[[], Awaitable[None]], *, rooms: int = ROOMS_PER_TRIAL
) -> list[Worker]:
    """`rooms` dialogues; `fault` strikes at a random moment of them: once the furthest
    page has seen a random number of messages (short of the last), plus a random fraction of a
    turn, so that it lands mid-dialogue however fast the machine runs the turns."""
    workers = []
    for room in range(rooms):
        workers += await pair_up(f"t{number}r{room}", nodes, rng)

    async def strike() -> None:
        seen = rng.randint(1, 2 * TURN_LIMIT - 1)
        while max(len(worker.stats.received) for worker in workers) < seen:
            await asyncio.sleep(0.01)
        await asyncio.sleep(rng.uniform(0.0, 0.3))
        await fault()

    striker = asyncio.create_task(strike())
    try:
        await asyncio.wait_for(asyncio.gather(*(worker.chat() for worker in workers)), timeout=180)
    except asyncio.TimeoutError:
        raise AssertionError(f"trial {number}: a dialogue stalled: " + "; ".join(stalled(w) for w in workers)) from None
    await striker
    return workers


def still_connected(workers: list[Worker], *, seconds: float = 20.0, kills: Sequence[tuple[int, float]] = ()) -> int:
    """Members of the trial's finished rooms still marked connected once their pages have closed
    their sockets (waited for: a close reaches a busy server late); after a Redis restart a
    disconnect that could not reach Redis must still clear it.

    `kills`: (node index, time.monotonic()) of each process killed. A page that began closing its
    last socket on a process killed after that moment may have lost its close with the process:
    its member is not counted (the sweep's heartbeat rule, collect.lifecycle.presence, clears it)."""
    rooms = {worker.room_path.strip("/").split("/")[-1] for worker in workers}
    died = {
        worker.name
        for worker in workers
        if worker.closed_on is not None
        and any(node == worker.closed_on[0] and at >= worker.closed_on[1] for node, at in kills)
    }
    deadline = time.monotonic() + seconds
    while True:
        names = set(Assignment.objects.filter(room_id__in=rooms, connected=True).values_list("worker__external_id", flat=True))
        count = len(names - died)
        if count == 0 or time.monotonic() > deadline:
            if names & died:
                print(f"still marked connected, their close sent to a process killed after: {sorted(names & died)}")
            return count
        time.sleep(0.1)


def stalled(worker: Worker) -> str:
    state = worker.state
    return (
        f"{worker.name} {worker.role} status={state.get('status')} state_last_seq={state.get('last_seq')} "
        f"your_turn={state.get('your_turn')} last_seq={worker.last_seq} unacked={len(worker.unacked)} "
        f"knowledge_after={worker.knowledge.get('after_seq')} reconnects={worker.stats.reconnects} errors={worker.stats.errors}"
    )


@dataclass
class Tally:
    """What the pages of a test's trials saw, and what the servers logged."""

    reconnects: int = 0
    closes: Counter[int] = field(default_factory=Counter)  # close code → sockets closed with it
    lost: int = 0  # acknowledged messages not stored under their seq
    present: int = 0  # members still marked connected once their pages had left a finished room
    stuck: int = 0  # dialogues that did not complete (the trial fails at once)
    wizard_turns: int = 0  # turns a wizard waited for the panel of
    knowledge_late: int = 0  # wizard turns whose panel came after KNOWLEDGE_STUCK_S, or never
    knowledge_resyncs: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    tracebacks: int = 0
    app_exceptions: int = 0  # daphne's "Exception inside application" (it then closes with 1011)

    def add(self, workers: list[Worker]) -> None:
        for worker in workers:
            self.reconnects += worker.stats.reconnects
            self.closes.update(worker.stats.closes)
            self.wizard_turns += len(worker.stats.knowledge_wait_ms) + worker.stats.knowledge_missed
            self.knowledge_late += worker.stats.knowledge_missed
            self.knowledge_late += sum(1 for ms in worker.stats.knowledge_wait_ms if ms > KNOWLEDGE_STUCK_S * 1000)
            self.knowledge_resyncs += worker.stats.knowledge_resyncs
            self.errors.update(worker.stats.errors)

    def read_logs(self, logs: list[Path]) -> None:
        """The servers' output: the chat processes' (their knowledge dispatch included) and any
        Celery worker's."""
        self.tracebacks += tracebacks(*logs)
        for log in logs:
            self.app_exceptions += log.read_text(errors="replace").count("Exception inside application")

    def check(self, name: str) -> None:
        print(
            f"{name}: lost {self.lost}, stuck {self.stuck}, late knowledge {self.knowledge_late} of {self.wizard_turns} "
            f"wizard turns, refused as stale_knowledge {self.errors['stale_knowledge']}, still marked connected {self.present}, "
            f"tracebacks {self.tracebacks}, exceptions inside application {self.app_exceptions}, "
            f"1011 closes {self.closes[1011]}; closes {dict(sorted(self.closes.items()))}, "
            f"reconnects {self.reconnects}, knowledge resyncs {self.knowledge_resyncs}, errors {dict(self.errors)}"
        )
        assert (self.lost, self.stuck, self.knowledge_late, self.present) == (0, 0, 0, 0)
        # The scripted wizard checks a retrieved sentence only from the panel for the current turn:
        # a refusal of it as stale would send a wizard round for a panel they already have.
        assert self.errors["stale_knowledge"] == 0
        assert (self.tracebacks, self.app_exceptions, self.closes[1011]) == (0, 0, 0)


def run_trials(
    count: int, nodes: list[Node], rng: random.Random, fault: Callable[[], Awaitable[None]], *, name: str = "",
    kills: Sequence[tuple[int, float]] = (),
) -> Tally:
    """Run and check `count` trials; then the servers' logs are read and the tally printed and
    checked. `kills`: the processes the fault killed, as it appends them (see still_connected)."""
    logs = [node.log for node in nodes]
    tally = Tally()
    for number in range(count):
        started = time.monotonic()
        try:
            workers = asyncio.run(trial(number, nodes, rng, fault))
        except AssertionError:
            tally.stuck += 1
            tally.read_logs(logs)
            print(f"{name or 'trials'}: a dialogue stalled in trial {number}; tracebacks {tally.tracebacks}")
            raise
        print(f"trial {number}: {time.monotonic() - started:.1f} s, reconnects {[w.stats.reconnects for w in workers]}")
        tally.lost += check(workers)
        tally.present += still_connected(workers, kills=kills)
        tally.add(workers)
        for node in nodes:
            node.wait_ready()
    tally.read_logs(logs)
    tally.check(name or "trials")
    return tally


def check(workers: list[Worker]) -> int:
    """Assert the trial's rooms are whole; the number of acknowledged messages lost (0, or it fails)."""
    lost = 0
    for first, second in zip(workers[::2], workers[1::2]):
        room = Room.objects.get(pk=first.room_path.strip("/").split("/")[-1])
        stored = list(Message.objects.filter(room=room).order_by("seq"))
        assert room.status == RoomStatus.COMPLETE, (room.status, room.end_reason)
        assert [m.seq for m in stored] == list(range(1, 2 * TURN_LIMIT + 1))
        by_client = {m.client_id: m.seq for m in stored}
        assert len({m.text for m in stored}) == len(stored), "a message was stored twice"
        for worker in (first, second):
            assert worker.state["status"] == "complete"
            # Every acknowledged message is stored, under the seq it was acknowledged with.
            lost += sum(1 for client_id, seq in worker.stats.sent.items() if by_client.get(client_id) != seq)
            assert lost == 0, f"{lost} acknowledged messages lost"
            # Each page got every message exactly once.
            assert sorted(worker.stats.received) == [m.seq for m in stored], (worker.name, worker.role, str(room.pk), worker.stats)
            assert set(worker.stats.received.values()) == {1}, worker.stats.received
        assert len(first.stats.sent) + len(second.stats.sent) == len(stored)
        # No turn without its knowledge; the wizard's checks name sentences it was shown.
        assert all(m.retrieved_passages is not None for m in stored)
        assert all(m.checked_sentence for m in stored if m.role == "wizard")
    return lost


def test_killing_a_process_mid_dialogue_loses_nothing(nodes: list[Node]) -> None:
    rng = random.Random(int(os.environ.get("GROUNDWORK_FAULT_SEED", "12")))

    kills: list[tuple[int, float]] = []

    async def kill_one() -> None:
        victim = rng.choice(nodes)
        victim.kill()
        kills.append((nodes.index(victim), time.monotonic()))  # a close begun before now may have died with it
        victim.start()  # back once it has started; the pages use the other process meanwhile

    tally = run_trials(TRIALS, nodes, rng, kill_one, name="kill a process", kills=kills)
    assert tally.reconnects >= TRIALS  # the kills did cut connections


def test_processes_probed_for_readiness_still_relay(nodes: list[Node]) -> None:
    """A load balancer asks /readyz of every process every few seconds, from before the first
    socket opens; the probe's round trip through the channel layer leaves the sockets' alone."""
    stop = threading.Event()
    failed: list[str] = []  # an exception in the probing thread would not fail the test by itself
    probed = threading.Event()  # every process answered one probe

    def probe() -> None:
        while not stop.is_set():
            for node in nodes:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{node.port}/readyz", timeout=10) as response:
                        status = response.status
                except Exception as error:  # an HTTPError (503) included
                    failed.append(f"/readyz of {node.port}: {error!r}")
                    return
                if status != 200:
                    failed.append(f"/readyz of {node.port}: {status}")
                    return
            probed.set()
            stop.wait(0.5)

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    try:
        assert probed.wait(60) or failed, "no probe answered"  # the first probes come before any socket

        async def nothing() -> None:
            pass

        run_trials(1, nodes, random.Random(11), nothing, name="probed for readiness")
    finally:
        stop.set()
        prober.join()
    assert failed == []


def test_dropped_database_connections_lose_nothing(nodes: list[Node]) -> None:
    rng = random.Random(7)
    database = connection.settings_dict["NAME"]
    cut: list[int] = []

    async def drop_connections() -> None:
        # A burst of cuts over a second or so, so that some land inside a transaction, a
        # retrieval or a presence write rather than only on idle connections.
        for _ in range(6):
            cut.append(await asyncio.to_thread(terminate_backends, database))
            await asyncio.sleep(rng.uniform(0.05, 0.3))

    run_trials(3, nodes, rng, drop_connections, name="drop database connections")
    assert sum(cut) >= 3  # connections the servers held were really cut


def test_a_redis_restart_mid_dialogue_loses_nothing(nodes_on_own_redis: list[Node], own_redis: RedisServer) -> None:
    rng = random.Random(5)

    async def restart_redis() -> None:
        own_redis.kill()
        await asyncio.sleep(0.5)
        own_redis.start()

    tally = run_trials(3, nodes_on_own_redis, rng, restart_redis, name="restart Redis")
    # The pages were told to come back (4500), not cut off with 1011.
    assert tally.closes[4500] >= 1


def terminate_backends(database: str) -> int:
    """Cut every connection the server processes hold to the test database (as a failover would);
    how many were cut."""
    with psycopg.connect(child_database_url().replace(f"/{database}", "/postgres"), autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND application_name = %s",
            [database, NODE_APPLICATION],
        ).fetchall()
    return sum(1 for (done,) in rows if done)
