"""HTTP requests served over ASGI close their database connections when they end.

Django's ASGI handler runs each request's synchronous code on a thread of its own, made for that
request and dropped after it. Django keeps a connection per thread, and CONN_MAX_AGE (which the
chat sockets' long-lived threads rely on) would keep each request thread's connection open after
its request, until Python's cyclic garbage collector came round to the dead thread's connection:
a burst of joins (300, 40 at a time, on one process) then reaches PostgreSQL's 100 connections and
fails with "too many clients". Closing at the end of the request, on the request's own thread,
bounds the connections of HTTP traffic by the requests in flight."""

from __future__ import annotations

from typing import Any

from django.core.handlers.asgi import ASGIHandler
from django.core.signals import request_finished
from django.db import connections


def close_request_connections(**_: Any) -> None:
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


def connect() -> None:
    # Only for requests that came through the ASGI handler: the test client's requests (another
    # sender) keep the test's connection.
    request_finished.connect(close_request_connections, sender=ASGIHandler, dispatch_uid="groundwork-request-connections")
