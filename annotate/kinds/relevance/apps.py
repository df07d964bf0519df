from django.apps import AppConfig

from annotate import registry
from annotate.kinds.relevance import NAME
from collect import registry as collect_registry
from retrieval.training.examples import ExampleSource, example_source_register

K = "annotate.kinds.relevance"


class RelevanceConfig(AppConfig):
    name = K
    label = NAME
    verbose_name = "Knowledge relevance (WOW++)"

    def ready(self) -> None:
        registry.kind_register(registry.AnnotationKind(
            name=NAME,
            label="Knowledge relevance (WOW++)",
            overlap=10,
            screen="relevance/screen.html",
            script="relevance/screen.js",
            item_view=f"{K}.screen.item_view",
            answer_fields=f"{K}.screen.ANSWER_FIELDS",
            answer=f"{K}.screen.answer_clean",
            score=f"{K}.screen.score",
            from_campaigns=f"{K}.items.items_from_campaigns",
            report=f"{K}.report.report_section",
            report_template="relevance/research/report.html",
            report_lines=f"{K}.report.report_lines",
            charts=f"{K}.report.charts",
            candidates=f"{K}.candidates.candidate_options",
            options=f"{K}.options.OPTIONS",
            export=f"{K}.report.job_export",
            demo=f"{K}.demo.demo_ensure",
        ))
        # An annotated WOW++ file: a finished relevance job (or gold / qualification items with --role).
        collect_registry.dataset_register(collect_registry.Dataset(
            name="wowpp", label="WOW++ knowledge relevance",
            export=f"{K}.exporter.export", import_file=f"{K}.importer.import_file",
            hf=f"{K}.hf.hf", collection=f"{K}.hf.collection",
        ))
        # Wizard of Wikipedia dialogues: one relevance item per wizard turn, to be labeled.
        collect_registry.dataset_register(collect_registry.Dataset(
            name="wow-relevance", label="Wizard of Wikipedia dialogues to judge for relevance",
            import_file=f"{K}.importer_wow.import_file",
        ))
        # The ranker learns from the crowd's relevance votes too (retrieval knows no annotation).
        example_source_register(ExampleSource(name="relevance_items", examples=f"{K}.training.relevance_examples"))
