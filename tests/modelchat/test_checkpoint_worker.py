"""With a broker, a local checkpoint's turns run in a real Celery worker on the `local_models`
queue (the `models` queue has no worker here, so a reply can only come from there): the room's
seating sends the load to that worker, the turn follows, and the reply reaches the evaluator's
socket over the Redis channel layer (second pass)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from channels.db import database_sync_to_async

from collect.tasktypes.modelchat.calls import APOLOGY
from collect.tasktypes.modelchat.models import ModelTurn
from tests.modelchat.checkpoint import needs_smollm2, smollm2_path
from tests.modelchat.conftest import seat
from tests.modelchat.test_checkpoint_room import chat_once, checkpoint_model
from tests.services import celery_worker, child_database_url, needs_broker

# The worker's first reply may take its own 300 s (it loads the model).
pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True), needs_broker, needs_smollm2, pytest.mark.timeout(600)]


@pytest.fixture
def models_worker(settings, index_dir: Path):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    env = {**os.environ, "DATABASE_URL": child_database_url(), "GROUNDWORK_INDEX_DIR": str(index_dir)}
    # As the production topology runs it: one prefork process holding the weights.
    with celery_worker("-Q", "local_models", "--pool", "prefork", "--concurrency", "1", "--loglevel", "WARNING", env=env) as worker:
        yield worker


async def test_the_checkpoint_reply_comes_from_the_local_models_queue(models_worker, mc_campaign) -> None:
    await database_sync_to_async(checkpoint_model)(str(smollm2_path()))
    dana = await database_sync_to_async(seat)(mc_campaign, "dana", "local-lm")
    typing, reply = await chat_once(dana, timeout=300)  # the worker starts, then loads the model
    turn = await ModelTurn.objects.select_related("message").aget()
    assert typing["after_seq"] == 1 and reply["seq"] == 2 and reply["text"] == turn.message.text
    assert turn.error == "" and turn.message.text != APOLOGY
