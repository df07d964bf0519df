"""`make run-prod` under supervisord (groundwork/topology.py): each kind of process SIGKILLed in
turn mid-dialogue comes back within 5 s, alone (the others keep their pids), and nothing is lost;
a second machine's chat process behind the first machine's proxy, whose whole topology then dies,
loses nothing either; no program (chat process, Celery worker, beat) writes a traceback. Pages join and chat through the proxy as in tests/collect/test_proxy.py."""

from __future__ import annotations

import asyncio
import os
import random
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from collect.models import Message
from tests.collect.netclient import Worker
from tests.collect.nodes import PROXIED_SERVICES
from tests.collect.supervised import ROOT, Supervised, topology_env
from tests.collect.test_node_faults import check, fault_campaign, trial  # noqa: F401 - fault_campaign is a fixture
from tests.services import tracebacks

pytestmark = [pytest.mark.backends, *PROXIED_SERVICES]
BACK_WITHIN_S = 5.0
VICTIMS = ("web1", "default", "beat", "proxy")  # a chat process, a Celery worker, beat, the proxy


@dataclass(frozen=True)
class Entry:
    """What the pages are given to connect to: the proxy's address (trial() asks each for it)."""

    address: tuple[str, int]


def free_ports(count: int) -> int:
    """The first of `count` consecutive free ports (the topology numbers its chat processes so)."""
    for _ in range(100):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            first = probe.getsockname()[1]
        if first + count > 65535:
            continue
        try:
            for port in range(first, first + count):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", port))
        except OSError:
            continue
        return first
    raise AssertionError("no consecutive free ports")


def wait_retrieved(workers: list[Worker], seconds: float = 120) -> None:
    """Every message of the trial's rooms has its retrieval: from the workers, or from beat's
    knowledge sweep where a killed worker took a task with it."""
    rooms = {worker.room_path.strip("/").split("/")[-1] for worker in workers}
    deadline = time.monotonic() + seconds
    while Message.objects.filter(room_id__in=rooms, retrieved_passages__isnull=True).exists():
        assert time.monotonic() < deadline, "a message was left without its retrieval"
        time.sleep(0.5)


def back(machine: Supervised, name: str, old: int) -> float:
    """Seconds until supervisord runs `name` again (a new pid), from now."""
    began = time.monotonic()
    while True:
        pid = machine.infos()[name]["pid"]
        if pid and pid != old:
            return time.monotonic() - began
        assert time.monotonic() - began < 60, f"{name} not restarted:\n{machine.tail()}"
        time.sleep(0.05)


@pytest.fixture
def campaign(fault_campaign):
    """The fault tests' campaign; a pairing that fails does so in a minute, not five."""
    fault_campaign.wait_timeout_seconds = 60
    fault_campaign.save()
    return fault_campaign


@pytest.fixture
def machine(campaign, index_dir: Path, tmp_path: Path) -> Iterator[Supervised]:
    topology = Supervised(tmp_path, topology_env(index_dir), "--nodes", "2", "--workers", "default=1")
    topology.start("--first-node-port", str(free_ports(2)))
    try:
        topology.wait_running()
        topology.wait_ready(topology.port)
        yield topology
    finally:
        topology.stop()


def test_each_process_killed_comes_back_alone_within_5_s_and_nothing_is_lost(machine: Supervised) -> None:
    rng = random.Random(int(os.environ.get("GROUNDWORK_FAULT_SEED", "28")))
    entry = [Entry(("127.0.0.1", machine.port))]
    pids = machine.wait_running()
    assert set(VICTIMS) <= set(pids)
    reconnects = 0
    for number, victim in enumerate(VICTIMS):
        restarted: list[float] = []

        async def kill() -> None:
            old = await asyncio.to_thread(machine.kill, victim)
            restarted.append(await asyncio.to_thread(back, machine, victim, old))

        workers = asyncio.run(trial(number, entry, rng, kill))  # type: ignore[arg-type]
        wait_retrieved(workers)
        check(workers)
        reconnects += sum(worker.stats.reconnects for worker in workers)
        assert restarted and restarted[0] < BACK_WITHIN_S, f"{victim} came back after {restarted} s"
        now = machine.wait_running()
        assert now[victim] != pids[victim]
        # Nothing else was restarted: every other program keeps its pid.
        assert {n: p for n, p in now.items() if n != victim} == {n: p for n, p in pids.items() if n != victim}
        pids = now
        machine.wait_ready(machine.port)
        print(f"{victim}: back in {restarted[0]:.2f} s; reconnects {[w.stats.reconnects for w in workers]}")
    assert reconnects >= 1  # the chat process's and the proxy's deaths did cut pages' sockets
    # Every program's output (chat processes with their knowledge dispatch, the Celery worker, beat).
    assert tracebacks(machine.log) == 0, machine.tail()


