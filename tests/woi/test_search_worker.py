"""With a broker, the wizard's searches take the knowledge path: a real Celery worker (the
`default` queue) runs the search and publishes the panel to the room; with no worker to start it
within GROUNDWORK_KNOWLEDGE_DEADLINE_S, the chat process runs it itself. Second CI pass only."""

from __future__ import annotations

from pathlib import Path

import pytest
from channels.db import database_sync_to_async

from collect.tasktypes.woi.models import SearchStatus, WoiSearch
from collect.tasktypes.woi.searching import searches_settled
from tests.collect.nodes import node_env
from tests.collect.ws import send
from tests.services import celery_worker, needs_broker
from tests.woi.conftest import WoiRoom
from tests.woi.ws import chatting, panel

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True), needs_broker]


@pytest.fixture
def worker(paired: WoiRoom, index_dir: Path, tmp_path: Path, settings):
    settings.KNOWLEDGE_MODE = "celery"
    settings.KNOWLEDGE_DEADLINE_S = 30.0  # the worker, not the chat process, must run it
    env = {**node_env(index_dir), "GROUNDWORK_KNOWLEDGE_MODE": "celery"}
    options = ("-Q", "default", "--pool", "solo", "--loglevel", "INFO", "--without-gossip", "--without-mingle")
    with (tmp_path / "worker.log").open("wb") as log, celery_worker(*options, env=env, log=log) as process:
        yield process


async def test_a_worker_runs_the_search_and_publishes_the_panel(paired: WoiRoom, worker, tmp_path: Path) -> None:
    wizard, apprentice = await chatting(paired)
    await send(wizard, {"type": "search", "client_id": "s1", "query": "guitar strings"})
    done = await panel(wizard, status="done", timeout=60)
    assert done["shown"]["documents"][0]["title"] == "Guitar"
    assert "Task collect.tasktypes.woi.tasks.search_run[" in (tmp_path / "worker.log").read_text()
    await wizard.disconnect()
    await apprentice.disconnect()


async def test_with_no_worker_the_chat_process_runs_the_search_after_the_deadline(paired: WoiRoom, settings) -> None:
    settings.KNOWLEDGE_MODE = "celery"
    settings.KNOWLEDGE_DEADLINE_S = 0.5
    wizard, apprentice = await chatting(paired)
    await send(wizard, {"type": "search", "client_id": "s1", "query": "guitar strings"})
    done = await panel(wizard, status="done", timeout=30)
    assert done["shown"]["documents"][0]["title"] == "Guitar"
    await searches_settled()
    search = await database_sync_to_async(WoiSearch.objects.get)(room=paired.room)
    assert search.status == SearchStatus.DONE and search.claimed_at is not None
    await wizard.disconnect()
    await apprentice.disconnect()
