"""Client addresses (groundwork/proxies.py): forwarded headers count only from a trusted proxy's
connection, and the per-IP limits and the loopback exemption follow the address that settles on.
In process, through the whole ASGI application; tests/security/test_proxy_headers.py does the
same through the real HAProxy and daphne."""

from __future__ import annotations

import pytest
from channels.testing import HttpCommunicator, WebsocketCommunicator
from django.core.exceptions import ImproperlyConfigured

from collect.models import Worker
from groundwork.asgi import application
from groundwork.proxies import client_address, forwarded_for_values, networks_parse, scope_rewrite
from tests.collect.ws import ORIGIN

pytestmark = pytest.mark.backends

AWAY = "203.0.113.7"  # not loopback, not trusted
PROXY = "10.0.0.5"
LONG = 10**9  # a window that never ends during a test
TRUSTED = networks_parse(["10.0.0.0/8", "127.0.0.1"])


def rewrite(peer: str, headers: list[tuple[bytes, bytes]], kind: str = "http", header: str = "x-forwarded-for") -> dict:
    scope = {"type": kind, "client": [peer, 4000], "scheme": "http" if kind == "http" else "ws", "headers": headers}
    return scope_rewrite(scope, trusted=TRUSTED, chain_header=header)


def test_it_ignores_and_strips_the_headers_of_an_untrusted_peer() -> None:
    scope = rewrite(AWAY, [(b"x-forwarded-for", b"127.0.0.1"), (b"forwarded", b"for=127.0.0.1"),
                           (b"x-forwarded-proto", b"https"), (b"x-real-ip", b"127.0.0.1"), (b"host", b"example.org")])
    assert scope["client"] == [AWAY, 4000]
    assert scope["scheme"] == "http"
    assert scope["headers"] == [(b"host", b"example.org")]


def test_it_takes_the_right_most_untrusted_address_from_a_trusted_peer() -> None:
    # The client wrote "127.0.0.1, 198.51.100.1" itself; the trusted proxy appended what it saw.
    scope = rewrite(PROXY, [(b"X-Forwarded-For", b"127.0.0.1, 198.51.100.1"), (b"x-forwarded-for", b"192.0.2.9, 10.0.0.7")])
    assert scope["client"][0] == "192.0.2.9"
    assert all(key != b"x-forwarded-for" for key, _ in scope["headers"])


def test_a_trusted_peer_without_a_header_is_the_client() -> None:
    assert rewrite(PROXY, [])["client"] == [PROXY, 4000]
    assert client_address(PROXY, ["10.1.2.3", "10.0.0.9"], TRUSTED) == "10.1.2.3"  # proxies all the way: the left-most


def test_an_unreadable_hop_ends_the_walk_at_the_trusted_address_to_its_right() -> None:
    assert client_address(PROXY, ["unknown"], TRUSTED) == PROXY
    assert client_address(PROXY, ["198.51.100.4", "garbage", "10.0.0.8"], TRUSTED) == "10.0.0.8"
    assert client_address(PROXY, ["garbage", "198.51.100.4"], TRUSTED) == "198.51.100.4"
    # A trusted proxy's Forwarded element without for=: what stands left of it is not believed.
    assert rewrite(PROXY, [(b"forwarded", b"for=198.51.100.4, proto=https")], header="forwarded")["client"] == [PROXY, 4000]


def test_it_reads_the_forwarded_header_when_so_configured() -> None:
    header = b'for=127.0.0.1, for="[2001:db8:cafe::17]:4711";proto=https, for=10.0.0.6:1234'
    assert forwarded_for_values(header.decode()) == ["127.0.0.1", '"[2001:db8:cafe::17]:4711"', "10.0.0.6:1234"]
    scope = rewrite(PROXY, [(b"forwarded", header), (b"x-forwarded-for", b"192.0.2.1")], header="forwarded")
    assert scope["client"][0] == "2001:db8:cafe::17"


def test_the_scheme_comes_from_the_proxy_s_own_x_forwarded_proto() -> None:
    # Django reads the left-most value, which a client may have sent: only the right-most is kept.
    scope = rewrite(PROXY, [(b"x-forwarded-proto", b"https, http")])
    assert scope["scheme"] == "http" and (b"x-forwarded-proto", b"http") in scope["headers"]
    socket = rewrite(PROXY, [(b"x-forwarded-proto", b"https")], kind="websocket")
    assert socket["scheme"] == "wss" and (b"x-forwarded-proto", b"https") in socket["headers"]


