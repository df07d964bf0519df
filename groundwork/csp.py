"""A Content-Security-Policy on every HTML response: scripts, styles and connections only from this
site, no inline script or style, no framing. Templates load one ES module per screen and style
through classes; an inline <script>, on* handler or style="" would be blocked by the browser."""

from __future__ import annotations



from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse

from groundwork.middleware import ResponseMiddleware

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


class ContentSecurityPolicyMiddleware(ResponseMiddleware):
    def rewrite(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        return _with_policy(request, response)


def _with_policy(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    if "Content-Security-Policy" not in response:
        response["Content-Security-Policy"] = policy_for(request)
    return response
