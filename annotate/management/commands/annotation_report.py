"""`manage.py annotation_report JOB [--json]`: items, answers, agreement, labels and annotators."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotate.models import Job
from annotate.registry import annotation_kind
from annotate.selectors.report import annotation_report, figure_text as _fmt


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
        kind = annotation_kind(job.kind)
        for line in kind.part("report_lines")(report) if kind.report_lines else []:
            self.stdout.write(line)
        for row in report["annotators"]:
            flag = "FLAGGED " + "; ".join(row["reasons"]) if row["flagged"] else ""
            self.stdout.write(
                f"annotator   {row['worker']:<16} answers {row['answers']:>4}  gold {_fmt(row['gold_score']):>5}  "
                f"majority {_fmt(row['majority_agreement']):>5}  {flag}"
            )
