"""`manage.py rank_models FILE [--json] [--question Q] [--models M ...]`: a Bradley–Terry leaderboard with
bootstrap intervals from a JSON Lines file of {"model_a", "model_b", "winner": "model_a"|"model_b"|"tie"}
(see annotate.kinds.pairwise.evaluation.bradley_terry and .judgments). Lines with "counted": false are
left out; a file whose lines name more than one "question" gets one leaderboard per question. Models
never compared with each other, directly or through others, are ranked in separate groups, and the
output says which judgments would connect them (annotate.kinds.pairwise.evaluation.groups)."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from collections import defaultdict
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotate.kinds.pairwise.evaluation.bradley_terry import DEFAULT_PRIOR, MIN_BATTLES, interval_text, leaderboard, rank_text
from annotate.kinds.pairwise.evaluation.groups import connecting_pairs, group_summary, groups_notes
from annotate.kinds.pairwise.evaluation.judgments import JudgmentFileError, parse_judgments_by_question


class Command(BaseCommand):
    help = "Rank models from pairwise judgments (Bradley–Terry, Elo-like scale, 95% bootstrap intervals)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("file", type=Path, help="JSON Lines: one {model_a, model_b, winner} per line")
        parser.add_argument(
            "--json", action="store_true", help="print {\"models\": {name: {score, lo, hi, rank, battles, group, unbounded}}, \"groups\", \"connect\"}"
        )
        parser.add_argument("--models", nargs="+", metavar="NAME", help="the models expected: a line naming another is refused")
        parser.add_argument("--question", help="rank only the judgments of this question (the lines' \"question\")")
        parser.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds (0: no intervals)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--prior", type=float, default=DEFAULT_PRIOR, help="virtual ties between every two models")
        parser.add_argument(
            "--min-battles", type=int, default=MIN_BATTLES, help="judgments a model needs before it gets an interval and a rank"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["rounds"] < 0 or opts["prior"] < 0 or opts["min_battles"] < 1:
            raise CommandError("--rounds and --prior must not be negative, and --min-battles must be at least 1")
        groups = self._groups(opts["file"], opts["question"], opts["models"])
        boards = {}
        for question, judgments in groups.items():
            try:
                boards[question] = leaderboard(
                    judgments, rounds=opts["rounds"], seed=opts["seed"], prior=opts["prior"], min_battles=opts["min_battles"]
                )
            except ValueError as error:
                where = f"question {question!r}: " if question else ""
                raise CommandError(f"{where}{error}") from None
        unjudged = {q: sorted(set(opts["models"] or ()) - set(b)) for q, b in boards.items()}
        if opts["json"]:
            shown = {
                q: {"models": b, "groups": group_summary(b), "connect": connecting_pairs(b), "unjudged": unjudged[q]}
                for q, b in boards.items()
            }
            if len(shown) == 1:
                ((question, board),) = shown.items()
                self.stdout.write(json.dumps({"question": question, **board}, indent=2))
            else:
                self.stdout.write(json.dumps({"questions": shown}, indent=2))
            return
        for question, board in boards.items():
            if len(boards) > 1:
                self.stdout.write(f"question: {question}")
            self._table(board, opts)
            if unjudged[question]:
                self.stdout.write(
                    f"Given but never judged (not on the leaderboard; judge each against any model): {', '.join(unjudged[question])}"
                )

    def _groups(self, path: Path, wanted: str | None, models: list[str] | None) -> dict[str | None, list[tuple[str, str, str]]]:
        if models is not None and len(set(models)) < 2:
            raise CommandError("--models must name at least two models")
        try:
            with path.open(encoding="utf-8") as handle:
                records = parse_judgments_by_question(handle, models=set(models) if models else None)
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror or error}") from None
        except UnicodeDecodeError as error:
            raise CommandError(f"{path} is not UTF-8 text: {error}") from None
        except JudgmentFileError as error:
            raise CommandError(f"{path}: {error}") from None
        groups: dict[str | None, list[tuple[str, str, str]]] = defaultdict(list)
        for question, triple in records:
            groups[question].append(triple)
        if wanted is not None:
            if wanted not in groups:
                named = ", ".join(sorted(q for q in groups if q)) or "none"
                raise CommandError(f"{path}: no counted judgment has question {wanted!r} (questions in the file: {named})")
            return {wanted: groups[wanted]}
        if len(groups) > 1 and None in groups:
            raise CommandError(f"{path}: some lines name a question and {len(groups[None])} do not: give every line one, or none")
        return dict(sorted(groups.items(), key=lambda item: item[0] or ""))

    def _table(self, board: dict[str, dict[str, Any]], opts: dict[str, Any]) -> None:
        groups = group_summary(board)
        for group in groups:
            if len(groups) > 1:
                self.stdout.write(f"group {group['group']}: {', '.join(group['models'])} ({group['judgments']} judgments)")
            self.stdout.write(f"{'rank':>4}  {'model':<30} {'score':>8}  {'95% interval':>17}  {'battles':>8}")
            for name, row in board.items():
                if row["group"] == group["group"]:
                    self.stdout.write(f"{rank_text(row):>4}  {name:<30} {row['score']:>8.1f}  {interval_text(row):>17}  {row['battles']:>8}")
        if any(row["rank"] is None and not row["unbounded"] for row in board.values()):
            reason = "no bootstrap rounds" if not opts["rounds"] else f"fewer than {opts['min_battles']} judgments"
            self.stdout.write(f"(–: no interval and no rank: {reason}; the score is provisional)")
        for note in groups_notes(board):
            self.stdout.write(note)
