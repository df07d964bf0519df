import asyncio

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collect.models import Campaign
from collect.simulation import simulate


class Command(BaseCommand):
    help = "Run complete dialogues with scripted workers through the real websocket path."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("protocol", choices=["wow"])
        parser.add_argument("--dialogues", type=int, default=1)
        parser.add_argument("--campaign", help="campaign slug (default: the only active campaign of the protocol)")
        parser.add_argument("--concurrency", type=int, default=4)
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, **options) -> None:
        if options["dialogues"] < 1:
            raise CommandError("--dialogues must be at least 1")
        campaigns = Campaign.objects.filter(protocol=options["protocol"], is_active=True)
        if options["campaign"]:
            campaigns = campaigns.filter(slug=options["campaign"])
        if campaigns.count() != 1:
            found = ", ".join(campaigns.values_list("slug", flat=True)) or "none"
            raise CommandError(f"name exactly one active {options['protocol']} campaign with --campaign (found: {found})")
        campaign = campaigns.get()
        rooms = asyncio.run(
            simulate(
                campaign=campaign,
                dialogues=options["dialogues"],
                concurrency=max(1, options["concurrency"]),
                seed=options["seed"],
            )
        )
        self.stdout.write(f"simulated {len(rooms)} complete dialogues in campaign {campaign.slug}")
