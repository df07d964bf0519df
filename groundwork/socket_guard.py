"""A service lost under a websocket before its consumer runs: Channels' AuthMiddleware reads the
session and the user from the database while the socket connects, and a database lost then would
leave the error to daphne ("Exception inside application", a failed handshake). Here it is one log
line, and the socket is accepted and closed with 4500 (close_codes.SERVICE_LOST), so that the page
reconnects and resyncs, as the consumers do for a loss under them (collect/consumers/base.py)."""

from __future__ import annotations

import logging
from typing import Any

from groundwork import close_codes
from groundwork.service_errors import SERVICE_ERRORS, one_line

log = logging.getLogger(__name__)


class ServiceLostGuard:
    """ASGI middleware around a websocket application (the authentication stack and the router)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        received: list[str] = []
        sent: list[str] = []

        async def receive_noted() -> dict[str, Any]:
            message = await receive()
            received.append(message["type"])
            return message

        async def send_noted(message: dict[str, Any]) -> None:
            sent.append(message["type"])
            await send(message)

        try:
            await self.app(scope, receive_noted, send_noted)
        except SERVICE_ERRORS as error:
            code = close_codes.SERVICE_LOST
            log.warning("socket %s: service lost before its consumer, closing with %s: %s", scope.get("path", "?"), code, one_line(error))
            if "websocket.close" in sent or "websocket.disconnect" in received:
                return
            if "websocket.accept" not in sent:
                if "websocket.connect" not in received and (await receive())["type"] != "websocket.connect":
                    return  # the page went before its socket was accepted
                await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": code, "reason": close_codes.REASONS[code]})
