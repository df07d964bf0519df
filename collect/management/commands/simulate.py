import asyncio

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collect.modelchat.simulation import simulate as simulate_model_chat
from collect.models import Campaign
from collect.simulation import simulate
from collect.simulation_curiosity import simulate as simulate_curiosity
from collect.simulation_duconv import simulate as simulate_duconv

SIMULATORS = {"wow": simulate, "curiosity": simulate_curiosity, "duconv": simulate_duconv, "model_chat": simulate_model_chat}


class Command(BaseCommand):
    help = "Run complete dialogues with scripted workers through the real websocket path."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("protocol", choices=sorted(SIMULATORS))
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
        try:
            rooms = self._run(options, campaign)
        except ValueError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"simulated {len(rooms)} complete dialogues in campaign {campaign.slug}")

    def _run(self, options, campaign) -> list[str]:
        return asyncio.run(
            SIMULATORS[options["protocol"]](
                campaign=campaign,
                dialogues=options["dialogues"],
                concurrency=max(1, options["concurrency"]),
                seed=options["seed"],
            )
        )
