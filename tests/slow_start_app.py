"""An ASGI app whose import waits until the file named by $SLOW_START_GATE exists, then answers every
HTTP request 200 with `app`. For tests/test_startup.py, served by `python -m groundwork.serve`: it
stands in for an application that is slow to import."""

import os
import time
from pathlib import Path

gate = Path(os.environ["SLOW_START_GATE"])
while not gate.exists():
    time.sleep(0.05)


async def application(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"app"})
