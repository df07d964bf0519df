from django.apps import AppConfig

from annotate import registry
from annotate.kinds.dialog_acts import NAME
from collect import registry as collect_registry
from collect.exporters.labels import DIALOG_ACTS, message_labels_register

K = "annotate.kinds.dialog_acts"


class DialogActsConfig(AppConfig):
    name = K
    label = NAME
    verbose_name = "Dialog acts (Curiosity)"

    def ready(self) -> None:
        registry.kind_register(registry.AnnotationKind(
            name=NAME,
            label="Dialog acts (Curiosity)",
            overlap=2,
            screen="dialog_acts/screen.html",
            script="dialog_acts/screen.js",
            item_view=f"{K}.screen.item_view",
            answer_fields=f"{K}.screen.ANSWER_FIELDS",
            answer=f"{K}.screen.answer_clean",
            score=f"{K}.screen.score",
            screen_context=f"{K}.screen.screen_context",
            from_campaigns=f"{K}.items.items_from_campaigns",
            report=f"{K}.report.report_section",
            report_template="dialog_acts/research/report.html",
            report_lines=f"{K}.report.report_lines",
            charts=f"{K}.report.charts",
            export=f"{K}.report.job_export",
            demo=f"{K}.demo.demo_ensure",
        ))
        # Curiosity dialogs to label with dialog acts (or, with --role gold, their acts as known
        # answers); exported again with the acts the annotators gave (`--job SLUG`).
        collect_registry.dataset_register(collect_registry.Dataset(
            name="curiosity-acts", label="Curiosity dialogs to label with dialog acts",
            export=f"{K}.exporter.export", import_file=f"{K}.importer.import_file",
        ))
        # Imported here: the labels read models, which Django loads after every apps.py.
        from annotate.kinds.dialog_acts.labels import dialog_acts_for

        # The Curiosity export's `dialog_acts` are the annotators' majority labels.
        message_labels_register(kind=DIALOG_ACTS, provider=dialog_acts_for)
