"""Cookies for pages shown in another site's frame (an MTurk HIT inside worker.mturk.com).

In a cross-site frame browsers do not send SameSite=Lax cookies, and more and more of them (Safari,
Firefox, Chrome's incognito and Playwright's profiles) keep no ordinary third-party cookie at all:
the session, the CSRF token and the browser binding would be lost between two pages of the HIT.
A response marked by `cookies_for_frame()` sends its cookies as `SameSite=None; Secure;
Partitioned` (CHIPS): the browser keeps them apart for each top-level site, so they work inside
MTurk's frame and are never sent when another site embeds or posts to us. Every other response
keeps Django's settings (SameSite=Lax)."""

from __future__ import annotations



from django.http import HttpRequest, HttpResponse

from groundwork.middleware import ResponseMiddleware

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


class FramedCookiesMiddleware(ResponseMiddleware):
    """Outermost, so that it sees the cookies the session and CSRF middlewares add on the way out.
    Sync and async, like groundwork.csp's middleware (no thread hop around it)."""

    def rewrite(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        return _partitioned(response)


