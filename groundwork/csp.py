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


def policy_for(request: HttpRequest, *, frame_ancestors: str = "'none'", form_action: str = "'self'") -> str:
    directives = [d for d in POLICY if not d.startswith(("frame-ancestors ", "form-action "))]
    directives += [f"form-action {form_action}", f"frame-ancestors {frame_ancestors}"]
    # 'self' covers ws(s):// of the same host in CSP 3; the explicit sources keep older browsers' chat working.
    try:
        host = request.get_host()
    except DisallowedHost:
        return "; ".join((*directives, "connect-src 'self'"))
    schemes = ("wss",) if settings.PRODUCTION else ("ws", "wss")
    connect = " ".join(["connect-src 'self'", *(f"{scheme}://{host}" for scheme in schemes)])
    return "; ".join((*directives, connect))


def mturk_frame_allowed(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """An MTurk task page: MTurk's worker sites (GROUNDWORK_MTURK_FRAME_ANCESTORS) may show it in
    their frame, and its forms may post to the allowed turkSubmitTo hosts
    (GROUNDWORK_MTURK_SUBMIT_HOSTS). Every other page keeps `frame-ancestors 'none'`, `form-action
    'self'` and X-Frame-Options DENY."""
    ancestors = " ".join(settings.MTURK_FRAME_ANCESTORS) or "'none'"
    actions = " ".join(["'self'", *settings.MTURK_SUBMIT_HOSTS])
    response["Content-Security-Policy"] = policy_for(request, frame_ancestors=ancestors, form_action=actions)
    # X-Frame-Options cannot name another origin; frame-ancestors above is the rule browsers follow.
    response.xframe_options_exempt = True
    return response


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
