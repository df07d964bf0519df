"""The base of Groundwork's own middlewares: sync and async capable, because around a sync-only
middleware Django's ASGI handler hops to a thread for it and back to the event loop for what lies
below it, on every request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse


class DualModeMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)


class ResponseMiddleware(DualModeMiddleware):
    """A middleware that only changes the response on its way out (`rewrite`)."""

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self._acall(request)
        return self.rewrite(request, self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        return self.rewrite(request, await self.get_response(request))

    def rewrite(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:  # pragma: no cover - overridden
        raise NotImplementedError
