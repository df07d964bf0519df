"""Several models per turn (protocol_config.prism) over the real socket: every model answers the
evaluator's message, the replies are offered side by side without names, the evaluator picks one
(rating some), the partner's seat posts it and the chat goes on; the choices become pairwise
judgments that annotate's judgments reader accepts; a bad setting or a bad pick is refused with
what is wrong."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from annotate.kinds.pairwise.evaluation.judgments import parse_judgments_by_question
from collect.models import Campaign, Message
from collect.tasktypes.modelchat.calls import APOLOGY
from collect.tasktypes.modelchat.config import ConfigError, config_errors, config_for
from collect.tasktypes.modelchat.models import EvalModel, ModelCandidate, ModelTurn
from collect.tasktypes.modelchat.prism import choice_judgments
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.conftest import seat

pytestmark = pytest.mark.backends

PRISM = ["kb-retrieval", "tfidf-reply", "no-knowledge"]


def prism_campaign(campaign: Campaign, models: list[str] = PRISM, **config) -> Campaign:
    campaign.protocol_config = {"models": {models[0]: 5}, "prism": {"models": models}, "problems": [], **config}
    campaign.save(update_fields=["protocol_config"])
    return campaign


@pytest.mark.django_db
@pytest.mark.parametrize(("prism", "error"), [
    (["kb-retrieval"], "protocol_config.prism must be an object with one key, models"),
    ({"models": ["kb-retrieval"]}, "must name 2 to 4 different models, not 1"),
    ({"models": ["kb-retrieval", "kb-retrieval"]}, "must name 2 to 4 different models, not 2"),
    ({"models": ["a", "b", "c", "d", "kb-retrieval"]}, "must name 2 to 4 different models, not 5"),
    ({"models": ["tfidf-reply", "no-knowledge"]}, "must include every model of protocol_config.models; missing: kb-retrieval"),
    ({"models": ["kb-retrieval", 7]}, "must be a list of registered model names"),
    ({"models": ["kb-retrieval", "tfidf-reply"], "turns": 2}, "must be an object with one key, models"),
], ids=["not-an-object", "one-model", "twice", "five", "arm-missing", "not-a-name", "unknown-key"])
def test_a_bad_prism_setting_is_refused_with_what_is_wrong(mc_campaign, prism, error) -> None:
    mc_campaign.protocol_config = {"models": {"kb-retrieval": 2}, "prism": prism}
    with pytest.raises(ConfigError, match=error.replace("(", r"\(")):
        config_for(mc_campaign)


@pytest.mark.django_db
def test_a_prism_model_must_be_registered_and_the_duconv_variant_has_none(mc_campaign) -> None:
    prism_campaign(mc_campaign, ["kb-retrieval", "not-registered"])
    assert config_errors(mc_campaign) == ["protocol_config.prism.models: no active registered model named 'not-registered'"]
    mc_campaign.protocol_config = {"models": {"duconv-agent": 2}, "duconv": {}, "prism": {"models": ["duconv-agent", "kb-retrieval"]}}
    with pytest.raises(ConfigError, match="not available in the DuConv variant"):
        config_for(mc_campaign)


async def chat_start(campaign: Campaign, name: str):
    evaluator = await sync_to_async(seat)(campaign, name)
    socket = await connect(f"/ws/room/{evaluator.room.id}/", evaluator.cookie)
    await send(socket, {"type": "choose_topic", "topic": "Guitar"})
    state = await receive_until(socket, "state")
    while state["status"] != "chatting":
        state = await receive_until(socket, "state")
    return evaluator, socket


async def offered(socket) -> dict:
    """The next state that offers replies to pick from."""
    while True:
        state = await receive_until(socket, "state", timeout=30)
        if state.get("candidates"):
            return state


@pytest.mark.django_db(transaction=True)
async def test_the_evaluator_picks_one_of_several_replies_and_the_chat_goes_on(mc_campaign) -> None:
    await sync_to_async(prism_campaign)(mc_campaign)
    gia, socket = await chat_start(mc_campaign, "gia")
    await send(socket, {"type": "message", "client_id": "h1", "text": "How many strings does a guitar have?"})
    state = await offered(socket)
    offer = state["candidates"]
    assert offer["after_seq"] == 1 and offer["picked"] is None and [r["index"] for r in offer["replies"]] == [0, 1, 2]
    assert not state["your_turn"] and "model" not in str(offer["replies"][0].keys())  # the names are not shown

    # A page reloaded now is offered the same replies.
    again = await connect(f"/ws/room/{gia.room.id}/", gia.cookie)
    assert (await receive_until(again, "state"))["candidates"] == offer
    await again.disconnect()

    await send(socket, {"type": "pick", "client_id": "p1", "after_seq": 1, "candidate": 2, "ratings": {"0": 2, "2": 5}})
    reply = await receive_until(socket, "message", timeout=30)
    assert reply["role"] == "wizard" and reply["seq"] == 2 and reply["text"] == offer["replies"][2]["text"]
    state = await receive_until(socket, "state", timeout=30)
    assert state["your_turn"] and state["candidates"] is None

    await send(socket, {"type": "message", "client_id": "h2", "text": "Who plays the blues?"})
    second = (await offered(socket))["candidates"]
    assert second["after_seq"] == 3
    await send(socket, {"type": "pick", "client_id": "p2", "after_seq": 3, "candidate": 0})
    assert (await receive_until(socket, "message", timeout=30))["seq"] == 4
    await socket.disconnect()

    candidates = [c async for c in ModelCandidate.objects.select_related("model").filter(after_seq=1).order_by("position")]
    assert sorted(c.model.name for c in candidates) == sorted(PRISM)
    assert [(c.rating, c.picked) for c in candidates] == [(2, False), (None, False), (5, True)]
    turn = await ModelTurn.objects.select_related("model", "message").aget(message__seq=2)
    assert turn.model_id == candidates[2].model_id and turn.message.text == candidates[2].text
    judgments = await sync_to_async(lambda: list(choice_judgments(campaigns=["mc-test"])))()
    assert len(judgments) == 4 and all(j["winner"] == "model_a" for j in judgments)
    assert {(j["model_a"], j["model_b"]) for j in judgments[:2]} == {(candidates[2].model.name, c.model.name) for c in candidates[:2]}
    lines = [__import__("json").dumps(j) for j in judgments]
    assert len(parse_judgments_by_question(lines)) == 4  # annotate's reader takes them as they are


@pytest.mark.django_db(transaction=True)
async def test_a_bad_pick_is_refused_with_what_is_wrong(mc_campaign) -> None:
    await sync_to_async(prism_campaign)(mc_campaign)
    _, socket = await chat_start(mc_campaign, "hal")
    await send(socket, {"type": "pick", "after_seq": 1, "candidate": 0})
    assert "no replies to pick from" in (await receive_until(socket, "error"))["message"]
    await send(socket, {"type": "message", "client_id": "h1", "text": "Hello there!"})
    await offered(socket)
    for frame, text in [
        ({"after_seq": 1, "candidate": 7}, "candidate"),
        ({"after_seq": 1, "candidate": 0, "ratings": {"1": 6}}, "Rate reply 1 with a whole number from 1 to 5"),
        ({"after_seq": 1, "candidate": 0, "ratings": {"5": 3}}, "Reply '5' was not one of those shown"),
        ({"after_seq": 1, "candidate": 0, "ratings": [3]}, "Send ratings as"),
    ]:
        await send(socket, {"type": "pick", **frame})
        error = await receive_until(socket, "error")
        assert text in error["message"], (frame, error)
    await send(socket, {"type": "pick", "client_id": "ok", "after_seq": 1, "candidate": 1})
    await receive_until(socket, "message", timeout=30)
    await send(socket, {"type": "pick", "after_seq": 1, "candidate": 0})
    assert (await receive_until(socket, "error"))["code"] in ("bad_pick", "bad_frame")
    await socket.disconnect()
    assert await ModelCandidate.objects.filter(picked=True).acount() == 1


@pytest.mark.django_db(transaction=True)
async def test_failed_models_are_not_offered_and_one_reply_left_is_posted_at_once(mc_campaign) -> None:
    await sync_to_async(EvalModel.objects.create)(name="broken", dotted_path="tests.modelchat.sample_models.Broken", retries=0)
    await sync_to_async(prism_campaign)(mc_campaign, ["kb-retrieval", "broken"])
    _, socket = await chat_start(mc_campaign, "ida")
    await send(socket, {"type": "message", "client_id": "h1", "text": "How many strings does a guitar have?"})
    reply = await receive_until(socket, "message", timeout=30)
    while reply["role"] != "wizard":
        reply = await receive_until(socket, "message", timeout=30)
    await socket.disconnect()
    assert reply["text"] != APOLOGY
    broken = await ModelCandidate.objects.aget(model__name="broken")
    assert broken.error.startswith("RuntimeError") and broken.text == APOLOGY and not broken.picked
    assert await ModelCandidate.objects.filter(model__name="kb-retrieval", picked=True).aexists()
    assert await sync_to_async(lambda: list(choice_judgments()))() == []  # one reply shown: no choice was made
    assert await Message.objects.acount() == 2


@pytest.mark.django_db(transaction=True)
async def test_the_export_keeps_every_reply_and_the_choice(mc_campaign, tmp_path) -> None:
    import io
    import json

    from django.core.management import call_command

    await sync_to_async(prism_campaign)(mc_campaign)
    _, socket = await chat_start(mc_campaign, "jon")
    await send(socket, {"type": "message", "client_id": "h1", "text": "How many strings does a guitar have?"})
    offer = (await offered(socket))["candidates"]
    await send(socket, {"type": "pick", "client_id": "p1", "after_seq": 1, "candidate": 1, "ratings": {"1": 4}})
    await receive_until(socket, "message", timeout=30)
    await socket.disconnect()

    out = tmp_path / "out"
    await sync_to_async(call_command)("export_dataset", "modelchat", "--out", str(out), "--include-incomplete", stdout=io.StringIO())
    (record,) = map(json.loads, (out / "modelchat_conversations.jsonl").read_text().splitlines())
    assert record["prism"] == {"models": PRISM} and record["model"] == "kb-retrieval"
    human, model = record["dialog"]
    assert "candidates" not in human and model["choice"] == 1
    assert [c["text"] for c in model["candidates"]] == [r["text"] for r in offer["replies"]]
    assert [(c["rating"], c["picked"], c["error"]) for c in model["candidates"]] == [(None, False, ""), (4, True, ""), (None, False, "")]
    assert model["id"] == model["candidates"][1]["model"] and model["text"] == offer["replies"][1]["text"]
    assert sorted(c["model"] for c in model["candidates"]) == sorted(PRISM)
