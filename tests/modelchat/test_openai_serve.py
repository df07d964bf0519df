"""A trained model in a Groundwork room: SmolLM2-135M-Instruct served by `transformers serve` (the
OpenAI-compatible server of transformers[serving]), registered with register_model --openai, talks
through the OpenAI adapter in a Wizard of Wikipedia model chat and in a DuConv model chat over the
real socket. Generation runs on the CPU: replies are kept short (max_tokens)."""

from __future__ import annotations


import pytest
from django.core.management import call_command

from collect.tasktypes.modelchat.calls import APOLOGY
from collect.tasktypes.modelchat.models import ModelTurn
from collect.models import Message
from collect.tasktypes.duconv.models import DuConvSession
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.conftest import Evaluator, seat
from tests.modelchat.smollm2_serve import Served, serve_missing

pytestmark = [
    # The replies of SmolLM2 itself: the socket's way to the models queue on PostgreSQL and Redis is
    # tests/modelchat/test_models_worker.py's (second pass).
    pytest.mark.backend_neutral("SmolLM2's own replies through transformers serve"),
    pytest.mark.skipif(serve_missing() is not None, reason=f"needs the served SmolLM2: {serve_missing()}"),
    pytest.mark.django_db(transaction=True),
]

REPLY_WITHIN_S = 150  # one CPU generation of 32 tokens on a busy machine, plus the prompt


@pytest.fixture
def smollm2(smollm2_server: Served) -> Served:
    return smollm2_server


def smollm2_register(served: Served) -> None:
    call_command(
        "register_model", "smollm2", "--openai", served.base_url, "--model", served.model,
        "--max-tokens", "32", "--temperature", "0", "--timeout", "120", "--retries", "0",
    )  # fmt: skip


async def model_reply(socket, streamed: list[str] | None = None) -> dict:
    """The model's next message; the texts of the `stream` frames before it go to `streamed`."""
    while True:
        frame = await socket.receive_json_from(timeout=REPLY_WITHIN_S)
        if frame["type"] == "stream" and streamed is not None:
            streamed.append(frame["text"])
        if frame["type"] == "message" and frame["role"] == "wizard":
            return frame


async def label_none(socket, seq: int) -> None:
    await send(socket, {"type": "label", "seq": seq, "problems": ["none"]})
    state = await receive_until(socket, "state", timeout=30)
    while str(seq) not in state["labels"]:
        state = await receive_until(socket, "state", timeout=30)


def _turns() -> list[ModelTurn]:
    return list(ModelTurn.objects.select_related("message").order_by("message__seq"))


async def test_smollm2_holds_a_wizard_of_wikipedia_model_chat(smollm2: Served, mc_campaign) -> None:
    from asgiref.sync import sync_to_async

    await sync_to_async(smollm2_register)(smollm2)
    dana: Evaluator = await sync_to_async(seat)(mc_campaign, "dana", "smollm2")
    socket = await connect(f"/ws/room/{dana.room.id}/", dana.cookie)
    await send(socket, {"type": "choose_topic", "topic": "Guitar"})
    for turn, text in enumerate(["Hi! Do you play the guitar?", "How many strings does a guitar have?"]):
        await send(socket, {"type": "message", "client_id": f"h{turn}", "text": text})
        streamed: list[str] = []
        reply = await model_reply(socket, streamed)
        assert reply["seq"] == 2 * turn + 2 and reply["text"] != APOLOGY and reply["text"].strip()
        # It streamed: the page had the reply's start before the reply (whose citations and cut
        # sentence the stored text may lose).
        assert streamed and all(streamed[i + 1].startswith(streamed[i]) for i in range(len(streamed) - 1))
        await label_none(socket, reply["seq"])
    await socket.disconnect()

    turns = await sync_to_async(_turns)()
    assert len(turns) == 2 and all(t.error == "" and t.latency_ms > 0 and t.attempts == 1 for t in turns)
    assert all(0 < t.first_token_ms < t.last_token_ms <= t.latency_ms for t in turns)
    for turn in turns:
        # The sentence it cited, if any, is stored as a wizard's checked sentence from the knowledge it was shown.
        checked = turn.message.checked_sentence
        if turn.knowledge_used is None:
            assert checked == {"no_passages_used": "no_passages_used"}
        else:
            assert turn.knowledge_used in str(checked)
    assert await Message.objects.filter(room=dana.room).acount() == 4


async def test_smollm2_opens_and_holds_a_duconv_model_chat(smollm2: Served, dc_campaign) -> None:
    from asgiref.sync import sync_to_async

    await sync_to_async(smollm2_register)(smollm2)
    dora: Evaluator = await sync_to_async(seat)(dc_campaign, "dora", "smollm2")
    socket = await connect(f"/ws/room/{dora.room.id}/", dora.cookie)
    await receive_until(socket, "state", timeout=30)
    await send(socket, {"type": "sync", "after": 0})  # the evaluator is there: the model opens
    opening = await model_reply(socket)
    assert opening["seq"] == 1 and opening["text"] != APOLOGY
    await label_none(socket, 1)
    await send(socket, {"type": "message", "client_id": "h0", "text": "Hello! What film do you like?"})
    reply = await model_reply(socket)
    assert reply["seq"] == 3 and reply["text"] != APOLOGY
    await socket.disconnect()

    session = await DuConvSession.objects.aget(room=dora.room)
    turns = await sync_to_async(_turns)()
    assert [t.message.seq for t in turns] == [1, 3] and all(t.error == "" and t.latency_ms > 0 for t in turns)
    for turn in turns:
        # Triple ids it cited that it was given are its message's marks; nothing else is.
        marks = turn.message.knowledge_used
        assert marks is None or all(0 <= i < len(session.knowledge) for i in marks)
