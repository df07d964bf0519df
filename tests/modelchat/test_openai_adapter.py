"""The OpenAI adapter against a real local server: the request body is one the `openai` SDK's own
types accept, the messages carry the topic and knowledge (or the DuConv goal and triples), the
cited knowledge is recorded; every malformed answer ends in a logged error and an apology, never
with the API key in the logs, the error or the database."""

from __future__ import annotations

import io
import json
import logging
import time
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from pydantic import TypeAdapter

from collect.tasktypes.modelchat.calls import APOLOGY, model_respond
from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind, ModelTurn
from collect.tasktypes.modelchat.openai_adapter import request_build
from collect.tasktypes.modelchat.turns import model_turn_take
from collect.models import Message
from collect.services import rooms
from tests.catalogs import compiled_catalogs  # noqa: F401  (fixture)
from tests.modelchat.conftest import seat
from tests.modelchat.openai_server import Answer, OpenAIServer, completion, json_answer, openai_server

pytestmark = [pytest.mark.backends, pytest.mark.django_db]

KEY_ENV = "GW_TEST_OPENAI_KEY"
KEY = "sk-test-7f3a9c1e5b2d4680"
WOW = {
    "history": ["Hi, do you like jazz?"],
    "topic": "Jazz",
    "knowledge": [{"title": "Jazz", "sentences": ["Jazz swings.", "Jazz began in New Orleans."]}],
}
DUCONV = {
    "history": ["Hello!", "Hi, what do you like?"],
    "topic": "Inception",
    "knowledge": [["Inception", "directed by", "Christopher Nolan"], ["Inception", "genre", "science fiction"]],
    "goal": [["START", "Inception", "Christopher Nolan"], ["Inception", "directed by", "Christopher Nolan"]],
}


@pytest.fixture
def server(monkeypatch) -> Iterator[OpenAIServer]:
    monkeypatch.setenv(KEY_ENV, KEY)
    with openai_server() as running:
        yield running


def openai_model(server: OpenAIServer, *, name: str = "oa-model", timeout: float = 3.0, retries: int = 0, **options) -> EvalModel:
    model = EvalModel(
        name=name,
        kind=EvalModelKind.OPENAI,
        endpoint_url=server.base_url,
        timeout_seconds=timeout,
        retries=retries,
        options={"model": "test-model", "api_key_env": KEY_ENV, **options},
    )
    model.full_clean()
    model.save()
    return model


def sdk_validated(body: dict) -> dict:
    """`body` validated with the openai SDK's own request type (a streamed completion's). Its
    `messages` is an Iterable, which pydantic validates as it is read: reading it is what checks
    each message."""
    from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming

    validated = dict(TypeAdapter(CompletionCreateParamsStreaming).validate_python(body))
    validated["messages"] = list(validated["messages"])
    return validated


def test_the_sdk_type_check_refuses_a_bad_body() -> None:
    with pytest.raises(ValueError, match="validation error"):
        sdk_validated({"model": "m", "messages": [{"role": "wizard", "content": "x"}], "stream": True})
    with pytest.raises(ValueError, match="validation error"):
        sdk_validated({"model": "m", "messages": [{"role": "user", "content": "x"}], "max_tokens": "lots", "stream": True})


def test_it_sends_a_request_the_sdk_types_accept_and_records_the_cited_sentence(server: OpenAIServer) -> None:
    server.reply[0] = lambda request: completion("It began in New Orleans, you know. [2]")
    model = openai_model(server, temperature=0.3, max_tokens=40)
    result = model_respond(model=model, context=WOW)

    assert (result.text, result.knowledge_used, result.error) == ("It began in New Orleans, you know.", "Jazz began in New Orleans.", "")
    (request,) = server.requests
    assert request.path == "/v1/chat/completions" and request.headers["authorization"] == f"Bearer {KEY}"
    built, numbered = request_build(model=model, context=WOW)
    assert sdk_validated(request.body) == request.body == built and numbered == WOW["knowledge"][0]["sentences"]
    assert (request.body["model"], request.body["temperature"], request.body["max_tokens"]) == ("test-model", 0.3, 40)
    system, user = request.body["messages"]
    assert system["role"] == "system" and "about Jazz" in system["content"]
    assert "[1] Jazz: Jazz swings.\n[2] Jazz: Jazz began in New Orleans." in system["content"]
    assert user == {"role": "user", "content": "Hi, do you like jazz?"}


