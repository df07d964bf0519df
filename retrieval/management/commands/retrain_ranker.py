"""python manage.py retrain_ranker [--heldout FILE] [--force] [--features lexical|minilm]
python manage.py retrain_ranker --rollback [VERSION|shipped]
python manage.py retrain_ranker --list"""

from __future__ import annotations

import json
from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from retrieval.training import registry
from retrieval.training.services import ranker_retrain, ranker_rollback

FAILED = ("failed", "busy")


class Command(BaseCommand):
    help = ("Retrain the learned ranker from the collected dialogues and relevance votes, and promote it if it is "
            "not worse than the live model on the held-out set; or roll back to an earlier version.")

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--heldout", type=Path, help="a WOW++ file to score this run on (default: the site's held-out "
                            "set: the file import_heldout imported, else the collection's held-out share)")
        parser.add_argument("--force", action="store_true",
                            help="train even if fewer than GROUNDWORK_RETRAIN_MIN_NEW examples arrived since the live version")
        parser.add_argument("--features", choices=["lexical", "minilm"], help="default: those of the live model")
        parser.add_argument("--max-dialogues", type=int, help="use only the first N collected dialogues")
        parser.add_argument("--rollback", nargs="?", const="", metavar="VERSION",
                            help="make VERSION live ('shipped': the shipped model); without one, the version promoted before the live one")
        parser.add_argument("--list", action="store_true", help="print the versions and the live one")
        parser.add_argument("--json", action="store_true", help="print the outcome as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["list"]:
            self.list_versions()
            return
        if options["max_dialogues"] is not None and options["max_dialogues"] < 1:
            raise CommandError("--max-dialogues must be at least 1")
        if options["rollback"] is not None:
            event = ranker_rollback(version=options["rollback"] or None)
        else:
            event = ranker_retrain(heldout=options["heldout"], force=options["force"], features=options["features"],
                                   max_dialogues=options["max_dialogues"])
        if options["json"]:
            self.stdout.write(json.dumps(event))
        else:
            self.stdout.write(f"{event['outcome']}: {event['reason']}")
        if event["outcome"] in FAILED:
            raise CommandError(event["reason"])

    def list_versions(self) -> None:
        manifest = registry.manifest_read()
        for entry in manifest["versions"]:
            scores = entry["scores"]
            live = "*" if entry["version"] == manifest["current"] else " "
            self.stdout.write(f"{live} {entry['version']} {entry['created_at']} {entry['features']} "
                              f"contexts={entry['training']['contexts']} MRR@1={scores['MRR@1']:.3f} "
                              f"NDCG@10={scores['NDCG@10']:.3f} {'promoted' if entry['promoted'] else 'kept out'}")
        if manifest["current"] is None:
            self.stdout.write("* shipped (no retrained version is live)")
