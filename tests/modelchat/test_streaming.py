"""Streamed replies against a real local server speaking OpenAI's server-sent events: the text so
far reaches the evaluator's socket while the server is still sending, throttled, and the stored
message is the whole reply with its time to first and last token; a Python model's generator and
an HTTP endpoint's JSON Lines stream as well."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from prometheus_client import REGISTRY

from collect.tasktypes.modelchat.calls import model_respond
from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind, ModelTurn
from collect.tasktypes.modelchat.progress import ReplyProgress, text_shown
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.conftest import seat
from tests.modelchat.openai_server import OpenAIServer, openai_server, streamed

pytestmark = pytest.mark.backends

CONTEXT = {"history": ["Hi, do you like jazz?"], "topic": "Jazz", "knowledge": []}


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with openai_server() as running:
        yield running


def served_model(server: OpenAIServer, *, name: str = "streamer", **fields: Any) -> EvalModel:
    model = EvalModel(name=name, kind=EvalModelKind.OPENAI, endpoint_url=server.base_url, options={"model": "test-model"}, **fields)
    model.full_clean()
    model.save()
    return model


def observed(metric: str, model: str) -> float:
    return REGISTRY.get_sample_value(f"{metric}_count", {"model": model}) or 0.0


class Frames:
    """What a ReplyProgress published, in order."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, event: dict[str, Any]) -> None:
        self.events.append(event["frame"])

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.events if f["type"] == kind]


@pytest.mark.django_db(transaction=True)
async def test_the_first_tokens_reach_the_page_before_the_reply_is_complete(server: OpenAIServer, mc_campaign) -> None:
    rest = threading.Event()  # the server sends the rest of the reply only once the test saw its start
    server.reply[0] = lambda request: streamed(["Jazz", " began in", " New Orleans,", " you know."], gap=rest)
    await sync_to_async(served_model)(server)
    first_before = observed("groundwork_model_first_token_seconds", "streamer")
    erin = await sync_to_async(seat)(mc_campaign, "erin", "streamer")
    socket = await connect(f"/ws/room/{erin.room.id}/", erin.cookie)
    await send(socket, {"type": "choose_topic", "topic": "Guitar"})
    await send(socket, {"type": "message", "client_id": "h1", "text": "Do you like jazz?"})

    assert (await receive_until(socket, "typing", timeout=30))["after_seq"] == 1
    first = await receive_until(socket, "stream", timeout=30)
    assert first == {"type": "stream", "after_seq": 1, "attempt": 1, "text": "Jazz"}
    assert await ModelTurn.objects.acount() == 0  # nothing stored while it streams
    rest.set()
    texts, kinds = [first["text"]], []
    while True:
        frame = await socket.receive_json_from(timeout=30)
        kinds.append(frame["type"])
        if frame["type"] == "stream":
            texts.append(frame["text"])
        if frame["type"] == "message" and frame["role"] == "wizard":
            break
    await socket.disconnect()

    assert frame["seq"] == 2 and frame["text"] == "Jazz began in New Orleans, you know."
    assert all(texts[i + 1].startswith(texts[i]) for i in range(len(texts) - 1))  # it only grows
    turn = await ModelTurn.objects.select_related("message").aget()
    assert turn.message.text == frame["text"] and turn.error == "" and turn.attempts == 1
    assert 0 <= turn.queued_ms < turn.first_token_ms <= turn.last_token_ms <= turn.latency_ms
    assert "busy" not in kinds  # the model was free: no wait behind another room's call
    assert observed("groundwork_model_first_token_seconds", "streamer") == first_before + 1
    (request,) = server.requests
    assert request.body["stream"] is True


@pytest.mark.django_db
def test_frames_are_throttled_and_the_last_text_is_flushed(server: OpenAIServer, settings) -> None:
    settings.STREAM_FRAME_S = 60.0  # one frame per minute at most: the first text, then the flush
    server.reply[0] = lambda request: streamed([f" {i}" for i in range(200)])
    frames = Frames()
    result = model_respond(model=served_model(server), context=CONTEXT, progress=ReplyProgress(frames, after_seq=1))
    assert result.error == "" and result.text == " ".join(str(i) for i in range(200))
    assert [f["text"] for f in frames.of("stream")] == ["0", result.text]

    settings.STREAM_FRAME_S = 0.0  # unthrottled: every piece is a frame
    frames = Frames()
    model_respond(model=served_model(server, name="unthrottled"), context=CONTEXT, progress=ReplyProgress(frames, after_seq=1))
    assert len(frames.of("stream")) == 200


