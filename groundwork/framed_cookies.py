"""Cookies for pages shown in another site's frame (an MTurk HIT inside worker.mturk.com).

In a cross-site frame browsers do not send SameSite=Lax cookies, and more and more of them (Safari,
Firefox, Chrome's incognito and Playwright's profiles) keep no ordinary third-party cookie at all:
the session, the CSRF token and the browser binding would be lost between two pages of the HIT.
A response marked by `cookies_for_frame()` sends its cookies as `SameSite=None; Secure;
Partitioned` (CHIPS): the browser keeps them apart for each top-level site, so they work inside
MTurk's frame and are never sent when another site embeds or posts to us. Every other response
keeps Django's settings (SameSite=Lax)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction

from django.http import HttpRequest, HttpResponse

MARK = "gw_cookies_for_frame"


def cookies_for_frame(response: HttpResponse) -> HttpResponse:
    setattr(response, MARK, True)
    return response


def _partitioned(response: HttpResponse) -> HttpResponse:
    if getattr(response, MARK, False):
        for morsel in response.cookies.values():
            morsel["secure"] = True
            # http.cookies learns `partitioned` only in Python 3.14; until then the attribute rides
            # on SameSite's value, which Morsel writes out as it is: "SameSite=None; Partitioned".
            morsel["samesite"] = "None; Partitioned"
    return response


class FramedCookiesMiddleware:
    """Outermost, so that it sees the cookies the session and CSRF middlewares add on the way out.
    Sync and async, like groundwork.csp's middleware (no thread hop around it)."""

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
        return _partitioned(self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        return _partitioned(await self.get_response(request))
