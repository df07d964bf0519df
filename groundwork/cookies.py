"""Cookies on their way out.

- Secure cookies in production: every cookie a response sets carries the Secure flag, whichever
  code set it (the session's and CSRF's have their own settings; gw_browser, messages and any
  cookie added later are covered here), so none is ever sent over plain HTTP.
- Kept cookies: `cookie_keep(request, ...)` sets a cookie on whatever answers the request, the
  error page of a failure after the view included (a session that could not be saved when the
  database was lost): a cookie naming what the request has already written (the browser a
  worker's link is bound to) must reach the browser, or its next try is refused."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from groundwork.middleware import ResponseMiddleware

_KEPT = "_groundwork_kept_cookies"


def cookie_keep(request: HttpRequest, key: str, value: str, **options: Any) -> None:
    """Set cookie `key` (HttpResponse.set_cookie's options) on the response to `request`, whatever it is."""
    kept = request.__dict__.setdefault(_KEPT, {})
    kept[key] = (value, options)


class KeptCookiesMiddleware(ResponseMiddleware):
    """Outside the session middleware, whose failure to save is an error page of its own."""

    def rewrite(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        for key, (value, options) in request.__dict__.get(_KEPT, {}).items():
            if key not in response.cookies:
                response.set_cookie(key, value, **options)
        return response


class SecureCookiesMiddleware(ResponseMiddleware):
    def rewrite(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        return _secured(response)


def _secured(response: HttpResponse) -> HttpResponse:
    if settings.COOKIES_SECURE:
        for morsel in response.cookies.values():
            morsel["secure"] = True
    return response