@pytest.mark.django_db
def test_citations_are_hidden_while_streaming_and_taken_from_the_whole_reply(server: OpenAIServer) -> None:
    knowledge = [{"title": "Jazz", "sentences": ["Jazz swings.", "Jazz began in New Orleans."]}]
    server.reply[0] = lambda request: streamed(["It began in New Orleans", ", you know. [", "2]"])
    frames = Frames()
    result = model_respond(
        model=served_model(server), context={**CONTEXT, "knowledge": knowledge}, progress=ReplyProgress(frames, after_seq=1, interval=0.0)
    )
    assert (result.text, result.knowledge_used) == ("It began in New Orleans, you know.", "Jazz began in New Orleans.")
    assert [f["text"] for f in frames.of("stream")] == ["It began in New Orleans", "It began in New Orleans, you know."]
    assert text_shown("Hi [1] there [1") == "Hi there"


@pytest.mark.django_db
def test_a_reply_cut_at_max_tokens_keeps_its_whole_sentences(server: OpenAIServer) -> None:
    server.reply[0] = lambda request: streamed(["Jazz swings a lot.", " It began in New Orl"], finish_reason="length")
    assert model_respond(model=served_model(server), context=CONTEXT).text == "Jazz swings a lot."


class Chatty:
    """A Python model whose reply is a generator of pieces; the last is the knowledge it used."""

    def respond(self, context: dict[str, Any]) -> Iterator[str]:
        yield "Tea "
        yield "comes from "
        yield "China."
        return {"text": "Tea comes from China.", "knowledge_used": "Tea comes from China."}


class Joined:
    def respond(self, context: dict[str, Any]) -> Iterator[str]:
        yield from ["Hello", " there."]


@pytest.mark.django_db
def test_a_python_model_may_stream_a_generator() -> None:
    frames = Frames()
    model = EvalModel.objects.create(name="chatty", dotted_path=f"{__name__}.Chatty")
    result = model_respond(model=model, context=CONTEXT, progress=ReplyProgress(frames, after_seq=3, interval=0.0))
    assert (result.text, result.knowledge_used) == ("Tea comes from China.", "Tea comes from China.")
    assert [f["text"] for f in frames.of("stream")] == ["Tea ", "Tea comes from ", "Tea comes from China."]
    joined = EvalModel.objects.create(name="joined", dotted_path=f"{__name__}.Joined")
    assert model_respond(model=joined, context=CONTEXT).text == "Hello there."


@pytest.fixture
def ndjson_endpoint() -> Iterator[tuple[str, list[bytes]]]:
    """A real HTTP endpoint answering with the JSON Lines in `lines` (set by the test)."""
    lines: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.end_headers()
            for line in lines:
                self.wfile.write(line + b"\n")
                self.wfile.flush()

        def log_message(self, *args: Any) -> None:
            pass

    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    http.daemon_threads = True
    threading.Thread(target=http.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{http.server_address[1]}/respond", lines
    http.shutdown()
    http.server_close()


@pytest.mark.django_db
def test_an_http_endpoint_may_stream_json_lines(ndjson_endpoint) -> None:
    url, lines = ndjson_endpoint
    lines[:] = [json.dumps({"text": "Six"}).encode(), json.dumps({"text": " strings."}).encode(), json.dumps({"knowledge_used": "A guitar has six strings."}).encode()]
    frames = Frames()
    model = EvalModel.objects.create(name="lines", kind=EvalModelKind.HTTP, endpoint_url=url, retries=0)
    result = model_respond(model=model, context=CONTEXT, progress=ReplyProgress(frames, after_seq=1, interval=0.0))
    assert (result.text, result.knowledge_used, result.error) == ("Six strings.", "A guitar has six strings.", "")
    assert [f["text"] for f in frames.of("stream")] == ["Six", "Six strings."]
    lines[:] = [json.dumps({"text": "Six"}).encode(), b"<html>oops</html>"]
    assert model_respond(model=model, context=CONTEXT).error == "bad stream: line 2 is not JSON"
    lines[:] = [json.dumps({"text": "Six"}).encode(), json.dumps({"error": "out of memory"}).encode()]
    assert model_respond(model=model, context=CONTEXT).error == "the stream sent an error: out of memory"
