"""What a backup says about itself (manifest.json), and the checks a restore makes against it."""

from __future__ import annotations

import platform
import sqlite3
import subprocess
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import django
from django.conf import settings
from django.db import connection
from django.db.migrations.loader import MigrationLoader

FORMAT = "groundwork-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"


class BackupError(Exception):
    """A backup that cannot be made or restored; says why. Nothing has been written when raised."""


@dataclass
class Manifest:
    engine: str  # "sqlite" or "postgresql": a backup restores into the same kind of database
    database: str  # the database member of the tar
    migrations: list[list[str]]  # [app, name] applied in the backed-up database, sorted
    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # tar member -> {size, sha256}
    created: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    format: str = FORMAT
    format_version: int = FORMAT_VERSION

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Manifest:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BackupError("not a Groundwork backup: its manifest.json does not name the format")
        if data.get("format_version") != FORMAT_VERSION:
            raise BackupError(
                f"backup format version {data.get('format_version')!r}; this code reads version {FORMAT_VERSION}"
            )
        try:
            manifest = cls(**{name: data[name] for name in cls.__dataclass_fields__})
        except KeyError as missing:
            raise BackupError(f"the manifest lacks {missing}") from None
        pairs = isinstance(manifest.migrations, list) and all(
            isinstance(m, list) and len(m) == 2 and all(isinstance(part, str) for part in m) for m in manifest.migrations
        )
        described = isinstance(manifest.files, dict) and all(
            isinstance(f, dict) and isinstance(f.get("sha256"), str) and isinstance(f.get("size"), int)
            for f in manifest.files.values()
        )
        if not pairs or not described:
            raise BackupError("the manifest's migrations or files are not in the expected form")
        return manifest


def engine_name() -> str:
    vendor = connection.vendor
    if vendor not in ("sqlite", "postgresql"):
        raise BackupError(f"backups support SQLite and PostgreSQL, not {vendor}")
    return vendor


def now_utc() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def code_revision() -> str:
    """The git commit of the code that made the backup, where the code is a git checkout."""
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return result.stdout.strip() if result.returncode == 0 else "unknown"


def versions(extra: dict[str, str]) -> dict[str, str]:
    return {
        "groundwork": code_revision(),
        "django": django.get_version(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        **extra,
    }


def known_migrations() -> set[tuple[str, str]]:
    """Every migration this code has on disk."""
    return set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)


def migrations_check(manifest: Manifest) -> None:
    """A backup made by newer code (migrations this code lacks) would restore a schema this code
    does not know: refused. An older one restores, and `manage.py migrate` brings it up to date."""
    unknown = sorted({(app, name) for app, name in manifest.migrations} - known_migrations())
    if unknown:
        listed = ", ".join(f"{app}.{name}" for app, name in unknown[:5])
        raise BackupError(
            f"the backup's database has {len(unknown)} migration(s) this code does not have ({listed}): "
            "restore it with the code that made it (see the manifest's versions)"
        )


def sqlite_migrations(path: Path) -> list[list[str]]:
    with sqlite3.connect(path) as copy:
        rows = copy.execute("SELECT app, name FROM django_migrations ORDER BY app, name").fetchall()
    copy.close()
    return [list(row) for row in rows]


def live_migrations() -> list[list[str]]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT app, name FROM django_migrations ORDER BY app, name")
        return [list(row) for row in cursor.fetchall()]
