"""`manage.py backup` / `manage.py restore`: a backup of a site holding every kind of dataset,
restored into a new database (SQLite in the embedded pass, a second PostgreSQL database in the
services pass) and a new var/, exports byte-identical files; restore refuses what it must."""

from __future__ import annotations

import io
import json
import os
import re
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
from tests.conftest import import_articles
from tests.factories import make_campaign, make_room

pytestmark = [pytest.mark.backends, pytest.mark.django_db(transaction=True)]
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


def index_files(index_dir: Path, slug: str) -> dict[str, bytes]:
    build = (index_dir / slug).resolve(strict=True)
    return {path.name: path.read_bytes() for path in sorted(build.iterdir()) if path.is_file()}


def test_a_restored_backup_exports_byte_identical_files(var: Path, fresh: FreshSite, tmp_path: Path) -> None:
    site_fill(tmp_path / "inputs")
    import_articles(tmp_path, "bk-articles")
    index = index_files(var / "indexes", "bk-articles")
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
    assert index_files(fresh.var / "indexes", "bk-articles") == index
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


def test_every_message_acknowledged_before_the_backup_started_is_in_it(var: Path, fresh: FreshSite, tmp_path: Path) -> None:
    """Messages keep being posted (and acknowledged: message_post returns after the commit) while
    the backup runs; the backup is one consistent moment that holds all those acknowledged first."""
    room = make_room(make_campaign(turn_limit=10_000))
    seats = {a.role: a for a in room.members.all()}
    acknowledged: list[int] = []
    stop = threading.Event()
    failures: list[BaseException] = []

    def chat() -> None:
        try:
            n = 0
            while not stop.is_set():
                role = ("wizard", "apprentice")[n % 2]
                frame = {"type": "message", "client_id": f"c{n}", "text": f"message {n}", "checked": {"no_passages_used": True}}
                posted = rooms.message_post(room_id=room.pk, assignment=seats[role], client_id=f"c{n}", text=f"message {n}", frame=frame)
                acknowledged.append(posted.message.seq)
                n += 1
        except BaseException as error:  # noqa: BLE001 - reported by the test below
            failures.append(error)
        finally:
            close_old_connections()
            connection.close()

    poster = threading.Thread(target=chat)
    poster.start()
    try:
        deadline = time.monotonic() + 120
        while len(acknowledged) < 30:
            assert not failures and time.monotonic() < deadline, failures or "the poster never got going"
            time.sleep(0.01)
        before = list(acknowledged)
        call_command("backup", str(tmp_path / "live.tar"), stdout=open(os.devnull, "w"))
        during = len(acknowledged) - len(before)
        # The chat goes on after the backup: what is posted now is not in it.
        while len(acknowledged) < len(before) + during + 5:
            assert not failures and time.monotonic() < deadline, failures or "the poster stopped"
            time.sleep(0.01)
    finally:
        stop.set()
        poster.join(60)
    assert not failures, failures
    restored = fresh.manage("restore", str(tmp_path / "live.tar"))
    assert restored.returncode == 0, restored.stderr
    seqs = [seq for (seq,) in fresh.query(f"SELECT seq FROM collect_message WHERE room_id = '{room.pk.hex if connection.vendor == 'sqlite' else room.pk}' ORDER BY seq")]
    assert set(before) <= set(seqs)
    assert seqs == list(range(1, len(seqs) + 1))  # one moment: no message missing before the last
    assert len(seqs) < len(acknowledged)  # the backup did not wait for the chat to stop


def test_restore_refuses_a_damaged_backup_and_writes_nothing(var: Path, fresh: FreshSite, tmp_path: Path) -> None:
    make_room(make_campaign())
    call_command("backup", str(tmp_path / "site.tar"), stdout=open(os.devnull, "w"))
    data = bytearray((tmp_path / "site.tar").read_bytes())
    with tarfile.open(tmp_path / "site.tar") as tar:
        database = next(m for m in tar.getmembers() if m.name.startswith("database."))
    data[database.offset_data + database.size // 2] ^= 0xFF
    (tmp_path / "damaged.tar").write_bytes(bytes(data))
    refused = fresh.manage("restore", str(tmp_path / "damaged.tar"))
    assert refused.returncode != 0 and "does not match its checksum" in refused.stderr
    assert fresh.query("SELECT COUNT(*) FROM " + ("sqlite_master" if connection.vendor == "sqlite" else "pg_tables WHERE schemaname = 'public'")) == [(0,)]


def rewrite_manifest(source: Path, target: Path, change) -> None:
    with tarfile.open(source) as old, tarfile.open(target, "w") as new:
        for member in old.getmembers():
            data = old.extractfile(member).read()
            if member.name == MANIFEST:
                manifest = json.loads(data)
                change(manifest)
                data = json.dumps(manifest).encode()
                member.size = len(data)
            new.addfile(member, io.BytesIO(data))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.update(engine="postgresql" if m["engine"] == "sqlite" else "sqlite"), "backup and the configured database is"),
        (lambda m: m["migrations"].append(["collect", "9999_from_the_future"]), "this code does not have (collect.9999_from_the_future)"),
        (lambda m: m.update(format_version=99), "backup format version 99"),
        (lambda m: m.update(format="other"), "not a Groundwork backup"),
        (lambda m: m.update(migrations="all of them"), "not in the expected form"),
    ],
)
def test_restore_checks_the_manifest(var: Path, fresh: FreshSite, tmp_path: Path, change, message: str) -> None:
    make_room(make_campaign())
    call_command("backup", str(tmp_path / "site.tar"), stdout=open(os.devnull, "w"))
    rewrite_manifest(tmp_path / "site.tar", tmp_path / "changed.tar", change)
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("restore", "--force", str(tmp_path / "changed.tar"))
    refused = fresh.manage("restore", str(tmp_path / "changed.tar"))
    assert refused.returncode != 0 and message in refused.stderr
