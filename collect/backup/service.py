"""backup_create and backup_restore: the whole site into one tar file and back."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from collect.backup import database
from collect.backup.files import files_restore, files_to_back_up, kept_folders_restored, member_path
from collect.backup.manifest import (
    MANIFEST,
    BackupError,
    Manifest,
    engine_name,
    known_migrations,
    live_migrations,
    migrations_check,
    now_utc,
    sqlite_migrations,
    versions,
)


@dataclass
class Restored:
    manifest: Manifest
    notes: list[str] = field(default_factory=list)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _describe(path: Path) -> dict[str, object]:
    return {"size": path.stat().st_size, "sha256": _sha256(path)}


def backup_create(*, out: Path) -> Manifest:
    """Write a backup of the configured database and var/ files to `out` (replaced only once the
    new file is complete)."""
    engine = engine_name()
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".backup-", dir=out.parent) as work:
        dump = Path(work) / database.member_for(engine)
        if engine == "sqlite":
            database.sqlite_dump(dump)
            applied = sqlite_migrations(dump)  # from the copy itself: the state it restores to
            extra = {}
        else:
            applied = live_migrations()
            database.postgres_dump(dump)
            extra = {"pg_dump": database.pg_tool_version(), "postgresql_server": database.pg_server_version()}
        members = [(dump.name, dump), *files_to_back_up()]
        manifest = Manifest(
            engine=engine,
            database=dump.name,
            migrations=applied,
            files={name: _describe(path) for name, path in members},
            created=now_utc(),
            versions=versions(extra),
        )
        partial = Path(work) / "backup.tar"
        with tarfile.open(partial, "w") as tar:
            data = json.dumps(manifest.to_json(), indent=1, sort_keys=True).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size, info.mode = len(data), 0o600
            tar.addfile(info, io.BytesIO(data))  # first, so that a restore reads it before the rest
            for name, path in members:
                tar.add(path, arcname=name, recursive=False)
        os.chmod(partial, 0o600)  # it may hold the secret key and every worker's data
        os.replace(partial, out)
    return manifest


def manifest_read(path: Path) -> Manifest:
    try:
        with tarfile.open(path, "r") as tar:
            member = tar.next()
            if member is None or member.name != MANIFEST or not member.isfile():
                raise BackupError(f"{path}: not a Groundwork backup (its first file is not {MANIFEST})")
            return Manifest.from_json(json.load(tar.extractfile(member)))
    except (OSError, tarfile.TarError, json.JSONDecodeError) as error:
        raise BackupError(f"{path}: cannot read it as a backup: {error}") from error


def _stage(path: Path, manifest: Manifest, staged: Path) -> None:
    """Extract every file the manifest lists into `staged`, checking its size and checksum; a
    file the manifest does not list, or one missing, fails the restore before anything is written."""
    seen: set[str] = set()
    with tarfile.open(path, "r") as tar:
        for member in tar:
            if member.name == MANIFEST:
                continue
            expected = manifest.files.get(member.name)
            if expected is None or not member.isfile() or member.name in seen:
                raise BackupError(f"{path}: unexpected entry {member.name!r}")
            if member.name != manifest.database:
                member_path(member.name)
            target = staged / member.name
            target.parent.mkdir(parents=True, exist_ok=True)
            digest = hashlib.sha256()
            with tar.extractfile(member) as source, target.open("wb") as copy:
                for block in iter(lambda: source.read(1 << 20), b""):
                    digest.update(block)
                    copy.write(block)
            if digest.hexdigest() != expected["sha256"] or target.stat().st_size != expected["size"]:
                raise BackupError(f"{path}: {member.name} does not match its checksum: the backup is damaged")
            seen.add(member.name)
    missing = sorted(set(manifest.files) - seen)
    if missing:
        raise BackupError(f"{path}: the backup lacks {', '.join(missing[:5])}: it is incomplete")


def backup_restore(*, path: Path, force: bool = False) -> Restored:
    """Restore a backup into the configured database and var/. Refuses a database that already
    holds data unless `force`, a backup of the other database engine, and one made by newer code."""
    manifest = manifest_read(path)
    engine = engine_name()
    if manifest.engine != engine:
        raise BackupError(f"this is a {manifest.engine} backup and the configured database is {engine}")
    if manifest.database != database.member_for(engine) or manifest.database not in manifest.files:
        raise BackupError(f"the manifest names no {engine} database")
    migrations_check(manifest)
    if not force and database.database_has_data():
        raise BackupError(
            "the configured database already holds data; restoring replaces all of it: "
            "give --force to do so (back it up first)"
        )
    with tempfile.TemporaryDirectory(prefix=".restore-") as work:
        staged = Path(work)
        _stage(path, manifest, staged)
        if engine == "sqlite":
            database.sqlite_load(staged / manifest.database)
        else:
            database.postgres_load(staged / manifest.database)
        notes = files_restore(staged, [name for name in manifest.files if name != manifest.database])
    kept_folders_restored()
    applied = live_migrations()
    if applied != manifest.migrations:
        raise BackupError("the restored database's migrations differ from the manifest's: the restore went wrong")
    if known_migrations() - {(app, name) for app, name in applied}:
        notes.append("the backup was made by older code: run `manage.py migrate` before serving")
    return Restored(manifest=manifest, notes=notes)
