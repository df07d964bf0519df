from pathlib import Path

from django.apps import AppConfig

from annotate import registry
from annotate.kinds.pairwise import NAME
from annotate.kinds.pairwise.questions import PairwiseQuestion
from collect import registry as collect_registry
from collect.exporters.labels import companion_register
from collect.tasktypes.modelchat import NAME as MODELCHAT_NAME

K = "annotate.kinds.pairwise"


class PairwiseConfig(AppConfig):
    name = K
    label = NAME
    verbose_name = "Pairwise comparison (ACUTE-Eval)"

    def ready(self) -> None:
        registry.kind_register(registry.AnnotationKind(
            name=NAME,
            label="Pairwise comparison of two conversations (ACUTE-Eval)",
            overlap=3,
            screen="pairwise/screen.html",
            script="pairwise/screen.js",
            item_view=f"{K}.screen.item_view",
            answer_fields=f"{K}.screen.ANSWER_FIELDS",
            answer=f"{K}.screen.answer_clean",
            score=f"{K}.screen.score",
            screen_context=f"{K}.screen.screen_context",
            from_campaigns=f"{K}.items.items_from_campaigns",
            report=f"{K}.report.report_section",
            report_template="pairwise/research/report.html",
            report_lines=f"{K}.report.report_lines",
            charts=f"{K}.report.charts",
            questions=tuple(PairwiseQuestion.values),
            options=f"{K}.options.OPTIONS",
            export=f"{K}.report.job_export",
            demo=f"{K}.demo.demo_ensure",
            urls=f"{K}.urls.urlpatterns",
            draw=f"{K}.sampling.item_draw",
        ))
        # Conversations with a model name each: a pairwise job (or known-answer pairs with --role).
        collect_registry.dataset_register(collect_registry.Dataset(
            name="pairwise", label="Conversations with a model name each (ACUTE-Eval pairs)",
            import_file=f"{K}.importer.import_file",
        ))
        # A model-chat campaign's results page: its ratings and its pairwise jobs' judgments.
        collect_registry.campaign_page_register(collect_registry.CampaignPage(
            label="Evaluation results", url_name="annotate:results", task_types=(MODELCHAT_NAME,),
        ))
        # The model-chat export carries the pairwise judgments of its campaigns in a file beside.
        companion_register(dataset=collect_registry.task_type(MODELCHAT_NAME).dataset, writer=_companion_write)
        # ... and its Hugging Face export carries them as a config of their own.
        collect_registry.hf_companion_register(
            dataset=collect_registry.task_type(MODELCHAT_NAME).dataset, hook=f"{K}.hf.judgments_hf",
        )


def _companion_write(out_dir: Path, campaigns: list[str]) -> tuple[str, int]:
    # Imported when an export runs: the exporter's statistics import scipy, a second of every
    # process's start (daphne, Celery, manage.py) that most of them never use.
    from annotate.kinds.pairwise.exporter import companion_write

    return companion_write(out_dir, campaigns)
