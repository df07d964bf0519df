"""A chat process listens before its application has loaded (groundwork.serve).

Importing `groundwork.asgi` takes seconds (Django's set-up, and through the consumers the retrieval
stack: NLTK, scikit-learn, SciPy). daphne imports the application before it opens its port, so a
restarted process (after `kill -9`, supervisord starts a new one at once) refused every connection
until then. Here the import runs in a thread while daphne starts listening: meanwhile /healthz
answers 200 (the process is alive) and /readyz 503 (the proxy sends it nothing yet); any other
request or websocket waits for the import and is then served by the application as usual. Once it
has loaded, every connection goes straight to the application, /healthz and /readyz included. An
import that fails ends the process (exit status 1), as daphne's own import would, so supervisord's
crash-loop handling sees it."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import os
import threading
import traceback
from collections.abc import Callable
from typing import Any

from asgiref.compatibility import guarantee_single_callable
from daphne.utils import import_by_path

log = logging.getLogger(__name__)

HEALTHZ = "/healthz"
READYZ = "/readyz"


class DeferredApplication:
    """An ASGI application that imports `path` ("module:attribute") in a background thread."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.application: Any = None
        self.loaded: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.callbacks: list[Callable[[], None]] = []

    def start(self) -> None:
        threading.Thread(target=self._load, name="application-import", daemon=True).start()

    def when_loaded(self, callback: Callable[[], None]) -> None:
        """`callback()` runs in the loading thread once the application is imported, before any
        connection is given to it (callbacks are registered before start())."""
        self.callbacks.append(callback)

    def _load(self) -> None:
        try:
            application = guarantee_single_callable(import_by_path(self.path))
            for callback in self.callbacks:
                callback()
        except BaseException:  # noqa: BLE001 - a process without its application cannot serve
            traceback.print_exc()
            log.critical("could not import %s; exiting", self.path)
            logging.shutdown()
            os._exit(1)
        self.application = application
        self.loaded.set_result(application)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        application = self.application
        if application is None:
            if scope["type"] == "http" and scope.get("path") in (HEALTHZ, READYZ):
                await self._probe(scope["path"], send)
                return
            application = await asyncio.wrap_future(self.loaded)
        await application(scope, receive, send)

    async def _probe(self, path: str, send: Any) -> None:
        # The same bodies as groundwork/health.py's views; readiness names what is missing.
        status, body = (200, {"status": "ok"}) if path == HEALTHZ else (503, {"status": "not ready: loading"})
        payload = json.dumps(body).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                                (b"cache-control", b"no-store")]})
        await send({"type": "http.response.body", "body": payload})

