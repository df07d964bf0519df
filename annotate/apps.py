from django.apps import AppConfig


class AnnotateConfig(AppConfig):
    """Annotation's core: jobs, items, assignment, answers, agreement, reports. Each kind of job is
    an app of its own under annotate/kinds/ that registers itself (annotate.registry)."""

    name = "annotate"
    verbose_name = "Annotation"

    def ready(self) -> None:
        from collect import registry

        # Dataset cards (collect/exporters/hf.py) report the exported campaigns' annotation jobs.
        registry.card_section_register(_card_annotation_lines)


def _card_annotation_lines(campaigns: tuple[str, ...]) -> list[str]:
    from annotate.selectors.card import card_annotation_lines  # models are loaded by the time a card is written

    return card_annotation_lines(campaigns)
