"""Secure cookies in production: every cookie a response sets carries the Secure flag, whichever
code set it (the session's and CSRF's have their own settings; gw_browser, messages and any
cookie added later are covered here), so none is ever sent over plain HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse


class SecureCookiesMiddleware:
    """Sync and async, like groundwork/csp.py's, so that Django's ASGI handler hops no thread for it."""

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
        return _secured(self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        return _secured(await self.get_response(request))


def _secured(response: HttpResponse) -> HttpResponse:
    if settings.COOKIES_SECURE:
        for morsel in response.cookies.values():
            morsel["secure"] = True
    return response
