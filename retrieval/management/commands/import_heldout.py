"""python manage.py import_heldout FILE      # a WOW++ file becomes the retraining gate's held-out set
python manage.py import_heldout --remove    # back to the collection's own held-out share
python manage.py import_heldout --show      # which held-out set the next retraining scores on"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from retrieval.training.heldout import HeldoutError, heldout_import, heldout_remove
from retrieval.training.history import heldout_overview


class Command(BaseCommand):
    help = ("Make a WOW++ file (the WOW++ release's format, or a relevance job's export) the held-out set the ranker's "
            "retraining is scored on, kept under GROUNDWORK_RANKER_DIR; without one, a share of the collection is held out.")

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("file", nargs="?", type=Path, help="the WOW++ file to import")
        parser.add_argument("--remove", action="store_true", help="remove the imported file: the collection's own share gates")
        parser.add_argument("--show", action="store_true", help="say which held-out set the next retraining scores on")

    def handle(self, *args: Any, **options: Any) -> None:
        if sum((options["file"] is not None, options["remove"], options["show"])) != 1:
            raise CommandError("give one of: FILE, --remove, --show")
        if options["file"] is not None:
            try:
                held = heldout_import(options["file"])
            except HeldoutError as error:
                raise CommandError(f"{error}; nothing was imported") from None
            self.stdout.write(f"imported {len(held.contexts)} contexts with a relevant sentence into {held.file}")
        elif options["remove"]:
            self.stdout.write("removed the imported held-out file" if heldout_remove() else "no held-out file was imported")
        if options["show"] or options["remove"]:
            self.stdout.write(_described(heldout_overview()))


def _described(overview: dict[str, Any]) -> str:
    if overview["error"]:
        return f"no held-out set: {overview['error']}"
    if overview["source"] == "file":
        return f"held-out set: {overview['file']} ({overview['contexts']} contexts, imported {overview['imported_at']})"
    state = "gates" if overview["ready"] else f"no held-out set yet: it gates from {overview['needed']}"
    return (f"held-out set: the collection's own share ({overview['percent']}% of the rooms and relevance items, by hash), "
            f"{overview['contexts']} contexts with a checked sentence; {state}")
