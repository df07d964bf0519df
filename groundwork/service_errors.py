"""The errors that mean "this process lost a service under the socket" (the database, Redis or the
Celery broker), not a bug: each is logged as one line, without a traceback, and the socket is
closed with 4500 (close_codes.SERVICE_LOST) so that the page reconnects and resyncs. Anything else
is a bug and keeps its traceback."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TypeVar

import psycopg
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import RedisError

# OSError: a socket to Redis or PostgreSQL cut below the client library (ConnectionError, timeouts).
# BrokerError: Celery's broker unreachable when a task is queued (a rerank, a knowledge retrieval).
SERVICE_ERRORS: tuple[type[BaseException], ...] = (
    OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError, RedisError, BrokerError, OSError,
)
T = TypeVar("T")


def service_lost(error: BaseException) -> bool:
    return isinstance(error, SERVICE_ERRORS)


def one_line(error: BaseException) -> str:
    """`RedisError: Connection closed by server.`: what a log line says of a lost service."""
    text = " ".join(str(error).split())
    return f"{type(error).__module__}.{type(error).__qualname__}: {text[:300]}"


async def logged(log: logging.Logger, what: str, work: Awaitable[T]) -> T | None:
    """Await `work`; a lost service is logged as one line (None returned): for the best-effort
    steps (a group_discard, a presence broadcast) whose loss a resync or the sweep makes good."""
    try:
        return await work
    except asyncio.CancelledError:
        raise
    except SERVICE_ERRORS as error:
        log.warning("%s skipped, service lost: %s", what, one_line(error))
        return None
