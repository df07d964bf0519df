"""A real local HTTP server speaking (or failing to speak) the OpenAI chat-completions API, for the
adapter's tests: each test sets `server.reply` to what it should answer."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None  # send this many bytes of the body, then close the connection
    delay: float = 0.0  # seconds before answering (a hung model)


def completion(content: str | None, *, finish_reason: str = "stop", refusal: str | None = None) -> Answer:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "test-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
    return Answer(body=json.dumps(body).encode())


def json_answer(status: int, data: Any, **headers: str) -> Answer:
    return Answer(status=status, body=json.dumps(data).encode(), headers=headers)


@dataclass
class Request:
    path: str
    headers: dict[str, str]  # names in lower case
    body: dict[str, Any] | None


@dataclass
class OpenAIServer:
    base_url: str
    requests: list[Request]
    reply: list[Callable[[Request], Answer]]
    models: list[str]


@contextmanager
def openai_server() -> Iterator[OpenAIServer]:
    requests: list[Request] = []
    reply: list[Callable[[Request], Answer]] = [lambda request: completion("Hello from the server.")]
    models = ["test-model"]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self, answer: Answer) -> None:
            time.sleep(answer.delay)
            self.send_response(answer.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer.body)))
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(answer.body[: answer.cut_after] if answer.cut_after is not None else answer.body)
            if answer.cut_after is not None:
                self.wfile.flush()
                self.close_connection = True

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, None))
            if self.path.endswith("/models"):
                answer = reply[0](requests[-1])
                if answer.status in (401, 403):
                    return self._answer(answer)
                data = {"object": "list", "data": [{"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in models]}
                return self._answer(json_answer(200, data))
            self._answer(json_answer(404, {"error": {"message": "not found"}}))

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length", 0))
            requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(self.rfile.read(length))))
            try:
                self._answer(reply[0](requests[-1]))
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield OpenAIServer(f"http://127.0.0.1:{server.server_address[1]}/v1", requests, reply, models)
    finally:
        server.shutdown()
        server.server_close()
