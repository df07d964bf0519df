"""Secure cookies in production: every cookie a response sets carries the Secure flag, whichever
code set it (the session's and CSRF's have their own settings; gw_browser, messages and any
cookie added later are covered here), so none is ever sent over plain HTTP."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class SecureCookiesMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if settings.COOKIES_SECURE:
            for morsel in response.cookies.values():
                morsel["secure"] = True
        return response
