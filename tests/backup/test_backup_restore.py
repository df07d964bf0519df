"""`manage.py backup` / `manage.py restore`: a backup of a site holding every kind of dataset,
restored into a new database (SQLite in the embedded pass, a second PostgreSQL database in the
services pass) and a new var/, exports byte-identical files; restore refuses what it must."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import close_old_connections, connection

from collect.backup.manifest import MANIFEST
from collect.models import Message
from collect.services import rooms
from tests.backup.every_kind import EXPORT_IN_CHILD, EXPORTS, exported_files, exports_write, site_fill
from tests.factories import make_campaign, make_room

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


class FreshSite:
    """A new, empty database of the configured engine and a new var/, for child processes."""

    def __init__(self, tmp_path: Path) -> None:
        self.var = tmp_path / "fresh-var"
        if connection.vendor == "sqlite":
            self.file = tmp_path / "fresh.sqlite3"
            self.url = f"sqlite:///{self.file}"
        else:
            db = connection.settings_dict
            self.name = f"gw_restore_{os.getpid()}"
            password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
            self.url = f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT'] or 5432}/{self.name}"
            with connection.cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{self.name}"')
                cursor.execute(f'CREATE DATABASE "{self.name}"')

    def env(self) -> dict[str, str]:
        # The deployment's own settings, as an operator runs the commands; SECRET_KEY is the test
        # run's (tests/settings.py puts it in the environment).
        return {**os.environ, "DJANGO_SETTINGS_MODULE": "groundwork.settings", "DATABASE_URL": self.url,
                "GROUNDWORK_VAR_DIR": str(self.var)}

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, *args], cwd=ROOT, env=self.env(), capture_output=True, text=True, timeout=300)

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run("manage.py", *args)

    def query(self, sql: str) -> list[tuple]:
        if connection.vendor == "sqlite":
            with sqlite3.connect(self.file) as db:
                return db.execute(sql).fetchall()
        import psycopg

        with psycopg.connect(self.url) as db:
            return db.execute(sql).fetchall()

    def drop(self) -> None:
        if connection.vendor != "sqlite":
            with connection.cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[FreshSite]:
    site = FreshSite(tmp_path)
    try:
        yield site
    finally:
        site.drop()


@pytest.fixture
def var(settings, tmp_path: Path) -> Path:
    """This site's var/ files live under the test's folder."""
    settings.CURIOSITY_FACTDB_DIR = tmp_path / "var" / "curiosity"
    settings.INDEX_DIR = tmp_path / "var" / "indexes"
    return tmp_path / "var"


def test_a_restored_backup_exports_byte_identical_files(var: Path, fresh: FreshSite, tmp_path: Path) -> None:
    site_fill(tmp_path / "inputs")
    exports_write(tmp_path / "before")
    before = exported_files(tmp_path / "before")
    # Every kind is there: a backup that lost one would still "match" an empty export.
    for folder in [*(name for name, _, _ in EXPORTS), "acts"]:
        assert sum(len(data) for name, data in before.items() if name.startswith(f"{folder}/")) > 300, folder
    call_command("backup", str(tmp_path / "site.tar"), stdout=open(os.devnull, "w"))
    shutil.rmtree(var)  # as on a new machine: only the backup has the files

    restored = fresh.manage("restore", str(tmp_path / "site.tar"))
    assert restored.returncode == 0, restored.stderr
    exported = fresh.run("-c", EXPORT_IN_CHILD, str(tmp_path / "after"))
    assert exported.returncode == 0, exported.stderr
    after = exported_files(tmp_path / "after")
    # The kept Curiosity fact db is read from the restored var/, not from where the old site kept it.
    kept = fresh.query("SELECT path FROM retrieval_factdatabase WHERE path <> ''")
    assert kept and all(Path(path).parent == fresh.var / "curiosity" and Path(path).is_file() for (path,) in kept)
    assert sorted(after) == sorted(before)
    for name, data in before.items():
        assert after[name] == data, f"{name} differs after the restore"

    # The restored site now holds data: a second restore is refused and changes nothing.
    again = fresh.manage("restore", str(tmp_path / "site.tar"))
    assert again.returncode != 0 and "already holds data" in again.stderr and "--force" in again.stderr
    forced = fresh.manage("restore", "--force", str(tmp_path / "site.tar"))
    assert forced.returncode == 0, forced.stderr
    assert fresh.query("SELECT COUNT(*) FROM collect_message") == [(Message.objects.count(),)]
