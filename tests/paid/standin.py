"""A stand-in HTTP server for crowd platforms (Prolific's completion page, MTurk's externalSubmit,
their APIs): records every request and answers with a canned JSON body per path."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def form(self) -> dict[str, list[str]]:
        return parse_qs(self.body.decode())


@dataclass
class StandIn:
    url: str = ""
    requests: list[Seen] = field(default_factory=list)
    replies: dict[str, tuple[int, Any]] = field(default_factory=dict)  # path → (status, JSON body)


def serve() -> tuple[StandIn, ThreadingHTTPServer]:
    state = StandIn()

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            state.requests.append(Seen(self.command, parts.path, parse_qs(parts.query), dict(self.headers), body))
            status, reply = state.replies.get(parts.path, (200, {"ok": True}))
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _handle

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return state, server
