"""`manage.py eval_responses --format duconv PAIRS [--json]`: a competition's automatic metrics over
a file of `prediction \\t gold` lines (see collect/tasktypes/duconv/metrics.py for exactly how)."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any, Callable

from django.core.management.base import BaseCommand, CommandError
from django.utils.module_loading import import_string

FORMATS: dict[str, str] = {"duconv": "collect.tasktypes.duconv.metrics.duconv_metrics"}


class Command(BaseCommand):
    help = "Score predicted responses against gold ones with a dataset's official metrics."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("pairs", type=Path, help="UTF-8 file of `prediction<TAB>gold` lines")
        parser.add_argument("--format", required=True, choices=sorted(FORMATS))
        parser.add_argument("--json", action="store_true", help="print one JSON object instead of the script's lines")

    def handle(self, *args: Any, **opts: Any) -> None:
        path: Path = opts["pairs"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        metric: Callable[..., dict[str, Any]] = import_string(FORMATS[opts["format"]])
        try:
            with path.open(encoding="utf-8", newline="") as handle:
                result = metric(handle)
        except UnicodeDecodeError as error:
            raise CommandError(f"{path}: not valid UTF-8 ({error.reason} at byte {error.start})") from error
        if result["n"] == 0:
            raise CommandError(f"{path}: no `prediction<TAB>gold` line with both sides non-empty")
        if opts["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
            return
        # The official script's own layout (BLEU and DISTINCT are fractions despite the "%").
        self.stdout.write(f"F1: {result['F1'] * 100:.2f}%")
        for key in ("BLEU1", "BLEU2", "DISTINCT1", "DISTINCT2"):
            self.stdout.write(f"{key}: {result[key]:.3f}%")
        self.stdout.write(f"n: {result['n']}")
