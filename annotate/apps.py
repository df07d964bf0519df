from django.apps import AppConfig


class AnnotateConfig(AppConfig):
    name = "annotate"
    verbose_name = "Annotation"

    def ready(self) -> None:
        from annotate.exporters.pairwise import FILE as PAIRS_FILE, write_pair_judgments
        from annotate.selectors.labels import dialog_acts_for
        from collect.exporters.labels import DIALOG_ACTS, companion_register, message_labels_register

        # The Curiosity export's `dialog_acts` are the annotators' majority labels.
        message_labels_register(kind=DIALOG_ACTS, provider=dialog_acts_for)
        # The model-chat export carries the pairwise judgments of its campaigns in a file beside.
        companion_register(
            dataset="modelchat",
            writer=lambda out_dir, campaigns: (PAIRS_FILE, write_pair_judgments(out_dir, campaigns=campaigns)),
        )
