"""Secure cookies in production: every cookie a response sets carries the Secure flag, whichever
code set it (the session's and CSRF's have their own settings; gw_browser, messages and any
cookie added later are covered here), so none is ever sent over plain HTTP."""

from __future__ import annotations


from django.conf import settings
from django.http import HttpRequest, HttpResponse

from groundwork.middleware import ResponseMiddleware


class SecureCookiesMiddleware(ResponseMiddleware):
    def rewrite(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        return _secured(response)


def _secured(response: HttpResponse) -> HttpResponse:
    if settings.COOKIES_SECURE:
        for morsel in response.cookies.values():
            morsel["secure"] = True
    return response
