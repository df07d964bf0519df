"""A real local HTTP server speaking (or failing to speak) the OpenAI chat-completions API, for the
adapter's tests: each test sets `server.reply` to what it should answer, a JSON completion or a
stream of server-sent events (`streamed`, `events`), sent chunk by chunk over the socket."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


Wait = float | threading.Event  # before an event: seconds, or until the test sets the Event


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None  # send this many bytes of the body, then close the connection
    delay: float = 0.0  # seconds before answering (a hung model)
    # A stream: (wait, bytes) per server-sent event, each sent as one HTTP chunk after its wait.
    events: list[tuple[Wait, bytes]] | None = None
    finished: bool = True  # False: the connection closes after the events, without the last chunk


def chunk_event(content: str | None = None, *, finish_reason: str | None = None, refusal: str | None = None) -> bytes:
    """One `data:` event of a streamed chat completion: a delta of `content`."""
    delta: dict[str, Any] = {"role": "assistant"}
    if content is not None:
        delta["content"] = content
    if refusal is not None:
        delta["refusal"] = refusal
    data = {
        "id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1700000000, "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    return b"data: " + json.dumps(data).encode() + b"\n\n"


DONE = b"data: [DONE]\n\n"


def streamed(pieces: list[str], *, gap: Wait = 0.0, first: Wait = 0.0, finish_reason: str | None = "stop", done: bool = True) -> Answer:
    """A well-formed stream: one chunk per piece (the first after `first`, the others `gap` apart),
    the finish_reason and [DONE]."""
    events = [(first if i == 0 else gap, chunk_event(piece)) for i, piece in enumerate(pieces)]
    if finish_reason is not None:
        events.append((0.0, chunk_event(None, finish_reason=finish_reason)))
    if done:
        events.append((0.0, DONE))
    return Answer(events=events)


def raw_events(*events: tuple[Wait, bytes], finished: bool = True) -> Answer:
    return Answer(events=list(events), finished=finished)


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

        def _stream(self, answer: Answer) -> None:
            self.send_response(answer.status)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            # It closes the connection after every stream, and says so (RFC 9112, 9.6): otherwise the
            # client may send its next call on the pooled connection as it closes, and that call
            # fails as "disconnected" instead of reaching the server.
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
            for wait, data in answer.events or []:
                if isinstance(wait, threading.Event):
                    wait.wait(30)
                elif wait:
                    time.sleep(wait)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            if answer.finished:
                self.wfile.write(b"0\r\n\r\n")
            self.close_connection = True

        def _answer(self, answer: Answer) -> None:
            if answer.events is not None:
                return self._stream(answer)
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
