"""An ASGI app for tests/test_shutdown.py, served by `python -m groundwork.serve`: it accepts every
websocket and echoes its frames; when a socket has gone, its disconnect handler takes
DRAIN_DISCONNECT_S seconds (as a consumer's clean-up would) and then appends a line to DRAIN_LOG."""

import asyncio
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
django.setup()  # groundwork.shutdown reads the close codes from the collect package


async def application(scope, receive, send):
    if scope["type"] == "http":
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"ok"})
        return
    if scope["type"] != "websocket":
        return
    while True:
        event = await receive()
        if event["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
        elif event["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": event.get("text") or ""})
        elif event["type"] == "websocket.disconnect":
            await asyncio.sleep(float(os.environ.get("DRAIN_DISCONNECT_S", "0")))
            with open(os.environ["DRAIN_LOG"], "a", encoding="utf-8") as log:
                log.write(f"disconnected {event.get('code')}\n")
            return
