"""Print signed in-house join links for a campaign (or, with --job, an annotation job): one per
worker id given, or --count new ids."""

from __future__ import annotations

import secrets

from django.apps import apps
from django.core.management.base import BaseCommand, CommandError, CommandParser

from collect.lifecycle.identity import ID_PATTERN
from collect.lifecycle.links import CAMPAIGN_LINKS, JOB_LINKS, signed_link
from collect.models import Campaign, Platform


class Command(BaseCommand):
    help = "Signed join links (/join/<campaign>/ or, --job, /annotate/join/<job>/ ?worker=ID&sig=HMAC), one per line: worker<TAB>link."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="campaign slug (with --job: the annotation job's slug)")
        parser.add_argument("--job", action="store_true", help="links for an annotation job, not a campaign")
        parser.add_argument("workers", nargs="*", help="worker ids (letters, digits, '-', '_', '.')")
        parser.add_argument("--count", type=int, default=0, help="also make this many links for new random ids")
        parser.add_argument("--base", default="http://127.0.0.1:8000")

    def handle(self, *args, **options) -> None:
        if options["job"]:
            # By the app registry: annotate builds on collect, and collect imports none of it.
            target, kind = apps.get_model("annotate", "Job").objects.filter(slug=options["campaign"]).first(), JOB_LINKS
        else:
            target, kind = Campaign.objects.filter(slug=options["campaign"]).first(), CAMPAIGN_LINKS
        if target is None:
            raise CommandError(f"no {'job' if options['job'] else 'campaign'} {options['campaign']!r}")
        if target.platform != Platform.INHOUSE:
            raise CommandError(f"{target.slug} runs on {target.get_platform_display()}: its workers enter from there, not by signed link")
        if options["count"] < 0:
            raise CommandError("--count must be ≥ 0")
        bad = [w for w in options["workers"] if not ID_PATTERN.match(w)]
        if bad:
            raise CommandError(f"bad worker ids (letters, digits, '-', '_', '.', ≤ 100): {', '.join(map(repr, bad))}")
        workers = [*options["workers"], *(f"w-{secrets.token_hex(5)}" for _ in range(options["count"]))]
        if not workers:
            raise CommandError("give worker ids or --count N")
        for worker in workers:
            self.stdout.write(f"{worker}\t{signed_link(base=options['base'], kind=kind, slug=target.slug, worker=worker)}")
