"""A Content-Security-Policy on every HTML response: scripts, styles and connections only from this
site, no inline script or style, no framing. Templates load one ES module per screen and style
through classes; an inline <script>, on* handler or style="" would be blocked by the browser."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse

POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)


def policy_for(request: HttpRequest) -> str:
    # 'self' covers ws(s):// of the same host in CSP 3; the explicit sources keep older browsers' chat working.
    try:
        host = request.get_host()
    except DisallowedHost:
        return "; ".join((*POLICY, "connect-src 'self'"))
    schemes = ("wss",) if settings.PRODUCTION else ("ws", "wss")
    connect = " ".join(["connect-src 'self'", *(f"{scheme}://{host}" for scheme in schemes)])
    return "; ".join((*POLICY, connect))


class ContentSecurityPolicyMiddleware:
    """Sync and async: around a sync-only middleware Django's ASGI handler hops to a thread for it
    and back to the event loop for what lies below it, on every request."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._acall(request)
        return _with_policy(request, self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        return _with_policy(request, await self.get_response(request))


def _with_policy(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    if "Content-Security-Policy" not in response:
        response["Content-Security-Policy"] = policy_for(request)
    return response
