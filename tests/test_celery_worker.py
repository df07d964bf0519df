"""Index builds go through a real Celery worker on the `index` queue (second CI pass only)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from retrieval.models import KnowledgeSource
from retrieval.tasks import build_index
from tests.conftest import import_articles
from tests.services import celery_worker, needs_broker, child_database_url

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    needs_broker,
]


@pytest.fixture
def index_worker(index_dir: Path):
    # The worker must see the test database and the test's index folder.
    env = {**os.environ, "DATABASE_URL": child_database_url(), "GROUNDWORK_INDEX_DIR": str(index_dir)}
    with celery_worker("-Q", "index", "--pool", "solo", "--loglevel", "WARNING", env=env) as worker:
        yield worker


def test_it_builds_an_index_on_the_index_queue(tmp_path: Path, index_dir: Path, index_worker) -> None:
    source = import_articles(tmp_path, "queued")
    (index_dir / "queued").rename(index_dir / "queued-built-inline")  # only the worker's build may count
    result = build_index.delay(source.pk)
    meta = result.get(timeout=60)
    assert meta["n_docs"] == KnowledgeSource.objects.get(pk=source.pk).articles.count()
    assert (index_dir / "queued" / "meta.json").exists()
    assert result.successful()
