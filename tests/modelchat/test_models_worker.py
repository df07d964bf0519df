"""With a broker, the model's turn runs in a real Celery worker on the `models` queue, which posts
the reply and broadcasts it over the Redis channel layer to the evaluator's socket (second pass);
the DuConv variant's opening too; an OpenAI-compatible model's key is read from the worker's environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from channels.db import database_sync_to_async

from collect.tasktypes.modelchat.models import EvalModel, EvalModelKind, ModelTurn
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.conftest import seat
from tests.modelchat.openai_server import completion, openai_server
from tests.services import celery_worker, needs_broker, child_database_url

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    needs_broker,
]


@pytest.fixture
def models_worker(settings, index_dir: Path):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    env = {**os.environ, "DATABASE_URL": child_database_url(), "GROUNDWORK_INDEX_DIR": str(index_dir)}
    with celery_worker("-Q", "models", "--pool", "threads", "--concurrency", "2", "--loglevel", "WARNING", env=env) as worker:
        yield worker


async def test_the_reply_comes_from_the_models_queue(models_worker, dana) -> None:
    socket = await connect(f"/ws/room/{dana.room.id}/", dana.cookie)
    await send(socket, {"type": "choose_topic", "topic": "Guitar"})
    await send(socket, {"type": "message", "client_id": "h1", "text": "How many strings does a guitar have?"})
    while True:
        frame = await receive_until(socket, "message", timeout=60)  # the worker takes a few seconds to start
        if frame["role"] == "wizard":
            break
    await socket.disconnect()
    turn = await ModelTurn.objects.select_related("message").aget()
    assert turn.message.seq == 2 and turn.error == "" and frame["text"] == turn.message.text
    assert "six strings" in turn.message.text  # the knowledgeable bot's best sentence for the question


async def test_the_duconv_opening_comes_from_the_models_queue(models_worker, dc_campaign) -> None:
    dora = await database_sync_to_async(seat)(dc_campaign, "dora")
    socket = await connect(f"/ws/room/{dora.room.id}/", dora.cookie)
    await send(socket, {"type": "sync", "after": 0})
    frame = await receive_until(socket, "message", timeout=60)
    await socket.disconnect()
    turn = await ModelTurn.objects.select_related("message").aget()
    assert frame["role"] == "wizard" and turn.message.seq == 1 and turn.error == "" and frame["text"] == turn.message.text
    assert turn.message.knowledge_used == turn.knowledge_used and len(turn.knowledge_used) == 1


async def test_an_openai_model_is_called_by_the_worker_with_the_key_from_its_environment(settings, index_dir: Path, mc_campaign, tmp_path) -> None:
    """The key lives only in the worker's environment: the model stores its name, the worker
    reads it, the server sees it, and the worker's log (at DEBUG) never shows it."""
    key = "sk-worker-5d1c0a77e2"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    env = {**os.environ, "DATABASE_URL": child_database_url(), "GROUNDWORK_INDEX_DIR": str(index_dir), "GW_WORKER_KEY": key}
    with openai_server() as server, (tmp_path / "worker.log").open("wb") as log:
        server.reply[0] = lambda request: completion("Six, usually. [1]")
        await EvalModel.objects.acreate(
            name="served", kind=EvalModelKind.OPENAI, endpoint_url=server.base_url, options={"model": "test-model", "api_key_env": "GW_WORKER_KEY"}
        )
        erin = await database_sync_to_async(seat)(mc_campaign, "erin", "served")
        with celery_worker("-Q", "models", "--pool", "threads", "--concurrency", "2", "--loglevel", "DEBUG", env=env, log=log):
            socket = await connect(f"/ws/room/{erin.room.id}/", erin.cookie)
            await send(socket, {"type": "choose_topic", "topic": "Guitar"})
            await send(socket, {"type": "message", "client_id": "h1", "text": "How many strings?"})
            frame = await receive_until(socket, "message", timeout=60)
            while frame["role"] != "wizard":
                frame = await receive_until(socket, "message", timeout=60)
            await socket.disconnect()
        (request,) = server.requests
    assert frame["text"] == "Six, usually." and request.headers["authorization"] == f"Bearer {key}"
    turn = await ModelTurn.objects.select_related("message").aget(message__room=erin.room)
    assert turn.error == "" and turn.knowledge_used == request.body["messages"][0]["content"].split("[1] Guitar: ")[1].split("\n")[0]
    assert key not in (tmp_path / "worker.log").read_text()


async def test_a_reply_streamed_in_the_worker_reaches_the_page_as_it_comes(settings, index_dir: Path, mc_campaign, tmp_path) -> None:
    """The worker publishes the text so far over the Redis channel layer while the server is still
    sending; the stored message is the whole reply."""
    import threading

    from tests.modelchat.openai_server import streamed

    rest = threading.Event()
    settings.CELERY_TASK_ALWAYS_EAGER = False
    env = {**os.environ, "DATABASE_URL": child_database_url(), "GROUNDWORK_INDEX_DIR": str(index_dir)}
    with openai_server() as server:
        server.reply[0] = lambda request: streamed(["Six", " strings,", " usually."], gap=rest)
        await EvalModel.objects.acreate(name="served", kind=EvalModelKind.OPENAI, endpoint_url=server.base_url, options={"model": "test-model"})
        erin = await database_sync_to_async(seat)(mc_campaign, "erin", "served")
        with celery_worker("-Q", "models", "--pool", "threads", "--concurrency", "2", "--loglevel", "WARNING", env=env):
            socket = await connect(f"/ws/room/{erin.room.id}/", erin.cookie)
            await send(socket, {"type": "choose_topic", "topic": "Guitar"})
            await send(socket, {"type": "message", "client_id": "h1", "text": "How many strings?"})
            first = await receive_until(socket, "stream", timeout=60)
            rest.set()
            frame = await receive_until(socket, "message", timeout=60)
            while frame["role"] != "wizard":
                frame = await receive_until(socket, "message", timeout=60)
            await socket.disconnect()
    assert first == {"type": "stream", "after_seq": 1, "attempt": 1, "text": "Six"}
    assert frame["text"] == "Six strings, usually."
    turn = await ModelTurn.objects.aget(message__room=erin.room)
    assert turn.error == "" and turn.first_token_ms <= turn.last_token_ms
