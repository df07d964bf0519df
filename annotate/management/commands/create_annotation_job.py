"""`manage.py create_annotation_job SLUG --kind relevance --campaign C ...`: a job over collected rooms
(`--kind pairwise`: pairs of model-chat conversations for every two models, see services.pairs).

Running it again for an existing job adds the rooms completed since (items are keyed by room/turn)."""

from __future__ import annotations

import secrets
from argparse import ArgumentParser
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import URLValidator

from annotate.models import Job, JobKind
from collect.models import Outcome, Platform
from annotate.services import AnnotationError
from annotate.services.candidates import SOURCES
from annotate.services.controls import CONTROL_GOLD_RATE, job_control_pairs_add
from annotate.services.jobs import job_create, job_items_from_campaigns


class Command(BaseCommand):
    help = "Create (or top up) an annotation job from collected dialogues."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--kind", choices=JobKind.values, required=True)
        parser.add_argument("--campaign", dest="campaigns", action="extend", nargs="+", required=True, metavar="SLUG")
        parser.add_argument("--name", default="")
        parser.add_argument("--instructions", default="")
        parser.add_argument("--overlap", type=int, default=None, help="annotators per item (default 10 relevance, 2 acts)")
        parser.add_argument(
            "--gold-rate", type=float, default=None, help=f"share of served items that are gold (default 0; {CONTROL_GOLD_RATE} with --control-pairs)"
        )
        parser.add_argument(
            "--control-pairs", type=int, default=0, help="pairwise: add this many built-in control pairs (known better vs worse) as gold"
        )
        parser.add_argument(
            "--control-onboarding", type=int, default=0, help="pairwise: this many built-in control pairs first, as qualification items"
        )
        parser.add_argument("--threshold", type=float, default=0.6, help="relevance threshold")
        parser.add_argument("--reservation-seconds", type=int, default=900)
        parser.add_argument(
            "--completion-code", default="", help="shown to annotators once they are done (default: a new random code)"
        )
        parser.add_argument("--no-completion-code", action="store_true", help="show no completion code")
        parser.add_argument("--platform", choices=Platform.values, default=Platform.INHOUSE, help="where annotators come from (default inhouse: signed links)")
        parser.add_argument("--screened-out-code", default="", help="code for annotators screened out by the qualification items (default: a new random code)")
        parser.add_argument("--no-screened-out-code", action="store_true", help="screened-out annotators are not paid")
        parser.add_argument("--completion-url", default="", help="in-house: where the finish page's button leads")
        parser.add_argument("--max-items-per-worker", type=int, default=0, help="items one annotator may answer (0: no cap)")
        parser.add_argument("--include-incomplete", action="store_true", help="also rooms that ended early")
        parser.add_argument("--sources", nargs="+", choices=SOURCES, default=None, help="relevance: knowledge sources")
        parser.add_argument("--max-articles", type=int, default=None)
        parser.add_argument("--max-sentences-per-article", type=int, default=None)
        parser.add_argument("--max-candidates", type=int, default=None)
        parser.add_argument("--question", default="", help="pairwise: engaging, interesting, humanlike or knowledgeable")
        parser.add_argument("--no-gold-sentence", action="store_true", help="relevance: leave out the wizard's checked sentence")

    def handle(self, *args: Any, **opts: Any) -> None:
        candidates = {
            key: opts[key] for key in ("sources", "max_articles", "max_sentences_per_article", "max_candidates") if opts[key]
        }
        if opts["no_gold_sentence"]:
            candidates["include_gold"] = False
        try:
            job = Job.objects.filter(slug=opts["slug"]).first()
            if job is None:
                job = job_create(
                    slug=opts["slug"],
                    name=opts["name"] or opts["slug"],
                    kind=opts["kind"],
                    overlap=opts["overlap"],
                    candidates=candidates,
                    instructions=opts["instructions"],
                    gold_rate=_gold_rate(opts),
                    relevance_threshold=opts["threshold"],
                    reservation_seconds=opts["reservation_seconds"],
                    completion_code=_completion_code(opts),
                    platform=opts["platform"],
                    completion_url=_url(opts["completion_url"]),
                    max_items_per_worker=_cap(opts["max_items_per_worker"]),
                    **_outcome_codes(opts),
                    **({"question": opts["question"]} if opts["question"] else {}),
                )
            elif job.kind != opts["kind"]:
                raise CommandError(f"job {job.slug!r} labels {job.kind}, not {opts['kind']}")
            added = job_items_from_campaigns(job=job, campaigns=opts["campaigns"], include_incomplete=opts["include_incomplete"])
            controls = job_control_pairs_add(job=job, count=opts["control_pairs"]) if opts["control_pairs"] else 0
            if opts["control_onboarding"]:
                onboarding = job_control_pairs_add(job=job, count=opts["control_onboarding"], onboarding=True)
        except AnnotationError as error:
            raise CommandError(error.message) from error
        code = f"; completion code {job.completion_code}" if job.completion_code else "; no completion code"
        if opts["control_pairs"]:
            code += f"; {controls} control pair(s) added, served at gold rate {job.gold_rate:g}"
        if opts["control_onboarding"]:
            code += f"; {onboarding} onboarding control pair(s) added"
        code += f"; {job.get_platform_display()}"
        self.stdout.write(self.style.SUCCESS(f"{job.slug}: added {added} item(s), {job.items.count()} in all{code}"))


def _gold_rate(opts: dict[str, Any]) -> float:
    if opts["gold_rate"] is not None:
        return opts["gold_rate"]
    return CONTROL_GOLD_RATE if opts["control_pairs"] else 0.0


def _completion_code(opts: dict[str, Any]) -> str:
    """Crowd platforms pay on a completion code: a job gets one unless told otherwise."""
    if opts["completion_code"] and opts["no_completion_code"]:
        raise CommandError("give --completion-code or --no-completion-code, not both")
    if opts["no_completion_code"]:
        return ""
    return opts["completion_code"] or secrets.token_hex(4).upper()


def _outcome_codes(opts: dict[str, Any]) -> dict[str, Any]:
    if opts["screened_out_code"] and opts["no_screened_out_code"]:
        raise CommandError("give --screened-out-code or --no-screened-out-code, not both")
    if opts["no_screened_out_code"]:
        return {"outcome_codes": {}}
    if opts["screened_out_code"]:
        return {"outcome_codes": {str(Outcome.SCREENED_OUT): opts["screened_out_code"]}}
    return {}  # the model's default: a new random code


def _url(value: str) -> str:
    if value:
        try:
            URLValidator(schemes=["https", "http"])(value)
        except ValidationError as error:
            raise CommandError(f"--completion-url: {value!r} is not a URL") from error
    return value


def _cap(value: int) -> int:
    if value < 0:
        raise CommandError("--max-items-per-worker must be ≥ 0")
    return value
