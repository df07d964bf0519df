"""The production topology's load balancer: HAProxy with the configuration `make run-prod`
generates (groundwork/topology.py) in front of two chat processes run as the Procfile runs them.
Pages join and chat through it; one process is killed mid-dialogue and started again."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.collect.nodes import PROXIED_SERVICES, HAProxy, Node, node_env
from tests.collect.test_node_faults import check, fault_campaign, trial  # noqa: F401 - fault_campaign is a fixture

pytestmark = [pytest.mark.backends, *PROXIED_SERVICES]


@dataclass(frozen=True)
class Entry:
    """What the pages are given to connect to: the proxy's address (trial() asks each for it)."""

    address: tuple[str, int]


@pytest.fixture
def topology(fault_campaign, index_dir: Path, tmp_path: Path) -> Iterator[tuple[HAProxy, list[Node]]]:
    env = node_env(index_dir)
    nodes = [Node(env, tmp_path / f"node{i}.log", proxied=True) for i in range(2)]
    for node in nodes:
        node.start()
    for node in nodes:
        node.wait_ready()
    proxy = HAProxy(tmp_path, [node.port for node in nodes])
    proxy.start()
    yield proxy, nodes
    proxy.stop()
    for node in nodes:
        node.stop()


def test_the_proxy_checks_readiness_and_serves_through_a_dead_process(topology: tuple[HAProxy, list[Node]]) -> None:
    proxy, nodes = topology
    assert proxy.get("/readyz") == 200
    nodes[0].kill()
    # Before the health checks have taken the dead process out, a request that goes to it is
    # retried on the other one.
    assert [proxy.get("/healthz") for _ in range(12)] == [200] * 12


def test_dialogues_through_the_proxy_survive_a_killed_process(topology: tuple[HAProxy, list[Node]]) -> None:
    proxy, nodes = topology
    rng = random.Random(3)
    entry = [Entry(("127.0.0.1", proxy.port))] * 2

    async def kill_one() -> None:
        victim = rng.choice(nodes)
        victim.kill()
        victim.start()

    reconnects = 0
    for number in range(3):
        workers = asyncio.run(trial(number, entry, rng, kill_one))  # type: ignore[arg-type]
        check(workers)
        reconnects += sum(worker.stats.reconnects for worker in workers)
        for node in nodes:
            node.wait_ready()
    # The kills did cut pages' connections through the proxy (a kill can miss: the proxy decides
    # which process holds which socket).
    assert reconnects >= 1
