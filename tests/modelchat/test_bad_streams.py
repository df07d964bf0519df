"""Endpoints that stream badly, over a real local socket speaking OpenAI's server-sent events:
garbage, an error event, a stream cut mid-way or ended before its finish, a first token that never
comes, a stream that stalls. Each ends in the apology, the failure counted by reason, and nothing
left holding the model's place: the next call goes straight through."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async
from prometheus_client import REGISTRY

from collect.tasktypes.modelchat.calls import APOLOGY, model_respond
from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind, ModelTurn
from collect.tasktypes.modelchat.progress import ReplyProgress
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.conftest import seat
from tests.modelchat.openai_server import DONE, Answer, OpenAIServer, chunk_event, openai_server, raw_events, streamed
from tests.modelchat.test_streaming import CONTEXT, Frames

pytestmark = pytest.mark.backends

STALL = threading.Event()  # never set: a server waiting on it sends nothing more (30 s at most)


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with openai_server() as running:
        yield running
    STALL.clear()


def failures(model: str, reason: str) -> float:
    return REGISTRY.get_sample_value("groundwork_model_failures_total", {"model": model, "reason": reason}) or 0.0


def bad_model(server: OpenAIServer, name: str = "bad-streamer") -> EvalModel:
    model = EvalModel(
        name=name, kind=EvalModelKind.OPENAI, endpoint_url=server.base_url, options={"model": "test-model"},
        timeout_seconds=1.5, token_timeout_seconds=1.0, retries=1, max_concurrency=1,
    )
    model.full_clean()
    model.save()
    return model


BAD = {
    "garbage": (raw_events((0.0, chunk_event("Hello")), (0.0, b"data: {not json at all\n\n")), "bad stream: an event that is not JSON", "bad_reply"),
    "not-a-chunk": (raw_events((0.0, b"data: [1, 2, 3]\n\n"), (0.0, DONE)), "bad stream: an event that is not a chat completion chunk", "bad_reply"),
    "error-event": (
        raw_events((0.0, chunk_event("Hel")), (0.0, b'data: {"error": {"message": "the GPU fell over", "type": "server_error"}}\n\n')),
        "the stream sent an error: the GPU fell over", "error_event",
    ),
    "cut-mid-stream": (raw_events((0.0, chunk_event("Hello, I was")), finished=False), "cut off: the connection closed mid-stream", "cut_off"),
    "no-finish": (streamed(["Hello", " there"], finish_reason=None, done=False), "cut off: the stream ended before its finish_reason", "cut_off"),
    "no-first-token": (raw_events((STALL, chunk_event("Too late."))), "timeout: no reply within 1.5 s", "timeout"),
    "stalls": (raw_events((0.0, chunk_event("Hello,")), (STALL, chunk_event(" again"))), "stalled: no token for 1 s after 6 characters", "stalled"),
    "refusal": (raw_events((0.0, chunk_event(None, refusal="I can't help with that."))), "the model refused: I can't help with that.", "refused"),
    "empty": (streamed(["   [1]"]), "bad reply: empty content", "bad_reply"),
}


@pytest.mark.django_db
@pytest.mark.parametrize(("answer", "error", "reason"), BAD.values(), ids=BAD.keys())
def test_a_bad_stream_is_an_apology_counted_by_reason_and_frees_the_model(server: OpenAIServer, caplog, answer: Answer, error: str, reason: str) -> None:
    server.reply[0] = lambda request: answer
    model = bad_model(server)
    before = failures(model.name, reason)
    frames = Frames()
    with caplog.at_level(logging.WARNING):
        result = model_respond(model=model, context=CONTEXT, progress=ReplyProgress(frames, after_seq=1, interval=0.0))
    assert result.text == APOLOGY and result.error.startswith(error) and result.attempts == 2
    assert result.first_token_ms is None and failures(model.name, reason) == before + 2
    assert any("gave no reply" in r.getMessage() for r in caplog.records)
    # The second attempt's text starts again: the page replaces the first one's.
    assert {f["attempt"] for f in frames.of("stream")} <= {1, 2}
    # Its place among the model's one call at a time is free again: a good reply goes through.
    STALL.set()
    server.reply[0] = lambda request: streamed(["Fine", " now."])
    assert model_respond(model=model, context=CONTEXT).text == "Fine now."


@pytest.mark.django_db(transaction=True)
async def test_in_a_room_a_stream_that_breaks_ends_in_the_apology_and_the_chat_goes_on(server: OpenAIServer, mc_campaign) -> None:
    server.reply[0] = lambda request: raw_events((0.0, chunk_event("Half a rep")), finished=False)
    await sync_to_async(bad_model)(server)
    erin = await sync_to_async(seat)(mc_campaign, "erin", "bad-streamer")
    socket = await connect(f"/ws/room/{erin.room.id}/", erin.cookie)
    await send(socket, {"type": "choose_topic", "topic": "Guitar"})
    await send(socket, {"type": "message", "client_id": "h1", "text": "Hello?"})
    seen = []
    while True:
        frame = await socket.receive_json_from(timeout=30)
        seen.append(frame["type"])
        if frame["type"] == "message" and frame["role"] == "wizard":
            break
    state = await receive_until(socket, "state", timeout=30)
    await socket.disconnect()
    assert "stream" in seen and frame["text"] == APOLOGY  # the half reply was shown, then replaced
    assert state["your_turn"] and state["status"] == "chatting"
    turn = await ModelTurn.objects.aget()
    assert turn.error.startswith("cut off") and turn.first_token_ms is None


@pytest.mark.django_db
def test_a_stream_that_trickles_past_its_longest_time_fails(server: OpenAIServer, monkeypatch) -> None:
    from collect.tasktypes.modelchat import calls

    monkeypatch.setattr(calls, "STREAM_MAX_SECONDS", 1.0)  # 120 s in the product: a test does not wait that long
    server.reply[0] = lambda request: streamed([f" {i}" for i in range(40)], gap=0.2)
    model = bad_model(server, "trickler")
    result = model_respond(model=model, context=CONTEXT)
    assert result.text == APOLOGY and result.error == "stalled: the streamed reply was still coming after 1 s"
