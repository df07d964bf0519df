"""With a broker, the model's turn runs in a real Celery worker on the `models` queue, which posts
the reply and broadcasts it over the Redis channel layer to the evaluator's socket (second pass);
the DuConv variant's opening too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from channels.db import database_sync_to_async

from collect.modelchat.models import ModelTurn
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.conftest import seat
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
