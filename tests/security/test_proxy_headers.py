"""Spoofed forwarded headers against the production topology: the HAProxy configuration
`make run-prod` generates in front of a chat process run as its Procfile runs one (groundwork.serve
without --proxy-headers, GROUNDWORK_TRUSTED_PROXIES=127.0.0.1).

The clients connect from other loopback addresses (127.0.0.2 …), which are not in the rate
limits' exemption list (127.0.0.1, ::1): each is a distinct, non-exempt client, as a remote one
would be, while the proxy itself connects to daphne from 127.0.0.1."""

from __future__ import annotations

import asyncio
import http.client
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from groundwork.topology import haproxy_config
from tests.collect.nodes import PROXIED_SERVICES, START_SECONDS, HAProxy, Node, node_env

pytestmark = [pytest.mark.backends, *PROXIED_SERVICES]

JOINS = 10
SOCKETS = 3
LONG = 10**9  # a window that never ends during the test: counts cannot reset halfway
# A Redis database of its own, so that other tests resetting their rate-limit counts on the shared
# Redis cannot reset this one's mid-test: one per pytest-xdist worker (two workers ran this
# module's tests at once and each reset the other's counts), counted down from the last of
# Redis's 16, clear of the databases tests/settings.py gives each worker (worker n: 3n to 3n + 2
# above the URL's) for up to 4 workers.
WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
REDIS_DB = 15 - WORKER


@pytest.fixture(params=[False], ids=["edge"])
def topology(request, campaign, index_dir: Path, tmp_path: Path) -> Iterator[tuple[HAProxy, Node]]:
    """A chat process behind HAProxy; `request.param`: HAProxy behind a front proxy
    (GROUNDWORK_FRONT_PROXY=1) rather than at the edge."""
    base, _, own = os.environ["REDIS_URL"].rpartition("/")
    assert int(own or 0) + 2 < REDIS_DB, "the workers' Redis databases reach this test's: run at most 4 workers"
    redis_url = f"{base}/{REDIS_DB}"
    store = redis.Redis.from_url(redis_url)
    for key in store.scan_iter(match="gw:rate:*"):
        store.delete(key)
    env = node_env(
        index_dir,
        REDIS_URL=redis_url,
        GROUNDWORK_RATE_LIMITS=f"joins.ip={JOINS}/{LONG},sockets.ip={SOCKETS}/{LONG},sockets.worker=0/60,frames.worker=0/10",
    )
    env.pop("GROUNDWORK_RATE_LIMIT_EXEMPT_IPS", None)
    env.pop("GROUNDWORK_TRUSTED_PROXIES", None)
    node = Node(env, tmp_path / "node.log", proxied=True)
    node.start()
    node.wait_ready()
    proxy = HAProxy(tmp_path, [node.port])
    proxy.config.write_text(haproxy_config(port=proxy.port, node_ports=[node.port], ready_path="/readyz", front_proxy=request.param))
    proxy.start()
    # The chat process listens before its application has loaded (/readyz 503 until then), and
    # HAProxy takes it out while it says so: the probes start once the proxy serves its readiness.
    proxy_ready(proxy)
    yield proxy, node
    proxy.stop()
    node.stop()
    for key in store.scan_iter(match="gw:rate:*"):
        store.delete(key)


