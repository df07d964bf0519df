"""Helpers to talk to the real ASGI application (routing, origin check, sessions, consumers)."""

from __future__ import annotations

import json
from typing import Any

from channels.testing import WebsocketCommunicator

from groundwork.asgi import application

ORIGIN = (b"origin", b"http://127.0.0.1")


async def connect(path: str, cookie: bytes | None) -> WebsocketCommunicator:
    headers = [ORIGIN] + ([(b"cookie", cookie)] if cookie else [])
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=10)  # a loaded machine may take seconds
    assert connected
    return communicator


async def receive_until(communicator: WebsocketCommunicator, kind: str, timeout: float = 3) -> dict[str, Any]:
    """The next frame of type `kind`, skipping the others."""
    while True:
        frame = await communicator.receive_json_from(timeout=timeout)
        if frame["type"] == kind:
            return frame


async def send(communicator: WebsocketCommunicator, frame: dict[str, Any]) -> None:
    await communicator.send_to(text_data=json.dumps(frame))
