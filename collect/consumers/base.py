"""What both sockets share: who the worker is, frame parsing, rate limiting and error frames."""

from __future__ import annotations

import json
from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from collect.errors import ProtocolError
from collect.frames import parse_frame
from collect.ratelimit import RateLimiter

CLOSE_NOT_MEMBER = 4403


class GroundworkConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        self.limiter = RateLimiter(settings.WS_RATE_PER_10S, 10.0)
        await self.accept()
        session = self.scope.get("session")
        self.worker_id: int | None = session.get("worker_id") if session is not None else None
        await self.join()

    async def join(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    async def refuse_member(self) -> None:
        await self.send_error(ProtocolError("not_member", "This page belongs to another worker. Use your own link."))
        await self.close(code=CLOSE_NOT_MEMBER)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        client_id = None
        try:
            if not self.limiter.allow():
                raise ProtocolError("rate_limited", "Too many frames: slow down.")
            frame = parse_frame(text_data)
            client_id = frame.get("client_id") if isinstance(frame.get("client_id"), str) else None
            await self.handle(frame)
        except ProtocolError as error:
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
        return json.dumps(content, ensure_ascii=False)
