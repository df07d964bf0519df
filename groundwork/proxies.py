"""Client addresses behind trusted proxies, for HTTP and websockets alike.

A connection's peer is whoever opened the TCP connection to daphne. Only when that peer is one of
GROUNDWORK_TRUSTED_PROXIES (addresses and CIDR networks) do the forwarded headers count: the
client is then the right-most address in the chain (`X-Forwarded-For`, or `Forwarded` if so
configured) that is not itself a trusted proxy, since every address to the left of it was written
by someone we do not trust and may be made up. From any other peer the headers are ignored.

Either way the forwarded headers are taken out of the scope, so nothing downstream (Django,
DRF's throttles, django-axes, a consumer) can read a client's own copy; `X-Forwarded-Proto`
is kept only as the single value the trusted proxy set, which is what SECURE_PROXY_SSL_HEADER reads.

The rest of the code reads one thing: `scope["client"]` (REMOTE_ADDR in a Django request).
"""

from __future__ import annotations

import functools
import ipaddress
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:  # settings import this module: nothing here may load Django's request machinery
    from django.http import HttpRequest

log = logging.getLogger(__name__)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# Headers that describe the client or the original request: stripped from every scope, then put
# back (reduced to what the trusted proxy wrote) only for a trusted peer.
FORWARDED_HEADERS = frozenset(
    {b"x-forwarded-for", b"forwarded", b"x-forwarded-proto", b"x-forwarded-host", b"x-forwarded-port", b"x-real-ip"}
)
CHAIN_HEADERS = {"x-forwarded-for": b"x-forwarded-for", "forwarded": b"forwarded"}


def networks_parse(values: Iterable[str], *, name: str = "GROUNDWORK_TRUSTED_PROXIES") -> tuple[Network, ...]:
    """Addresses and CIDR networks; a bad one stops start-up naming the variable."""
    out = []
    for value in values:
        try:
            out.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError:
            raise ImproperlyConfigured(f"{name}: {value!r} is not an IP address or a CIDR network (e.g. 10.0.0.0/8)") from None
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def address_parse(value: str) -> Address | None:
    """One hop's address as the headers write it: `1.2.3.4`, `1.2.3.4:80`, `[::1]:80`, `"[::1]"`;
    None for anything else (`unknown`, obfuscated `_names`, garbage)."""
    text = value.strip().strip('"').strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]  # IPv4 with a port
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def forwarded_for_values(header: str) -> list[str]:
    """The `for=` values of an RFC 7239 `Forwarded` header, in order (one per hop)."""
    out = []
    for element in header.split(","):
        found = ""
        for pair in element.split(";"):
            key, _, value = pair.partition("=")
            if key.strip().lower() == "for":
                found = value
        out.append(found)
    return out


@functools.lru_cache(maxsize=4096)
def is_trusted(address: Address | None, trusted: tuple[Network, ...]) -> bool:
    # Cached, as address_parse: a handful of proxies and recent clients, asked on every request.
    return address is not None and any(address in network for network in trusted)


def client_address(peer: str | None, chain: list[str], trusted: tuple[Network, ...]) -> str | None:
    """The client's address: the peer itself unless it is a trusted proxy; then the right-most
    address in `chain` (left to right, as the header lists hops) that is not a trusted proxy. A
    hop that cannot be read ends the walk at the trusted address to its right."""
    peer_address = address_parse(peer) if peer else None
    if not is_trusted(peer_address, trusted):
        return peer
    current = peer_address
    for value in reversed(chain):
        address = address_parse(value)
        if address is None:
            break
        current = address
        if not is_trusted(address, trusted):
            break
    return str(current)


def _joined(headers: list[tuple[bytes, bytes]], name: bytes) -> str:
    # Repeated header lines are one list, in order (RFC 9110 5.3).
    return ",".join(value.decode("latin-1") for key, value in headers if key == name)


def scope_rewrite(scope: dict[str, Any], *, trusted: tuple[Network, ...], chain_header: str) -> dict[str, Any]:
    """A copy of an HTTP or websocket scope with the client (and scheme) a trusted proxy reported,
    and no forwarded header but the proxy's own `X-Forwarded-Proto`."""
    headers = [(key.lower(), value) for key, value in scope.get("headers", [])]
    kept = [(key, value) for key, value in headers if key not in FORWARDED_HEADERS]
    client = scope.get("client")
    peer = str(client[0]) if client else None
    new = dict(scope)
    if peer is not None and is_trusted(address_parse(peer), trusted):
        raw = _joined(headers, CHAIN_HEADERS[chain_header])
        values = forwarded_for_values(raw) if chain_header == "forwarded" else raw.split(",")
        # An empty hop (a Forwarded element without for=) is unreadable like any other: it ends the walk.
        chain = [value.strip() for value in values] if raw else []
        address = client_address(peer, chain, trusted)
        if address != peer:
            new["client"] = [address, 0]
        # The right-most value is the one the nearest trusted proxy wrote; Django would read the
        # left-most, which a client may have supplied.
        protos = [p.strip().lower() for p in _joined(headers, b"x-forwarded-proto").split(",") if p.strip()]
        if protos and protos[-1] in ("http", "https"):
            proto = protos[-1]
            kept.append((b"x-forwarded-proto", proto.encode()))
            secure = proto == "https"
            if scope["type"] == "websocket":
                new["scheme"] = "wss" if secure else "ws"
            else:
                new["scheme"] = proto
    new["headers"] = kept
    return new


class TrustedProxyMiddleware:
    """ASGI middleware around the whole application (groundwork/asgi.py)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] in ("http", "websocket"):
            from django.conf import settings

            scope = scope_rewrite(scope, trusted=settings.TRUSTED_PROXIES, chain_header=settings.TRUSTED_PROXY_HEADER)
        return await self.app(scope, receive, send)


def request_ip(request: "HttpRequest") -> str | None:
    """The client address of a Django request (what the middleware above left in REMOTE_ADDR);
    django-axes and the per-IP rate limits read it through here."""
    return request.META.get("REMOTE_ADDR") or None
