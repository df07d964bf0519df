"""Any websocket path no route matches: a clear refusal instead of a routing error (HTTP 500)."""

from __future__ import annotations

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from groundwork.close_codes import NOT_FOUND as CLOSE_NOT_FOUND
from groundwork.close_codes import REASONS


class UnknownPathConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        await self.accept()
        path = self.scope.get("path", "")
        await self.send_json({"type": "error", "code": "not_found", "message": f"There is no websocket at {path!r}."})
        await self.close(code=CLOSE_NOT_FOUND, reason=REASONS[CLOSE_NOT_FOUND])

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return None  # frames racing the close are dropped
