"""`manage.py export_dataset <dataset> --out DIR`: write collected dialogues in a dataset's original
format (docs/schemas.md), or with `--format hf` as a Hugging Face `datasets` folder with its dataset
card (collect/exporters/hf.py, docs/datasets.md). Datasets are the names their task types register
(collect.registry)."""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from collect.exporters import ExportError, ExportOptions, export_dataset, exported_datasets


class Command(BaseCommand):
    help = "Export collected dialogues as dataset files (e.g. the Wizard of Wikipedia splits)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("dataset", help=f"which dataset format to write: {', '.join(exported_datasets())}")
        parser.add_argument("--out", required=True, type=Path, help="folder for the files (created if missing)")
        parser.add_argument(
            "--format", choices=("json", "hf"), default="json",
            help="json: the dataset's original files; hf: a Hugging Face datasets folder (Parquet, dataset card)",
        )
        parser.add_argument(
            "--campaign",
            dest="campaigns",
            action="extend",
            nargs="+",
            default=[],
            metavar="SLUG",
            help="only these campaigns (repeatable); default: all campaigns of the dataset's task type",
        )
        parser.add_argument("--include-incomplete", action="store_true", help="also rooms that ended early")
        parser.add_argument(
            "--include-partial", action="store_true", help="annotation datasets: also items with only some of their votes (marked partial)"
        )
        parser.add_argument("--job", default="", metavar="SLUG", help="annotation job to export (datasets written from a job)")
        parser.add_argument("--seed", type=int, default=0, help="split seed: same seed, same files")
        defaults = ExportOptions()
        parser.add_argument(
            "--holdout-topics", type=float, default=defaults.holdout_topics, help="share of topics held out (unseen)"
        )
        parser.add_argument("--valid", type=float, default=defaults.valid, help="share of seen-topic rooms in valid")
        parser.add_argument("--test", type=float, default=defaults.test, help="share of seen-topic rooms in test")
        parser.add_argument("--samples", action="store_true", help="datasets with a test format: its samples, one per turn to answer, instead of whole dialogues")
        parser.add_argument("--segment", action="store_true", help="datasets of segmented text (Chinese): word-segment collected utterances (jieba)")
        parser.add_argument(
            "--authenticity", action="store_true",
            help="each human turn also carries an `authenticity` object (docs/authenticity.md); off: the original schema",
        )
        parser.add_argument("--chunk-size", type=int, default=defaults.chunk_size, help="rooms read per query")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            options = ExportOptions(
                campaigns=tuple(opts["campaigns"]),
                include_incomplete=opts["include_incomplete"],
                include_partial=opts["include_partial"],
                seed=opts["seed"],
                holdout_topics=opts["holdout_topics"],
                valid=opts["valid"],
                test=opts["test"],
                chunk_size=opts["chunk_size"],
                job=opts["job"],
                samples=opts["samples"],
                segment=opts["segment"],
                authenticity=opts["authenticity"],
            )
            if opts["format"] == "hf":
                from collect.exporters.hf import export_hf  # imports `datasets`: only when asked

                result = export_hf(opts["dataset"], opts["out"], options)
            else:
                result = export_dataset(opts["dataset"], opts["out"], options)
        except ExportError as error:
            raise CommandError(str(error)) from error

        width = max(len(name) for name in [*result.counts, "total"])
        for name, count in result.counts.items():
            self.stdout.write(f"{name:<{width}}  {count:>7}")
        self.stdout.write(f"{'total':<{width}}  {result.total:>7}")
        if result.skipped_empty:
            self.stdout.write(f"skipped {result.skipped_empty} room(s) without messages")
        for note in result.notes:
            self.stdout.write(self.style.WARNING(note))
        self.stdout.write(self.style.SUCCESS(f"wrote {opts['dataset']} ({opts['format']}) to {opts['out']}"))
