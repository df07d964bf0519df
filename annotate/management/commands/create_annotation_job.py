"""`manage.py create_annotation_job SLUG --kind KIND --campaign C ...`: a job over collected dialogues,
built by its kind (annotate.registry; e.g. `--kind pairwise`: pairs of model-chat conversations for
every two models). Each kind adds its own options (its JobOptions); one given for a job of another
kind is refused.

Running it again for an existing job adds the dialogues completed since (items are keyed by room/turn)
with --campaign, and sets the kind's options that may change while a job runs (its JobOptions.job_update:
e.g. a pairwise study's plan and stopping rules), which need no --campaign."""

from __future__ import annotations

import secrets
from argparse import Action, ArgumentParser
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import URLValidator

from annotate.models import Job
from annotate.registry import JobOptions, annotation_kind, annotation_kinds, kind_names
from annotate.services import AnnotationError
from annotate.services.jobs import job_create, job_items_from_campaigns
from collect.models import Outcome, Platform


class _KindArguments:
    """What a kind's `add_arguments` gets: the command's parser (or one of its groups), remembering
    the kind's options."""

    def __init__(self, parser: Any, actions: list[Action] | None = None) -> None:
        self.parser = parser
        self.actions: list[Action] = [] if actions is None else actions

    def add_argument(self, *args: Any, **kwargs: Any) -> Action:
        action = self.parser.add_argument(*args, **kwargs)
        self.actions.append(action)
        return action

    def add_argument_group(self, *args: Any, **kwargs: Any) -> _KindArguments:
        return _KindArguments(self.parser.add_argument_group(*args, **kwargs), self.actions)

    def add_mutually_exclusive_group(self, **kwargs: Any) -> _KindArguments:
        return _KindArguments(self.parser.add_mutually_exclusive_group(**kwargs), self.actions)


class Command(BaseCommand):
    help = "Create (or top up) an annotation job from collected dialogues."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--kind", choices=kind_names(), required=True)
        parser.add_argument(
            "--campaign", dest="campaigns", action="extend", nargs="+", default=[], metavar="SLUG", help="needed to create a job"
        )
        parser.add_argument("--name", default="")
        parser.add_argument("--instructions", default="")
        defaults = ", ".join(f"{kind.name} {kind.overlap}" for kind in annotation_kinds())
        parser.add_argument("--overlap", type=int, default=None, help=f"annotators per item (default: {defaults})")
        parser.add_argument("--gold-rate", type=float, default=None, help="share of served items that are gold (default 0)")
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
        # Each kind's own options, and which they are (a kind's option is refused for another kind's job).
        self.kind_actions: dict[str, list[Action]] = {}
        for kind in annotation_kinds():
            arguments = _KindArguments(parser)
            _options(kind.name).add_arguments(arguments)  # type: ignore[arg-type]
            self.kind_actions[kind.name] = arguments.actions

    def handle(self, *args: Any, **opts: Any) -> None:
        kind = opts["kind"]
        for other, actions in self.kind_actions.items():
            for action in actions:
                if other != kind and opts[action.dest] != action.default:
                    raise CommandError(f"{action.option_strings[0]} takes --kind {other}")
        options = _options(kind)
        try:
            items_options = options.items_options(opts)
            job = Job.objects.filter(slug=opts["slug"]).first()
            if job is None and not opts["campaigns"]:
                raise CommandError("--campaign is needed to create a job")
            if job is None:
                settings = {
                    "instructions": opts["instructions"],
                    "gold_rate": opts["gold_rate"] if opts["gold_rate"] is not None else 0.0,
                    "reservation_seconds": opts["reservation_seconds"],
                    "completion_code": _completion_code(opts),
                    "platform": opts["platform"],
                    "completion_url": _url(opts["completion_url"]),
                    "max_items_per_worker": _cap(opts["max_items_per_worker"]),
                    **_outcome_codes(opts),
                    **options.job_settings(opts),
                }
                job = job_create(slug=opts["slug"], name=opts["name"] or opts["slug"], kind=kind, overlap=opts["overlap"], **settings)
            elif job.kind != kind:
                raise CommandError(f"job {job.slug!r} labels {job.kind}, not {kind}")
            else:
                job = options.job_update(job, opts)
            added = 0
            if opts["campaigns"]:
                added = job_items_from_campaigns(job=job, campaigns=opts["campaigns"], include_incomplete=opts["include_incomplete"],
                                                 **items_options)
            done = options.after_items(job, opts)
        except AnnotationError as error:
            raise CommandError(error.message) from error
        code = f"; completion code {job.completion_code}" if job.completion_code else "; no completion code"
        code += done
        code += f"; {job.get_platform_display()}"
        self.stdout.write(self.style.SUCCESS(f"{job.slug}: added {added} item(s), {job.items.count()} in all{code}"))
        summary = options.summary(job)
        if summary:
            self.stdout.write(summary)


def _options(kind: str) -> JobOptions:
    declared = annotation_kind(kind)
    return declared.part("options") if declared.options else JobOptions()


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
