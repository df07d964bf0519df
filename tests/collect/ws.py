"""Helpers to talk to the real ASGI application (routing, origin check, sessions, consumers)."""

from __future__ import annotations

import json
from typing import Any

from channels.testing import WebsocketCommunicator

from collect.frames import unbundled
from groundwork.asgi import application

ORIGIN = (b"origin", b"http://127.0.0.1")


class Communicator(WebsocketCommunicator):
    """Frames in the order a page handles them: the `state` a `message` frame carries comes after
    it as a frame of its own (tests that check the wire itself use `connect(..., raw=True)`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: list[str] = []

    async def receive_from(self, timeout: float = 1) -> str | bytes:
        if self.pending:
            return self.pending.pop(0)
        payload = await super().receive_from(timeout)
        if not isinstance(payload, str):
            return payload
        frame = json.loads(payload)
        if not isinstance(frame, dict):
            return payload
        first, *rest = unbundled(frame)
        self.pending.extend(json.dumps(f) for f in rest)
        return json.dumps(first) if rest else payload

    async def receive_nothing(self, timeout: float = 0.1, interval: float = 0.01) -> bool:
        return not self.pending and await super().receive_nothing(timeout, interval)


async def connect(path: str, cookie: bytes | None, *, raw: bool = False) -> WebsocketCommunicator:
    headers = [ORIGIN] + ([(b"cookie", cookie)] if cookie else [])
    communicator = (WebsocketCommunicator if raw else Communicator)(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=10)  # a loaded machine may take seconds
    assert connected
    return communicator


# How long a wait for a frame lasts before it fails: it ends as soon as the frame comes, so only a
# test that is failing waits this long, and a loaded CI machine is not taken for a lost frame.
FRAME_WAIT = 15


async def receive_until(communicator: WebsocketCommunicator, kind: str, timeout: float = FRAME_WAIT) -> dict[str, Any]:
    """The next frame of type `kind`, skipping the others."""
    while True:
        frame = await communicator.receive_json_from(timeout=timeout)
        if frame["type"] == kind:
            return frame


async def receive_ack(communicator: WebsocketCommunicator, client_id: str, timeout: float = FRAME_WAIT) -> dict[str, Any]:
    """The frame that acknowledges the message sent as `client_id`, skipping the others: the message
    itself coming back to its sender (a new one) or an `ack` (a resend of a stored one)."""
    while True:
        frame = await communicator.receive_json_from(timeout=timeout)
        if frame["type"] in ("message", "ack") and frame.get("client_id") == client_id:
            return frame


async def send(communicator: WebsocketCommunicator, frame: dict[str, Any]) -> None:
    await communicator.send_to(text_data=json.dumps(frame))
