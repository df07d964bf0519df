"""Settings read from the environment: a DATABASE_URL naming an SQLite file gets the same SQLite
options as the default database (without them concurrent writers fail with "database is locked")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# probe() starts its processes without the pass's DATABASE_URL / REDIS_URL / CELERY_BROKER_URL.
pytestmark = pytest.mark.backend_neutral("its processes start without the pass's service variables")

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import json, django
django.setup()
from django.conf import settings
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("PRAGMA journal_mode")
    mode = cursor.fetchone()[0]
    cursor.execute("PRAGMA busy_timeout")
    busy = cursor.fetchone()[0]
db = settings.DATABASES["default"]
print(json.dumps({"mode": mode, "busy_ms": busy, "transaction_mode": db["OPTIONS"].get("transaction_mode"),
                  "test_name": str(db["TEST"]["NAME"]), "name": str(db["NAME"])}))
"""


def probe(database_url: str | None, tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}
    env.update(DJANGO_SETTINGS_MODULE="groundwork.settings", GROUNDWORK_VAR_DIR=str(tmp_path / "var"))
    if database_url:
        env["DATABASE_URL"] = database_url
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_it_gives_a_database_url_sqlite_file_the_default_sqlite_options(tmp_path: Path) -> None:
    default = probe(None, tmp_path)
    named = probe(f"sqlite:///{tmp_path / 'named.sqlite3'}", tmp_path)
    assert named["name"] == str(tmp_path / "named.sqlite3")
    for result in (default, named):
        assert (result["mode"], result["busy_ms"], result["transaction_mode"]) == ("wal", 20000, "IMMEDIATE")
        # A test database is a file of its own in the temp folder, never "test_/path/to/file".
        assert Path(result["test_name"]).name.startswith("groundwork-test-")
