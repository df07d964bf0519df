"""An ASGI app that answers every HTTP request with its process's garbage-collector state: how
many objects are frozen (out of the collector's sight), how many the next full collection would
walk, and the collection thresholds. For tests/test_gc_tuning.py, served by `python -m groundwork.serve`."""

import gc
import json


async def application(scope, receive, send):
    if scope["type"] != "http":
        return
    body = json.dumps({"frozen": gc.get_freeze_count(), "walked": len(gc.get_objects()), "thresholds": gc.get_threshold()}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})
