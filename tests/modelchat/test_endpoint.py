"""A model owner's HTTP endpoint, played by a real local server: what it is sent, and every way it
can fail — invalid JSON, 500s, hangs, a 1 MB reply — ends in a logged error and an apology turn,
with nothing else stored; retries get a flaky endpoint through."""

from __future__ import annotations

import json
import logging

import pytest

from collect.tasktypes.modelchat.calls import APOLOGY, model_respond
from collect.tasktypes.modelchat.models import ModelTurn
from collect.tasktypes.modelchat.turns import model_turn_take
from collect.models import Message
from collect.services import rooms
from tests.modelchat.conftest import Endpoint, http_model, seat

pytestmark = [pytest.mark.backends, pytest.mark.django_db]

CONTEXT = {"history": ["Hi, do you like jazz?"], "topic": "Jazz", "knowledge": [{"title": "Jazz", "sentences": ["Jazz swings."]}]}


def ok(text: str, **extra: object):
    return lambda body: (200, json.dumps({"text": text, **extra}).encode(), 0.0)


def test_it_posts_the_context_and_returns_the_reply(endpoint: Endpoint) -> None:
    endpoint.respond[0] = ok("Jazz swings, yes.", knowledge_used="Jazz swings.")
    result = model_respond(model=http_model(endpoint), context=CONTEXT)
    assert (result.text, result.knowledge_used, result.error, result.attempts) == ("Jazz swings, yes.", "Jazz swings.", "", 1)
    assert endpoint.requests == [CONTEXT]
    assert result.latency_ms >= 0


@pytest.mark.parametrize(
    ("behaviour", "error"),
    [
        (lambda body: (200, b"{not json", 0.0), "not valid JSON"),
        (lambda body: (200, json.dumps({"reply": "hi"}).encode(), 0.0), 'expected {"text"'),
        (lambda body: (200, json.dumps({"text": "   "}).encode(), 0.0), "empty text"),
        (lambda body: (200, json.dumps({"text": "hi", "knowledge_used": 3}).encode(), 0.0), "knowledge_used"),
        (lambda body: (500, b"Internal Server Error", 0.0), "HTTP 500"),
        (lambda body: (200, json.dumps({"text": "x" * 1_000_000}).encode(), 0.0), "larger than"),
        (lambda body: (200, json.dumps({"text": "x" * 5000}).encode(), 0.0), "characters, more than"),
        (lambda body: (200, json.dumps({"text": "late"}).encode(), 3.0), "timeout"),
    ],
    ids=["invalid-json", "no-text", "empty-text", "bad-knowledge", "http-500", "1mb-reply", "too-long", "hang"],
)
def test_a_failing_endpoint_gives_an_apology_and_a_logged_error(endpoint: Endpoint, caplog, behaviour, error) -> None:
    endpoint.respond[0] = behaviour
    model = http_model(endpoint, timeout=1.0, retries=1)
    with caplog.at_level(logging.WARNING, logger="collect.tasktypes.modelchat.calls"):
        result = model_respond(model=model, context=CONTEXT)
    assert result.text == APOLOGY and error in result.error and result.attempts == 2
    assert any("gave no reply" in r.message and r.levelno == logging.ERROR for r in caplog.records)


def test_a_retry_gets_a_flaky_endpoint_through(endpoint: Endpoint) -> None:
    calls = []

    def flaky(body):
        calls.append(body)
        return (500, b"oops", 0.0) if len(calls) == 1 else (200, json.dumps({"text": "Second time lucky."}).encode(), 0.0)

    endpoint.respond[0] = flaky
    result = model_respond(model=http_model(endpoint, retries=2), context=CONTEXT)
    assert (result.text, result.attempts, result.error) == ("Second time lucky.", 2, "")


def test_an_unreachable_endpoint_is_a_failure_not_a_crash(endpoint: Endpoint) -> None:
    model = http_model(endpoint)
    model.endpoint_url = "http://127.0.0.1:9/nothing-listens-here"
    result = model_respond(model=model, context=CONTEXT)
    assert result.text == APOLOGY and "unreachable" in result.error


@pytest.mark.django_db(transaction=True)
def test_in_a_room_the_failure_is_an_apology_turn_and_the_chat_goes_on(mc_campaign, endpoint: Endpoint) -> None:
    endpoint.respond[0] = lambda body: (200, b"<html>not json</html>", 0.0)
    http_model(endpoint, name="broken-model")
    evaluator = seat(mc_campaign, model="broken-model")
    rooms.room_act(room_id=evaluator.room.id, assignment=evaluator.assignment, name="choose_topic", frame={"topic": "Guitar"})
    rooms.message_post(room_id=evaluator.room.id, assignment=evaluator.assignment, client_id="h1", text="Hi there!", frame={})

    event = model_turn_take(room_id=evaluator.room.id, after_seq=1)

    assert event is not None and event["message"]["text"] == APOLOGY and event["snapshot"]["next_role"] == "apprentice"
    turn = ModelTurn.objects.get()
    assert "not valid JSON" in turn.error and turn.message.seq == 2 and turn.message.checked_sentence == {"no_passages_used": "no_passages_used"}
    # Taking the same turn again posts nothing more.
    assert model_turn_take(room_id=evaluator.room.id, after_seq=1) is None
    assert Message.objects.count() == 2
    # The model got the dialogue so far, the topic and the knowledge a wizard would see.
    (request,) = endpoint.requests
    assert request["history"] == ["Hi there!"] and request["topic"] == "Guitar"
    assert request["knowledge"][0]["title"] == "Guitar" and request["knowledge"][0]["sentences"]
