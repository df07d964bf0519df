"""`manage.py simulate <task type> --dialogues N`: scripted workers run whole dialogues through the
real socket path, each task type's own script (collect.registry's `simulate`). The other names it
takes are registered simulations (collect.registry.Simulation, e.g. an annotation kind's scripted
annotators), which get --dialogues, --campaign and --seed."""

import asyncio

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collect import registry
from collect.models import Campaign


class Command(BaseCommand):
    help = "Run complete dialogues with scripted workers through the real websocket path."

    def add_arguments(self, parser: CommandParser) -> None:
        simulated = [name for name in registry.task_type_names(aliases=True) if registry.task_type(name).simulate]
        simulated += sorted(registry.simulations())
        parser.add_argument("protocol", metavar="task_type", choices=simulated, help=f"one of: {', '.join(simulated)}")
        parser.add_argument("--dialogues", type=int, default=1)
        parser.add_argument("--campaign", help="campaign slug (default: the only active campaign of the protocol)")
        parser.add_argument("--concurrency", type=int, default=4)
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args, **options) -> None:
        if options["dialogues"] < 1:
            raise CommandError("--dialogues must be at least 1")
        other = registry.simulations().get(options["protocol"])
        if other is not None:
            try:
                line = other.runner()(dialogues=options["dialogues"], campaign=options["campaign"] or "", seed=options["seed"])
            except ValueError as error:
                raise CommandError(str(error)) from error
            self.stdout.write(line)
            return
        task_type = registry.task_type(options["protocol"])
        campaigns = Campaign.objects.filter(protocol=task_type.name, is_active=True)
        if options["campaign"]:
            campaigns = campaigns.filter(slug=options["campaign"])
        if campaigns.count() != 1:
            found = ", ".join(campaigns.values_list("slug", flat=True)) or "none"
            raise CommandError(f"name exactly one active {options['protocol']} campaign with --campaign (found: {found})")
        campaign = campaigns.get()
        try:
            rooms = self._run(options, campaign, task_type.part("simulate"))
        except ValueError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"simulated {len(rooms)} complete dialogues in campaign {campaign.slug}")

    def _run(self, options, campaign, simulate) -> list[str]:
        return asyncio.run(
            simulate(
                campaign=campaign,
                dialogues=options["dialogues"],
                concurrency=max(1, options["concurrency"]),
                seed=options["seed"],
            )
        )
