"""`manage.py restore IN.tar [--force]`: put a backup made by `manage.py backup` back into the
configured database and var/ (docs/deployment.md#backups). Stop the site's processes first."""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from collect.backup.manifest import BackupError
from collect.backup.service import backup_restore


class Command(BaseCommand):
    help = "Restore a backup into the configured database and var/ (refuses a database holding data without --force)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("backup", type=Path, help="a file written by `manage.py backup`")
        parser.add_argument("--force", action="store_true", help="replace a database that already holds data")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            restored = backup_restore(path=opts["backup"], force=opts["force"])
        except BackupError as error:
            raise CommandError(str(error)) from error
        manifest = restored.manifest
        self.stdout.write(
            self.style.SUCCESS(
                f"restored {opts['backup']} (made {manifest.created}, code {manifest.versions.get('groundwork', '?')[:12]}): "
                f"{manifest.engine} database, {len(manifest.files) - 1} file(s) into var/"
            )
        )
        for note in restored.notes:
            self.stdout.write(self.style.WARNING(note))
        self.stdout.write("restart the site's processes so that they read the restored data")
