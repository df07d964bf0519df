from django.apps import AppConfig

from annotate import registry
from annotate.kinds.faithdial import NAME
from collect import registry as collect_registry

K = "annotate.kinds.faithdial"


class FaithDialConfig(AppConfig):
    name = K
    label = NAME
    verbose_name = "FaithDial (label and rewrite wizard responses)"

    def ready(self) -> None:
        registry.kind_register(registry.AnnotationKind(
            name=NAME,
            label="FaithDial (faithfulness labels and rewrites)",
            overlap=2,
            screen="faithdial/screen.html",
            script="faithdial/screen.js",
            item_view=f"{K}.screen.item_view",
            answer_fields=f"{K}.screen.ANSWER_FIELDS",
            answer=f"{K}.screen.answer_clean",
            score=f"{K}.screen.score",
            screen_context=f"{K}.screen.screen_context",
            from_campaigns=f"{K}.items.items_from_campaigns",
            report=f"{K}.report.report_section",
            report_template="faithdial/research/report.html",
            report_lines=f"{K}.report.report_lines",
            charts=f"{K}.report.charts",
            export=f"{K}.report.job_export",
            demo=f"{K}.demo.demo_ensure",
        ))
        # FaithDial's released JSON: read as a job to label (or its labels as gold), written from
        # any FaithDial job with the annotators' labels and rewrites (`--job SLUG`).
        collect_registry.dataset_register(collect_registry.Dataset(
            name=NAME, label="FaithDial (McGill-NLP/FaithDial JSON: history, knowledge, responses, BEGIN, VRM)",
            export=f"{K}.exporter.export", import_file=f"{K}.importer.import_file",
        ))
        collect_registry.simulation_register(collect_registry.Simulation(
            name=NAME, label="FaithDial: scripted annotators", run=f"{K}.simulation.run",
        ))
