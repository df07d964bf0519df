"""With a broker, the model's turn runs in a real Celery worker on the `models` queue, which posts
the reply and broadcasts it over the Redis channel layer to the evaluator's socket (second pass);
the DuConv variant's opening too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from django.db import connection

from collect.modelchat.models import ModelTurn
from tests.collect.ws import connect, receive_until, send
from tests.modelchat.conftest import seat

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not (os.environ.get("CELERY_BROKER_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="needs CELERY_BROKER_URL and a PostgreSQL DATABASE_URL",
    ),
]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def models_worker(settings, index_dir: Path):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "GROUNDWORK_INDEX_DIR": str(index_dir),
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "groundwork", "worker", "-Q", "models", "--pool", "threads",
         "--concurrency", "2", "--loglevel", "WARNING"],
        cwd=ROOT, env=env,
    )
    yield worker
    worker.terminate()
    worker.wait(timeout=30)


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