def test_a_duconv_context_sends_the_goal_and_triples_and_records_the_triple_ids(server: OpenAIServer) -> None:
    server.reply[0] = lambda request: completion("Inception is science fiction by Christopher Nolan. [2][1][9]")
    result = model_respond(model=openai_model(server), context=DUCONV)
    assert sdk_validated(server.requests[0].body) == server.requests[0].body
    assert result.text == "Inception is science fiction by Christopher Nolan." and result.knowledge_used == [1, 0, 8]
    system, *turns = server.requests[0].body["messages"]
    assert "talk first about Inception, then about Christopher Nolan" in system["content"]
    assert "[1] Inception | directed by | Christopher Nolan\n[2] Inception | genre | science fiction" in system["content"]
    # The model (DuConv's agent) opened: the history's first utterance is its own.
    assert turns == [{"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "Hi, what do you like?"}]


def test_the_opening_turn_and_the_plain_prompt_and_a_template_of_its_own(server: OpenAIServer) -> None:
    model = openai_model(server, prompts={"duconv": "Goal: {goal}. Say hello.", "opening": "Begin."})
    model_respond(model=model, context={**DUCONV, "history": []})
    assert sdk_validated(server.requests[-1].body)["messages"] == server.requests[-1].body["messages"] == [
        {"role": "system", "content": "Goal: talk first about Inception, then about Christopher Nolan (Inception, directed by, Christopher Nolan). Say hello."},
        {"role": "user", "content": "Begin."},
    ]
    model_respond(model=openai_model(server, name="plain"), context={"history": ["Hi", "Hello!", "How are you?"], "topic": "Jazz", "knowledge": []})
    assert [m["role"] for m in server.requests[-1].body["messages"]] == ["user", "assistant", "user"]


def test_the_prompts_ask_for_the_campaigns_language(server: OpenAIServer) -> None:
    model = openai_model(server)
    model_respond(model=model, context=WOW)
    assert "Answer their last message in English," in server.requests[-1].body["messages"][0]["content"]
    model_respond(model=model, context={**WOW, "language": "zh-hans"})
    assert "Answer their last message in Simplified Chinese," in server.requests[-1].body["messages"][0]["content"]
    model_respond(model=model, context={**DUCONV, "history": [], "language": "zh-hans"})
    system, opening = server.requests[-1].body["messages"]
    assert "one or two short sentences at a time in Simplified Chinese" in system["content"]
    assert opening == {"role": "user", "content": "Please start the conversation in Simplified Chinese."}
    own = openai_model(server, name="own", prompts={"plain": "Reply in {language} about {topic}."})
    model_respond(model=own, context={"history": ["你好"], "topic": "爵士乐", "knowledge": [], "language": "zh-hans"})
    assert server.requests[-1].body["messages"][0] == {"role": "system", "content": "Reply in Simplified Chinese about 爵士乐."}


@pytest.mark.usefixtures("compiled_catalogs")
def test_the_apology_is_in_the_campaigns_language(server: OpenAIServer) -> None:
    server.reply[0] = lambda request: json_answer(500, {"error": {"message": "CUDA out of memory"}})
    result = model_respond(model=openai_model(server), context={**DUCONV, "language": "zh-hans"})
    assert result.text == "抱歉，我刚才走神了。你能再说一遍，或者多跟我说一点吗？" and "HTTP 500" in result.error
    assert model_respond(model=openai_model(server, name="en"), context=DUCONV).text == APOLOGY


def test_a_reply_citing_nothing_records_the_sentence_it_shares_most_words_with(server: OpenAIServer) -> None:
    # As for a local checkpoint: one rule for every kind of model (knowledge_use.py).
    server.reply[0] = lambda request: completion("Jazz began in New Orleans, I believe.")
    assert model_respond(model=openai_model(server), context=WOW).knowledge_used == "Jazz began in New Orleans."
    server.reply[0] = lambda request: completion("I love it!")
    assert model_respond(model=openai_model(server, name="other"), context=WOW).knowledge_used is None


def test_a_reply_cut_at_max_tokens_keeps_its_whole_sentences(server: OpenAIServer) -> None:
    server.reply[0] = lambda request: completion("Jazz swings a lot. It began in New Orl", finish_reason="length")
    assert model_respond(model=openai_model(server), context=WOW).text == "Jazz swings a lot."


def _completion_body(text: str) -> bytes:
    return completion(text).body


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (json_answer(200, {"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": []}), "no choices"),
        (json_answer(200, {"error": {"message": "the model is overloaded", "type": "server_error"}}), "error object instead of choices: the model is overloaded"),
        (json_answer(500, {"error": {"message": "CUDA out of memory"}}), "HTTP 500 from the endpoint: CUDA out of memory"),
        (completion(None, refusal="I can't help with that."), "the model refused: I can't help with that."),
        (completion("", finish_reason="content_filter"), "content filter"),
        (Answer(body=_completion_body("A reply that the server never finishes sending."), cut_after=60), "response was cut off"),
        (json_answer(429, {"error": {"message": "slow down"}}, **{"Retry-After": "30"}), "HTTP 429 from the endpoint: rate limited (Retry-After 30 s is past"),
        (json_answer(429, {"error": {"message": "slow down"}}), "rate limited (no Retry-After)"),
        (json_answer(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}}), f"HTTP 401 from the endpoint: it refused the key in {KEY_ENV}"),
        (json_answer(400, {"error": {"message": f"bad request for {KEY}"}}), "HTTP 400 from the endpoint: bad request for [key]"),
        (Answer(body=b"<html>not json</html>"), "not valid JSON"),
        (completion("   [1]"), "empty content"),
        (completion("x" * 5000), "characters, more than"),
        (Answer(body=_completion_body("Too late."), delay=3.0), "timeout: no reply within 2 s"),
    ],
    ids=["no-choices", "error-object", "http-500", "refusal", "content-filter", "stream-cut", "429-too-long", "429-no-header", "401", "400-echoing-the-key", "not-json", "empty", "too-long", "hang"],
)
def test_a_bad_answer_is_an_apology_with_the_error_logged_and_no_key_anywhere(server: OpenAIServer, caplog, answer: Answer, error: str) -> None:
    server.reply[0] = lambda request: answer
    model = openai_model(server, timeout=2.0, retries=1)
    with caplog.at_level(logging.DEBUG):
        result = model_respond(model=model, context=WOW)
    assert result.text == APOLOGY and error in result.error and result.attempts == 2
    assert len([r for r in server.requests if r.path.endswith("/chat/completions")]) == 2
    assert any("gave no reply" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)
    assert KEY not in caplog.text and KEY not in result.error
    assert KEY not in json.dumps(list(EvalModel.objects.values()), default=str)


