"""API rate limits through DRF's throttle hook, counted in the shared store (collect.ratelimit), so
the limit holds across processes. Over the limit: 429 {code: "rate_limited", detail} with Retry-After."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from collect.ratelimit import Limited, rate_check
from groundwork.proxies import request_ip


class SharedRateThrottle(BaseThrottle):
    rule = "api"

    def allow_request(self, request: Request, view: Any) -> bool:
        worker = getattr(getattr(request, "user", None), "worker", None)
        self.limited: Limited | None = rate_check(
            self.rule, worker=worker.pk if worker is not None else None, ip=self.get_ident(request)
        )
        if self.limited is not None:
            view.rate_limit_message = self.limited.message
        return self.limited is None

    def get_ident(self, request: Request) -> str | None:
        # Not DRF's X-Forwarded-For parsing, which believes any client: the address a trusted proxy
        # reported, or the peer's (groundwork/proxies.py).
        return request_ip(request)

    def wait(self) -> float | None:
        return float(self.limited.retry_after) if self.limited is not None else None


class JoinRateThrottle(SharedRateThrottle):
    """Joining creates a worker row: counted with the join links' limit, per IP."""

    rule = "joins"
