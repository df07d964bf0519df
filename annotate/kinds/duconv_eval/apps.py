from django.apps import AppConfig

from annotate import registry
from annotate.kinds.duconv_eval import NAME

K = "annotate.kinds.duconv_eval"


class DuconvEvalConfig(AppConfig):
    name = K
    label = NAME
    verbose_name = "DuConv human evaluation"

    def ready(self) -> None:
        registry.kind_register(registry.AnnotationKind(
            name=NAME,
            label="DuConv human evaluation (coherence, goal completion)",
            overlap=3,
            screen="duconv_eval/screen.html",
            script="duconv_eval/screen.js",
            item_view=f"{K}.screen.item_view",
            answer_fields=f"{K}.screen.ANSWER_FIELDS",
            answer=f"{K}.screen.answer_clean",
            score=f"{K}.screen.score",
            screen_context=f"{K}.screen.screen_context",
            from_campaigns=f"{K}.items.items_from_campaigns",
            report=f"{K}.report.report_section",
            report_template="duconv_eval/research/report.html",
            charts=f"{K}.report.charts",
            demo=f"{K}.demo.demo_ensure",
        ))
