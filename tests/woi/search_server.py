"""A search server on localhost for the tests, speaking the Wizard of Internet collection's
contract (ParlAI's SearchEngineRetriever): a form POST of `q` and `n`, answered with
`{"response": [{"url", "title", "content"}]}`. Its `mode` makes it misbehave: "slow" answers after
`delay` seconds, "garbage" answers HTML, "error" answers HTTP 500, "wrong" answers JSON of the
wrong shape. It records the requests it was sent."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

DOCUMENTS = [
    {"url": "https://example.org/fuji", "title": "Mount Fuji", "content": "Mount Fuji is the highest mountain in Japan.\n\n  It is a volcano.  \nIt last erupted in 1707."},
    {"url": "https://example.org/hiking", "title": "Hiking", "content": "Hiking is a long walk.\nTrails lead to the summit."},
    {"url": "https://example.org/onsen", "title": "Onsen", "content": "An onsen is a hot spring."},
]


class SearchServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode = "ok"
        self.delay = 2.0
        self.requests: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/search_server"


class _Handler(BaseHTTPRequestHandler):
    server: SearchServer

    def do_POST(self) -> None:  # http.server's name for it
        length = int(self.headers.get("Content-Length", 0))
        form = parse_qs(self.rfile.read(length).decode())
        self.server.requests.append({"path": self.path, "type": self.headers.get("Content-Type"), "form": form})
        mode = self.server.mode
        if mode == "slow":
            time.sleep(self.server.delay)
        if mode == "error":
            return self._answer(500, b"internal error", "text/plain")
        if mode == "garbage":
            return self._answer(200, b"<html><body>Search is down for maintenance</body></html>", "text/html")
        if mode == "wrong":
            return self._answer(200, json.dumps({"results": DOCUMENTS}).encode(), "application/json")
        n = int(form.get("n", ["5"])[0])
        return self._answer(200, json.dumps({"response": DOCUMENTS[:n]}).encode(), "application/json")

    def _answer(self, status: int, body: bytes, kind: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a slow answer)
            pass

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def search_server() -> Iterator[SearchServer]:
    server = SearchServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def closed_port_url() -> str:
    """An address where nothing listens: a search server that is down."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/search_server"