def proxy_ready(proxy: HAProxy, seconds: float = START_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while proxy.get("/readyz") != 200:
        assert time.monotonic() < deadline, f"the proxy served no ready chat process in {seconds} s"
        time.sleep(0.2)


def join(port: int, slug: str, worker: str, *, source: str, headers: dict[str, str]) -> tuple[int, str]:
    """One worker's join link, from `source`; the status and the page's text."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        connection.request("GET", f"/join/{slug}/?worker={worker}", headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def spoofed(i: int) -> dict[str, str]:
    return {"X-Forwarded-For": f"198.51.100.{i}", "Forwarded": f"for=192.0.2.{i}", "X-Real-IP": f"198.51.100.{i}"}


def test_rotating_spoofed_headers_through_the_proxy_are_limited_by_the_real_address(topology, campaign) -> None:
    proxy, _ = topology
    results = [join(proxy.port, campaign.slug, f"a{i}", source="127.0.0.2", headers=spoofed(i)) for i in range(JOINS + 5)]
    assert [status for status, _ in results] == [302] * JOINS + [429] * 5
    assert f"at most {JOINS} per {LONG} s from this network address" in results[-1][1]
    # Another client behind the same proxy has its own budget: the address counted is the
    # client's, not the proxy's.
    assert join(proxy.port, campaign.slug, "b0", source="127.0.0.5", headers=spoofed(0))[0] == 302


def test_a_spoofed_loopback_address_gets_no_exemption(topology, campaign) -> None:
    proxy, _ = topology
    statuses = [join(proxy.port, campaign.slug, f"c{i}", source="127.0.0.3", headers={"X-Forwarded-For": "127.0.0.1"})[0] for i in range(JOINS + 3)]
    assert statuses == [302] * JOINS + [429] * 3
    # The exemption is still there for a client that is loopback (the proxy reports 127.0.0.1).
    assert [join(proxy.port, campaign.slug, f"d{i}", source="127.0.0.1", headers=spoofed(i))[0] for i in range(JOINS + 3)] == [302] * (JOINS + 3)


def test_a_direct_client_s_headers_are_ignored(topology, campaign) -> None:
    _, node = topology  # daphne's own port: the peer is the client, not a trusted proxy
    statuses = [join(node.port, campaign.slug, f"e{i}", source="127.0.0.4", headers=spoofed(i))[0] for i in range(JOINS + 2)]
    assert statuses == [302] * JOINS + [429] * 2
    assert join(node.port, campaign.slug, "e-loop", source="127.0.0.4", headers={"X-Forwarded-For": "127.0.0.1"})[0] == 429


async def socket_close(port: int, *, source: str, headers: dict[str, str]) -> int:
    """A waiting-room socket without a session: refused as not a member (4403) under the limit,
    told to try later (4504) over it."""
    uri = f"ws://127.0.0.1:{port}/ws/wait/1/"
    async with connect(uri, origin=f"http://127.0.0.1:{port}", additional_headers=headers, local_addr=(source, 0), open_timeout=30) as socket:
        try:
            while True:
                await asyncio.wait_for(socket.recv(), timeout=30)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None
            return closed.rcvd.code


def test_sockets_through_the_proxy_are_limited_by_the_real_address(topology) -> None:
    proxy, _ = topology

    async def run() -> tuple[list[int], list[int]]:
        rotating = [await socket_close(proxy.port, source="127.0.0.6", headers=spoofed(i)) for i in range(SOCKETS + 2)]
        loopback = [await socket_close(proxy.port, source="127.0.0.7", headers={"X-Forwarded-For": "127.0.0.1"}) for _ in range(SOCKETS + 1)]
        return rotating, loopback

    rotating, loopback = asyncio.run(run())
    assert rotating == [4403] * SOCKETS + [4504] * 2
    assert loopback == [4403] * SOCKETS + [4504]


@pytest.mark.parametrize("topology", [True], ids=["fronted"], indirect=True)
def test_behind_a_front_proxy_the_client_it_reports_is_counted(topology, campaign) -> None:
    """GROUNDWORK_FRONT_PROXY=1: a TLS terminator on this machine (played here by the test, from
    127.0.0.1) overwrites X-Forwarded-For with the client's address; HAProxy appends its own peer's
    address, and the chat process counts the client the front proxy named."""
    proxy, _ = topology
    client = {"X-Forwarded-For": "198.51.100.9", "X-Forwarded-Proto": "https"}
    statuses = [join(proxy.port, campaign.slug, f"f{i}", source="127.0.0.1", headers=client)[0] for i in range(JOINS + 2)]
    assert statuses == [302] * JOINS + [429] * 2
    assert join(proxy.port, campaign.slug, "g0", source="127.0.0.1", headers={"X-Forwarded-For": "198.51.100.10"})[0] == 302