def test_a_bad_trusted_proxy_value_stops_start_up_naming_the_variable() -> None:
    with pytest.raises(ImproperlyConfigured, match="GROUNDWORK_TRUSTED_PROXIES: 'proxy.local'"):
        networks_parse(["10.0.0.0/8", "proxy.local"])


async def join(slug: str, worker: str, *, peer: str, headers: list[tuple[bytes, bytes]]) -> int:
    communicator = HttpCommunicator(application, "GET", f"/join/{slug}/?worker={worker}", headers=[(b"host", b"127.0.0.1"), *headers])
    communicator.scope["client"] = [peer, 50000]
    response = await communicator.get_response(timeout=30)
    return response["status"]


@pytest.mark.django_db(transaction=True)
async def test_rotating_spoofed_headers_do_not_escape_the_join_limit(settings, campaign) -> None:
    settings.RATE_LIMITS = {"frames": {}, "sockets": {}, "joins": {"ip": (3, LONG)}, "api": {}}
    settings.TRUSTED_PROXIES = networks_parse(["10.0.0.0/8"])
    statuses = [
        await join(campaign.slug, f"w{i}", peer=AWAY, headers=[(b"x-forwarded-for", f"198.51.100.{i}".encode()), (b"forwarded", f"for=192.0.2.{i}".encode())])
        for i in range(6)
    ]
    assert statuses == [302, 302, 302, 429, 429, 429]
    # A spoofed loopback address is no exemption either.
    assert await join(campaign.slug, "w6", peer=AWAY, headers=[(b"x-forwarded-for", b"127.0.0.1")]) == 429
    assert not await Worker.objects.filter(external_id__in=["w3", "w4", "w5", "w6"]).aexists()
    # Through a trusted proxy, the address it reports is the client: a fresh budget per client,
    # and the loopback exemption for a loopback client.
    assert await join(campaign.slug, "w7", peer=PROXY, headers=[(b"x-forwarded-for", b"198.51.100.77")]) == 302
    assert [await join(campaign.slug, f"l{i}", peer=PROXY, headers=[(b"x-forwarded-for", b"127.0.0.1")]) for i in range(5)] == [302] * 5


async def socket_close(headers: list[tuple[bytes, bytes]], *, peer: str) -> int:
    """Opens a waiting-room socket with no session: under the limit it is refused as not a member
    (4403), over it told to try later (4504)."""
    communicator = WebsocketCommunicator(application, "/ws/wait/1/", headers=[ORIGIN, *headers])
    communicator.scope["client"] = [peer, 50000]
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    while True:
        output = await communicator.receive_output(timeout=10)
        if output["type"] == "websocket.close":
            return output["code"]


@pytest.mark.django_db(transaction=True)
async def test_sockets_are_counted_under_the_trusted_address(settings) -> None:
    settings.RATE_LIMITS = {"frames": {}, "sockets": {"ip": (2, LONG)}, "joins": {}, "api": {}}
    settings.TRUSTED_PROXIES = networks_parse(["10.0.0.0/8"])
    closes = [await socket_close([(b"x-forwarded-for", f"198.51.100.{i}".encode())], peer=AWAY) for i in range(3)]
    assert closes == [4403, 4403, 4504]
    assert await socket_close([(b"x-forwarded-for", b"127.0.0.1")], peer=AWAY) == 4504
    assert await socket_close([(b"x-forwarded-for", b"198.51.100.50")], peer=PROXY) == 4403
    assert [await socket_close([(b"x-forwarded-for", b"127.0.0.1")], peer=PROXY) for _ in range(4)] == [4403] * 4


def test_make_run_prod_trusts_its_own_proxy_only(monkeypatch, tmp_path) -> None:
    from groundwork.topology import environment, haproxy_config

    monkeypatch.setenv("DATABASE_URL", "postgres://nobody@127.0.0.1:1/none")
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    monkeypatch.setenv("SECRET_KEY", "x" * 50)
    monkeypatch.delenv("GROUNDWORK_TRUSTED_PROXIES", raising=False)
    assert environment(out=tmp_path)["GROUNDWORK_TRUSTED_PROXIES"] == "127.0.0.1"
    config = haproxy_config(port=8080, node_ports=[8081], ready_path="/readyz")
    # Overwritten, not appended to: a client's own header never reaches the chat processes.
    assert "option forwardfor" not in config
    assert "http-request set-header X-Forwarded-For %[src]" in config and "http-request del-header Forwarded" in config
    # Behind a TLS terminator of its own, it appends to the header the terminator wrote.
    fronted = haproxy_config(port=8080, node_ports=[8081], ready_path="/readyz", front_proxy=True)
    assert "option forwardfor" in fronted and "%[src]" not in fronted and "del-header Forwarded" in fronted
