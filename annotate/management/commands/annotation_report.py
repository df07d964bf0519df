"""`manage.py annotation_report JOB [--json]`: items, answers, agreement, labels and annotators."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotate.evaluation.bradley_terry import interval_text, rank_text
from annotate.models import Job
from annotate.selectors.report import annotation_report


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


class Command(BaseCommand):
    help = "Report an annotation job: progress, agreement (Fleiss' kappa / Krippendorff's alpha), labels, annotators."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("job", help="the job's slug")
        parser.add_argument("--json", action="store_true", help="print the whole report as JSON")

    def handle(self, *args: Any, **opts: Any) -> None:
        job = Job.objects.filter(slug=opts["job"]).first()
        if job is None:
            raise CommandError(f"no annotation job {opts['job']!r}")
        report = annotation_report(job=job)
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
            return
        progress = report["progress"]
        self.stdout.write(f"{job.name} ({job.slug}, {job.kind}, {job.overlap} per item)")
        self.stdout.write(f"items       {progress['complete']}/{progress['items']} complete, items by role {report['items']}")
        self.stdout.write(f"answers     {report['answers']}")
        for measure in report["agreements"]:
            self.stdout.write(f"agreement   {measure['measure']} = {_fmt(measure['value'])} over {measure['units']} units")
            if measure.get("unit"):
                self.stdout.write(f"  unit      {measure['unit']}")
            if measure.get("left_out_because"):
                self.stdout.write(f"  left out  {measure['units_left_out']} units: {measure['left_out_because']}")
        if "relevance" in report:
            per_item = report["relevance"]["relevant_per_item"]
            self.stdout.write(
                f"relevant    per item: mean {_fmt(per_item['mean'])}, median {_fmt(per_item['median'])}, "
                f"max {_fmt(per_item['max'])}, none in {per_item['items_with_none']} item(s)"
            )
            self.stdout.write(f"histogram   {per_item['histogram']}")
            if "partial" in report:
                partial = report["partial"]
                per_item = partial["relevance"]["relevant_per_item"]
                self.stdout.write(
                    f"partial     {partial['partial_items']} of {partial['items']} items still voting: "
                    f"{partial['agreement']['measure']} = {_fmt(partial['agreement']['value'])} over "
                    f"{partial['agreement']['units']} units; relevant per item mean {_fmt(per_item['mean'])}"
                )
        elif "pairwise" in report:
            pairwise = report["pairwise"]
            self.stdout.write(f"judgments   {pairwise['judgments']} counted ({pairwise['question']})")
            for row in pairwise["win_rates"]:
                self.stdout.write(
                    f"win rate    {row['model_a']} over {row['model_b']}: {_fmt(row['win_rate'])}"
                    f" ({row['wins']}–{row['losses']}, {row['ties']} ties), binomial p {_fmt(row['p'])}"
                )
            for name, row in pairwise["leaderboard"].items():
                self.stdout.write(
                    f"leaderboard {rank_text(row):>2}. {name:<20} {row['score']:7.1f} [{interval_text(row)}] {row['battles']} judgments"
                )
            for row in pairwise["excluded_annotators"]:
                self.stdout.write(f"excluded    {row['worker']} (check score {_fmt(row['check_score'])})")
        elif "dialog_acts" in report:
            acts = report["dialog_acts"]
            self.stdout.write(f"labels      {acts['messages']} messages in {acts['dialogs']} dialogs; {acts['act_frequency']}")
        for row in report["annotators"]:
            flag = "FLAGGED " + "; ".join(row["reasons"]) if row["flagged"] else ""
            self.stdout.write(
                f"annotator   {row['worker']:<16} answers {row['answers']:>4}  gold {_fmt(row['gold_score']):>5}  "
                f"majority {_fmt(row['majority_agreement']):>5}  {flag}"
            )
