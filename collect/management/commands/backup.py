"""`manage.py backup OUT.tar`: the database (SQLite or PostgreSQL, whichever is configured) and the
var/ files it needs, in one file with a manifest (docs/deployment.md#backups)."""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from collect.backup.manifest import BackupError
from collect.backup.service import backup_create


class Command(BaseCommand):
    help = "Back up the database and the var/ files it needs into one tar file."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("out", type=Path, help="the backup file to write (e.g. backups/groundwork-2026-11-25.tar)")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            manifest = backup_create(out=opts["out"])
        except BackupError as error:
            raise CommandError(str(error)) from error
        size = sum(int(f["size"]) for f in manifest.files.values())
        self.stdout.write(
            self.style.SUCCESS(
                f"wrote {opts['out']}: {manifest.engine} database, {len(manifest.files) - 1} file(s) from var/, "
                f"{size / 1e6:.1f} MB"
            )
        )
