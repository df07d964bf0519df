from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from collect.curiosity.demo import curiosity_demo_ensure
from collect.demo import demo_campaign_ensure
from collect.demo_jobs import demo_jobs_ensure, people_pairwise_ensure
from collect.duconv.demo import duconv_demo_ensure, duconv_zh_demo_ensure
from collect.modelchat.demo import modelchat_demo_ensure, modelchat_duconv_demo_ensure
from collect.modelchat.demo_local import smollm2_ensure
from collect.modelchat.gguf_convert import smollm2_gguf
from retrieval.models import KnowledgeSource

DEMO_SOURCE = "wiki-demo"


class Command(BaseCommand):
    help = "Load the demo knowledge (Wikipedia lead paragraphs), build its index and create the demo campaign."

    def handle(self, *args, **options) -> None:
        source = KnowledgeSource.objects.filter(slug=DEMO_SOURCE).first()
        if source is None or not source.articles.exists():
            call_command("import_knowledge", "demo", source=DEMO_SOURCE, name="Wikipedia vital articles (demo)")
            source = KnowledgeSource.objects.get(slug=DEMO_SOURCE)
        if not (settings.INDEX_DIR / DEMO_SOURCE / "meta.json").exists():
            call_command("build_index", source=DEMO_SOURCE)
        campaign = demo_campaign_ensure(source=source)
        local_model = smollm2_ensure(say=self.stdout.write)
        modelchat_demo_ensure(source=source, local_model=local_model)
        self.stdout.write(people_pairwise_ensure())
        self.stdout.write(f"demo ready: {source.articles.count()} articles in '{source.slug}', campaign '{campaign.slug}'")
        duconv = duconv_demo_ensure()
        self.stdout.write(f"DuConv demo ready: {duconv.knowledge_source.triples.count()} triples, campaign '{duconv.slug}'")
        duconv_chat = modelchat_duconv_demo_ensure(source=duconv.knowledge_source)
        self.stdout.write(f"DuConv model-chat demo ready: campaign '{duconv_chat.slug}'")
        duconv_zh = duconv_zh_demo_ensure()
        self.stdout.write(f"DuConv Chinese demo ready: {duconv_zh.knowledge_source.triples.count()} triples, campaign '{duconv_zh.slug}'")
        duconv_zh_chat = modelchat_duconv_demo_ensure(source=duconv_zh.knowledge_source, chinese=True)
        self.stdout.write(f"DuConv Chinese model-chat demo ready: campaign '{duconv_zh_chat.slug}'")
        curiosity = curiosity_demo_ensure(wiki=source)
        topics = len(curiosity.protocol_config["topics"])
        self.stdout.write(f"Curiosity demo ready: {topics} topics in '{curiosity.knowledge_source.slug}', campaign '{curiosity.slug}'")
        # Sample dialogues only from a model whose file is here (one registered before may have gone).
        judged = local_model if local_model is not None and smollm2_gguf() is not None else None
        for line in demo_jobs_ensure(local_model=judged):
            self.stdout.write(line)
