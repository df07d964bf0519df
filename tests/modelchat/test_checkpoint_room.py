"""A model chat with a local checkpoint over the real socket, in the embedded mode (the model runs
on a thread of this process): SmolLM2 loads while the room waits for its topic, the evaluator sees
"partner is typing", then the model's own words, with their latency recorded. A checkpoint that is
gone or broken by the time of the call gives the room's apology, never a stuck evaluator."""

from __future__ import annotations

import pytest

from collect.tasktypes.modelchat.calls import APOLOGY
from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind, ModelTurn
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.checkpoint import SHORT, needs_smollm2, smollm2_path
from tests.modelchat.conftest import seat

# The first reply may take its own 300 s (the model loads).
# Its second-pass counterpart, the checkpoint on the models queue: test_checkpoint_worker.py.
pytestmark = [pytest.mark.backend_neutral("the checkpoint's own replies, in this process"), pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]


def checkpoint_model(path: str, name: str = "local-lm", timeout: float = 280.0) -> EvalModel:
    # The first call loads the model: on a busy CPU it has taken 144 s, and a call cut off by its
    # timeout is retried, which is not what this test is about (the retry has tests of its own).
    return EvalModel.objects.create(
        name=name, kind=EvalModelKind.CHECKPOINT, timeout_seconds=timeout, max_concurrency=1, retries=1,
        options={"path": path, "device": "cpu", "generation": SHORT},
    )


async def model_reply(socket, timeout: float) -> dict:
    while True:
        frame = await receive_until(socket, "message", timeout=timeout)
        if frame["role"] == "wizard":
            return frame


async def chat_once(evaluator, *, timeout: float) -> tuple[dict, dict]:
    """Choose the topic, ask one question; (the typing frame, the model's message frame)."""
    socket = await connect(f"/ws/room/{evaluator.room.id}/", evaluator.cookie)
    await send(socket, {"type": "choose_topic", "topic": "Guitar"})
    await send(socket, {"type": "message", "client_id": "h1", "text": "How many strings does a guitar have?"})
    typing = await receive_until(socket, "typing", timeout=30)
    reply = await model_reply(socket, timeout)
    await socket.disconnect()
    return typing, reply


@needs_smollm2
async def test_smollm2_answers_in_a_model_chat(mc_campaign) -> None:
    from channels.db import database_sync_to_async

    await database_sync_to_async(checkpoint_model)(str(smollm2_path()))
    dana = await database_sync_to_async(seat)(mc_campaign, "dana", "local-lm")
    typing, reply = await chat_once(dana, timeout=300)  # the first load takes half a minute or more on a busy CPU
    turn = await ModelTurn.objects.select_related("message").aget()
    assert typing["after_seq"] == 1
    assert reply["seq"] == 2 and reply["text"] == turn.message.text
    assert turn.error == "" and turn.message.text != APOLOGY and turn.latency_ms > 0 and turn.attempts == 1


async def test_a_checkpoint_gone_since_registration_gets_the_apology(mc_campaign, tmp_path) -> None:
    from channels.db import database_sync_to_async

    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    await database_sync_to_async(checkpoint_model)(str(path), timeout=10)
    path.unlink()
    dana = await database_sync_to_async(seat)(mc_campaign, "dana", "local-lm")
    typing, reply = await chat_once(dana, timeout=60)
    turn = await ModelTurn.objects.aget()
    assert typing["after_seq"] == 1 and reply["text"] == APOLOGY
    assert turn.attempts == 2 and "no such file or directory" in turn.error


async def test_a_damaged_checkpoint_gets_the_apology(mc_campaign, tmp_path) -> None:
    from channels.db import database_sync_to_async

    path = tmp_path / "model.gguf"
    path.write_bytes(b"not a model" * 100)
    await database_sync_to_async(checkpoint_model)(str(path), timeout=30)
    dana = await database_sync_to_async(seat)(mc_campaign, "dana", "local-lm")
    _, reply = await chat_once(dana, timeout=120)
    turn = await ModelTurn.objects.aget()
    assert reply["text"] == APOLOGY and turn.error != ""


async def test_the_evaluator_sees_typing_before_a_built_in_reply(dana) -> None:
    typing, reply = await chat_once(dana, timeout=30)
    assert typing == {"type": "typing", "after_seq": 1} and reply["seq"] == 2
