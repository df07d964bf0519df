from django.core.management.base import BaseCommand, CommandParser

from collect.lifecycle.links import join_link
from collect.models import Campaign


class Command(BaseCommand):
    help = "Print the links to open: two workers' join links per active campaign, and the admin."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--base", default="http://127.0.0.1:8000")

    def handle(self, *args, **options) -> None:
        base = options["base"].rstrip("/")
        self.stdout.write("\nGroundwork is starting. Open each worker link in its own browser window")
        self.stdout.write("(use a private window for the second, so that each has its own session):\n")
        for campaign in Campaign.objects.filter(is_active=True).order_by("slug"):
            self.stdout.write(f"  {campaign.name}")
            for worker in ("alice", "bob"):
                self.stdout.write(f"    {worker}: {join_link(base=base, campaign_slug=campaign.slug, worker=worker)}")
            self.stdout.write(f"    dashboard: {base}/research/{campaign.slug}/dashboard/   review: {base}/research/{campaign.slug}/review/")
        self.stdout.write(f"\n  research:    {base}/research/  (dashboards, review and pay, signed links)")
        self.stdout.write(f"  researchers: {base}/admin/  (create an account: .venv/bin/python manage.py createsuperuser)")
        self.stdout.write("  export:      .venv/bin/python manage.py export_dataset wow --out export/wow")
        self.stdout.write("  DuConv:      .venv/bin/python manage.py export_dataset duconv --out export/duconv  (docs/duconv.md)\n")
