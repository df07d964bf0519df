"""Print signed in-house join links for a campaign: one per worker id given, or --count new ids."""

from __future__ import annotations

import secrets

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collect.lifecycle.identity import ID_PATTERN
from collect.lifecycle.links import join_link
from collect.models import Campaign


class Command(BaseCommand):
    help = "Signed join links (/join/<campaign>/?worker=ID&sig=HMAC), one per line: worker<TAB>link."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="campaign slug")
        parser.add_argument("workers", nargs="*", help="worker ids (letters, digits, '-', '_', '.')")
        parser.add_argument("--count", type=int, default=0, help="also make this many links for new random ids")
        parser.add_argument("--base", default="http://127.0.0.1:8000")

    def handle(self, *args, **options) -> None:
        campaign = Campaign.objects.filter(slug=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign {options['campaign']!r}")
        if options["count"] < 0:
            raise CommandError("--count must be ≥ 0")
        bad = [w for w in options["workers"] if not ID_PATTERN.match(w)]
        if bad:
            raise CommandError(f"bad worker ids (letters, digits, '-', '_', '.', ≤ 100): {', '.join(map(repr, bad))}")
        workers = [*options["workers"], *(f"w-{secrets.token_hex(5)}" for _ in range(options["count"]))]
        if not workers:
            raise CommandError("give worker ids or --count N")
        for worker in workers:
            self.stdout.write(f"{worker}\t{join_link(base=options['base'], campaign_slug=campaign.slug, worker=worker)}")
