"""`manage.py rank_models FILE [--json]`: a Bradley–Terry leaderboard with bootstrap intervals from a
JSON Lines file of {"model_a", "model_b", "winner": "model_a"|"model_b"|"tie"} (see
annotate.evaluation.bradley_terry)."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotate.evaluation.bradley_terry import DEFAULT_PRIOR, leaderboard
from annotate.evaluation.judgments import JudgmentFileError, parse_judgments


class Command(BaseCommand):
    help = "Rank models from pairwise judgments (Bradley–Terry, Elo-like scale, 95% bootstrap intervals)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("file", type=Path, help="JSON Lines: one {model_a, model_b, winner} per line")
        parser.add_argument("--json", action="store_true", help="print {\"models\": {name: {score, lo, hi, rank, battles}}}")
        parser.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds (0: no intervals)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--prior", type=float, default=DEFAULT_PRIOR, help="virtual ties between every two models")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["rounds"] < 0 or opts["prior"] < 0:
            raise CommandError("--rounds and --prior must not be negative")
        try:
            with opts["file"].open(encoding="utf-8") as handle:
                judgments = parse_judgments(handle)
        except OSError as error:
            raise CommandError(f"cannot read {opts['file']}: {error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise CommandError(f"{opts['file']} is not UTF-8 text: {error}") from None
        except JudgmentFileError as error:
            raise CommandError(f"{opts['file']}: {error}") from None
        try:
            board = leaderboard(judgments, rounds=opts["rounds"], seed=opts["seed"], prior=opts["prior"])
        except ValueError as error:
            raise CommandError(str(error)) from None
        if opts["json"]:
            self.stdout.write(json.dumps({"models": board}, indent=2))
            return
        self.stdout.write(f"{'rank':>4}  {'model':<30} {'score':>8}  {'95% interval':>17}  {'battles':>8}")
        for name, row in board.items():
            interval = f"{row['lo']:.0f} – {row['hi']:.0f}"
            self.stdout.write(f"{row['rank']:>4}  {name:<30} {row['score']:>8.1f}  {interval:>17}  {row['battles']:>8}")
