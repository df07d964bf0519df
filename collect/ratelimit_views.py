"""Rate limits for HTTP views: a decorator that counts each request and answers 429 when over."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.translation import get_language, gettext, ngettext

from collect.ratelimit import rate_check
from groundwork import proxies
from groundwork.pages import error_page


def request_ip(request: HttpRequest) -> str | None:
    # REMOTE_ADDR is the socket's peer, or the client a trusted proxy reported (groundwork/proxies.py).
    return proxies.request_ip(request)


def rate_limited(rule: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Count the request under `rule` for the session's worker and the client IP; over the limit,
    a 429 page with Retry-After and nothing done."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def limited_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            worker = request.session.get("worker_id") if hasattr(request, "session") else None
            limited = rate_check(rule, worker=worker, ip=request_ip(request))
            if limited is None:
                return view(request, *args, **kwargs)
            # In the worker's language where the view has one (groundwork.languages.language_page);
            # in English, the limit's own words with its numbers.
            message = limited.message
            if not get_language().startswith("en"):
                message = ngettext(
                    "Too many requests in a short time. Wait %(seconds)s second and try again.",
                    "Too many requests in a short time. Wait %(seconds)s seconds and try again.",
                    limited.retry_after,
                ) % {"seconds": limited.retry_after}
            response = error_page(request, 429, gettext("Too many requests"), message)
            response["Retry-After"] = str(limited.retry_after)
            return response

        return limited_view

    return decorate
