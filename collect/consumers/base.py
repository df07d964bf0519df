"""What both sockets share: who the worker is, frame parsing, rate limiting and error frames.

A frame never crashes the socket: a refused one gets an `error` frame, and anything a handler did
not expect is logged and answered with `server_error`, so the connection stays open and
`disconnect()` still runs when it closes (a crashed consumer skips it and leaks presence).

A lost database or Redis (groundwork/service_errors.py), wherever it strikes — connect, join, a frame, a
group event, the channel layer's receive loop, disconnect — is logged as one line and the socket is
closed with 4500, never left to daphne, which would log a traceback and close with 1011; the
consumer's own cleanup (disconnect()) then still runs, as far as the services allow."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from groundwork import close_codes
from collect.errors import ProtocolError
from collect.frames import frame_text, parse_frame
from collect.ratelimit import Limited, RateLimiter, arate_check
from groundwork.service_errors import SERVICE_ERRORS, one_line
from groundwork import metrics

# Close codes: groundwork/close_codes.py (4000–4499 final, 4500–4999 reconnect).
CLOSE_NOT_MEMBER = close_codes.NOT_MEMBER
# "Try again later": the client's socket reconnects after a wait.
CLOSE_TRY_LATER = close_codes.TRY_LATER
# The server lost its database or channel layer under this socket: its group membership or its
# connection may be gone, so the page reconnects and resyncs.
CLOSE_SERVICE_RESTART = close_codes.SERVICE_LOST
log = logging.getLogger(__name__)


def frame_type(text: str | None) -> str:
    """For a log line: the frame's type, if it parses (the frame itself may hold a worker's words)."""
    try:
        kind = json.loads(text or "").get("type")
    except (ValueError, AttributeError):
        return "?"
    return kind if isinstance(kind, str) and len(kind) <= 32 else "?"


def scope_ip(scope: dict[str, Any]) -> str | None:
    client = scope.get("client")
    return str(client[0]) if client else None


class GroundworkConsumer(AsyncJsonWebsocketConsumer):
    client_gone = False  # the page closed the socket (websocket.disconnect came)
    closing = False  # this side has sent its close
    counted = False  # in the open-sockets gauge
    received_at = 0.0  # time.time() when the frame being handled came in

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def send_unless_closed(message: dict[str, Any]) -> None:
            # A frame racing the socket's close (a group event that came after this side closed
            # with 4500, or after the page went) is dropped: the page resyncs when it is back.
            # daphne would raise it out of the consumer and log a traceback.
            if message["type"] == "websocket.send" and (self.closing or self.client_gone):
                return
            try:
                await send(message)
            except Disconnected:
                self.client_gone = True

        try:
            await super().__call__(scope, receive, send_unless_closed)
        except SERVICE_ERRORS as error:
            # Raised by a handler outside receive() (join, a group event, disconnect) or by the
            # channel layer's receive loop (Redis went away): the consumer's loop has ended.
            await self.service_lost(error, where="socket")
            if not self.client_gone:
                await self.cleanup_after_loss()
        finally:
            # However the socket ends: closed, or its instance cancelled by daphne, which then
            # runs no disconnect().
            self.released()
            if self.counted:
                metrics.socket_closed(metrics.socket_kind(self))

    async def service_lost(self, error: BaseException, *, where: str) -> None:
        """One log line, and the page told to reconnect (4500) unless it has already gone."""
        log.warning("%s %s: service lost, closing with %s: %s", type(self).__name__, where, CLOSE_SERVICE_RESTART, one_line(error))
        if not self.client_gone and not self.closing:
            await self.close(code=CLOSE_SERVICE_RESTART, reason=close_codes.REASONS[CLOSE_SERVICE_RESTART])

    async def cleanup_after_loss(self) -> None:
        """What disconnect() would have done, as far as the services now allow (each step of a
        disconnect() skips what it cannot reach; the sweep and the next sync make up the rest)."""
        try:
            await self.disconnect(CLOSE_SERVICE_RESTART)
        except SERVICE_ERRORS as error:
            log.warning("%s cleanup: service lost: %s", type(self).__name__, one_line(error))

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        self.closing = True
        await super().close(code=code, reason=reason)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        self.client_gone = True
        await super().websocket_disconnect(message)

    def released(self) -> None:
        """What this socket holds in the process, let go when it ends (overridden)."""

    async def connect(self) -> None:
        self.limiter = RateLimiter(settings.WS_RATE_PER_10S, 10.0)
        await self.accept()
        metrics.socket_opened(metrics.socket_kind(self))
        self.counted = True
        session = self.scope.get("session")
        self.worker_id: int | None = session.get("worker_id") if session is not None else None
        self.ip = scope_ip(self.scope)
        limited = await arate_check("sockets", worker=self.worker_id, ip=self.ip)
        if limited is not None:
            await self.send_error(ProtocolError("rate_limited", limited.message))
            await self.close(code=CLOSE_TRY_LATER, reason=close_codes.REASONS[CLOSE_TRY_LATER])
            return
        await self.join()

    async def dispatch(self, message: dict[str, Any]) -> None:
        """As Channels dispatches, without its close_old_connections() before every frame and group
        event: that is a hop to the database thread each time, for no gain here, since every
        database call of these sockets closes stale connections itself (database_sync_to_async)
        or retries once on a dead one (consumers/db.py)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def join(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    async def refuse_member(self) -> None:
        await self.send_error(ProtocolError("not_member", "This page belongs to another worker. Use your own link."))
        await self.close(code=CLOSE_NOT_MEMBER, reason=close_codes.REASONS[CLOSE_NOT_MEMBER])

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        self.received_at = time.time()  # a handler's latency metrics count from here
        client_id = None
        try:
            if not self.limiter.allow():
                metrics.RATE_LIMITED.labels("frames", "connection").inc()
                raise ProtocolError("rate_limited", f"Too many frames: at most {settings.WS_RATE_PER_10S} per 10 s on one connection; slow down.")
            limited: Limited | None = await arate_check("frames", worker=self.worker_id, ip=self.ip)
            if limited is not None:
                raise ProtocolError("rate_limited", limited.message)
            frame = parse_frame(text_data)
            client_id = frame.get("client_id") if isinstance(frame.get("client_id"), str) else None
            await self.handle(frame)
        except ProtocolError as error:
            await self.send_error(error, client_id=client_id)
        except SERVICE_ERRORS as error:
            await self.service_lost(error, where=f"frame {frame_type(text_data)}")
        except Exception:
            log.exception("%s: a frame raised; answered server_error, the socket stays open", type(self).__name__)
            error = ProtocolError("server_error", "The server could not handle this frame; nothing was changed. Try again.")
            await self.send_error(error, client_id=client_id)

    async def handle(self, frame: dict[str, Any]) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    async def send_error(self, error: ProtocolError, *, client_id: str | None = None) -> None:
        frame: dict[str, Any] = {"type": "error", "code": error.code, "message": error.message}
        if client_id is not None:
            frame["client_id"] = client_id
        await self.send_json(frame)

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        return frame_text(content)
