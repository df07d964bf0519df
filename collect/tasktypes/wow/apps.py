from django.apps import AppConfig

from collect import registry
from collect.tasktypes.wow import NAME
from retrieval.training.examples import ExampleSource, example_source_register


class WowConfig(AppConfig):
    name = "collect.tasktypes.wow"
    label = "wow"
    verbose_name = "Wizard of Wikipedia"

    def ready(self) -> None:
        registry.task_type_register(registry.TaskType(
            name=NAME,
            label="Wizard of Wikipedia",
            protocol="collect.tasktypes.wow.protocol.WOW",
            dataset="wow",
            simulate="collect.tasktypes.wow.simulation.simulate",
            demo="collect.tasktypes.wow.demo.demo_ensure",
        ))
        registry.dataset_register(registry.Dataset(
            name="wow", label="Wizard of Wikipedia (ParlAI's five JSON files)",
            export="collect.tasktypes.wow.exporter.export", authenticity=True,
            hf="collect.tasktypes.wow.hf.hf", conformance="collect.tasktypes.wow.conformance.conformance",
        ))
        # The ranker learns from each wizard turn with a checked sentence (retrieval knows no chat).
        example_source_register(ExampleSource(
            name="wizard_turns", examples="collect.tasktypes.wow.training.wow_examples", per_dialogue=True,
        ))
        # WoW personas with their linked topics, for a campaign (--campaign); topics must be articles.
        registry.dataset_register(registry.Dataset(
            name="personas", label="WoW personas with their linked topics",
            import_file="collect.tasktypes.wow.personas.import_file",
        ))
