"""`manage.py topical_chat_prepare --campaign SLUG` (or `--source SLUG`): entity-link a knowledge
source for Topical-Chat's reading sets, whose entities and fun facts come from the links between
its articles (collect/tasktypes/topical_chat/reading_sets.py), and, for a campaign, list what still
keeps its topics from full reading sets. Seconds for ten thousand articles; run it once per source,
before the campaign goes live (`simulate topical_chat` runs it too)."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from collect.models import Campaign
from collect.tasktypes.topical_chat import NAME
from collect.tasktypes.topical_chat.protocol import campaign_prepare
from retrieval.entities import link_source
from retrieval.models import KnowledgeSource


class Command(BaseCommand):
    help = "Entity-link a knowledge source for Topical-Chat reading sets; with --campaign, list what its topics lack."

    def add_arguments(self, parser: ArgumentParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--campaign", metavar="SLUG", help="a Topical-Chat campaign: link its source, then check its topics")
        which.add_argument("--source", metavar="SLUG", help="a knowledge source to link")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["source"]:
            source = KnowledgeSource.objects.filter(slug=options["source"]).first()
            if source is None:
                raise CommandError(f"no knowledge source {options['source']!r}")
            created = link_source(source_id=source.pk)
            self.stdout.write(f"linked {source.slug}: {created} new mentions")
            return
        campaign = Campaign.objects.filter(slug=options["campaign"], protocol=NAME).first()
        if campaign is None:
            raise CommandError(f"no Topical-Chat campaign {options['campaign']!r}")
        problems = campaign_prepare(campaign)
        if problems:
            raise CommandError("\n".join([f"campaign {campaign.slug!r} cannot fill every reading set:", *problems]))
        self.stdout.write(self.style.SUCCESS(f"campaign {campaign.slug}: every topic gives full reading sets"))
