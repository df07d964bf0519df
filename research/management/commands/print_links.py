from django.apps import apps
from django.core.management.base import BaseCommand, CommandParser

from collect import registry
from collect.lifecycle.links import JOB_LINKS, join_link, signed_link
from collect.models import Campaign

# Each campaign gets its own two workers: a worker id is bound to the browser that first used it,
# so the same name in a second campaign, opened in a fresh private window, would be refused.
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "kim", "leo",
         "mallory", "nina", "oscar", "peggy", "quinn", "rupert", "sybil", "trent", "uma", "victor", "wendy", "xavier"]


def worker_names(count: int) -> list[str]:
    """`count` distinct worker ids: the names first, then numbered ones."""
    return [NAMES[i] if i < len(NAMES) else f"worker-{i + 1}" for i in range(count)]


class Command(BaseCommand):
    help = "Print the links to open: two workers' join links per active campaign, one annotator's per active job, and the staff pages."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--base", default="http://127.0.0.1:8000")

    def handle(self, *args, **options) -> None:
        base = options["base"].rstrip("/")
        campaigns = list(Campaign.objects.filter(is_active=True).order_by("slug"))
        jobs = list(apps.get_model("annotate", "Job").objects.filter(is_active=True).order_by("slug")) if apps.is_installed("annotate") else []
        names = iter(worker_names(2 * len(campaigns) + len(jobs)))
        self.stdout.write("\nGroundwork is starting. Open each worker link in its own browser window")
        self.stdout.write("(a private window for the second of a pair, so that each has its own session):\n")
        for campaign in campaigns:
            self.stdout.write(f"  {campaign.name}")
            for worker in (next(names), next(names)):
                self.stdout.write(f"    {worker}: {join_link(base=base, campaign_slug=campaign.slug, worker=worker)}")
            self.stdout.write(f"    dashboard: {base}/research/{campaign.slug}/dashboard/   review: {base}/research/{campaign.slug}/review/")
        if jobs:
            self.stdout.write("\n  Annotation jobs (one annotator each; `manage.py signed_links JOB --job --count N` for more):")
        for job in jobs:
            worker = next(names)
            self.stdout.write(f"  {job.name}")
            self.stdout.write(f"    {worker}: {signed_link(base=base, kind=JOB_LINKS, slug=job.slug, worker=worker)}")
            self.stdout.write(f"    report: {base}/annotate/jobs/{job.slug}/report/")
        self.stdout.write(f"\n  research:    {base}/research/  (dashboards, review and pay, signed links, exports, results)")
        self.stdout.write(f"  researchers: {base}/admin/  (create an account: .venv/bin/python manage.py createsuperuser)")
        self.stdout.write("  export:      from /research/, or for each task type's dataset:")
        for task_type in registry.task_types():
            if task_type.dataset:
                self.stdout.write(f"               .venv/bin/python manage.py export_dataset {task_type.dataset} --out export/{task_type.dataset}")
        self.stdout.write("")