def test_a_429_whose_retry_after_fits_the_timeout_is_waited_for(server: OpenAIServer) -> None:
    answers = [json_answer(429, {"error": {"message": "slow down"}}, **{"Retry-After": "1"}), completion("Now then.")]
    server.reply[0] = lambda request: answers.pop(0)
    started = time.monotonic()
    result = model_respond(model=openai_model(server, timeout=5.0), context=WOW)
    assert (result.text, result.attempts, result.error) == ("Now then.", 1, "")
    assert len(server.requests) == 2 and time.monotonic() - started >= 1.0


def test_a_missing_key_variable_at_call_time_is_a_failure(server: OpenAIServer, monkeypatch) -> None:
    model = openai_model(server)
    monkeypatch.delenv(KEY_ENV)
    result = model_respond(model=model, context=WOW)
    assert result.text == APOLOGY and f"the environment variable {KEY_ENV} is not set" in result.error
    assert server.requests == []


def test_an_unreachable_endpoint_is_a_failure_not_a_crash(server: OpenAIServer) -> None:
    model = openai_model(server)
    model.endpoint_url = "http://127.0.0.1:9/v1"
    result = model_respond(model=model, context=WOW)
    assert result.text == APOLOGY and "unreachable" in result.error


@pytest.mark.django_db(transaction=True)
def test_in_a_room_a_refusal_is_an_apology_turn_and_the_chat_goes_on(mc_campaign, server: OpenAIServer, caplog) -> None:
    server.reply[0] = lambda request: completion(None, refusal="No.")
    openai_model(server, name="refusing-model")
    evaluator = seat(mc_campaign, model="refusing-model")
    rooms.room_act(room_id=evaluator.room.id, assignment=evaluator.assignment, name="choose_topic", frame={"topic": "Guitar"})
    rooms.message_post(room_id=evaluator.room.id, assignment=evaluator.assignment, client_id="h1", text="Hi there!", frame={})

    with caplog.at_level(logging.DEBUG):
        event = model_turn_take(room_id=evaluator.room.id, after_seq=1)

    assert event is not None and event["message"]["text"] == APOLOGY and event["snapshot"]["next_role"] == "apprentice"
    turn = ModelTurn.objects.get()
    assert turn.error == "the model refused: No." and turn.message.checked_sentence == {"no_passages_used": "no_passages_used"}
    assert Message.objects.count() == 2 and KEY not in caplog.text
    system = server.requests[0].body["messages"][0]["content"]
    assert "about Guitar" in system and "[1] Guitar:" in system


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("compiled_catalogs")
def test_in_a_chinese_campaign_the_model_is_asked_for_chinese_and_its_apology_is_stored_in_chinese(
    mc_campaign, server: OpenAIServer
) -> None:
    mc_campaign.language = "zh-hans"
    mc_campaign.save(update_fields=["language"])
    server.reply[0] = lambda request: completion(None, refusal="No.")
    openai_model(server, name="refusing-model")
    evaluator = seat(mc_campaign, model="refusing-model")
    rooms.room_act(room_id=evaluator.room.id, assignment=evaluator.assignment, name="choose_topic", frame={"topic": "Guitar"})
    rooms.message_post(room_id=evaluator.room.id, assignment=evaluator.assignment, client_id="h1", text="你好！", frame={})

    event = model_turn_take(room_id=evaluator.room.id, after_seq=1)

    apology = "抱歉，我刚才走神了。你能再说一遍，或者多跟我说一点吗？"
    assert event is not None and event["message"]["text"] == apology
    assert Message.objects.get(room=evaluator.room, seq=2).text == apology
    assert "Answer their last message in Simplified Chinese," in server.requests[0].body["messages"][0]["content"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("answer", [
    json_answer(400, {"error": {"message": f"bad request for {KEY}"}}),
    json_answer(200, {"error": {"message": f"key {KEY} is over its quota"}}),
], ids=["http-400", "error-object"])
def test_a_failure_echoing_the_key_is_exported_without_it(mc_campaign, server: OpenAIServer, tmp_path, answer: Answer) -> None:
    server.reply[0] = lambda request: answer
    openai_model(server, name="echoing-model")
    evaluator = seat(mc_campaign, model="echoing-model")
    rooms.room_act(room_id=evaluator.room.id, assignment=evaluator.assignment, name="choose_topic", frame={"topic": "Guitar"})
    rooms.message_post(room_id=evaluator.room.id, assignment=evaluator.assignment, client_id="h1", text="Hi there!", frame={})
    model_turn_take(room_id=evaluator.room.id, after_seq=1)
    assert ModelTurn.objects.get().message.text == APOLOGY

    call_command("export_dataset", "modelchat", "--out", str(tmp_path / "out"), "--include-incomplete", stdout=io.StringIO())
    (record,) = map(json.loads, (tmp_path / "out" / "modelchat_conversations.jsonl").read_text().splitlines())
    assert record["dialog"][1]["text"] == APOLOGY and record["dialog"][1]["error"]  # the error is exported...
    for path in (tmp_path / "out").rglob("*"):
        assert not path.is_file() or KEY not in path.read_text(), path  # ...without the key


def test_an_openai_model_saved_from_the_admin_is_checked_like_a_registration() -> None:
    from django.core.exceptions import ValidationError

    model = EvalModel(name="admin-made", kind=EvalModelKind.OPENAI, endpoint_url="http://127.0.0.1:8000/v1", options={"temperature": 9})
    with pytest.raises(ValidationError) as raised:
        model.full_clean()
    (problems,) = raised.value.message_dict.values()
    assert any("'model' must name the served model" in p for p in problems) and any("'temperature'" in p for p in problems)
