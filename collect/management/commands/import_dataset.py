"""`manage.py import_dataset <dataset> FILE`: load a dataset file (docs/schemas.md) into Groundwork.

An importer is a function `import_file(path, options) -> summary dict` that the task type or
annotation kind owning the dataset registers (collect.registry). It raises ValueError naming the
record, line and field at fault, and stores nothing when it does.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from collect import registry


class Command(BaseCommand):
    help = "Import a dataset file, e.g. dialogues as complete rooms, or a relevance file as a finished annotation job."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("dataset", help=f"the file's format: {', '.join(registry.dataset_names(imported=True))}")
        parser.add_argument("file", type=Path)
        parser.add_argument("--job", default="", metavar="SLUG", help="job to create or fill (default: from the file name)")
        parser.add_argument("--name", default="", help="the new job's name")
        parser.add_argument(
            "--role",
            default="task",
            choices=["task", "gold", "qualification"],
            help="task: items to label (a file of finished labels: a finished job); gold/qualification: the file's labels are known answers",
        )
        parser.add_argument("--overlap", type=int, default=None, help="annotators per item for a new job")
        parser.add_argument("--annotators", type=int, default=None,
                            help="relevance files: annotators behind each confidence (10) where it fits; else inferred per context")
        parser.add_argument("--threshold", type=float, default=None, help="relevance files: the relevance threshold of the file (0.6)")
        parser.add_argument("--facts", type=Path, default=None, help="the fact database (SQLite) the file's dialogs refer to")
        parser.add_argument("--campaign", default="", metavar="SLUG", help="personas: the campaign they belong to")
        parser.add_argument("--question", default="", help="pairwise: engaging, interesting, humanlike or knowledgeable")
        parser.add_argument(
            "--split",
            default=None,
            help="dialogue files: the split these dialogues belong to, where the file name does not say it; "
            "'hash' lets every export split them by hash instead (a re-split, only when asked)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            importer = registry.dataset(opts["dataset"]).importer()
        except ValueError:
            importer = None
        if importer is None:
            known = ", ".join(registry.dataset_names(imported=True))
            raise CommandError(f"unknown dataset {opts['dataset']!r}; choose one of: {known}")
        keys = ("job", "name", "role", "overlap", "annotators", "threshold", "facts", "campaign", "question", "split")
        options = {key: opts[key] for key in keys}
        try:
            summary = importer(opts["file"], options)
        except ValueError as error:
            raise CommandError(str(error)) from error
        for key, value in summary.items():
            self.stdout.write(f"{key:<10} {value}")
        self.stdout.write(self.style.SUCCESS(f"imported {opts['dataset']} from {opts['file']}"))
        # Where the rows went, and the export that reads them back: other campaigns of the same
        # dataset (the demo's) may use other knowledge, so the export needs the slug.
        if summary.get("campaign"):
            slug = summary["campaign"]
            self.stdout.write(f"into campaign {slug}: export it with `manage.py export_dataset {opts['dataset']} --campaign {slug} --out DIR`")
        elif summary.get("job"):
            self.stdout.write(f"into annotation job {summary['job']}: its report is `manage.py annotation_report {summary['job']}`")
