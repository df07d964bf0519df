"""`manage.py import_dataset <dataset> FILE`: load a dataset file (SCHEMAS.md) into Groundwork.

An importer is a function `import_file(path, options) -> summary dict`, registered here by dataset
name (dotted path, imported on use). It raises ValueError naming the record at fault and stores
nothing when it does. Adding a dataset is one more line in IMPORTERS and one more module.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any, Callable

from django.core.management.base import BaseCommand, CommandError
from django.utils.module_loading import import_string

IMPORTERS: dict[str, str] = {
    # An annotated WOW++ file: a finished relevance job (or gold / qualification items with --role).
    "wowpp": "annotate.importers.wowpp.import_file",
    # Curiosity dialogs to label with dialog acts (or, with --role gold, their acts as known answers).
    "curiosity-acts": "annotate.importers.curiosity.import_file",
    # Curiosity dialogs (+ their fact db) as complete rooms, to be annotated and exported again.
    "curiosity": "collect.importers.curiosity.import_file",
    # Wizard of Wikipedia dialogues: one relevance item per wizard turn, to be labeled.
    "wow-relevance": "annotate.importers.wow.import_file",
    # WoW personas with their linked topics, for a campaign (--campaign); topics must be articles.
    "personas": "collect.importers.personas.import_file",
    # DuConv sessions as complete rooms (agent = even turns), their triples as the campaign's graph.
    "duconv": "collect.importers.duconv.import_file",
    # Conversations with a model name each: a pairwise (ACUTE-Eval) job (or known-answer pairs with --role).
    "pairwise": "annotate.importers.pairwise.import_file",
}

Importer = Callable[[Path, dict[str, Any]], dict[str, Any]]


class Command(BaseCommand):
    help = "Import a dataset file, e.g. a WOW++ file as a finished relevance annotation job."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("dataset", help=f"the file's format: {', '.join(sorted(IMPORTERS))}")
        parser.add_argument("file", type=Path)
        parser.add_argument("--job", default="", metavar="SLUG", help="job to create or fill (default: from the file name)")
        parser.add_argument("--name", default="", help="the new job's name")
        parser.add_argument(
            "--role",
            default="task",
            choices=["task", "gold", "qualification"],
            help="task: items to label (WOW++: a finished job); gold/qualification: the file's labels are known answers",
        )
        parser.add_argument("--overlap", type=int, default=None, help="annotators per item for a new job")
        parser.add_argument("--annotators", type=int, default=None,
                            help="WOW++: annotators behind each confidence (10) where it fits; else inferred per context")
        parser.add_argument("--threshold", type=float, default=None, help="WOW++: relevance threshold of the file (0.6)")
        parser.add_argument("--facts", type=Path, default=None, help="Curiosity: the fact db (wiki_sql.sqlite.db) of the file")
        parser.add_argument("--campaign", default="", metavar="SLUG", help="personas: the campaign they belong to")
        parser.add_argument("--question", default="", help="pairwise: engaging, interesting, humanlike or knowledgeable")
        parser.add_argument(
            "--split",
            default=None,
            help="curiosity, duconv: the split these dialogues belong to, where the file name does not say it; "
            "'hash' lets every export split them by hash instead (a re-split, only when asked)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            importer: Importer = import_string(IMPORTERS[opts["dataset"]])
        except KeyError:
            raise CommandError(f"unknown dataset {opts['dataset']!r}; choose one of: {', '.join(sorted(IMPORTERS))}") from None
        keys = ("job", "name", "role", "overlap", "annotators", "threshold", "facts", "campaign", "question", "split")
        options = {key: opts[key] for key in keys}
        try:
            summary = importer(opts["file"], options)
        except ValueError as error:
            raise CommandError(str(error)) from error
        for key, value in summary.items():
            self.stdout.write(f"{key:<10} {value}")
        self.stdout.write(self.style.SUCCESS(f"imported {opts['dataset']} from {opts['file']}"))
