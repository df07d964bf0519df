"""Reranking through a real Celery worker (second CI pass only): the result comes back from the
queue, and with no worker listening the caller gets None after its timeout."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from retrieval.services import rerank_passages

pytestmark = [
    pytest.mark.services,
    pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL"), reason="needs CELERY_BROKER_URL"),
]
ROOT = Path(__file__).resolve().parents[2]
CONTEXT = ["Do you like jazz?", "I love improvised jazz solos."]
PASSAGES = [{"title": "Tea", "sentences": ["Tea is a drink."]}, {"title": "Jazz", "sentences": ["Jazz has improvised solos."]}]


@pytest.fixture
def rerank_worker(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    # `index` too: until settings route retrieval.tasks.rerank to `rerank`, retrieval.tasks.* go to `index`.
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "groundwork", "worker", "-Q", "rerank,index", "--pool", "solo",
         "--loglevel", "WARNING"],
        cwd=ROOT, env={**os.environ, "GROUNDWORK_RANKER": "tfidf"},
    )
    yield worker
    worker.terminate()
    worker.wait(timeout=30)


def test_it_reranks_on_a_worker(rerank_worker) -> None:
    deadline = time.monotonic() + 60
    ranked = None
    while ranked is None and time.monotonic() < deadline:  # the worker takes a few seconds to start
        ranked = rerank_passages(context=CONTEXT, passages=PASSAGES, timeout_s=5)

    assert ranked is not None
    assert [p["title"] for p in ranked] == ["Jazz", "Tea"]
    # The topic travels with the task: with turns that match nothing, it decides.
    by_topic = rerank_passages(context=["Any tips?"], topic="Jazz", passages=PASSAGES, timeout_s=10)
    assert [p["title"] for p in by_topic] == ["Jazz", "Tea"]  # without the topic: the input order, Tea first


def test_without_a_worker_the_caller_gets_none_after_the_timeout(settings, caplog: pytest.LogCaptureFixture) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False

    with caplog.at_level(logging.WARNING, logger="retrieval.rerank"):
        assert rerank_passages(context=CONTEXT, passages=PASSAGES, timeout_s=0.5) is None
    assert "rerank timed out" in caplog.text  # given up at its timeout, not failed for another reason
