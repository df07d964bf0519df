"""Index builds go through a real Celery worker on the `index` queue (second CI pass only)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from retrieval.models import KnowledgeSource
from retrieval.tasks import build_index
from tests.conftest import import_articles

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not (os.environ.get("CELERY_BROKER_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="needs CELERY_BROKER_URL and a PostgreSQL DATABASE_URL",
    ),
]
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def index_worker(index_dir: Path):
    db = connection.settings_dict
    env = {
        **os.environ,
        # The worker must see the test database and the test's index folder.
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "GROUNDWORK_INDEX_DIR": str(index_dir),
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "groundwork", "worker", "-Q", "index", "--pool", "solo", "--loglevel", "WARNING"],
        cwd=ROOT,
        env=env,
    )
    yield worker
    worker.terminate()
    worker.wait(timeout=30)


def test_it_builds_an_index_on_the_index_queue(tmp_path: Path, index_dir: Path, index_worker) -> None:
    source = import_articles(tmp_path, "queued")
    (index_dir / "queued").rename(index_dir / "queued-built-inline")  # only the worker's build may count
    result = build_index.delay(source.pk)
    meta = result.get(timeout=60)
    assert meta["n_docs"] == KnowledgeSource.objects.get(pk=source.pk).articles.count()
    assert (index_dir / "queued" / "meta.json").exists()
    assert result.successful()
