"""Calls to one model from many rooms: at most max_concurrency at once, the others waiting first
come first served, the page told the reply is queued; a second call for a reply under way is
refused, a wait past its patience ends in the apology. The same tests run on the in-process
queue (embedded pass) and on Redis's (second pass, REDIS_URL set), where a dead holder's place
comes back when its lease ends."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings as django_settings
from prometheus_client import REGISTRY

from collect.services import rooms
from collect.tasktypes.modelchat import slots
from collect.tasktypes.modelchat.calls import APOLOGY, model_respond
from collect.tasktypes.modelchat.models import EvalModel, ModelTurn
from collect.tasktypes.modelchat.progress import ReplyProgress
from collect.tasktypes.modelchat.turns import model_turn_take
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.conftest import seat
from tests.modelchat.sample_models import Gated
from tests.modelchat.test_python_models import wait_until
from tests.modelchat.test_streaming import CONTEXT, Frames

pytestmark = pytest.mark.backends


@pytest.fixture
def gated() -> Iterator[type[Gated]]:
    Gated.open.clear()
    Gated.started.clear()
    yield Gated
    Gated.open.set()  # nothing left waiting on it


def gated_model(**fields) -> EvalModel:
    return EvalModel.objects.create(name="gated", dotted_path="tests.modelchat.sample_models.Gated", timeout_seconds=30, retries=0, **fields)


@pytest.mark.django_db(transaction=True)
def test_calls_beyond_the_limit_wait_their_turn_first_come_first_served(gated) -> None:
    model = gated_model(max_concurrency=1)
    frames = {name: Frames() for name in "ABC"}

    def call(name: str):
        return model_respond(model=model, context={**CONTEXT, "history": [name]}, progress=ReplyProgress(frames[name], after_seq=1))

    with ThreadPoolExecutor(max_workers=3) as pool:
        first = pool.submit(call, "A")
        wait_until(lambda: gated.started == ["A"])
        second = pool.submit(call, "B")
        wait_until(lambda: [f["position"] for f in frames["B"].of("busy")] == [1])
        third = pool.submit(call, "C")
        wait_until(lambda: [f["position"] for f in frames["C"].of("busy")][:1] == [2])
        assert gated.started == ["A"]  # one call at a time: B and C wait
        gated.open.set()
        results = [first.result(30), second.result(30), third.result(30)]
    assert gated.started == ["A", "B", "C"] and [r.text for r in results] == ["Done: A", "Done: B", "Done: C"]
    assert results[0].queued_ms < results[1].queued_ms and results[2].queued_ms > 0
    assert all(r.first_token_ms >= r.queued_ms for r in results)  # time to first token counts the wait


@pytest.mark.django_db(transaction=True)
def test_a_second_call_for_the_same_reply_is_refused_while_the_first_runs(gated) -> None:
    model = gated_model()
    with ThreadPoolExecutor(max_workers=1) as pool:
        running = pool.submit(model_respond, model=model, context=CONTEXT, ticket="room:1:gated")
        wait_until(lambda: gated.started == ["Hi, do you like jazz?"])
        with pytest.raises(slots.AlreadyCalling):
            model_respond(model=model, context=CONTEXT, ticket="room:1:gated")
        gated.open.set()
        assert running.result(30).error == ""
    assert model_respond(model=model, context=CONTEXT, ticket="room:1:gated").error == ""  # done: free again


@pytest.mark.django_db(transaction=True)
def test_a_call_that_waits_past_its_patience_is_an_apology_counted_as_busy(gated, settings) -> None:
    settings.MODEL_QUEUE_MAX_S = 1.0
    model = gated_model(max_concurrency=1)
    before = REGISTRY.get_sample_value("groundwork_model_failures_total", {"model": "gated", "reason": "busy"}) or 0.0
    with ThreadPoolExecutor(max_workers=1) as pool:
        holder = pool.submit(model_respond, model=model, context=CONTEXT)
        wait_until(lambda: len(gated.started) == 1)
        result = model_respond(model=model, context=CONTEXT)
        gated.open.set()
        holder.result(30)
    assert result.text == APOLOGY and result.error.startswith("busy: no free place among the model's 1 calls within 1 s")
    assert result.attempts == 0 and result.queued_ms >= 1000
    assert REGISTRY.get_sample_value("groundwork_model_failures_total", {"model": "gated", "reason": "busy"}) == before + 1


@pytest.mark.django_db(transaction=True)
async def test_the_evaluator_whose_reply_is_queued_is_told_the_model_is_busy(gated, mc_campaign) -> None:
    await sync_to_async(gated_model)(max_concurrency=1)
    erin = await sync_to_async(seat)(mc_campaign, "erin", "gated")
    fay = await sync_to_async(seat)(mc_campaign, "fay", "gated")
    sockets = []
    for evaluator in (erin, fay):
        socket = await connect(f"/ws/room/{evaluator.room.id}/", evaluator.cookie)
        await send(socket, {"type": "choose_topic", "topic": "Guitar"})
        await receive_until(socket, "state")
        sockets.append(socket)
    await send(sockets[0], {"type": "message", "client_id": "e1", "text": "Erin here."})
    await sync_to_async(wait_until, thread_sensitive=False)(lambda: gated.started == ["Erin here."])
    await send(sockets[1], {"type": "message", "client_id": "f1", "text": "Fay here."})
    busy = await receive_until(sockets[1], "busy", timeout=30)
    assert busy == {"type": "busy", "after_seq": 1, "position": 1}
    gated.open.set()
    replies = []
    for socket in sockets:
        frame = await receive_until(socket, "message", timeout=30)
        while frame["role"] != "wizard":
            frame = await receive_until(socket, "message", timeout=30)
        replies.append(frame["text"])
        await socket.disconnect()
    assert replies == ["Done: Erin here.", "Done: Fay here."]
    turns = {t.message.text: t async for t in ModelTurn.objects.select_related("message")}
    assert turns["Done: Fay here."].queued_ms > 0 and turns["Done: Erin here."].queued_ms < turns["Done: Fay here."].queued_ms


@pytest.mark.django_db(transaction=True)
def test_two_turns_for_one_message_call_the_model_once(gated, mc_campaign) -> None:
    gated_model()
    erin = seat(mc_campaign, "erin", "gated")
    rooms.room_act(room_id=erin.room.id, assignment=erin.assignment, name="choose_topic", frame={"topic": "Guitar"})
    rooms.message_post(room_id=erin.room.id, assignment=erin.assignment, client_id="h1", text="Hello?", frame={})
    with ThreadPoolExecutor(max_workers=2) as pool:
        first = pool.submit(model_turn_take, room_id=erin.room.id, after_seq=1)
        wait_until(lambda: gated.started == ["Hello?"])
        assert model_turn_take(room_id=erin.room.id, after_seq=1) is None  # a resync asking again
        gated.open.set()
        assert first.result(30)["message"]["text"] == "Done: Hello?"
    assert gated.started == ["Hello?"] and ModelTurn.objects.count() == 1


@pytest.mark.services
@pytest.mark.skipif(not django_settings.REDIS_URL, reason="needs REDIS_URL")
@pytest.mark.django_db(transaction=True)
def test_in_redis_a_dead_holders_place_comes_back_when_its_lease_ends() -> None:
    model = EvalModel.objects.create(name="leased", dotted_path="tests.modelchat.sample_models.Echo", max_concurrency=1)
    # A process that took the place and died: it never leaves the queue.
    slots._redis_queue(model.pk).enter("dead", limit=1, waiting=lambda position: None, deadline=time.monotonic() + 1, lease=1.0)
    positions: list[int] = []
    started = time.monotonic()
    with slots.model_slot(model_id=model.pk, limit=1, ticket="alive", waiting=positions.append, patience=30, lease=30) as waited:
        assert positions == [1] and 0.5 < waited and time.monotonic() - started < 10
    assert slots._redis_queue(model.pk).client.zcard(slots._redis_queue(model.pk).keys[0]) == 0