async def held_open(worker: Worker, stop: asyncio.Event) -> None:
    """A finished room's page, kept open until `stop` and opened again through the proxy whenever
    the server closes it (a drain's 4503): each chat process's drain finds a page to move, however
    the trials' own pages fall."""
    while not stop.is_set():
        socket = await worker._connect(worker.room_path)
        try:
            waits = [asyncio.create_task(socket.wait_closed()), asyncio.create_task(stop.wait())]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for wait in waits:
                wait.cancel()
        finally:
            await socket.close()


def test_a_rolling_restart_moves_every_page_and_loses_nothing(machine: Supervised) -> None:
    """`make restart-prod` while dialogues run, one trial after another until it is done: each chat
    process drains (its pages get 4503 and reconnect through the proxy to the other), comes back
    and is ready before the next; then the worker and beat. Every trial's checks hold."""
    pids = machine.wait_running()

    async def nothing() -> None:
        pass

    rng = random.Random(9)
    entry = [Entry(("127.0.0.1", machine.port))]
    first = asyncio.run(trial(0, entry, rng, nothing))  # type: ignore[arg-type]
    restart = subprocess.Popen([sys.executable, "-m", "groundwork.topology", "restart", "--out", str(machine.out)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    async def during_restart() -> list[list[Worker]]:
        stop = asyncio.Event()
        holders = [asyncio.create_task(held_open(worker, stop)) for worker in first]
        trials = []
        try:
            while restart.poll() is None:
                trials.append(await trial(len(trials) + 1, entry, rng, nothing))  # type: ignore[arg-type]
        finally:
            stop.set()
            await asyncio.gather(*holders, return_exceptions=True)
        return trials

    try:
        trials = [first, *asyncio.run(during_restart())]
        output = restart.stdout.read() if restart.stdout else ""
        assert restart.wait() == 0, output
    finally:
        if restart.poll() is None:
            restart.kill()
    for workers in trials:
        wait_retrieved(workers)
        check(workers)
    number = len(trials) - 1  # the first ran before the restart
    now = machine.wait_running()
    assert all(now[name] != pids[name] for name in ("web1", "web2", "default", "beat")), (pids, now)
    assert now["proxy"] == pids["proxy"] and now["alerts"] == pids["alerts"]
    # The drains did close pages' sockets with 4503 (groundwork/shutdown.py logs how many).
    closed = [int(n) for n in re.findall(r"and (\d+) websockets with 4503", machine.log.read_text(errors="replace"))]
    assert len(closed) == 2 and sum(closed) >= 1, (closed, output)
    print(f"{number} trials during the restart; drains closed {closed} sockets\n{output}")
    assert tracebacks(machine.log) == 0, machine.tail()


def test_a_second_machine_behind_the_proxy_can_die_whole_and_nothing_is_lost(fault_campaign, index_dir: Path, tmp_path: Path) -> None:
    """Machine B runs only a chat process; machine A a chat process, a worker, beat and the proxy,
    which knows B's chat process from CHAT_UPSTREAMS. Both share the database and Redis. B dies
    whole (supervisord and everything it runs, SIGKILLed) mid-dialogue."""
    env = topology_env(index_dir)
    b_port = free_ports(1)
    second = Supervised(tmp_path / "b", env, "--roles", "chat", "--nodes", "1", "--first-node-port", str(b_port))
    first = Supervised(tmp_path / "a", {**env, "CHAT_UPSTREAMS": f"127.0.0.1:{b_port}"}, "--nodes", "1", "--workers", "default=1")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    try:
        second.start()
        first.start("--first-node-port", str(free_ports(1)))
        second.wait_running()
        first.wait_running()
        second.wait_ready(b_port)
        first.wait_ready(first.port)
        assert f"127.0.0.1:{b_port}" in (first.out / "haproxy.cfg").read_text()

        async def machine_dies() -> None:
            await asyncio.to_thread(second.kill_all)

        entry = [Entry(("127.0.0.1", first.port))]
        workers = asyncio.run(trial(0, entry, random.Random(4), machine_dies))  # type: ignore[arg-type]
        wait_retrieved(workers)
        check(workers)
        # B did serve room sockets of these pages before it died, and they moved to A.
        assert "WSCONNECT /ws/room/" in second.log.read_text(errors="replace")
        assert sum(worker.stats.reconnects for worker in workers) >= 1
        assert tracebacks(first.log, second.log) == 0, first.tail()
    finally:
        first.stop()
        second.stop()
