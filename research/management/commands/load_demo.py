"""`manage.py load_demo`: the demo `make run` serves, once: the demo knowledge (Wikipedia lead
paragraphs) and its index, each task type's demo campaigns (collect.registry), and the demo
annotation jobs over their sample dialogues. Run again, it only adds what is missing."""

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from annotate.demo_jobs import annotation_demo_ensure
from collect import registry
from retrieval.models import KnowledgeSource

DEMO_SOURCE = "wiki-demo"


class Command(BaseCommand):
    help = "Load the demo knowledge (Wikipedia lead paragraphs), build its index and create the demo campaigns and jobs."

    def handle(self, *args, **options) -> None:
        source = KnowledgeSource.objects.filter(slug=DEMO_SOURCE).first()
        if source is None or not source.articles.exists():
            call_command("import_knowledge", "demo", source=DEMO_SOURCE, name="Wikipedia vital articles (demo)")
            source = KnowledgeSource.objects.get(slug=DEMO_SOURCE)
        if not (settings.INDEX_DIR / DEMO_SOURCE / "meta.json").exists():
            call_command("build_index", source=DEMO_SOURCE)
        for task_type in registry.task_types():
            if task_type.demo:
                task_type.part("demo")(wiki=source, say=self.stdout.write)
        annotation_demo_ensure(say=self.stdout.write)
