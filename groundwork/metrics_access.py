"""Who may read /metrics: a client address inside GROUNDWORK_METRICS_ALLOW (addresses or networks,
loopback by default), or a request carrying `Authorization: Bearer <GROUNDWORK_METRICS_TOKEN>`.

The address is REMOTE_ADDR as the server gives it: the connection's peer, or the client a trusted
proxy names (see docs/security.md). Nothing here imports prometheus_client, so the settings may
use it."""

from __future__ import annotations

import hmac
import ipaddress
from typing import TYPE_CHECKING

from django.conf import settings

if TYPE_CHECKING:  # the settings import this module: nothing of django.http at import time
    from django.http import HttpRequest



def _token_matches(request: HttpRequest, token: str) -> bool:
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode())


def _address_allowed(request: HttpRequest) -> bool:
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:127.0.0.1 on a dual-stack socket
    return any(address in network for network in settings.METRICS_ALLOW)


def allowed(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    return bool(token and _token_matches(request, token)) or _address_allowed(request)
