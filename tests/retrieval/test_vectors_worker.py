"""An index build queues its source's sentence vectors, which a real Celery worker of the `index`
queue builds and publishes beside the index, reporting its progress (second CI pass only)."""

from __future__ import annotations

import io
import os
import time

import pytest
from celery.result import AsyncResult
from django.core.management import call_command

from retrieval.index.vectors import vectors_load
from tests.services import celery_worker, child_database_url, needs_broker

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True), needs_broker, pytest.mark.timeout(600)]
WAIT_S = 180  # the worker starts, loads torch and MiniLM, encodes ~30 sentences


def test_an_index_build_is_followed_by_its_vectors_on_a_worker(knowledge, index_dir, settings) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False  # as with CELERY_BROKER_URL set
    settings.SENTENCE_VECTORS = "auto"
    env = {**os.environ, "DATABASE_URL": child_database_url(), "GROUNDWORK_INDEX_DIR": str(index_dir),
           "GROUNDWORK_RERANK_DEVICE": "cpu", "GROUNDWORK_SENTENCE_VECTORS": "auto"}
    with celery_worker("-Q", "index", "--pool", "solo", "--loglevel", "WARNING", env=env):
        out = io.StringIO()
        call_command("build_index", source=knowledge.slug, stdout=out)
        assert "sentence vectors queued as task" in out.getvalue()
        task = AsyncResult(out.getvalue().rsplit("task ", 1)[1].strip(" .\n"))
        deadline = time.monotonic() + WAIT_S
        while not task.ready():
            assert time.monotonic() < deadline, f"the vectors task is still {task.state} after {WAIT_S} s"
            time.sleep(0.2)
    result = task.get(timeout=1)
    stored = vectors_load(index_dir=index_dir, slug=knowledge.slug)
    assert stored is not None and result["sentences"] == len(stored.keys) > 0 and result["encoded"] == result["sentences"]
